//! Building compiler command lines and running them.
//!
//! clang, for every language, compiles device code only, with line tables, for one
//! architecture, with the PTX version of [`Arch::ptx_version`]:
//!
//! * CUDA: `-x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_XX`, the shim
//!   directory first on the include path and `-include warpcheck_prelude.h` (nvcc likewise
//!   force-includes `cuda_runtime.h`).
//! * OpenCL C: `-x cl -cl-std=CL2.0 -target nvptx64-nvidia-cuda -march=sm_XX -Xclang
//!   -finclude-default-header -include warpcheck_opencl.h`.
//! * C: `-x c -target nvptx64-nvidia-cuda -march=sm_XX`, with the host's C include
//!   directories (asked from the same clang) after the user's and the host architecture's
//!   macro (`__x86_64__`, `__aarch64__`) so that glibc's headers select the 64-bit layout,
//!   which NVPTX64 shares.
//!
//! C and OpenCL use DWARF 2 line tables (`-gdwarf-2`, what CUDA device compilation uses):
//! with the default DWARF version clang 14 crashes on some optimised C.
//!
//! nvcc: see [`crate::nvcc`].
//!
//! When the compiler fails, its diagnostics are shown without the warnings located in
//! headers that are not the user's (see [`crate::diagnostics`]).

use crate::arch::Arch;
use crate::diagnostics;
use crate::error::{CompilerFailure, FrontError};
use crate::language::Language;
use crate::options::CompileOptions;
use crate::process::RunError;
use crate::shims::{CUDA_PRELUDE, FALLBACK_SUBDIR, OPENCL_PRELUDE};
use crate::signature::ast_json::{self, AstFacts};
use crate::toolchain::{Compiler, CompilerKind};
use std::collections::HashMap;
use std::ffi::OsString;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// The flags that decide how the source is parsed (language, target, headers, macros), shared
/// by the compilation and the AST dump. The caller appends the user's extra arguments after
/// its own flags, so that they win.
pub(crate) fn clang_frontend_args(
    clang: &Compiler,
    language: Language,
    arch: &Arch,
    shim_dir: &Path,
    options: &CompileOptions,
    purpose: Purpose,
) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    let mut push = |a: &str| args.push(a.into());
    let ptx_feature = format!("+ptx{}", arch.ptx_version());
    match language {
        Language::Cuda => {
            for a in [
                "-x",
                "cuda",
                "--cuda-device-only",
                "-nocudainc",
                "-nocudalib",
            ] {
                push(a);
            }
            push(&format!("--cuda-gpu-arch={}", arch.name));
            // `"text"MACRO` without a space: nvcc takes it as two tokens, as C++03 did
            // (Rodinia's mummergpu writes `"node ("fNID")"`); clang, in C++11 and later,
            // as a user-defined literal suffix, an error unless this warning is off.
            push("-Wno-reserved-user-defined-literal");
        }
        Language::OpenCl => {
            for a in [
                "-x",
                "cl",
                "-cl-std=CL2.0",
                "-target",
                "nvptx64-nvidia-cuda",
            ] {
                push(a);
            }
            push(&format!("-march={}", arch.name));
            for a in ["-Xclang", "-finclude-default-header"] {
                push(a);
            }
        }
        Language::C | Language::Ptx => {
            for a in ["-x", "c", "-target", "nvptx64-nvidia-cuda"] {
                push(a);
            }
            push(&format!("-march={}", arch.name));
        }
    }
    for a in ["-Xclang", "-target-feature", "-Xclang", &ptx_feature] {
        push(a);
    }
    match language {
        Language::Cuda => {
            args.push("-I".into());
            args.push(shim_dir.into());
            args.push("-include".into());
            args.push(CUDA_PRELUDE.into());
        }
        // clang's default header declares every OpenCL built-in; the shim only defines them,
        // which signatures do not need (and which would make the AST dump 50 times larger).
        Language::OpenCl if purpose == Purpose::Compile => {
            args.push("-I".into());
            args.push(shim_dir.into());
            args.push("-include".into());
            args.push(OPENCL_PRELUDE.into());
        }
        _ => {}
    }
    for dir in &options.include_dirs {
        args.push("-I".into());
        args.push(dir.into());
    }
    for define in &options.defines {
        args.push(format!("-D{define}").into());
    }
    if let Some(std) = &options.std
        && matches!(language, Language::Cuda | Language::C)
    {
        args.push(format!("-std={std}").into());
    }
    if language == Language::C {
        args.extend(host_c_args(clang));
    }
    if language != Language::OpenCl {
        args.push("-idirafter".into());
        args.push(shim_dir.join(FALLBACK_SUBDIR).into());
    }
    args
}

/// Why clang is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Purpose {
    Compile,
    AstDump,
}

