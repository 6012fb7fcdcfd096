//! `interpane-wasm-names <wasm> <glue module name> <glue.js> <glue.d.ts>`: gives the wasm's imports from the glue
//! module and its exports short names, rewriting the three files in place (scripts/build-pkg.sh runs it between
//! wasm-bindgen and the bundler). See the library's docs for what is checked.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [wasm_path, glue_module, glue_path, types_path] = args.as_slice() else {
        eprintln!("usage: interpane-wasm-names <wasm> <glue module name> <glue.js> <glue.d.ts>");
        return ExitCode::from(2);
    };
    let read = |path: &str| std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"));
    let result = (|| -> Result<usize, String> {
        let wasm = read(wasm_path)?;
        let glue = String::from_utf8(read(glue_path)?).map_err(|e| format!("{glue_path}: {e}"))?;
        let types = String::from_utf8(read(types_path)?).map_err(|e| format!("{types_path}: {e}"))?;
        let renamed = interpane_wasm_names::rename(&wasm, glue_module, &glue, &types).map_err(|e| e.to_string())?;
        let write =
            |path: &str, bytes: &[u8]| std::fs::write(path, bytes).map_err(|e| format!("cannot write {path}: {e}"));
        write(wasm_path, &renamed.wasm)?;
        write(glue_path, renamed.glue.as_bytes())?;
        write(types_path, renamed.types.as_bytes())?;
        Ok(renamed.names.len())
    })();
    match result {
        Ok(count) => {
            println!("{count} imports and exports renamed");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("interpane-wasm-names: {message}");
            ExitCode::FAILURE
        }
    }
}
