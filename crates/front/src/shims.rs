//! The shim headers of `include/`: embedded in the library at build time and written into
//! each compilation's private temporary directory, so an installed binary is self-contained.
//!
//! Setting `WARPCHECK_INCLUDE` to a directory uses the headers there instead (for working on
//! the headers without rebuilding).

use crate::error::FrontError;
use crate::language::Language;
use std::fs;
use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/embedded_shims.rs"));

/// The header clang force-includes in every CUDA compilation.
pub const CUDA_PRELUDE: &str = "warpcheck_prelude.h";
/// The header clang force-includes in every OpenCL C compilation.
pub const OPENCL_PRELUDE: &str = "warpcheck_opencl.h";
/// Headers used only when the system has none of that name (`-idirafter`).
pub const FALLBACK_SUBDIR: &str = "fallback";

/// The embedded headers as (path relative to the include directory, contents).
pub fn embedded_headers() -> &'static [(&'static str, &'static str)] {
    EMBEDDED_SHIMS
}

/// Writes every embedded header below `dir`, e.g. to use them with one's own clang.
pub fn write_shim_headers(dir: &Path) -> std::io::Result<()> {
    for (relative, contents) in EMBEDDED_SHIMS {
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(path, contents)?;
    }
    Ok(())
}

/// The include directory for `language`: `$WARPCHECK_INCLUDE`, or the embedded headers that
/// `language` needs written below `work_dir`.
pub(crate) fn prepare(work_dir: &Path, language: Language) -> Result<PathBuf, FrontError> {
    if let Some(dir) = std::env::var_os("WARPCHECK_INCLUDE").filter(|v| !v.is_empty()) {
        let dir = PathBuf::from(dir);
        let prelude = if language == Language::OpenCl {
            OPENCL_PRELUDE
        } else {
            CUDA_PRELUDE
        };
        if !dir.join(prelude).is_file() {
            return Err(FrontError::ShimSetup {
                dir: dir.clone(),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!("WARPCHECK_INCLUDE has no {prelude}"),
                ),
            });
        }
        return Ok(dir);
    }
    let dir = work_dir.join("include");
    let setup_error = |source| FrontError::ShimSetup {
        dir: dir.clone(),
        source,
    };
    for (relative, contents) in EMBEDDED_SHIMS {
        let wanted = match language {
            Language::OpenCl => *relative == OPENCL_PRELUDE,
            Language::Cuda => *relative != OPENCL_PRELUDE,
            Language::C => relative.starts_with(FALLBACK_SUBDIR),
            Language::Ptx => false,
        };
        if !wanted {
            continue;
        }
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(setup_error)?;
        }
        fs::write(&path, contents).map_err(setup_error)?;
    }
    fs::create_dir_all(&dir).map_err(setup_error)?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preludes_are_embedded() {
        let names: Vec<&str> = embedded_headers().iter().map(|(n, _)| *n).collect();
        for wanted in [
            CUDA_PRELUDE,
            OPENCL_PRELUDE,
            "cuda_runtime.h",
            "cooperative_groups.h",
            "cuda_fp16.h",
        ] {
            assert!(names.contains(&wanted), "{wanted} missing from {names:?}");
        }
    }
}