/// Host include directories and architecture macro for C compiled for NVPTX (see the module
/// documentation). Asked once per clang.
fn host_c_args(clang: &Compiler) -> Vec<OsString> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Vec<OsString>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Ok(cached) = cache.lock()
        && let Some(args) = cached.get(&clang.path)
    {
        return args.clone();
    }
    let mut args: Vec<OsString> = Vec::new();
    match std::env::consts::ARCH {
        "x86_64" => args.extend(["-D__x86_64__", "-D__x86_64"].map(OsString::from)),
        "aarch64" => args.push("-D__aarch64__".into()),
        "powerpc64" => args.extend(["-D__powerpc64__", "-D__PPC64__"].map(OsString::from)),
        _ => {}
    }
    let output = crate::process::output_limited(
        Command::new(&clang.path).args(["-x", "c", "-E", "-v", "-"]),
        crate::process::default_timeout(),
    );
    if let Ok(output) = output {
        let text = String::from_utf8_lossy(&output.stderr);
        let mut inside = false;
        for line in text.lines() {
            if line.starts_with("#include <...> search starts here") {
                inside = true;
            } else if line.starts_with("End of search list") {
                inside = false;
            } else if inside {
                args.push("-idirafter".into());
                args.push(line.trim().into());
            }
        }
    }
    if let Ok(mut cached) = cache.lock() {
        cached.insert(clang.path.clone(), args.clone());
    }
    args
}

/// Where one compilation works: its private directory, the shim headers, and where clang
/// writes the list of files it read (`-MD -MF`, for the compile cache), if anywhere.
#[derive(Clone, Copy)]
pub(crate) struct Scratch<'a> {
    pub dir: &'a Path,
    pub shims: &'a Path,
    pub deps: Option<&'a Path>,
}

/// Compiles `path` to PTX in `scratch.dir`, returning the PTX text and the command line.
pub(crate) fn compile_to_ptx(
    compiler: &Compiler,
    language: Language,
    arch: &Arch,
    path: &Path,
    options: &CompileOptions,
    scratch: Scratch,
) -> Result<(String, String), FrontError> {
    let Scratch {
        dir: work_dir,
        shims: shim_dir,
        deps,
    } = scratch;
    let output = work_dir.join("out.ptx");
    let mut args: Vec<OsString> = Vec::new();
    match compiler.kind {
        CompilerKind::Clang => {
            args.extend(clang_frontend_args(
                compiler,
                language,
                arch,
                shim_dir,
                options,
                Purpose::Compile,
            ));
            args.push(format!("-O{}", options.opt_level).into());
            args.push("-gline-tables-only".into());
            // The shim directory is temporary: name it by what it is in the line tables.
            let mut prefix_map = OsString::from("-fdebug-prefix-map=");
            prefix_map.push(shim_dir);
            prefix_map.push("=/warpcheck-shims");
            args.push(prefix_map);
            if language != Language::Cuda {
                args.push("-gdwarf-2".into());
            }
            // Later flags win, so the user's extra arguments come after warpcheck's.
            args.extend(options.extra_args.iter().map(OsString::from));
            args.extend(["-S", "-o"].map(OsString::from));
            args.push(output.clone().into());
            args.push(path.into());
        }
        CompilerKind::Nvcc => {
            let host = crate::toolchain::nvcc_host_compiler();
            args = crate::nvcc::nvcc_args(compiler, arch, path, options, host.as_deref(), &output);
        }
    }
    let command_line = display_command(&compiler.path, &args);
    // The dependency list only feeds the compile cache; the command shown stays the one
    // that reproduces the PTX.
    if let Some(deps) = deps {
        args.splice(
            0..0,
            ["-MD".into(), "-MF".into(), deps.as_os_str().to_owned()],
        );
    }
    let stderr_path = work_dir.join("compiler-stderr.txt");
    let stderr_file = File::create(&stderr_path).map_err(|source| FrontError::ShimSetup {
        dir: work_dir.to_path_buf(),
        source,
    })?;
    let limit = options.time_limit();
    let status = crate::process::run_limited(
        Command::new(&compiler.path)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr_file),
        limit,
    )
    .map_err(|error| match error {
        RunError::TimedOut(limit) => FrontError::CompilerTimedOut {
            compiler: compiler.to_string(),
            path: path.to_path_buf(),
            limit,
            command: command_line.clone(),
        },
        RunError::Spawn(source) | RunError::Wait(source) => FrontError::CompilerNotRunnable {
            program: compiler.path.clone(),
            source,
        },
    })?;
    // Bounded: a compiler can print without end (a macro that expands forever).
    let stderr = crate::read_limited(&stderr_path, crate::MAX_INPUT_BYTES)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_else(|e| format!("(the compiler's messages are unreadable: {e})"));
    if !status.success() {
        return Err(FrontError::CompilerFailed(Box::new(CompilerFailure {
            compiler: compiler.to_string(),
            path: path.to_path_buf(),
            status: status.to_string(),
            command: command_line,
            hint: known_failure_hint(compiler, language, options, &stderr),
            stderr: diagnostics::without_header_warnings(
                stderr.trim_end(),
                &not_the_users_headers(compiler, shim_dir),
            ),
        })));
    }
    let ptx = crate::read_limited(&output, crate::MAX_INPUT_BYTES)
        .and_then(|b| {
            String::from_utf8(b).map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::InvalidData, "the output is not UTF-8")
            })
        })
        .map_err(|error| FrontError::NoPtxOutput {
            compiler: compiler.to_string(),
            path: path.to_path_buf(),
            reason: error.to_string(),
        })?;
    if !ptx.contains(".version") {
        return Err(FrontError::NoPtxOutput {
            compiler: compiler.to_string(),
            path: path.to_path_buf(),
            reason: "the output has no .version directive".to_string(),
        });
    }
    Ok((ptx, command_line))
}

