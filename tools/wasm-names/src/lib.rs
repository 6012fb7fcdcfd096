//! Short names for the wasm's imports and exports, written into the wasm and into wasm-bindgen's glue together.
//!
//! wasm-bindgen names each import of its glue module after the JavaScript it calls plus a hash
//! (`__wbg_then_656f253a5dd7d8ea`) and each closure's entry point after its whole Rust signature (up to 300
//! characters). The names travel twice, once in the wasm's import and export sections and once in the glue (the keys
//! of the import object, `wasm.<export>`), and their hashes barely compress: 151 imports and 28 exports carried
//! 10,112 bytes of names, about 4.5 KB of the gzipped download (issue 24, measured on 9c7f0b5's package). Nothing
//! renames them: wasm-bindgen has no option for it, and binaryen's `--minify-imports-and-exports` renames only the
//! exports and, like any binaryen pass over rustc's output, makes the gzipped wasm larger (measured: +193 bytes).
//!
//! The rename is checked, never a guess: every import of the glue's module must be named in the glue, every export
//! the glue uses must be used as `wasm.<name>` and none may be left under its old name afterwards,  and an export the glue's
//! types declare (`readonly <name>:` of `InitOutput`) is declared there under its new name. `memory` keeps its name, which
//! a page may read off what `init()` returns.

use std::collections::BTreeMap;

use thiserror::Error;
use wasm_encoder::reencode::{Reencode, RoundtripReencoder};
use wasm_encoder::{ExportSection, ImportSection, Module, RawSection};
use wasmparser::{Parser, Payload};

/// The wasm, its glue and the glue's types after the rename.
#[derive(Debug)]
pub struct Renamed {
    /// The wasm module with short import and export names.
    pub wasm: Vec<u8>,
    /// The glue (wasm-bindgen's ES module) with the same names.
    pub glue: String,
    /// The glue's TypeScript declarations with the same export names.
    pub types: String,
    /// Old name to new name, imports and exports together.
    pub names: BTreeMap<String, String>,
}

