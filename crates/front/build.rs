//! Embeds the shim headers of `include/` (at the repository root) into the library, so an
//! installed `warpcheck` binary needs no header files next to it: `src/shims.rs` writes them
//! into a private temporary directory for each compilation.
//!
//! The build script lists every file under `include/` and generates
//! `$OUT_DIR/embedded_shims.rs` with one `(relative path, include_str!(absolute path))` entry
//! per file, and asks Cargo to rebuild when any of them changes.

use std::env;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, root: &Path, files: &mut Vec<PathBuf>) -> io::Result<()> {
    let mut entries: Vec<_> = fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect(&path, root, files)?;
        } else if path.extension().is_some_and(|e| e == "h" || e == "hpp") {
            println!("cargo:rerun-if-changed={}", path.display());
            files.push(
                path.strip_prefix(root)
                    .expect("file below root")
                    .to_path_buf(),
            );
        }
    }
    Ok(())
}

fn main() -> io::Result<()> {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("set by Cargo"));
    let include = manifest.join("../../include").canonicalize()?;
    println!("cargo:rerun-if-changed={}", include.display());
    let mut files = Vec::new();
    collect(&include, &include, &mut files)?;
    let mut out = String::from(
        "/// Shim headers embedded from `include/`: (path relative to it, contents).\n",
    );
    out.push_str("pub(crate) static EMBEDDED_SHIMS: &[(&str, &str)] = &[\n");
    for file in &files {
        let relative = file.to_str().expect("UTF-8 header path").replace('\\', "/");
        let absolute = include.join(file);
        out.push_str(&format!(
            "    ({relative:?}, include_str!({:?})),\n",
            absolute.display().to_string()
        ));
    }
    out.push_str("];\n");
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("set by Cargo"));
    fs::write(out_dir.join("embedded_shims.rs"), out)
}
