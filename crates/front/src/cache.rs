//! A cache of compilations: the PTX, kernel signatures and notes of a clang or nvcc
//! compilation, stored on disk and reused while nothing that decides them has changed.
//!
//! # Keys
//!
//! An entry is found by a SHA-256 *base key* over everything known before compiling: the
//! source file's bytes, its path as given and as an absolute path and the working directory
//! (the PTX's `.file` lines name them), the language and every compile option, the
//! compiler's path and full `--version` text, the clang that reads the kernels' signatures
//! (the compiler itself, or for nvcc the clang beside it, or none), the shim headers'
//! content (embedded, or the `WARPCHECK_INCLUDE` directory's), the include-path and nvcc
//! environment variables the compilers read and warpcheck's version. For nvcc it also
//! covers the identity of NVIDIA's wheels when nvcc comes from them (the tree's layout and
//! directories and its packages' `*.dist-info` names, which carry their versions) and the
//! host compiler nvcc preprocesses with (path and `--version` text). The files the source
//! includes are known only after compiling: the compilation writes the compiler's
//! dependency list (`-MD -MF`, which clang and nvcc both take; nvcc's lists every header,
//! NVIDIA's and the system's included), and the entry records each dependency's path with
//! a SHA-256 of its content. A lookup hashes those files again; an entry whose
//! dependencies changed (a header was edited, a wheel was upgraded) is a miss, and the new
//! compilation replaces it.
//!
//! # Storage
//!
//! Entries are JSON files `<dir>/v1/<base key>.json`, where `<dir>` is
//! `$WARPCHECK_CACHE_DIR`, else `$XDG_CACHE_HOME/warpcheck`, else `~/.cache/warpcheck`.
//! An entry is written to a temporary file in the same directory and renamed into place,
//! so a reader sees a whole entry or none; a reader still checks that the entry parses and
//! names its own key, and treats anything else as a miss. A hit sets the entry's
//! modification time, and after each store the directory is trimmed to [`MAX_BYTES`] by
//! deleting the entries used least recently (oldest modification time first).
//!
//! The cache never stops a compilation: any I/O failure is a miss (lookup) or is ignored
//! (store), with a one-line note on stderr when `WARPCHECK_DEBUG` is set.

use crate::language::Language;
use crate::options::CompileOptions;
use crate::signature::KernelSignature;
use crate::toolchain::{
    Compiler, CompilerKind, nvcc_host_compiler, search_path, version_text_cached,
};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The size the cache directory is trimmed to after a store: 256 MiB.
pub const MAX_BYTES: u64 = 256 << 20;

/// The subdirectory of the cache directory that holds entries of this format.
const FORMAT_DIR: &str = "v1";

/// The cache directory to use: `$WARPCHECK_CACHE_DIR`, `$XDG_CACHE_HOME/warpcheck` or
/// `~/.cache/warpcheck`; `None` when none of them is set.
pub fn cache_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("WARPCHECK_CACHE_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = var("XDG_CACHE_HOME") {
        return Some(PathBuf::from(dir).join("warpcheck"));
    }
    var("HOME").map(|home| PathBuf::from(home).join(".cache").join("warpcheck"))
}

/// One stored compilation.
#[derive(serde::Serialize, serde::Deserialize)]
struct Entry {
    /// The base key, hex: a renamed or damaged file does not answer for another key.
    key: String,
    /// Every file the compilation read besides the shim headers, with its SHA-256 (hex).
    deps: Vec<(PathBuf, String)>,
    ptx: String,
    compiler: String,
    command: Option<String>,
    signatures: Vec<KernelSignature>,
    notes: Vec<String>,
}

/// What a hit gives back; the caller adds the source path and language.
pub(crate) struct Cached {
    pub ptx: String,
    pub compiler: String,
    pub command: Option<String>,
    pub signatures: Vec<KernelSignature>,
    pub notes: Vec<String>,
}

/// The cache slot of one compilation: where its entry lives and its base key.
pub(crate) struct Slot {
    dir: PathBuf,
    key: String,
}

