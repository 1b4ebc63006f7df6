//! warpcheck's front end: turns CUDA (`.cu`), OpenCL C (`.cl`), C (`.c`) and PTX (`.ptx`)
//! files into PTX text plus the signatures of their kernels, without the CUDA toolkit.
//!
//! ```no_run
//! use warpcheck_front::{compile, CompileOptions};
//! let module = compile("saxpy.cu".as_ref(), &CompileOptions::default())?;
//! for kernel in &module.signatures {
//!     println!("{}: {} parameters", kernel.name, kernel.params.len());
//! }
//! # Ok::<(), warpcheck_front::FrontError>(())
//! ```
//!
//! # Compilers
//!
//! CUDA goes through nvcc when one is installed — the CUDA toolkit's, or the one that
//! `tools/setup.sh` installs from NVIDIA's pip wheels into a private directory (see
//! [`NvidiaTree`]) — and clang otherwise (see [`CompilerChoice`]); OpenCL C and C always go through clang (14 or later). clang needs no
//! CUDA installation: warpcheck's shim headers (`include/` in the repository, embedded in this
//! library and written to a private temporary directory for each compilation) provide the
//! CUDA runtime and device APIs, cooperative groups, `cuda_fp16.h`, and the OpenCL
//! built-ins, all lowered to PTX instructions or to calls of libdevice-named `__nv_*`
//! functions. Set `WARPCHECK_INCLUDE` to use a directory of headers instead, and
//! `WARPCHECK_CLANG` to choose the clang binary. See `docs/RODINIA.md` for how much real
//! CUDA code the shims compile.
//!
//! Device code only is compiled, with line tables (`.loc`), so findings can point at source
//! lines.
//!
//! Compilations are cached on disk (see [`cache`]: keyed by the source, the headers it
//! includes, the options and the compiler, for clang and nvcc alike;
//! `CompileOptions::use_cache` turns it off).
//!
//! # Signatures
//!
//! See [`signature`](crate::KernelSignature): names and C types come from clang's JSON AST
//! (also when nvcc compiles, if a clang is available), matched to the PTX by mangled name;
//! without clang they come from the PTX alone.
//!
//! # Errors
//!
//! Every failure is a [`FrontError`] whose message says what to do: a missing input, an
//! unsupported extension (with the supported list), no compiler (with how to install one),
//! or the compiler's own diagnostics.

mod arch;
pub mod cache;
mod chevrons;
mod diagnostics;
mod error;
mod invoke;
mod language;
mod nvcc;
mod nvidia;
mod options;
pub mod process;
mod shims;
mod signature;
mod toolchain;

pub use arch::Arch;
pub use chevrons::close_up_launch_chevrons;
pub use error::{CompilerFailure, FrontError};
pub use language::{Language, SUPPORTED_EXTENSIONS};
pub use nvidia::{
    Layout as NvidiaLayout, NVIDIA_DIR_VAR, NvidiaTree, private_dir as nvidia_private_dir,
};
pub use options::{CompileOptions, CompilerChoice};
pub use shims::{embedded_headers, write_shim_headers};
pub use signature::{
    AddressSpace, KernelParam, KernelSignature, MAX_FIELD_ELEMENTS, ParamKind, Pointee,
    PointerParam, ScalarType, SignatureOrigin, StructField, StructType, VectorType, base_name,
    demangle, signatures_from_ptx,
};
pub use toolchain::{
    Compiler, CompilerKind, MAX_CLANG_MAJOR, MIN_CLANG_MAJOR, Version, nvcc_host_compiler,
};

use signature::ptx_params::{self, Wanted};
use std::path::{Path, PathBuf};

