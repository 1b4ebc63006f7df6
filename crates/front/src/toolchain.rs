//! Finding a compiler and learning its version.
//!
//! * nvcc: on `PATH`, else in `$CUDA_HOME/bin`, `$CUDA_PATH/bin` or `/usr/local/cuda/bin`,
//!   else the one `tools/setup.sh` installed from NVIDIA's pip wheels into the private
//!   directory (see [`crate::nvidia`]).
//! * clang: `$WARPCHECK_CLANG` when set (and then only it), else `clang` and `clang-20` down to
//!   `clang-14` on `PATH`, the first whose `--version` says 14 or later.

use crate::error::FrontError;
use crate::language::Language;
use crate::nvidia::{self, NvidiaTree};
use crate::options::CompilerChoice;
use std::env;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The oldest clang whose NVPTX back end and CUDA support the shims are written for.
pub const MIN_CLANG_MAJOR: u32 = 14;
/// The newest clang version searched for by a versioned name (`clang-20`).
pub const MAX_CLANG_MAJOR: u32 = 20;

const INSTALL_CLANG_HINT: &str = "install clang 14 or later (Debian/Ubuntu: `apt-get install clang`; \
Fedora: `dnf install clang`; macOS: `brew install llvm`), or point WARPCHECK_CLANG at a clang binary";
const INSTALL_NVCC_HINT: &str = "run tools/setup.sh, which installs NVIDIA's nvcc from its pip wheels \
into a private directory (WARPCHECK_NVIDIA_DIR, default ~/.local/share/warpcheck/nvidia), or install \
the CUDA toolkit (and set CUDA_HOME), or use clang: --compiler clang";

/// Which program a [`Compiler`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum CompilerKind {
    Clang,
    Nvcc,
}

/// A compiler version, e.g. 19.1.7 or 12.4 (patch 0 when not given).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// A compiler found on this machine.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Compiler {
    pub kind: CompilerKind,
    pub path: PathBuf,
    pub version: Version,
    /// For nvcc from NVIDIA's pip wheels: the tree it belongs to (headers it needs passed,
    /// header directories whose warnings are not the user's). `None` for a system compiler.
    pub nvidia: Option<NvidiaTree>,
}

impl fmt::Display for Compiler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.kind {
            CompilerKind::Clang => "clang",
            CompilerKind::Nvcc => "nvcc",
        };
        write!(f, "{name} {}", self.version)
    }
}

impl Compiler {
    /// The compiler to use for `language` under `choice`.
    pub fn discover(
        choice: CompilerChoice,
        language: Language,
        path: &Path,
    ) -> Result<Compiler, FrontError> {
        match (choice, language) {
            (CompilerChoice::Nvcc, Language::Cuda) => find_nvcc(),
            (CompilerChoice::Nvcc, Language::OpenCl | Language::C) => {
                Err(FrontError::NvccCannotCompile {
                    language,
                    path: path.to_path_buf(),
                })
            }
            (CompilerChoice::Auto, Language::Cuda) => match auto_preference().as_deref() {
                Some("clang") => find_clang(),
                Some("nvcc") => find_nvcc(),
                _ => find_nvcc().or_else(|_| find_clang()),
            },
            _ => find_clang(),
        }
    }

    /// The clang at `program` (a path or a name on `PATH`), if it runs and is version 14 or later.
    pub fn clang_at(program: impl AsRef<Path>) -> Result<Compiler, FrontError> {
        let program = program.as_ref();
        let text = version_text(program)?;
        let version = parse_clang_version(&text).ok_or_else(|| FrontError::NoCompiler {
            wanted: "clang",
            tried: vec![format!(
                "{} does not report a clang version",
                program.display()
            )],
            hint: INSTALL_CLANG_HINT,
        })?;
        if version.major < MIN_CLANG_MAJOR {
            return Err(FrontError::NoCompiler {
                wanted: "clang 14 or later",
                tried: vec![format!("{} is clang {version}", program.display())],
                hint: INSTALL_CLANG_HINT,
            });
        }
        Ok(Compiler {
            kind: CompilerKind::Clang,
            path: program.to_path_buf(),
            version,
            nvidia: None,
        })
    }

    /// The nvcc at `program`, if it runs and reports its release.
    pub fn nvcc_at(program: impl AsRef<Path>) -> Result<Compiler, FrontError> {
        let program = program.as_ref();
        let text = version_text(program)?;
        let version = parse_nvcc_version(&text).ok_or_else(|| FrontError::NoCompiler {
            wanted: "nvcc",
            tried: vec![format!(
                "{} does not report an nvcc release",
                program.display()
            )],
            hint: INSTALL_NVCC_HINT,
        })?;
        Ok(Compiler {
            kind: CompilerKind::Nvcc,
            path: program.to_path_buf(),
            version,
            nvidia: None,
        })
    }