/// Why the rename did not happen.
#[derive(Debug, Error)]
pub enum RenameError {
    /// The wasm is not a valid module.
    #[error("the wasm could not be read: {0}")]
    Read(#[from] wasmparser::BinaryReaderError),
    /// An import's type could not be written back.
    #[error("the wasm could not be written: {0}")]
    Write(String),
    /// The wasm imports nothing from the glue module: the wrong module name or not a wasm-bindgen module.
    #[error("the wasm imports nothing from {0:?}: not this glue's wasm")]
    NoGlueImports(String),
    /// The glue does not name an import of its module: the glue is not this wasm's.
    #[error("the glue never names the import {0:?}: is it wasm-bindgen's glue of this wasm?")]
    ImportNotInGlue(String),
    /// The glue uses an export in a way other than `wasm.<name>`, so renaming would break it.
    #[error("the glue uses the export {0:?} other than as `wasm.{0}`: not renamed")]
    ExportLeftInGlue(String),
    /// A short name for a wrapper is already an identifier of the glue.
    #[error("the glue already has an identifier {0:?}")]
    NameTaken(String),
    /// The types declare an export more than once (wasm-bindgen declares each export of the glue once, in
    /// `InitOutput`, and some, as `__abort_handler`, not at all).
    #[error("the glue's types declare the export {0:?} {1} times")]
    ExportNotInTypes(String, usize),
}

/// Renames every import the wasm takes from `glue_module` and every export but `memory` to short identifiers,
/// in `wasm`, `glue` and `types` together.
pub fn rename(wasm: &[u8], glue_module: &str, glue: &str, types: &str) -> Result<Renamed, RenameError> {
    let mut names = BTreeMap::new();
    let mut next = 0usize;
    let mut module = Module::new();
    let mut glue_imports = Vec::new();
    let mut exports = Vec::new();
    for payload in Parser::new(0).parse_all(wasm) {
        let payload = payload?;
        match &payload {
            Payload::ImportSection(reader) => {
                let mut section = ImportSection::new();
                for import in reader.clone().into_imports() {
                    let import = import?;
                    let ty =
                        RoundtripReencoder.entity_type(import.ty).map_err(|e| RenameError::Write(e.to_string()))?;
                    let name = if import.module == glue_module {
                        let short = short_name(&mut next);
                        names.insert(import.name.to_owned(), short.clone());
                        glue_imports.push(import.name.to_owned());
                        short
                    } else {
                        import.name.to_owned()
                    };
                    section.import(import.module, &name, ty);
                }
                module.section(&section);
            }
            Payload::ExportSection(reader) => {
                let mut section = ExportSection::new();
                for export in reader.clone() {
                    let export = export?;
                    let kind =
                        RoundtripReencoder.export_kind(export.kind).map_err(|e| RenameError::Write(e.to_string()))?;
                    let name = if export.name == "memory" {
                        export.name.to_owned()
                    } else {
                        let short = short_name(&mut next);
                        names.insert(export.name.to_owned(), short.clone());
                        exports.push(export.name.to_owned());
                        short
                    };
                    section.export(&name, kind, export.index);
                }
                module.section(&section);
            }
            other => {
                if let Some((id, range)) = other.as_section() {
                    module.section(&RawSection { id, data: &wasm[range] });
                }
            }
        }
    }
    if glue_imports.is_empty() {
        return Err(RenameError::NoGlueImports(glue_module.to_owned()));
    }

    let mut glue = glue.to_owned();
    for old in &glue_imports {
        let (renamed, count) = replace_identifier(&glue, "", old, &names[old]);
        if count == 0 {
            return Err(RenameError::ImportNotInGlue(old.clone()));
        }
        glue = renamed;
    }
    let mut types = types.to_owned();
    for old in &exports {
        let new = &names[old];
        glue = replace_identifier(&glue, "wasm.", old, new).0;
        if used_other_than_as_wasm_member(&glue, old) {
            return Err(RenameError::ExportLeftInGlue(old.clone()));
        }
        // The glue's own wrapper of a closure's entry point carries the export's name, and the bundler keeps
        // function names (`--keep-names`): a wrapper the module does not export is renamed too.
        if !exported_by_module(&glue, old) {
            let wrapper = format!("wbg_{new}");
            if replace_identifier(&glue, "", &wrapper, "").1 != 0 {
                return Err(RenameError::NameTaken(wrapper));
            }
            glue = replace_identifier(&glue, "", old, &wrapper).0;
        }
        let (renamed, count) = replace_identifier(&types, "readonly ", &format!("{old}:"), &format!("{new}:"));
        if count > 1 {
            return Err(RenameError::ExportNotInTypes(old.clone(), count));
        }
        types = renamed;
    }
    Ok(Renamed { wasm: module.finish(), glue, types, names })
}

/// The `n`th short identifier: `a`..`z`, `A`..`Z`, then two letters and more; advances `n`.
fn short_name(n: &mut usize) -> String {
    const LETTERS: &[u8; 52] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut k = *n;
    *n += 1;
    let mut name = Vec::new();
    loop {
        name.push(LETTERS[k % 52]);
        k /= 52;
        if k == 0 {
            break;
        }
        k -= 1;
    }
    name.reverse();
    String::from_utf8(name).unwrap_or_default()
}

/// Whether `glue` still reads the export `old` off an object (`x.old`, `x["old"]`) once every `wasm.old` is
/// renamed. A bare identifier of that name is the glue's own function wrapping the export (`function install`).
fn used_other_than_as_wasm_member(glue: &str, old: &str) -> bool {
    let bytes = glue.as_bytes();
    glue.match_indices(old).any(|(at, _)| {
        let end = at + old.len();
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(end).copied();
        match (before, after) {
            (Some(b'.'), after) => after.is_none_or(|b| !is_identifier_byte(b)),
            (Some(quote @ (b'"' | b'\'' | b'`')), Some(after)) => after == quote,
            _ => false,
        }
    })
}

/// Whether the glue module exports a binding named `name` (`export function install(`), which keeps its name.
fn exported_by_module(glue: &str, name: &str) -> bool {
    ["function", "class", "const", "let"].iter().any(|kind| {
        let declaration = format!("export {kind} {name}");
        glue.match_indices(&declaration)
            .any(|(at, _)| glue.as_bytes().get(at + declaration.len()).is_none_or(|&b| !is_identifier_byte(b)))
    })
}

fn is_identifier_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// Replaces each `prefix` + `old` in `text` that is not part of a longer identifier by `prefix` + `new`; returns
/// the text and how many it replaced. (`old` may end in a non-identifier character, as `name:` does.)
fn replace_identifier(text: &str, prefix: &str, old: &str, new: &str) -> (String, usize) {
    let needle = format!("{prefix}{old}");
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut count = 0;
    let mut last = 0;
    for (at, _) in text.match_indices(&needle) {
        let end = at + needle.len();
        let starts_word = at == 0 || !is_identifier_byte(bytes[at - 1]);
        let ends_word = old.ends_with(':') || bytes.get(end).is_none_or(|&b| !is_identifier_byte(b));
        let after_dot = at > 0 && bytes[at - 1] == b'.' && prefix.is_empty();
        if starts_word && ends_word && !after_dot && at >= last {
            out.push_str(&text[last..at]);
            out.push_str(prefix);
            out.push_str(new);
            last = end;
            count += 1;
        }
    }
    out.push_str(&text[last..]);
    (out, count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_encoder::{
        CodeSection, EntityType, ExportKind, Function, FunctionSection, Instruction, MemorySection, MemoryType,
        TypeSection,
    };

    /// A module importing `long_a` and `long_b` from "./glue.js" and `keep` from "./other.js", exporting `memory`
    /// and the function `entry_point_with_a_long_name`.
    fn module() -> Vec<u8> {
        let mut module = Module::new();
        let mut types = TypeSection::new();
        types.ty().function([], []);
        module.section(&types);
        let mut imports = ImportSection::new();
        imports.import("./glue.js", "__wbg_long_a_0123456789abcdef", EntityType::Function(0));
        imports.import("./other.js", "keep", EntityType::Function(0));
        imports.import("./glue.js", "__wbg_long_b_fedcba9876543210", EntityType::Function(0));
        module.section(&imports);
        let mut functions = FunctionSection::new();
        functions.function(0);
        module.section(&functions);
        let mut memory = MemorySection::new();
        memory.memory(MemoryType { minimum: 1, maximum: None, memory64: false, shared: false, page_size_log2: None });
        module.section(&memory);
        let mut exports = ExportSection::new();
        exports.export("memory", ExportKind::Memory, 0);
        exports.export("entry_point_with_a_long_name", ExportKind::Func, 3);
        module.section(&exports);
        let mut code = CodeSection::new();
        let mut body = Function::new([]);
        body.instruction(&Instruction::Call(0));
        body.instruction(&Instruction::End);
        code.function(&body);
        module.section(&code);
        module.finish()
    }

    const GLUE: &str = "const import0 = { __wbg_long_a_0123456789abcdef: function() {}, \
        __wbg_long_b_fedcba9876543210: function() { entry_point_with_a_long_name(); } };\n\
        function entry_point_with_a_long_name() { wasm.entry_point_with_a_long_name(); return wasm.memory; }";
    const TYPES: &str = "export interface InitOutput {\n  readonly memory: WebAssembly.Memory;\n  \
        readonly entry_point_with_a_long_name: () => void;\n}";

    fn imports_and_exports(wasm: &[u8]) -> (Vec<(String, String)>, Vec<String>) {
        let mut imports = Vec::new();
        let mut exports = Vec::new();
        for payload in Parser::new(0).parse_all(wasm) {
            match payload.unwrap() {
                Payload::ImportSection(reader) => {
                    for import in reader.into_imports() {
                        let import = import.unwrap();
                        imports.push((import.module.to_owned(), import.name.to_owned()));
                    }
                }
                Payload::ExportSection(reader) => {
                    exports.extend(reader.into_iter().map(|e| e.unwrap().name.to_owned()));
                }
                _ => {}
            }
        }
        (imports, exports)
    }

    #[test]
    fn glue_imports_and_exports_get_short_names_in_all_three_files() {
        let renamed = rename(&module(), "./glue.js", GLUE, TYPES).unwrap();
        wasmparser::validate(&renamed.wasm).unwrap();
        let (imports, exports) = imports_and_exports(&renamed.wasm);
        assert_eq!(
            imports,
            [("./glue.js".into(), "a".into()), ("./other.js".into(), "keep".into()), ("./glue.js".into(), "b".into())]
        );
        assert_eq!(exports, ["memory", "c"]);
        assert_eq!(
            renamed.glue,
            "const import0 = { a: function() {}, b: function() { wbg_c(); } };\n\
             function wbg_c() { wasm.c(); return wasm.memory; }"
        );
        assert!(renamed.types.contains("readonly c: () => void;"));
        assert!(renamed.types.contains("readonly memory: WebAssembly.Memory;"));
        assert_eq!(renamed.names.len(), 3);
    }

    #[test]
    fn a_function_the_module_exports_keeps_its_name() {
        let glue = GLUE.replace("function entry", "export function entry");
        let renamed = rename(&module(), "./glue.js", &glue, TYPES).unwrap();
        assert!(renamed.glue.contains("export function entry_point_with_a_long_name() { wasm.c();"));
        assert!(renamed.glue.contains("b: function() { entry_point_with_a_long_name(); }"));
    }

    #[test]
    fn a_wrapper_name_the_glue_already_has_is_refused() {
        let glue = format!("{GLUE}\nconst wbg_c = 1;");
        let error = rename(&module(), "./glue.js", &glue, TYPES).unwrap_err();
        assert!(matches!(error, RenameError::NameTaken(name) if name == "wbg_c"));
    }

    #[test]
    fn a_glue_that_does_not_name_an_import_is_refused() {
        let glue = GLUE.replace("__wbg_long_b_fedcba9876543210", "__wbg_other");
        let error = rename(&module(), "./glue.js", &glue, TYPES).unwrap_err();
        assert!(matches!(error, RenameError::ImportNotInGlue(name) if name == "__wbg_long_b_fedcba9876543210"));
    }

    #[test]
    fn an_export_used_other_than_as_a_member_of_wasm_is_refused() {
        for access in ["exports.entry_point_with_a_long_name", "wasm[\"entry_point_with_a_long_name\"]"] {
            let glue = format!("{GLUE}\nconst f = {access};");
            let error = rename(&module(), "./glue.js", &glue, TYPES).unwrap_err();
            assert!(matches!(error, RenameError::ExportLeftInGlue(name) if name == "entry_point_with_a_long_name"));
        }
    }

    #[test]
    fn types_that_declare_an_export_twice_are_refused_and_undeclared_exports_are_renamed() {
        let twice = TYPES.replace("}", "  readonly entry_point_with_a_long_name: () => void;\n}");
        let error = rename(&module(), "./glue.js", GLUE, &twice).unwrap_err();
        assert!(matches!(error, RenameError::ExportNotInTypes(_, 2)));
        let renamed = rename(&module(), "./glue.js", GLUE, "export interface InitOutput {}").unwrap();
        assert_eq!(renamed.types, "export interface InitOutput {}");
        assert!(renamed.glue.contains("wasm.c();"));
    }

    #[test]
    fn a_wasm_without_imports_from_the_glue_is_refused() {
        let error = rename(&module(), "./elsewhere.js", GLUE, TYPES).unwrap_err();
        assert!(matches!(error, RenameError::NoGlueImports(_)));
        assert!(matches!(rename(b"not wasm", "./glue.js", GLUE, TYPES), Err(RenameError::Read(_))));
    }

    #[test]
    fn short_names_are_distinct_identifiers() {
        let mut n = 0;
        let names: Vec<String> = (0..52 * 53 + 5).map(|_| short_name(&mut n)).collect();
        assert_eq!(&names[..3], ["a", "b", "c"]);
        assert_eq!(names[52], "aa");
        let distinct: std::collections::BTreeSet<_> = names.iter().collect();
        assert_eq!(distinct.len(), names.len());
        assert!(names.iter().all(|name| name.bytes().all(|b| b.is_ascii_alphabetic())));
    }

    #[test]
    fn a_name_inside_a_longer_identifier_is_left_alone() {
        let (text, count) = replace_identifier("x_abc abc abc_y .abc wasm.abc", "", "abc", "Z");
        assert_eq!(text, "x_abc Z abc_y .abc wasm.abc");
        assert_eq!(count, 1);
        let (text, count) = replace_identifier("wasm.abc wasm.abcd xwasm.abc", "wasm.", "abc", "Z");
        assert_eq!(text, "wasm.Z wasm.abcd xwasm.abc");
        assert_eq!(count, 1);
    }
}