/// The result of compiling one file.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CompiledModule {
    /// The PTX text.
    pub ptx: String,
    /// The input file.
    pub source_path: PathBuf,
    pub language: Language,
    /// The compiler and its version, e.g. `clang 19.1.7`; `none` for PTX input.
    pub compiler: String,
    /// The command that produced the PTX, for reproducing it; `None` for PTX input.
    pub command: Option<String>,
    /// One signature per kernel (`.entry`) in PTX order; for C, one per defined function.
    pub signatures: Vec<KernelSignature>,
    /// Things the user may want to know that did not stop the compilation, e.g. why
    /// signatures have only positional parameter names.
    pub notes: Vec<String>,
}

/// Compiles `path` with the compiler that `options.compiler` selects (see
/// [`Compiler::discover`]).
pub fn compile(path: &Path, options: &CompileOptions) -> Result<CompiledModule, FrontError> {
    let language = check_input(path, options)?;
    if language == Language::Ptx {
        return read_ptx(path);
    }
    let compiler = Compiler::discover(options.compiler, language, path)?;
    compile_with(&compiler, path, options)
}

/// Compiles `path` with `compiler` (which `options.compiler` does not override).
pub fn compile_with(
    compiler: &Compiler,
    path: &Path,
    options: &CompileOptions,
) -> Result<CompiledModule, FrontError> {
    let language = check_input(path, options)?;
    if language == Language::Ptx {
        return read_ptx(path);
    }
    if compiler.kind == CompilerKind::Nvcc && language != Language::Cuda {
        return Err(FrontError::NvccCannotCompile {
            language,
            path: path.to_path_buf(),
        });
    }
    let arch = Arch::parse(&options.arch)?;
    if options.opt_level > 3 {
        return Err(FrontError::InvalidOption(format!(
            "invalid optimisation level {}: expected 0, 1, 2 or 3",
            options.opt_level
        )));
    }
    // The AST comes from clang, also when nvcc compiles (nvcc and clang mangle alike). Its
    // dump runs on another thread while the compiler produces the PTX.
    let clang = match compiler.kind {
        _ if !options.signatures_from_source => None,
        CompilerKind::Clang => Some(compiler.clone()),
        CompilerKind::Nvcc => Compiler::discover(CompilerChoice::Clang, language, path).ok(),
    };
    let slot = cache::Slot::new(compiler, clang.as_ref(), language, path, options);
    if let Some(hit) = slot.as_ref().and_then(cache::Slot::lookup) {
        return Ok(CompiledModule {
            ptx: hit.ptx,
            source_path: path.to_path_buf(),
            language,
            compiler: hit.compiler,
            command: hit.command,
            signatures: hit.signatures,
            notes: hit.notes,
        });
    }
    let work_dir =
        process::ScratchDir::new("warpcheck-").map_err(|source| FrontError::ShimSetup {
            dir: std::env::temp_dir(),
            source,
        })?;
    let shim_dir = shims::prepare(work_dir.path(), language)?;
    let mut notes = Vec::new();
    let deps_file = work_dir.path().join("deps.d");
    let scratch = invoke::Scratch {
        dir: work_dir.path(),
        shims: &shim_dir,
        deps: slot.as_ref().map(|_| deps_file.as_path()),
    };
    let source = CompiledSource {
        path: path.to_path_buf(),
        options: options.clone(),
    };
    let (_compiled_source, ptx, command, ast) =
        match compile_and_dump(compiler, clang.as_ref(), language, &arch, &source, scratch) {
            Ok((ptx, command, ast)) => (source, ptx, command, ast),
            Err(error @ FrontError::CompilerFailed(_))
                if compiler.kind == CompilerKind::Clang && language == Language::Cuda =>
            {
                // nvcc takes `<< <` … `>> >`; clang does not: retry with those closed up.
                let Some(respelt) = respell_launches(path, work_dir.path(), options, &mut notes)
                else {
                    return Err(error);
                };
                let (ptx, command, ast) =
                    compile_and_dump(compiler, clang.as_ref(), language, &arch, &respelt, scratch)
                        .map_err(|_| error)?;
                (respelt, ptx, command, ast)
            }
            Err(error) => return Err(error),
        };

    let wanted = if language == Language::C {
        Wanted::DefinedFuncs
    } else {
        Wanted::Entries
    };
    let ptx_functions = ptx_params::ptx_functions(&ptx, wanted);
    let positional = |reason: String, notes: &mut Vec<String>| {
        positional_signatures(&ptx_functions, language, path, reason, notes)
    };
    let signatures = match ast {
        Some(Ok(facts)) => signature::merge(&facts, &ptx_functions),
        Some(Err(reason)) => positional(reason, &mut notes),
        None if !options.signatures_from_source => ptx_functions
            .iter()
            .map(ptx_params::signature_from_ptx_function)
            .collect(),
        None => positional("no clang to read their names".into(), &mut notes),
    };
    let module = CompiledModule {
        ptx,
        source_path: path.to_path_buf(),
        language,
        compiler: compiler.to_string(),
        command: Some(command),
        signatures,
        notes,
    };
    if let Some(slot) = &slot {
        slot.store(&module, &deps_file, work_dir.path());
    }
    Ok(module)
}

