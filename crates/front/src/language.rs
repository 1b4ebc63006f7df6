//! The source languages the front end accepts, told apart by file extension.

use crate::error::FrontError;
use std::fmt;
use std::path::Path;

/// The language of an input file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Language {
    /// CUDA C++ (`.cu`, and the headers `.cuh` and `.cu.h`): `__global__` functions become
    /// `.entry` kernels.
    Cuda,
    /// OpenCL C (`.cl`): `__kernel` functions become `.entry` kernels.
    OpenCl,
    /// C (`.c`): every function becomes a `.func`, for the porting advisor.
    C,
    /// PTX (`.ptx`), read as it is.
    Ptx,
}

/// The extensions [`Language::from_path`] accepts, for error messages.
pub const SUPPORTED_EXTENSIONS: &[&str] = &[".cu", ".cuh", ".cu.h", ".cl", ".c", ".ptx"];

impl Language {
    /// The language of `path` from its extension (case-insensitive).
    pub fn from_path(path: &Path) -> Result<Language, FrontError> {
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let cuda_header = extension.as_deref() == Some("h")
            && path
                .file_stem()
                .and_then(|s| s.to_str())
                .is_some_and(|s| s.to_ascii_lowercase().ends_with(".cu"));
        match extension.as_deref() {
            Some("cu" | "cuh") => Ok(Language::Cuda),
            Some("h") if cuda_header => Ok(Language::Cuda),
            Some("cl") => Ok(Language::OpenCl),
            Some("c") => Ok(Language::C),
            Some("ptx") => Ok(Language::Ptx),
            _ => Err(FrontError::UnsupportedFileType {
                path: path.to_path_buf(),
                extension: path.extension().map(|e| e.to_string_lossy().into_owned()),
            }),
        }
    }

    /// The language named by `-x NAME`: `cu` or `cuda`, `cl`, `c`, `ptx` (nvcc's and
    /// clang's spellings).
    pub fn from_name(name: &str) -> Option<Language> {
        match name.to_ascii_lowercase().as_str() {
            "cu" | "cuda" => Some(Language::Cuda),
            "cl" | "opencl" => Some(Language::OpenCl),
            "c" => Some(Language::C),
            "ptx" => Some(Language::Ptx),
            _ => None,
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Language::Cuda => "CUDA",
            Language::OpenCl => "OpenCL C",
            Language::C => "C",
            Language::Ptx => "PTX",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuda_headers_are_cuda() {
        for name in ["k.cu", "k.cuh", "k.CUH", "k.cu.h", "dir.x/k.Cu.H"] {
            assert_eq!(
                Language::from_path(Path::new(name)).ok(),
                Some(Language::Cuda),
                "{name}"
            );
        }
        for name in ["k.h", "k.cpp", "cu.h.x"] {
            assert!(Language::from_path(Path::new(name)).is_err(), "{name}");
        }
        assert_eq!(Language::from_name("cu"), Some(Language::Cuda));
        assert_eq!(Language::from_name("cuda"), Some(Language::Cuda));
        assert_eq!(Language::from_name("c++"), None);
    }
}