impl Slot {
    /// The slot for compiling `path` with `compiler` and `options`, the signatures read by
    /// `ast_clang`, or `None` when the cache is off (`options.use_cache` false, no cache
    /// directory) or the key cannot be computed (an unreadable file).
    pub fn new(
        compiler: &Compiler,
        ast_clang: Option<&Compiler>,
        language: Language,
        path: &Path,
        options: &CompileOptions,
    ) -> Option<Slot> {
        if !options.use_cache {
            return None;
        }
        let dir = cache_dir()?.join(FORMAT_DIR);
        match base_key(compiler, ast_clang, language, path, options) {
            Ok(key) => Some(Slot { dir, key }),
            Err(e) => {
                debug_note(&format!("not cached, cannot hash the inputs: {e}"));
                None
            }
        }
    }

    fn entry_path(&self) -> PathBuf {
        self.dir.join(format!("{}.json", self.key))
    }

    /// The stored compilation, if there is a whole entry for this key and every file it
    /// depends on is unchanged.
    pub fn lookup(&self) -> Option<Cached> {
        let path = self.entry_path();
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                debug_note(&format!("cannot read {}: {e}", path.display()));
                return None;
            }
        };
        let entry: Entry = match serde_json::from_slice(&bytes) {
            Ok(entry) => entry,
            Err(e) => {
                debug_note(&format!("ignoring damaged entry {}: {e}", path.display()));
                return None;
            }
        };
        if entry.key != self.key {
            return None;
        }
        let unchanged = entry
            .deps
            .iter()
            .all(|(dep, hash)| file_hash(dep).is_ok_and(|h| &h == hash));
        if !unchanged {
            return None;
        }
        // Recently used: trimming keeps it.
        let _ = std::fs::File::options()
            .append(true)
            .open(&path)
            .and_then(|f| f.set_modified(std::time::SystemTime::now()));
        Some(Cached {
            ptx: entry.ptx,
            compiler: entry.compiler,
            command: entry.command,
            signatures: entry.signatures,
            notes: entry.notes,
        })
    }

    /// Stores a compilation whose dependency list the compiler wrote to `deps_file`; files under
    /// `private` (the compilation's temporary directory, with the shim headers) are left
    /// out, as the key covers them. Failures are only noted.
    pub fn store(&self, module: &crate::CompiledModule, deps_file: &Path, private: &Path) {
        if let Err(e) = self.try_store(module, deps_file, private) {
            debug_note(&format!("cannot store the compilation: {e}"));
        }
    }

    fn try_store(
        &self,
        module: &crate::CompiledModule,
        deps_file: &Path,
        private: &Path,
    ) -> std::io::Result<()> {
        let text = std::fs::read_to_string(deps_file)?;
        let mut deps = Vec::new();
        for dep in parse_make_deps(&text) {
            let dep = std::path::absolute(&dep)?;
            if dep.starts_with(private) {
                continue;
            }
            let hash = file_hash(&dep)?;
            deps.push((dep, hash));
        }
        let entry = Entry {
            key: self.key.clone(),
            deps,
            ptx: module.ptx.clone(),
            compiler: module.compiler.clone(),
            command: module.command.clone(),
            signatures: module.signatures.clone(),
            notes: module.notes.clone(),
        };
        std::fs::create_dir_all(&self.dir)?;
        let mut tmp = tempfile::Builder::new()
            .prefix(".tmp-")
            .tempfile_in(&self.dir)?;
        serde_json::to_writer(&mut tmp, &entry).map_err(std::io::Error::other)?;
        tmp.flush()?;
        tmp.persist(self.entry_path()).map_err(|e| e.error)?;
        trim(&self.dir, MAX_BYTES)
    }
}

