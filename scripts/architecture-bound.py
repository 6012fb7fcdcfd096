#!/usr/bin/env python3
"""The most issue 36's architecture could take out of the package's wasm, measured (docs/performance.md).

Issue 36 moves every JSON text and every error text out of the wasm: the glue reads and writes the wire messages,
the journals' entries and logs, the calls channel and the tab probe as JavaScript values, and turns error codes
into messages. This script removes that code from a copy of the tree, step by step, and prints the gzipped wasm
after each step. It replaces each removed function's body by a value the linker cannot see through (an import,
`measure.__opaque`), so that everything downstream of it stays in the wasm as it would in the new design, and
it replaces the error texts and `Display` bodies by nothing. What it does not add is the glue that would take
over (field reads and writes in JavaScript, the error texts in JavaScript, the code at the new boundary): the
figures are a floor for the wasm, not a forecast of the download.

The copy is a measurement only: it never runs, and nothing of it is published or tested.

Usage: scripts/architecture-bound.py   (about 8 minutes; the copy and its build are kept in target/architecture-bound)
"""

import gzip
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "target" / "architecture-bound"
COPY = WORK / "tree"

# The function bodies each step removes: (file, a regular expression that finds the function's signature).
STEPS = [
    (
        "messages read by the glue (envelope decoding)",
        [
            ("policy/src/envelope/decode.rs", r"pub fn decode\("),
            ("policy/src/envelope/decode.rs", r"pub fn decode_value\("),
            ("policy/src/envelope/decode.rs", r"pub fn decode_batch\("),
        ],
    ),
    (
        "messages written by the glue (envelope encoding)",
        [
            ("policy/src/envelope/encode.rs", r"pub fn encode_into\("),
            ("policy/src/envelope/encode.rs", r"pub fn encode_batch\("),
            ("policy/src/envelope/encode.rs", r"pub fn encode_batches\("),
            ("policy/src/envelope/encode.rs", r"pub fn take_batch\("),
        ],
    ),
    (
        "journal entries written and read by the glue",
        [
            ("policy/src/journal/entry/provider.rs", r"pub fn encode\("),
            ("policy/src/journal/entry/provider.rs", r"pub fn decode\("),
            ("policy/src/journal/entry/consumer.rs", r"pub fn encode\("),
            ("policy/src/journal/entry/consumer.rs", r"pub fn decode\("),
        ],
    ),
    (
        "payload trees, the calls channel and the tab probe read by the glue",
        [
            ("policy/src/envelope/json_tree.rs", r"pub fn parse_json\("),
            ("policy/src/calls_channel.rs", r"pub fn decode\("),
            ("policy/src/calls_channel.rs", r"pub fn encode_statuses\("),
            ("policy/src/calls_channel.rs", r"pub fn encode_call\("),
            ("policy/src/tab_probe/message.rs", r"pub fn decode\("),
            ("policy/src/tab_probe/message.rs", r"pub fn encode\("),
        ],
    ),
    ("error texts formatted by the glue (no error text or Display body)", "errors"),
    (
        "storage log segments and payload checks by the glue",
        [
            ("policy/src/journal/log_store.rs", r"    fn decode\(text: &str\)"),
            ("policy/src/journal/log_store.rs", r"fn encode_parts\("),
            ("policy/src/envelope/json_text.rs", r"pub\(crate\) fn parse_within\("),
            ("policy/src/envelope/json_text.rs", r"pub\(crate\) fn parse_owned_within\("),
            ("policy/src/envelope/json_text.rs", r"pub fn from_value\("),
        ],
    ),
]

OPAQUE = """
/// Measurement only (scripts/architecture-bound.py): a value the linker cannot see through.
#[doc(hidden)]
#[allow(unsafe_code, missing_docs)]
pub fn opaque<T>(tag: u32) -> T {
    #[link(wasm_import_module = "measure")]
    unsafe extern "C" {
        fn __opaque(tag: u32) -> *mut u8;
    }
    unsafe { std::ptr::read(__opaque(tag) as *mut T) }
}
"""


def stub_functions(functions, first_tag):
    """Makes every function matched in `functions` return an opaque value instead of running its body."""
    tag = first_tag
    for file, signature in functions:
        path = COPY / file
        text = path.read_text()
        starts = [m.end() for m in re.finditer(signature, text)]
        if not starts:
            sys.exit(f"architecture-bound: no function matches {signature!r} in {file}")
        for start in reversed(starts):
            brace = text.index("{", start)
            text = text[: brace + 1] + f"\n#[allow(unreachable_code)] return crate::opaque({tag});\n" + text[brace + 1 :]
            tag += 1
        path.write_text(text)
    return tag


def error_attribute_end(text, start):
    """The index just past the `]` of the `#[error(...)]` attribute that starts at `start`."""
    at, depth, in_string = start + len("#[error("), 1, False
    while depth:
        char = text[at]
        if in_string:
            if char == "\\":
                at += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        at += 1
    return at + 1


