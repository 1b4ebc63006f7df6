//! What the caller asks the front end to do.

use crate::language::Language;
use std::path::PathBuf;

/// Which compiler turns CUDA into PTX.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub enum CompilerChoice {
    /// nvcc when one is installed (on `PATH`, in `$CUDA_HOME/bin`, or from NVIDIA's pip
    /// wheels in warpcheck's private directory), else clang. OpenCL C and C always use
    /// clang, which nvcc cannot replace.
    #[default]
    Auto,
    /// clang, version 14 or later, with warpcheck's shim headers.
    Clang,
    /// nvcc: the CUDA toolkit's when one is installed, else the one `tools/setup.sh`
    /// installed from NVIDIA's pip wheels into warpcheck's private directory.
    Nvcc,
}

/// Options for one compilation. `Default` gives sm_80 at `-O3` with automatic compiler choice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    /// GPU architecture, `sm_XX` (e.g. `sm_80`, `sm_90a`).
    pub arch: String,
    /// Extra include directories (`-I`), searched after the shim headers.
    pub include_dirs: Vec<PathBuf>,
    /// Preprocessor definitions, `NAME` or `NAME=VALUE` (`-D`).
    pub defines: Vec<String>,
    /// Optimisation level of the device code, 0 to 3.
    pub opt_level: u8,
    /// Which compiler to use.
    pub compiler: CompilerChoice,
    /// The input's language when its extension does not say it (`-x cu` for a `.cpp` file
    /// of CUDA). `None`: from the extension (see [`Language::from_path`]).
    pub language: Option<Language>,
    /// The C++ (or C) standard, `-std=` (e.g. `c++17`, `c++20`). `None`: C++17 with nvcc,
    /// which is nvcc's own default; clang's own default otherwise.
    pub std: Option<String>,
    /// Arguments passed to the compiler verbatim, after warpcheck's own (so they can
    /// override them, e.g. `-cl-std=CL3.0` or `-std=c++20`).
    pub extra_args: Vec<String>,
    /// Read parameter names and C types from the source (clang's AST, in parallel with the
    /// compilation). When false, signatures come from the PTX alone (`arg0`, `arg1` …),
    /// which saves the AST dump: about a second per CUDA file.
    pub signatures_from_source: bool,
    /// Reuse an earlier identical clang compilation from the compile cache, and store this
    /// one there (see the `cache` module: keyed by the source, the files it includes, these
    /// options and the compiler). False is `--no-cache`.
    pub use_cache: bool,
    /// How long the compiler may run before it is stopped (its whole process group
    /// killed) and the compilation fails; `None`: [`crate::process::default_timeout`]
    /// (`WARPCHECK_COMPILE_TIMEOUT`, else 120 s).
    pub timeout: Option<std::time::Duration>,
}

impl CompileOptions {
    /// The compiler time limit these options give.
    pub fn time_limit(&self) -> std::time::Duration {
        self.timeout.unwrap_or_else(crate::process::default_timeout)
    }
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            arch: "sm_80".to_string(),
            include_dirs: Vec::new(),
            defines: Vec::new(),
            opt_level: 3,
            compiler: CompilerChoice::Auto,
            language: None,
            std: None,
            extra_args: Vec::new(),
            signatures_from_source: true,
            use_cache: true,
            timeout: None,
        }
    }
}