/// The base key (see the module documentation), hex.
fn base_key(
    compiler: &Compiler,
    ast_clang: Option<&Compiler>,
    language: Language,
    path: &Path,
    options: &CompileOptions,
) -> std::io::Result<String> {
    let mut h = Sha256::new();
    let mut field = |name: &str, bytes: &[u8]| {
        // Length-prefixed, so that no two different inputs hash the same bytes.
        h.update((name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    field("warpcheck", env!("CARGO_PKG_VERSION").as_bytes());
    field("source", &std::fs::read(path)?);
    field("path", path.as_os_str().as_encoded_bytes());
    field(
        "absolute",
        std::path::absolute(path)?.as_os_str().as_encoded_bytes(),
    );
    if depends_on_cwd(path, options) {
        field(
            "cwd",
            std::env::current_dir()?.as_os_str().as_encoded_bytes(),
        );
    }
    field("language", format!("{language:?}").as_bytes());
    let mut options = options.clone();
    options.use_cache = true;
    options.timeout = None;
    field("options", format!("{options:?}").as_bytes());
    field("compiler", compiler.path.as_os_str().as_encoded_bytes());
    field("version", version_text_cached(&compiler.path)?.as_bytes());
    match ast_clang {
        Some(clang) => {
            field("ast-clang", clang.path.as_os_str().as_encoded_bytes());
            field(
                "ast-clang-version",
                version_text_cached(&clang.path)?.as_bytes(),
            );
        }
        None => field("ast-clang", b""),
    }
    if compiler.kind == CompilerKind::Nvcc {
        for (name, value) in nvcc_identity(compiler)? {
            field(&name, &value);
        }
    }
    for var in [
        "CPATH",
        "C_INCLUDE_PATH",
        "CPLUS_INCLUDE_PATH",
        "WARPCHECK_INCLUDE",
        "NVCC_PREPEND_FLAGS",
        "NVCC_APPEND_FLAGS",
        "NVCC_CCBIN",
    ] {
        let value = std::env::var_os(var).unwrap_or_default();
        field(var, value.as_encoded_bytes());
    }
    for (name, content) in shim_headers()? {
        field(&name, &content);
    }
    Ok(hex(&h.finalize()))
}

/// Whether the working directory can change the compilation: through a relative path (the
/// input's, an include directory's, one in an include-path variable) or pass-through
/// flags, which may hold any path. Otherwise compilations from different directories
/// share entries (test binaries run in their crates' directories, programs in scratch
/// ones).
fn depends_on_cwd(path: &Path, options: &CompileOptions) -> bool {
    let relative_entry = |var: &str| {
        std::env::var_os(var).is_some_and(|v| {
            std::env::split_paths(&v).any(|p| p.as_os_str().is_empty() || p.is_relative())
        })
    };
    path.is_relative()
        || options.include_dirs.iter().any(|d| d.is_relative())
        || !options.extra_args.is_empty()
        || [
            "CPATH",
            "C_INCLUDE_PATH",
            "CPLUS_INCLUDE_PATH",
            "WARPCHECK_INCLUDE",
        ]
        .into_iter()
        .any(relative_entry)
        || std::env::var_os("NVCC_PREPEND_FLAGS").is_some()
        || std::env::var_os("NVCC_APPEND_FLAGS").is_some()
}

/// What decides an nvcc compilation besides nvcc's own `--version`: the NVIDIA wheels it
/// comes from (their tree and the names of their `*.dist-info` directories, which carry
/// the packages' versions; cicc, ptxas and libdevice come with them) and the host
/// compiler it preprocesses with (`-ccbin`, else `g++` on `PATH`), as (field, bytes).
fn nvcc_identity(nvcc: &Compiler) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    if let Some(tree) = &nvcc.nvidia {
        out.push(("nvidia-tree".into(), format!("{tree:?}").into_bytes()));
        let mut packages: Vec<String> = std::fs::read_dir(&tree.root)?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".dist-info"))
            .collect();
        packages.sort();
        out.push(("nvidia-packages".into(), packages.join("\n").into_bytes()));
    }
    let host = nvcc_host_compiler().or_else(|| search_path("g++"));
    let (host_path, host_version) = match &host {
        Some(host) => (
            host.as_os_str().as_encoded_bytes().to_vec(),
            version_text_cached(host)?.into_bytes(),
        ),
        None => (Vec::new(), Vec::new()),
    };
    out.push(("host-compiler".into(), host_path));
    out.push(("host-compiler-version".into(), host_version));
    Ok(out)
}

/// The shim headers a compilation would use: the `WARPCHECK_INCLUDE` directory's files
/// (recursively, in name order) or the embedded ones.
fn shim_headers() -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let Some(dir) = std::env::var_os("WARPCHECK_INCLUDE").filter(|v| !v.is_empty()) else {
        return Ok(crate::shims::embedded_headers()
            .iter()
            .map(|(name, text)| (name.to_string(), text.as_bytes().to_vec()))
            .collect());
    };
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::from(dir)];
    while let Some(dir) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&dir)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let path = e.path();
            if e.file_type()?.is_dir() {
                stack.push(path);
            } else {
                out.push((path.display().to_string(), std::fs::read(&path)?));
            }
        }
    }
    Ok(out)
}