    /// The nvcc of the pip-installed tree `tree`, if it has one and it runs.
    pub fn private_nvcc(tree: &NvidiaTree) -> Result<Compiler, FrontError> {
        let Some(nvcc) = &tree.nvcc else {
            return Err(FrontError::NoCompiler {
                wanted: "nvcc",
                tried: vec![format!(
                    "{}: NVIDIA's wheels are there but not nvcc's",
                    tree.root.display()
                )],
                hint: INSTALL_NVCC_HINT,
            });
        };
        let mut compiler = Compiler::nvcc_at(nvcc)?;
        compiler.nvidia = Some(tree.clone());
        Ok(compiler)
    }

    /// Every distinct clang of version 14 or later on `PATH` (`clang`, `clang-14` …
    /// `clang-20`), one per major version, oldest first. Used to test against each.
    pub fn all_clangs() -> Vec<Compiler> {
        let mut found: Vec<Compiler> = Vec::new();
        for name in clang_candidate_names() {
            let Some(path) = search_path(&name) else {
                continue;
            };
            if let Ok(compiler) = Compiler::clang_at(&path)
                && !found
                    .iter()
                    .any(|c| c.version.major == compiler.version.major)
            {
                found.push(compiler);
            }
        }
        found.sort_by_key(|c| c.version);
        found
    }
}

fn clang_candidate_names() -> Vec<String> {
    let mut names = vec!["clang".to_string()];
    names.extend(
        (MIN_CLANG_MAJOR..=MAX_CLANG_MAJOR)
            .rev()
            .map(|major| format!("clang-{major}")),
    );
    names
}

fn find_clang() -> Result<Compiler, FrontError> {
    if let Some(program) = env::var_os("WARPCHECK_CLANG").filter(|v| !v.is_empty()) {
        // An explicit choice is not second-guessed: if it does not work, say so.
        return Compiler::clang_at(PathBuf::from(program)).map_err(|error| match error {
            FrontError::NoCompiler {
                wanted,
                tried,
                hint,
            } => FrontError::NoCompiler {
                wanted,
                tried: tried
                    .into_iter()
                    .map(|t| format!("WARPCHECK_CLANG: {t}"))
                    .collect(),
                hint,
            },
            other => other,
        });
    }
    let mut tried = Vec::new();
    for name in clang_candidate_names() {
        let Some(path) = search_path(&name) else {
            continue;
        };
        match Compiler::clang_at(&path) {
            Ok(compiler) => return Ok(compiler),
            Err(FrontError::NoCompiler { tried: reasons, .. }) => tried.extend(reasons),
            Err(other) => tried.push(other.to_string()),
        }
    }
    if tried.is_empty() {
        tried.push(format!(
            "clang, clang-{MAX_CLANG_MAJOR} … clang-{MIN_CLANG_MAJOR} on PATH: none found"
        ));
    }
    Err(FrontError::NoCompiler {
        wanted: "clang 14 or later",
        tried,
        hint: INSTALL_CLANG_HINT,
    })
}

/// A system nvcc (`PATH`, `$CUDA_HOME`, `$CUDA_PATH`, `/usr/local/cuda`), else the private
/// one from NVIDIA's wheels.
/// `$WARPCHECK_COMPILER` (`clang` or `nvcc`): what `--compiler auto` means for CUDA
/// files when set, e.g. to keep clang on a machine that has NVIDIA's wheels (the test
/// suite's expectation files are made with clang). Unset or `auto`: nvcc first.
fn auto_preference() -> Option<String> {
    env::var("WARPCHECK_COMPILER")
        .ok()
        .filter(|v| v == "clang" || v == "nvcc")
}

fn find_nvcc() -> Result<Compiler, FrontError> {
    let mut candidates: Vec<PathBuf> = search_path("nvcc").into_iter().collect();
    for variable in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(home) = env::var_os(variable).filter(|v| !v.is_empty()) {
            candidates.push(PathBuf::from(home).join("bin").join("nvcc"));
        }
    }
    candidates.push(PathBuf::from("/usr/local/cuda/bin/nvcc"));
    let mut tried = Vec::new();
    for candidate in candidates.into_iter().filter(|c| c.is_file()) {
        match Compiler::nvcc_at(&candidate) {
            Ok(compiler) => return Ok(compiler),
            Err(error) => tried.push(error.to_string()),
        }
    }
    match nvidia::private_dir() {
        Some(dir) => match NvidiaTree::locate(&dir) {
            Some(tree) => match Compiler::private_nvcc(&tree) {
                Ok(compiler) => return Ok(compiler),
                Err(FrontError::NoCompiler { tried: reasons, .. }) => tried.extend(reasons),
                Err(other) => tried.push(other.to_string()),
            },
            None => tried.push(format!(
                "no NVIDIA wheels in {} (the private directory)",
                dir.display()
            )),
        },
        None => tried.push(format!(
            "no private directory: neither {} nor HOME is set",
            nvidia::NVIDIA_DIR_VAR
        )),
    }
    Err(FrontError::NoCompiler {
        wanted: "nvcc",
        tried,
        hint: INSTALL_NVCC_HINT,
    })
}