def strip_error_texts():
    """Empties every thiserror text (but `transparent`) and every hand-written `fmt` body of both crates."""
    display = re.compile(r"(fn fmt\(&self, f: &mut (?:std::)?fmt::Formatter(?:<'_>)?\) -> (?:std::)?fmt::Result \{)")
    for path in list((COPY / "policy/src").rglob("*.rs")) + list((COPY / "bridge/src").rglob("*.rs")):
        text = path.read_text()
        parts, at = [], 0
        while (start := text.find("#[error(", at)) >= 0:
            end = error_attribute_end(text, start)
            attribute = text[start:end]
            parts.append(text[at:start])
            parts.append(attribute if "transparent" in attribute else '#[error("")]')
            at = end
        parts.append(text[at:])
        changed = display.sub(r"\1\n#[allow(unreachable_code)] return Ok(());", "".join(parts))
        path.write_text(changed)


def build_and_measure():
    """Builds the copy's package wasm as scripts/build-pkg.sh does (before the name shortening) and gzips it."""
    flags = "-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none"
    build = (
        # (-Awarnings: the stubs leave unused arguments and unreachable code behind.)
        f'source scripts/lib.sh && export RUSTFLAGS="-Awarnings" && '
        f'if [ "$(wasm_mode)" = debian ]; then export RUSTFLAGS="$RUSTFLAGS {flags}"; fi && '
        "wasm_cargo build --profile wasm-release -p interpane --lib --quiet --locked "
        "--no-default-features --features js-api,global-allocator"
    )
    subprocess.run(["bash", "-c", build], cwd=COPY, check=True)
    out = WORK / "bindgen"
    shutil.rmtree(out, ignore_errors=True)
    wasm = COPY / "target/wasm/wasm32-unknown-unknown/wasm-release/interpane.wasm"
    subprocess.run(
        ["wasm-bindgen", "--target", "web", "--remove-name-section", "--remove-producers-section",
         "--out-dir", str(out), "--out-name", "interpane", str(wasm)],
        check=True,
    )
    data = (out / "interpane_bg.wasm").read_bytes()
    return len(data), len(gzip.compress(data, compresslevel=9, mtime=0))


def texts_as_javascript():
    """The error and warning texts of both crates (thiserror's and those written with `write!` or `format!`, tests
    left out) as the smallest JavaScript that could hold them: one arrow function per text returning a template
    string, with none of the quoting or choices the Rust code makes. Its size gzipped, and how many texts."""
    texts = []
    for path in list((ROOT / "policy/src").rglob("*.rs")) + list((ROOT / "bridge/src").rglob("*.rs")):
        if path.name == "tests.rs" or "tests" in path.parts:
            continue
        text = path.read_text()
        text = text[: text.find("#[cfg(test)]")] if "#[cfg(test)]" in text else text
        texts += re.findall(r'#\[error\("((?:[^"\\]|\\.)*)"', text)
        texts += re.findall(r'(?:write!|format!)\(\s*(?:[a-z_]+,\s*)?"((?:[^"\\]|\\.)*)"', text)
    functions = []
    for number, text in enumerate(texts):
        body = re.sub(r"\{[a-z_0-9.]*(?::[^}]*)?\}", "${a}", text.replace("`", "").replace("${", "$ {"))
        functions.append(f"e{number}:(a)=>`{body}`")
    table = "export const T={" + ",".join(functions) + "};"
    return len(gzip.compress(table.encode(), compresslevel=9, mtime=0)), len(texts)


def main():
    WORK.mkdir(parents=True, exist_ok=True)
    # A copy of HEAD's tree (its build directory kept between runs).
    for entry in COPY.glob("*"):
        if entry.name != "target":
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    COPY.mkdir(exist_ok=True)
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(COPY)], input=archive, check=True)
    with open(COPY / "policy/src/lib.rs", "a") as lib:
        lib.write(OPAQUE)

    raw, gzipped = build_and_measure()
    print(f"{'step':<72} {'raw':>8} {'gzip -9':>8} {'change':>8}")
    print(f"{'the package as it is (before tools/wasm-names)':<72} {raw:>8} {gzipped:>8}")
    first, previous, tag = gzipped, gzipped, 1000
    for title, functions in STEPS:
        if functions == "errors":
            strip_error_texts()
        else:
            tag = stub_functions(functions, tag)
        raw, gzipped = build_and_measure()
        print(f"{'+ ' + title:<72} {raw:>8} {gzipped:>8} {gzipped - previous:>+8}")
        previous = gzipped
    print(f"{'all of it':<72} {'':>8} {'':>8} {previous - first:>+8}")
    size, count = texts_as_javascript()
    print(f"the {count} error and warning texts as a bare JavaScript table: {size} bytes gzip -9")


if __name__ == "__main__":
    main()
