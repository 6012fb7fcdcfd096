//! Download sizes: the JavaScript libraries minified (terser) and compressed with `gzip -9`, the bridge's wasm and
//! JavaScript glue compressed with `gzip -9`, and what the wasm is made of (twiggy's list grouped by crate).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use crate::error::BenchError;

/// One downloaded file (or several, added up), weighed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Weighed {
    /// What was weighed: paths relative to the workspace.
    pub files: Vec<String>,
    /// Bytes as served.
    pub raw_bytes: u64,
    /// Bytes after `gzip -9` of the files as served.
    pub gzip_bytes: u64,
    /// Bytes after minifying (terser, compress and mangle) and `gzip -9`; JavaScript only.
    pub min_gzip_bytes: Option<u64>,
}

impl Weighed {
    fn add(&mut self, other: Weighed) {
        self.files.extend(other.files);
        self.raw_bytes += other.raw_bytes;
        self.gzip_bytes += other.gzip_bytes;
        self.min_gzip_bytes = match (self.min_gzip_bytes, other.min_gzip_bytes) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
    }
}

/// The sizes in the report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sizes {
    /// penpal's ES module.
    pub penpal: Option<Weighed>,
    /// comlink's ES module.
    pub comlink: Option<Weighed>,
    /// The bridge's `.wasm`.
    pub bridge_wasm: Option<Weighed>,
    /// The bridge's JavaScript: the entry `index.js`, `interpane.js` and its snippets, if any.
    pub bridge_glue: Option<Weighed>,
    /// What could not be weighed, and why.
    pub problems: Vec<String>,
}

impl Sizes {
    /// The bridge's download the target counts: wasm and JS glue, each `gzip -9`.
    pub fn bridge_download(&self) -> Option<u64> {
        Some(self.bridge_wasm.as_ref()?.gzip_bytes + self.bridge_glue.as_ref()?.gzip_bytes)
    }
}

/// Where the weighed files are.
#[derive(Clone, Debug)]
pub struct SizeInputs {
    /// The workspace root (paths are reported relative to it).
    pub root: PathBuf,
    /// The bridge package folder.
    pub pkg_dir: PathBuf,
    /// `bench/node_modules`.
    pub npm_dir: PathBuf,
}

/// Weighs everything it can; what it cannot weigh is listed in [`Sizes::problems`].
pub fn measure(inputs: &SizeInputs) -> Sizes {
    let mut sizes = Sizes::default();
    let terser = inputs.npm_dir.join("terser/bin/terser");
    let weigh_js = |path: PathBuf, problems: &mut Vec<String>| -> Option<Weighed> {
        weigh(&inputs.root, &path, Some(&terser)).map_err(|e| problems.push(e.to_string())).ok()
    };
    sizes.penpal = weigh_js(inputs.npm_dir.join("penpal/dist/penpal.mjs"), &mut sizes.problems);
    sizes.comlink = weigh_js(inputs.npm_dir.join("comlink/dist/esm/comlink.mjs"), &mut sizes.problems);
    let mut glue: Option<Weighed> = None;
    for path in glue_files(&inputs.pkg_dir) {
        if let Some(weighed) = weigh_js(path, &mut sizes.problems) {
            match glue.as_mut() {
                Some(total) => total.add(weighed),
                None => glue = Some(weighed),
            }
        }
    }
    sizes.bridge_glue = glue;
    sizes.bridge_wasm = weigh(&inputs.root, &inputs.pkg_dir.join("interpane_bg.wasm"), None)
        .map_err(|e| sizes.problems.push(e.to_string()))
        .ok();
    sizes
}

/// What a page that imports the package downloads besides the wasm: the entry `index.js`; when the entry imports
/// `interpane.js` (a package whose entry does not carry the glue inside it, as build-pkg.sh makes it), that
/// module and every `.js` file under `snippets/` too.
fn glue_files(pkg_dir: &Path) -> Vec<PathBuf> {
    let entry = pkg_dir.join("index.js");
    let imports_glue = std::fs::read_to_string(&entry).is_ok_and(|text| text.contains("\"./interpane.js\""));
    if !imports_glue {
        return vec![entry];
    }
    let mut files = vec![entry, pkg_dir.join("interpane.js")];
    let mut stack = vec![pkg_dir.join("snippets")];
    let mut snippets = Vec::new();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "js") {
                snippets.push(path);
            }
        }
    }
    snippets.sort();
    files.extend(snippets);
    files
}