fn file_hash(path: &Path) -> std::io::Result<String> {
    Ok(hex(&Sha256::digest(std::fs::read(path)?)))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The prerequisites of a Makefile rule as `-MD -MF` writes it: clang's `out.ptx: a.cu \`
/// or nvcc's `out.ptx : a.cu \`, continued over lines, spaces in names escaped as `\ `
/// and `$` as `$$`.
fn parse_make_deps(text: &str) -> Vec<PathBuf> {
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    let mut out = Vec::new();
    for rule in joined.lines() {
        // The target ends at the first `: ` (a Windows drive's `C:\` has no space after).
        let Some((_, prerequisites)) = rule.split_once(": ") else {
            continue;
        };
        let mut current = String::new();
        let mut chars = prerequisites.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&' ') => current.push(chars.next().unwrap_or(' ')),
                '$' if chars.peek() == Some(&'$') => current.push(chars.next().unwrap_or('$')),
                ' ' | '\t' => {
                    if !current.is_empty() {
                        out.push(PathBuf::from(std::mem::take(&mut current)));
                    }
                }
                _ => current.push(c),
            }
        }
        if !current.is_empty() {
            out.push(PathBuf::from(current));
        }
    }
    out
}

/// Deletes the least recently used entries (oldest modification time first) until the
/// directory's entries take at most `max` bytes. Entries another process is writing are
/// temporary files, which are left alone.
fn trim(dir: &Path, max: u64) -> std::io::Result<()> {
    let mut entries = Vec::new();
    let mut total = 0u64;
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name();
        if !name.to_string_lossy().ends_with(".json") {
            continue;
        }
        let meta = e.metadata()?;
        total += meta.len();
        entries.push((meta.modified()?, meta.len(), e.path()));
    }
    if total <= max {
        return Ok(());
    }
    entries.sort();
    for (_, len, path) in entries {
        if total <= max {
            break;
        }
        // Another process may have deleted it first.
        let _ = std::fs::remove_file(&path);
        total = total.saturating_sub(len);
    }
    Ok(())
}

/// A note on stderr about the cache, when `WARPCHECK_DEBUG` is set.
fn debug_note(message: &str) {
    if std::env::var_os("WARPCHECK_DEBUG").is_some_and(|v| !v.is_empty()) {
        eprintln!("warpcheck: compile cache: {message}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_clangs_dependency_lists() {
        let text = "/tmp/w/out.ptx: /src/k.cu /tmp/w/shims/warpcheck_prelude.h \\\n  /src/my\\ dir/h.h \\\n  /src/a$$b.h\n";
        assert_eq!(
            parse_make_deps(text),
            [
                "/src/k.cu",
                "/tmp/w/shims/warpcheck_prelude.h",
                "/src/my dir/h.h",
                "/src/a$b.h"
            ]
            .map(PathBuf::from)
        );
    }

    #[test]
    fn reads_nvccs_dependency_lists() {
        let text = "out.ptx : k.cu \\\n    /usr/include/stdc-predef.h \\\n    /n/cu13/bin/../include/cuda_runtime.h \\\n    s.h\n";
        assert_eq!(
            parse_make_deps(text),
            [
                "k.cu",
                "/usr/include/stdc-predef.h",
                "/n/cu13/bin/../include/cuda_runtime.h",
                "s.h"
            ]
            .map(PathBuf::from)
        );
    }

    #[test]
    fn trimming_deletes_the_least_recently_used_entries() {
        let dir = tempfile::tempdir().unwrap();
        let now = std::time::SystemTime::now();
        for (i, name) in ["old.json", "mid.json", "new.json"].iter().enumerate() {
            let path = dir.path().join(name);
            std::fs::write(&path, vec![b'x'; 100]).unwrap();
            let age = std::time::Duration::from_secs(100 * (3 - i as u64));
            let f = std::fs::File::options().append(true).open(&path).unwrap();
            f.set_modified(now - age).unwrap();
        }
        std::fs::write(dir.path().join(".tmp-writing"), vec![b'x'; 1000]).unwrap();
        trim(dir.path(), 200).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, [".tmp-writing", "mid.json", "new.json"]);
    }
}
