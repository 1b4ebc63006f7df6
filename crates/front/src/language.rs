//! The source languages the front end accepts, told apart by file extension.

use crate::error::FrontError;
use std::fmt;
use std::path::Path;

/// The language of an input file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Language {
    /// CUDA C++ (`.cu`): `__global__` functions become `.entry` kernels.
    Cuda,
    /// OpenCL C (`.cl`): `__kernel` functions become `.entry` kernels.
    OpenCl,
    /// C (`.c`): every function becomes a `.func`, for the porting advisor.
    C,
    /// PTX (`.ptx`), read as it is.
    Ptx,
}

/// The extensions [`Language::from_path`] accepts, for error messages.
pub const SUPPORTED_EXTENSIONS: &[&str] = &[".cu", ".cl", ".c", ".ptx"];

impl Language {
    /// The language of `path` from its extension (case-insensitive).
    pub fn from_path(path: &Path) -> Result<Language, FrontError> {
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("cu") => Ok(Language::Cuda),
            Some("cl") => Ok(Language::OpenCl),
            Some("c") => Ok(Language::C),
            Some("ptx") => Ok(Language::Ptx),
            _ => Err(FrontError::UnsupportedFileType {
                path: path.to_path_buf(),
                extension: path.extension().map(|e| e.to_string_lossy().into_owned()),
            }),
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
