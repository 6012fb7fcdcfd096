#!/usr/bin/env python3
"""The metadata and tarball checks of scripts/check-publish.sh (which see).

Usage: check_publish.py <lists dir> <package.json>
The lists dir holds metadata.json (`cargo metadata --no-deps`), <crate>.files (`cargo package --list`) and
npm.files (the npm tarball's paths). Prints each problem and exits 1 when there is any.
"""

import json
import pathlib
import re
import sys

PUBLISHED = ("interpane-policy", "interpane")
NPM_NAME = "interpane"
# What crates.io shows on a crate's page and uses to find it; `documentation` stands in for the repository the
# project does not have yet.
CRATE_FIELDS = ("description", "license", "readme", "documentation", "rust_version", "keywords", "categories")
# crates.io: at most five keywords, each ASCII, starting with a letter, at most 20 characters.
KEYWORD = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,19}$")
# Never in a crate: the npm package's sources and output, build output, dependencies.
NOT_IN_A_CRATE = re.compile(r"^(npm|pkg|target|node_modules|fuzz)/")
NPM_FIELDS = ("name", "version", "description", "license", "keywords", "type", "exports", "types", "files")
WASM_MODULE = re.compile(r'module\s*=\s*"/([^"]+)"')


def crate_problems(package, files, root):
    name = package["name"]
    problems = [f"{name}: no {field}" for field in CRATE_FIELDS if not package.get(field)]
    keywords = package.get("keywords") or []
    if len(keywords) > 5:
        problems.append(f"{name}: {len(keywords)} keywords, crates.io takes at most 5")
    problems += [f"{name}: keyword {k!r} is not one crates.io takes" for k in keywords if not KEYWORD.match(k)]
    needed = {"Cargo.toml", "src/lib.rs", "LICENSE-MIT", "LICENSE-APACHE", package.get("readme") or "README.md"}
    # Every JS module the bridge imports through wasm-bindgen is read from the crate's folder when it is built.
    for source in (root / "src").rglob("*.rs"):
        needed.update(WASM_MODULE.findall(source.read_text()))
    problems += [f"{name}: {path} is not in the crate's tarball" for path in sorted(needed - set(files))]
    problems += [f"{name}: {path} must not be in the crate's tarball" for path in files if NOT_IN_A_CRATE.match(path)]
    for dep in package["dependencies"]:
        if dep.get("path") and dep["kind"] != "dev" and dep["req"] == "*":
            problems.append(f"{name}: the path dependency {dep['name']} has no version, crates.io needs one")
    return problems


def npm_problems(manifest, files, version):
    problems = [f"npm: package.json has no {field}" for field in NPM_FIELDS if not manifest.get(field)]
    if manifest.get("name") != NPM_NAME:
        problems.append(f"npm: the package is named {manifest.get('name')!r}, not {NPM_NAME!r}")
    if manifest.get("version") != version:
        problems.append(f"npm: version {manifest.get('version')} is not the crates' {version}")
    shipped = set(files)
    for needed in ["package.json", "README.md", *manifest.get("files", [])]:
        if needed not in shipped:
            problems.append(f"npm: {needed} is not in the tarball")
    targets = [manifest.get("types"), manifest.get("main")]
    for entry in (manifest.get("exports") or {}).values():
        targets += entry.values() if isinstance(entry, dict) else [entry]
    for target in filter(None, targets):
        if target.removeprefix("./") not in shipped:
            problems.append(f"npm: {target} (named in package.json) is not in the tarball")
    listed = set(manifest.get("files", [])) | {"package.json", "README.md"}
    problems += [f"npm: {path} is in the tarball but not in package.json's files" for path in sorted(shipped - listed)]
    return problems


def main():
    lists, manifest_path = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    metadata = json.loads((lists / "metadata.json").read_text())
    members = {p["id"] for p in metadata["packages"]} & set(metadata["workspace_members"])
    packages = {p["name"]: p for p in metadata["packages"] if p["id"] in members}
    problems = []
    for name, package in sorted(packages.items()):
        # cargo metadata: `publish` is null when any registry may take the crate, [] for `publish = false`.
        publishable = package.get("publish") is None
        if publishable != (name in PUBLISHED):
            problems.append(f"{name}: publish should be {'allowed' if name in PUBLISHED else 'false'}")
    for name in PUBLISHED:
        if name not in packages:
            problems.append(f"{name}: not a member of the workspace")
            continue
        files = (lists / f"{name}.files").read_text().split()
        root = pathlib.Path(packages[name]["manifest_path"]).parent
        problems += crate_problems(packages[name], files, root)
    version = packages.get("interpane", {}).get("version")
    manifest = json.loads(manifest_path.read_text())
    problems += npm_problems(manifest, (lists / "npm.files").read_text().split(), version)
    for problem in problems:
        print(f"not publishable: {problem}")
    if problems:
        return 1
    print(f"metadata and contents complete: {', '.join(PUBLISHED)} (crates.io), {NPM_NAME} (npm), version {version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