/// Signatures from the PTX, with parameter names read from the CUDA source's text where it
/// declares them plainly (see [`signature::source_names`]), else `arg0`, `arg1` …; a note
/// says which, and why clang's AST was not used (`reason`).
fn positional_signatures(
    ptx_functions: &[ptx_params::PtxFunction],
    language: Language,
    path: &Path,
    reason: String,
    notes: &mut Vec<String>,
) -> Vec<KernelSignature> {
    let mut signatures: Vec<KernelSignature> = ptx_functions
        .iter()
        .map(ptx_params::signature_from_ptx_function)
        .collect();
    let source = match language {
        Language::Cuda => read_limited(path, MAX_INPUT_BYTES)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default(),
        _ => String::new(),
    };
    let (mut named, mut unnamed) = (Vec::new(), Vec::new());
    for signature in &mut signatures {
        let names = signature::source_names::parameter_names(
            &source,
            &signature.name,
            signature.params.len(),
        );
        match names {
            Some(names) => {
                for (param, name) in signature.params.iter_mut().zip(names) {
                    param.name = name;
                }
                named.push(signature.name.clone());
            }
            None => unnamed.push(signature.name.clone()),
        }
    }
    if !named.is_empty() {
        notes.push(format!(
            "parameter names of {} are read from the source text, types from the PTX: {reason}",
            named.join(", ")
        ));
    }
    if !unnamed.is_empty() {
        notes.push(format!(
            "kernel parameters{} are named by position (arg0, arg1 …): {reason}",
            if named.is_empty() {
                String::new()
            } else {
                format!(" of {}", unnamed.join(", "))
            }
        ));
    }
    signatures
}

/// The file handed to the compiler and the options to use with it.
struct CompiledSource {
    path: PathBuf,
    options: CompileOptions,
}

type AstResult = Option<Result<signature::ast_json::AstFacts, String>>;

/// Compiles to PTX while clang's AST dump of the same source runs on another thread; with
/// `scratch.deps`, the compiler also writes the files it read there (`-MD -MF`).
fn compile_and_dump(
    compiler: &Compiler,
    clang: Option<&Compiler>,
    language: Language,
    arch: &Arch,
    source: &CompiledSource,
    scratch: invoke::Scratch,
) -> Result<(String, String, AstResult), FrontError> {
    let shim_dir = scratch.shims;
    let ast_dump = clang.map(|clang| {
        let (clang, arch, path, options, shim_dir) = (
            clang.clone(),
            arch.clone(),
            source.path.clone(),
            source.options.clone(),
            shim_dir.to_path_buf(),
        );
        std::thread::spawn(move || {
            invoke::dump_ast(&clang, language, &arch, &path, &options, &shim_dir)
        })
    });
    let compiled = invoke::compile_to_ptx(
        compiler,
        language,
        arch,
        &source.path,
        &source.options,
        scratch,
    );
    let ast = ast_dump.map(|handle| {
        handle
            .join()
            .unwrap_or_else(|_| Err("the AST dump thread panicked".into()))
    });
    let (ptx, command) = compiled?;
    Ok((ptx, command, ast))
}

