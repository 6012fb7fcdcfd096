#!/usr/bin/env python3
"""The publishing check must be able to fail: each case breaks one thing a registry or a user would trip on."""

import pathlib
import tempfile
import unittest

from check_publish import crate_problems, npm_problems

GOOD_CRATE = {
    "name": "interpane",
    "description": "d",
    "license": "MIT OR Apache-2.0",
    "readme": "README.md",
    "documentation": "https://docs.rs/interpane",
    "rust_version": "1.95",
    "keywords": ["webmcp", "postmessage"],
    "categories": ["wasm"],
    "dependencies": [{"name": "interpane-policy", "path": "/p", "kind": None, "req": "^0.1.0"}],
}
GOOD_FILES = ["Cargo.toml", "src/lib.rs", "LICENSE-MIT", "LICENSE-APACHE", "README.md", "js/a.js"]
GOOD_MANIFEST = {
    "name": "interpane",
    "version": "0.1.0",
    "description": "d",
    "license": "MIT OR Apache-2.0",
    "keywords": ["webmcp"],
    "type": "module",
    "types": "./index.d.ts",
    "exports": {".": {"types": "./index.d.ts", "default": "./index.js"}},
    "files": ["index.js", "index.d.ts"],
}
GOOD_NPM_FILES = ["package.json", "README.md", "index.js", "index.d.ts"]


class CrateChecks(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.dir.name)
        (self.root / "src").mkdir()
        (self.root / "src/lib.rs").write_text('#[wasm_bindgen(module = "/js/a.js")]\nextern "C" {}\n')

    def tearDown(self):
        self.dir.cleanup()

    def problems(self, crate=None, files=None):
        return crate_problems(crate or GOOD_CRATE, GOOD_FILES if files is None else files, self.root)

    def test_a_complete_crate_passes(self):
        self.assertEqual(self.problems(), [])

    def test_missing_metadata_is_named(self):
        self.assertEqual(self.problems({**GOOD_CRATE, "description": None}), ["interpane: no description"])

    def test_keywords_crates_io_refuses(self):
        crate = {**GOOD_CRATE, "keywords": ["a", "b", "c", "d", "e", "f"]}
        self.assertIn("interpane: 6 keywords, crates.io takes at most 5", self.problems(crate))
        self.assertEqual(self.problems({**GOOD_CRATE, "keywords": ["post message"]}),
                         ["interpane: keyword 'post message' is not one crates.io takes"])

    def test_a_js_module_left_out_of_the_crate(self):
        files = [f for f in GOOD_FILES if f != "js/a.js"]
        self.assertEqual(self.problems(files=files), ["interpane: js/a.js is not in the crate's tarball"])

    def test_build_output_in_the_crate(self):
        self.assertEqual(self.problems(files=GOOD_FILES + ["npm/index.js"]),
                         ["interpane: npm/index.js must not be in the crate's tarball"])

    def test_a_path_dependency_without_a_version(self):
        crate = {**GOOD_CRATE, "dependencies": [{"name": "p", "path": "/p", "kind": None, "req": "*"}]}
        self.assertEqual(self.problems(crate), ["interpane: the path dependency p has no version, crates.io needs one"])


class NpmChecks(unittest.TestCase):
    def test_a_complete_package_passes(self):
        self.assertEqual(npm_problems(GOOD_MANIFEST, GOOD_NPM_FILES, "0.1.0"), [])

    def test_the_old_name(self):
        manifest = {**GOOD_MANIFEST, "name": "@webmcp-bridge/web"}
        self.assertEqual(npm_problems(manifest, GOOD_NPM_FILES, "0.1.0"),
                         ["npm: the package is named '@webmcp-bridge/web', not 'interpane'"])

    def test_versions_that_differ(self):
        self.assertEqual(npm_problems(GOOD_MANIFEST, GOOD_NPM_FILES, "0.2.0"),
                         ["npm: version 0.1.0 is not the crates' 0.2.0"])

    def test_an_export_that_is_not_shipped(self):
        files = [f for f in GOOD_NPM_FILES if f != "index.js"]
        self.assertEqual(npm_problems(GOOD_MANIFEST, files, "0.1.0"), [
            "npm: index.js is not in the tarball",
            "npm: ./index.js (named in package.json) is not in the tarball",
        ])

    def test_a_stray_file_in_the_tarball(self):
        self.assertEqual(npm_problems(GOOD_MANIFEST, GOOD_NPM_FILES + ["snippets/x.js"], "0.1.0"),
                         ["npm: snippets/x.js is in the tarball but not in package.json's files"])


if __name__ == "__main__":
    unittest.main()