/// The host compiler nvcc should use for its preprocessing: `None` (nvcc's own choice,
/// `g++` on `PATH`) when there is a `g++`, else a `clang++` or `clang` on `PATH`.
pub fn nvcc_host_compiler() -> Option<PathBuf> {
    if search_path("g++").is_some() {
        return None;
    }
    ["clang++", "clang"].into_iter().find_map(search_path)
}

/// `name` resolved through `PATH`, like a shell would.
pub(crate) fn search_path(name: &str) -> Option<PathBuf> {
    let path: OsString = env::var_os("PATH")?;
    env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// `program --version`'s output, asked once per process and program (discovery and the
/// compile cache's key both need it).
pub(crate) fn version_text_cached(program: &Path) -> std::io::Result<String> {
    static SEEN: std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<PathBuf, String>>> =
        std::sync::OnceLock::new();
    let seen = SEEN.get_or_init(Default::default);
    if let Some(text) = seen.lock().ok().and_then(|m| m.get(program).cloned()) {
        return Ok(text);
    }
    let output = crate::process::output_limited(
        Command::new(program).arg("--version"),
        crate::process::default_timeout(),
    )
    .map_err(|e| match e {
        crate::process::RunError::Spawn(e) | crate::process::RunError::Wait(e) => e,
        timed_out => std::io::Error::new(std::io::ErrorKind::TimedOut, timed_out.to_string()),
    })?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    if let Ok(mut m) = seen.lock() {
        m.insert(program.to_path_buf(), text.clone());
    }
    Ok(text)
}

fn version_text(program: &Path) -> Result<String, FrontError> {
    version_text_cached(program).map_err(|source| FrontError::CompilerNotRunnable {
        program: program.to_path_buf(),
        source,
    })
}

/// The version in `clang --version` output: "Debian clang version 14.0.6",
/// "clang version 19.1.7 (…)", "Ubuntu clang version 18.1.3 (1ubuntu1)".
pub fn parse_clang_version(text: &str) -> Option<Version> {
    let rest = &text[text.find("clang version ")? + "clang version ".len()..];
    parse_dotted(rest)
}

/// The release in `nvcc --version` output: "Cuda compilation tools, release 12.4, V12.4.131".
pub fn parse_nvcc_version(text: &str) -> Option<Version> {
    if let Some(at) = text.find(", V")
        && let Some(version) = parse_dotted(&text[at + 3..])
    {
        return Some(version);
    }
    let rest = &text[text.find("release ")? + "release ".len()..];
    parse_dotted(rest)
}

fn parse_dotted(text: &str) -> Option<Version> {
    let token: String = text
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let mut parts = token
        .split('.')
        .filter(|p| !p.is_empty())
        .map(|p| p.parse::<u32>());
    let major = parts.next()?.ok()?;
    let minor = parts.next().and_then(Result::ok).unwrap_or(0);
    let patch = parts.next().and_then(Result::ok).unwrap_or(0);
    Some(Version {
        major,
        minor,
        patch,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_compiler_versions() {
        let v = |major, minor, patch| {
            Some(Version {
                major,
                minor,
                patch,
            })
        };
        assert_eq!(
            parse_clang_version("Debian clang version 14.0.6\nTarget: x86_64"),
            v(14, 0, 6)
        );
        assert_eq!(
            parse_clang_version("Ubuntu clang version 18.1.3 (1ubuntu1)"),
            v(18, 1, 3)
        );
        assert_eq!(
            parse_clang_version("clang version 20.0.0git (https://github.com/llvm)"),
            v(20, 0, 0)
        );
        assert_eq!(parse_clang_version("gcc (Debian 12.2.0-14) 12.2.0"), None);
        assert_eq!(
            parse_nvcc_version("Cuda compilation tools, release 12.4, V12.4.131\nBuild cuda_12.4"),
            v(12, 4, 131)
        );
        assert_eq!(
            parse_nvcc_version("Cuda compilation tools, release 11.8"),
            v(11, 8, 0)
        );
    }
}