/// Directories of headers whose warnings are not the user's: NVIDIA's (the private tree's,
/// or the `include` next to a system nvcc's `bin`), warpcheck's shims and the system's.
fn not_the_users_headers(compiler: &Compiler, shim_dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = diagnostics::SYSTEM_HEADER_DIRS
        .iter()
        .map(PathBuf::from)
        .collect();
    dirs.push(shim_dir.to_path_buf());
    match &compiler.nvidia {
        Some(tree) => dirs.extend(tree.header_dirs.iter().cloned()),
        None if compiler.kind == CompilerKind::Nvcc => {
            if let Some(home) = compiler.path.parent().and_then(Path::parent) {
                dirs.push(home.join("include"));
            }
        }
        None => {}
    }
    dirs
}

/// Explanations of compiler failures that are compiler bugs rather than errors in the source.
fn known_failure_hint(
    compiler: &Compiler,
    language: Language,
    options: &CompileOptions,
    stderr: &str,
) -> Option<String> {
    if compiler.kind == CompilerKind::Clang
        && language == Language::OpenCl
        && options.opt_level == 0
        && stderr.contains("Cannot cast between two non-generic address spaces")
    {
        return Some(format!(
            "{compiler}'s NVPTX back end cannot compile OpenCL kernels with __local pointer parameters \
             without optimisation (an LLVM bug; clang 19 compiles them); compile with -O1 or higher, or use a newer clang"
        ));
    }
    None
}

/// Runs clang's JSON AST dump of `path` and reads it as a stream (see
/// [`ast_json`]). Failures are returned as text: the caller falls back to PTX-only
/// signatures and says why.
///
/// For CUDA the first attempt defines `__WARPCHECK_SIGNATURES_ONLY`, which keeps the
/// prelude from including `<cmath>` and `<cstdlib>`: that cuts the dump from about 170 MB to
/// 40 MB. If the source needs those headers without including them itself, that attempt
/// fails to compile and the dump is taken again with the full prelude.
pub(crate) fn dump_ast(
    clang: &Compiler,
    language: Language,
    arch: &Arch,
    path: &Path,
    options: &CompileOptions,
    shim_dir: &Path,
) -> Result<AstFacts, String> {
    if language == Language::Cuda
        && let Ok(facts) = dump_ast_once(clang, language, arch, path, options, shim_dir, true)
    {
        return Ok(facts);
    }
    dump_ast_once(clang, language, arch, path, options, shim_dir, false)
}

fn dump_ast_once(
    clang: &Compiler,
    language: Language,
    arch: &Arch,
    path: &Path,
    options: &CompileOptions,
    shim_dir: &Path,
    signatures_only: bool,
) -> Result<AstFacts, String> {
    let mut args = clang_frontend_args(clang, language, arch, shim_dir, options, Purpose::AstDump);
    if signatures_only {
        args.push("-D__WARPCHECK_SIGNATURES_ONLY".into());
    }
    args.extend(options.extra_args.iter().map(OsString::from));
    args.extend(["-fsyntax-only", "-Xclang", "-ast-dump=json"].map(OsString::from));
    args.push(path.into());
    let mut child = crate::process::spawn_in_group(
        Command::new(&clang.path)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .map_err(|e| format!("{} {e}", clang.path.display()))?;
    let (Some(stdout), Some(mut stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err("clang's output pipes are missing".to_string());
    };
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    // Expression trees nest deeply; read on a thread with a large stack.
    let parser = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || ast_json::read_ast(stdout))
        .map_err(|e| format!("could not start the AST reader: {e}"))?;
    // Waited for first: when the limit passes, killing clang closes the pipes and ends
    // the readers.
    let status = crate::process::wait_limited(child, options.time_limit())
        .map_err(|e| format!("clang's AST dump {e}"))?;
    let parsed = parser
        .join()
        .map_err(|_| "the AST reader panicked".to_string())?;
    let stderr_text = stderr_reader.join().unwrap_or_default();
    if !status.success() {
        return Err(format!(
            "clang's AST dump failed ({status}): {}",
            stderr_text.trim_end()
        ));
    }
    parsed.map_err(|e| format!("clang's AST dump could not be read: {e}"))
}

/// A command line as one could paste it into a shell.
fn display_command(program: &Path, args: &[OsString]) -> String {
    let mut text = quote(&program.to_string_lossy());
    for arg in args {
        text.push(' ');
        text.push_str(&quote(&arg.to_string_lossy()));
    }
    text
}

fn quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=+./:,@%".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