fn weigh(root: &Path, path: &Path, terser: Option<&Path>) -> Result<Weighed, BenchError> {
    let bytes = std::fs::read(path).map_err(|source| BenchError::Read { path: path.to_path_buf(), source })?;
    let min_gzip_bytes = match terser {
        Some(terser) => Some(gzip_len(&minify(terser, path)?)?),
        None => None,
    };
    Ok(Weighed {
        files: vec![path.strip_prefix(root).unwrap_or(path).display().to_string()],
        raw_bytes: bytes.len() as u64,
        gzip_bytes: gzip_len(&bytes)?,
        min_gzip_bytes,
    })
}

/// The bytes of `gzip -9 -n` (no name or time stamp in the header) of `input`.
pub fn gzip_len(input: &[u8]) -> Result<u64, BenchError> {
    Ok(run_tool(Command::new("gzip").args(["-9", "-n", "-c"]), input, "gzip -9")?.len() as u64)
}

/// `path` minified by terser as an ES module, with compression and name mangling.
fn minify(terser: &Path, path: &Path) -> Result<Vec<u8>, BenchError> {
    let mut command = Command::new("node");
    command.arg(terser).arg(path).args(["--module", "--compress", "--mangle"]);
    run_tool(&mut command, &[], "terser (run scripts/bench.sh, which installs it with npm ci)")
}