/// A copy of `path` in `work_dir` with spaced launch chevrons closed up (see [`chevrons`]),
/// which keeps the original's file name and line numbers (`#line`) and quote-include
/// directory (`-iquote`); `None` when the file has none.
fn respell_launches(
    path: &Path,
    work_dir: &Path,
    options: &CompileOptions,
    notes: &mut Vec<String>,
) -> Option<CompiledSource> {
    let text = std::fs::read_to_string(path).ok()?;
    let (respelt, lines) = chevrons::close_up_launch_chevrons(&text)?;
    let copy_dir = work_dir.join("respelt");
    std::fs::create_dir_all(&copy_dir).ok()?;
    let copy = copy_dir.join(path.file_name()?);
    let original = path.canonicalize().ok()?;
    let quoted = original
        .to_string_lossy()
        .replace('\\', "\\\\")
        .replace('"', "\\\"");
    std::fs::write(&copy, format!("#line 1 \"{quoted}\"\n{respelt}")).ok()?;
    let mut options = options.clone();
    if let Some(dir) = original.parent() {
        options
            .extra_args
            .insert(0, format!("-iquote{}", dir.display()));
    }
    let list: Vec<String> = lines.iter().map(usize::to_string).collect();
    notes.push(format!(
        "compiled with the kernel launches on line(s) {} respelt `<<<` … `>>>`: clang does not accept `<< <` … `>> >`, which nvcc does",
        list.join(", ")
    ));
    Some(CompiledSource {
        path: copy,
        options,
    })
}

/// The language of `path` (`options.language`, else from the extension), once it is known
/// to exist.
fn check_input(path: &Path, options: &CompileOptions) -> Result<Language, FrontError> {
    if !path.exists() {
        return Err(FrontError::InputMissing {
            path: path.to_path_buf(),
        });
    }
    if path.is_dir() {
        return Err(FrontError::InputUnreadable {
            path: path.to_path_buf(),
            source: std::io::Error::other("it is a directory"),
        });
    }
    match options.language {
        Some(language) => Ok(language),
        None => Language::from_path(path),
    }
}

/// The most bytes of one input file (a kernel, a PTX file) or compiler output that
/// warpcheck reads: 256 MiB.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// Reads at most `limit` bytes of `path`; a longer file (or a device such as `/dev/zero`
/// behind a symlink) is an `InvalidData` error instead of reading without end.
pub fn read_limited(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than the limit of {limit} bytes"),
        ));
    }
    Ok(bytes)
}

fn read_ptx(path: &Path) -> Result<CompiledModule, FrontError> {
    let bytes =
        read_limited(path, MAX_INPUT_BYTES).map_err(|source| FrontError::InputUnreadable {
            path: path.to_path_buf(),
            source,
        })?;
    let ptx = String::from_utf8(bytes).map_err(|_| FrontError::InputUnreadable {
        path: path.to_path_buf(),
        source: std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the file is not UTF-8 text",
        ),
    })?;
    let signatures = signatures_from_ptx(&ptx);
    Ok(CompiledModule {
        ptx,
        source_path: path.to_path_buf(),
        language: Language::Ptx,
        compiler: "none".to_string(),
        command: None,
        signatures,
        notes: Vec::new(),
    })
}

#[doc(hidden)]
/// Reads a saved AST dump and summarises it (for timing the reader; not a stable API).
pub fn __bench_read_ast(reader: impl std::io::Read) -> String {
    match signature::ast_json::read_ast(reader) {
        Ok(facts) => format!(
            "{} functions, {} typedefs, {} records",
            facts.functions.len(),
            facts.typedefs.len(),
            facts.records.len()
        ),
        Err(error) => format!("error: {error}"),
    }
}