fn run_tool(command: &mut Command, input: &[u8], name: &str) -> Result<Vec<u8>, BenchError> {
    let tool_error = |message: String| BenchError::Tool { tool: name.to_owned(), message };
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| tool_error(e.to_string()))?;
    // The input is written from another thread while this one reads the output: a tool that writes before it
    // has read everything would otherwise wait on a full pipe forever. The thread's end closes stdin.
    let writer = child.stdin.take().map(|mut stdin| {
        let input = input.to_vec();
        std::thread::spawn(move || stdin.write_all(&input))
    });
    let output = child.wait_with_output().map_err(|e| tool_error(e.to_string()))?;
    if let Some(writer) = writer {
        match writer.join() {
            Ok(Ok(())) => {}
            Ok(Err(error)) => return Err(tool_error(format!("could not write its input: {error}"))),
            Err(_) => return Err(tool_error("the thread writing its input failed".to_owned())),
        }
    }
    if !output.status.success() {
        return Err(tool_error(format!(
            "exited with {}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(output.stdout)
}

/// Bytes of the wasm by where they come from: the crate of each item of `twiggy top -f csv` (a monomorphized
/// generic counts for the crate of its type), data segments, custom sections and the wasm-bindgen shims.
pub fn group_twiggy_csv(csv: &str) -> BTreeMap<String, u64> {
    let mut groups: BTreeMap<String, u64> = BTreeMap::new();
    for line in csv.lines().skip(1) {
        let Some((name, size)) = split_twiggy_line(line) else { continue };
        if name.starts_with("Σ [") {
            continue;
        }
        *groups.entry(group_of(&name)).or_default() += size;
    }
    groups
}

/// `name,shallow size,percent` where the name may be quoted and hold commas.
fn split_twiggy_line(line: &str) -> Option<(String, u64)> {
    let (name, rest) = if let Some(quoted) = line.strip_prefix('"') {
        let end = quoted.find("\",")?;
        (quoted[..end].replace("\"\"", "\""), &quoted[end + 2..])
    } else {
        let (name, rest) = line.split_once(',')?;
        (name.to_owned(), rest)
    };
    let size = rest.split(',').next()?.trim().parse().ok()?;
    Some((name, size))
}

/// The group of one twiggy item.
pub fn group_of(name: &str) -> String {
    if name.starts_with("data[") || name.starts_with("data segment") {
        return "data segments".to_owned();
    }
    if let Some(subsection) = name.strip_suffix(" subsection") {
        return format!("name section: {}", subsection.trim_matches('"'));
    }
    if let Some(section) = name.strip_prefix("custom section ") {
        return format!("custom section {}", section.trim_matches('\''));
    }
    if name.starts_with("__wbg_") || name.starts_with("__wbindgen") || name.starts_with("__externref") {
        return "wasm-bindgen shims".to_owned();
    }
    let path = name.trim_start_matches(['<', '&', '*', '(', ' ']).trim_start_matches("mut ").trim_start_matches("dyn ");
    let end = path.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(path.len());
    // v0 symbol names carry the crate's disambiguator: `serde_json[cd07c7327128d9d0]::de::…`.
    let after = &path[end..];
    let after = match after.strip_prefix('[').and_then(|rest| rest.split_once(']')) {
        Some((hash, rest)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => rest,
        _ => after,
    };
    if end > 0 && after.starts_with("::") {
        return path[..end].to_owned();
    }
    if name.starts_with("code[") || name.starts_with("func[") {
        return "unnamed functions".to_owned();
    }
    "other (tables, types, imports, exports, names without a path)".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twiggy_items_fall_into_their_crate() {
        let cases = [
            ("interpane_policy::origin::list::OriginList::allows::h1234", "interpane_policy"),
            ("<serde_json::de::Deserializer<R> as serde::de::Deserializer>::deserialize_any", "serde_json"),
            ("<&T as core::fmt::Display>::fmt", "other (tables, types, imports, exports, names without a path)"),
            ("core::fmt::write", "core"),
            ("dlmalloc::dlmalloc::Dlmalloc<A>::malloc", "dlmalloc"),
            ("data[3]", "data segments"),
            ("data segment \".rodata\"", "data segments"),
            ("\"function names\" subsection", "name section: function names"),
            ("interpane_policy[396b7fd504af67fa]::envelope::fields::interpret", "interpane_policy"),
            ("<idna[552b30a26f8d95d7]::uts46::Uts46>::process_innermost", "idna"),
            ("custom section 'name'", "custom section name"),
            ("__wbg_postMessage_abc", "wasm-bindgen shims"),
            ("code[812]", "unnamed functions"),
            ("table[0]", "other (tables, types, imports, exports, names without a path)"),
        ];
        for (name, group) in cases {
            assert_eq!(group_of(name), group, "{name}");
        }
    }

    #[test]
    fn twiggy_csv_is_summed_by_group() {
        let csv = "Name,ShallowSize,ShallowSizePercent\n\
                   core::fmt::write,100,1.0\n\
                   \"<alloc::vec::Vec<T, A> as core::ops::Drop>::drop\",40,0.4\n\
                   \"interpane_policy::a::<impl x, y>::f\",30,0.3\n\
                   core::str::from_utf8,20,0.2\n\
                   data[0],500,5.0\n\
                   \"Σ [5 Total Rows]\",690,6.9\n";
        let groups = group_twiggy_csv(csv);
        let expected: BTreeMap<String, u64> = [
            ("alloc".to_owned(), 40),
            ("core".to_owned(), 120),
            ("data segments".to_owned(), 500),
            ("interpane_policy".to_owned(), 30),
        ]
        .into_iter()
        .collect();
        assert_eq!(groups, expected);
    }

    #[test]
    fn the_glue_is_the_entry_alone_when_the_entry_carries_it() {
        let dir = std::env::temp_dir().join(format!("interpane-bench-sizes-{}", std::process::id()));
        let snippets = dir.join("snippets/x/js");
        std::fs::create_dir_all(&snippets).unwrap();
        std::fs::write(snippets.join("a.js"), "export const a = 1;").unwrap();
        std::fs::write(dir.join("interpane.js"), "export default 1;").unwrap();
        // An entry that imports the wasm-bindgen module: that module and its snippets are downloaded too.
        std::fs::write(dir.join("index.js"), "import init from \"./interpane.js\";").unwrap();
        let names = |files: Vec<PathBuf>| -> Vec<String> {
            files.iter().map(|f| f.strip_prefix(&dir).unwrap().display().to_string()).collect()
        };
        assert_eq!(names(glue_files(&dir)), ["index.js", "interpane.js", "snippets/x/js/a.js"]);
        // An entry with the glue bundled inside it: the entry alone.
        std::fs::write(dir.join("index.js"), "var e=1;export{e as default};").unwrap();
        assert_eq!(names(glue_files(&dir)), ["index.js"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_bridge_download_adds_wasm_and_glue() {
        let weighed = |gzip| Weighed { files: vec![], raw_bytes: 0, gzip_bytes: gzip, min_gzip_bytes: None };
        let mut sizes = Sizes { bridge_wasm: Some(weighed(70_000)), ..Sizes::default() };
        assert_eq!(sizes.bridge_download(), None);
        sizes.bridge_glue = Some(weighed(9_000));
        assert_eq!(sizes.bridge_download(), Some(79_000));
    }
}
