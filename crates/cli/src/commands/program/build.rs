//! Building the program in a private temporary directory, by one of two routes:
//!
//! * clang compiles the host side ([`build`] here): the device side of each `.cu` file
//!   to PTX (the front end, as kernel mode does, with clang or nvcc), checked by parsing
//!   and lowering it; the host side of each file natively with clang (CUDA host
//!   compilation with warpcheck's shim headers and the PTX embedded as the "GPU binary",
//!   so that clang emits the registration constructor and the launches); then one link
//!   with `libwarpcheck_cudart.so`.
//! * nvcc compiles both sides with NVIDIA's headers ([`super::nvcc_host`]).
//!
//! Which route `--compiler` picks: [`host_route`]. A link that fails on symbols the
//! runtime does not define is reported by name ([`super::link_errors`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use warpcheck_front::{CompileOptions, CompilerChoice, Language};
use warpcheck_ptx::LineIndex;
use warpcheck_report::{Code, Finding, Location, Severity, Sources};

use super::ProgramArgs;
use crate::input::CompilerArg;
use crate::output::CliError;

/// The runtime library's file name.
pub const RUNTIME_LIB: &str = "libwarpcheck_cudart.so";

/// A built program.
pub struct Built {
    pub executable: PathBuf,
    /// The include directories of the headers that implement the API (the shims, or
    /// NVIDIA's): their frames are not the program's lines.
    pub header_dirs: Vec<PathBuf>,
    /// The major version of NVIDIA's headers the host side was compiled with (nvcc);
    /// `None` for the shim headers (clang).
    pub nvidia_headers: Option<u32>,
    /// The kernels' signatures (source names and C types of their parameters).
    pub signatures: Vec<warpcheck_front::KernelSignature>,
    /// The PTX target the device side was compiled for.
    pub ptx_arch: String,
}

/// Where `libwarpcheck_cudart.so` is: `$WARPCHECK_CUDART_LIB`, else next to the
/// `warpcheck` executable (or in its `deps/` directory, or the directory above, as cargo
/// lays out builds and test binaries; the newest of these).
pub fn runtime_library() -> Result<PathBuf, CliError> {
    if let Some(p) = std::env::var_os("WARPCHECK_CUDART_LIB").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe()
        .map_err(|e| CliError::msg(format!("cannot locate the warpcheck executable: {e}")))?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let candidates = [
        dir.join(RUNTIME_LIB),
        dir.join("deps").join(RUNTIME_LIB),
        dir.join("..").join(RUNTIME_LIB),
    ];
    // The newest: a library uplifted by an earlier `cargo build -p warpcheck-cudart` may be
    // older than the one built with the CLI.
    let modified = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    candidates
        .iter()
        .filter(|p| p.is_file())
        .max_by_key(|p| modified(p))
        .cloned()
        .ok_or_else(|| {
        CliError::msg(format!(
            "cannot find {RUNTIME_LIB} next to {} (build it with `cargo build --release -p warpcheck-cudart`, or set WARPCHECK_CUDART_LIB)",
            exe.display()
        ))
    })
}

/// The PTX target: the emulated architecture, or sm_80 where clang is too old to know it
/// (clang 16 added sm_90; the emulator runs sm_80 PTX on the emulated sm_90 device alike).
fn ptx_arch(args: &ProgramArgs, clang_major: u32) -> String {
    let number = args.arch.trim_start_matches("sm_").trim_end_matches('a');
    match number.parse::<u32>() {
        Ok(n) if n >= 89 && clang_major < 16 => "sm_80".into(),
        _ => args.arch.clone(),
    }
}

fn compile_options(args: &ProgramArgs, arch: &str) -> CompileOptions {
    let mut options = args.compile.options(arch);
    if args.compile.compiler == CompilerArg::Auto {
        options.compiler = CompilerChoice::Clang;
    }
    options
}

/// Parses and lowers the PTX called `name`: its errors as findings (exit 2).
pub(super) fn validate_ptx(name: &str, ptx: &str) -> Result<(), CliError> {
    let parsed = warpcheck_ptx::parse(ptx);
    let index = LineIndex::new(ptx);
    let at = |offset: u32| {
        let lc = index.line_col(ptx, offset);
        Location {
            file: name.to_string(),
            line: lc.line,
            column: lc.col,
        }
    };
    let mut findings: Vec<Finding> = parsed
        .errors
        .iter()
        .map(|e| {
            Finding::new(Code::SyntaxError, Severity::Error, e.message.clone())
                .at(at(e.span.start), "here")
        })
        .collect();
    if findings.is_empty()
        && let Err(errors) = warpcheck_ir::lower(&parsed.module)
    {
        findings = errors
            .iter()
            .map(|e| {
                Finding::new(Code::LoweringError, Severity::Error, e.message.clone())
                    .at(at(e.span.start), "here")
            })
            .collect();
    }
    if findings.is_empty() {
        return Ok(());
    }
    let mut sources = Sources::new();
    sources.insert(name.to_string(), ptx.to_string());
    Err(CliError::Findings { findings, sources })
}

/// Compiles a `.cu` file's device side to PTX, validates it ([`validate_ptx`]), and
/// writes the device image the runtime loads. Returns the kernels' signatures.
fn device_image(
    args: &ProgramArgs,
    arch: &str,
    file: &Path,
    out: &Path,
) -> Result<Vec<warpcheck_front::KernelSignature>, CliError> {
    let compiled = warpcheck_front::compile(file, &compile_options(args, arch))
        .map_err(|e| CliError::msg(e.to_string()))?;
    let ptx_name = format!("{}.ptx", file.display());
    validate_ptx(&ptx_name, &compiled.ptx)?;
    let image = warpcheck_cudart::register::make_image(&ptx_name, &compiled.ptx);
    std::fs::write(out, image)
        .map_err(|e| CliError::msg(format!("cannot write {}: {e}", out.display())))?;
    Ok(compiled.signatures)
}

/// Runs a compiler command, turning failure into an error with its output.
pub(super) fn run_tool(mut cmd: Command, what: &str, limit: Duration) -> Result<(), CliError> {
    let output = warpcheck_front::process::output_limited(&mut cmd, limit).map_err(|e| {
        CliError::msg(format!(
            "{} ({what}) {e}\ncommand: {:?}",
            cmd.get_program().to_string_lossy(),
            cmd
        ))
    })?;
    if output.status.success() {
        return Ok(());
    }
    Err(CliError::msg(format!(
        "{what} failed:\n{}",
        String::from_utf8_lossy(&output.stderr).trim_end()
    )))
}

/// The host compilation of one file.
fn host_compile(
    clang: &Path,
    arch: &str,
    args: &ProgramArgs,
    file: &Path,
    image: Option<&Path>,
    shim_dir: &Path,
    object: &Path,
) -> Command {
    let mut cmd = Command::new(clang);
    let c = file.extension().is_some_and(|e| e == "c");
    let cuda = image.is_some();
    if !c {
        cmd.arg("--driver-mode=g++");
    }
    if cuda {
        cmd.args(["-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib"]);
        cmd.arg(format!("--cuda-gpu-arch={arch}"));
        // As for the device side (`warpcheck_front`): `"text"MACRO` is two tokens to nvcc.
        cmd.arg("-Wno-reserved-user-defined-literal");
    }
    cmd.args(["-g", "-O1", "-fno-omit-frame-pointer"]);
    cmd.arg("-I").arg(shim_dir);
    if cuda {
        cmd.args(["-include", "warpcheck_prelude.h"]);
    }
    let flags = &args.compile;
    for d in &flags.include {
        cmd.arg("-I").arg(d);
    }
    for d in &flags.define {
        cmd.arg(format!("-D{d}"));
    }
    if let Some(std) = flags.std.as_ref().filter(|_| !c) {
        cmd.arg(format!("-std={std}"));
    }
    cmd.args(&flags.compiler_flag);
    cmd.arg("-idirafter").arg(shim_dir.join("fallback"));
    if let Some(image) = image {
        cmd.args(["-Xclang", "-fcuda-include-gpubinary", "-Xclang"]);
        cmd.arg(image);
    }
    cmd.arg("-c").arg(file).arg("-o").arg(object);
    cmd
}

/// A copy of a CUDA file with its spaced launch chevrons (`k << <g, b>> > (…)`, which nvcc
/// accepts and clang does not) closed up, for the host compilation; the copy keeps the
/// file's name and lines (`#line`), and the caller adds its directory with `-iquote`.
/// `None` when the file has none.
fn respelt_copy(file: &Path, dir: &Path, i: usize) -> Option<PathBuf> {
    let text = std::fs::read_to_string(file).ok()?;
    let (respelt, _lines) = warpcheck_front::close_up_launch_chevrons(&text)?;
    let copy_dir = dir.join(format!("respelt{i}"));
    std::fs::create_dir_all(&copy_dir).ok()?;
    let copy = copy_dir.join(file.file_name()?);
    let quoted = file
        .to_string_lossy()
        .replace('\\', "\\\\")
        .replace('"', "\\\"");
    std::fs::write(&copy, format!("#line 1 \"{quoted}\"\n{respelt}")).ok()?;
    Some(copy)
}

/// Which compiler compiles the host side.
pub enum HostRoute {
    /// clang, with warpcheck's shim headers (the device side by the front end's choice).
    Clang,
    /// nvcc, both sides, with NVIDIA's headers.
    Nvcc(warpcheck_front::Compiler),
}

/// The host route `--compiler` picks: `nvcc` is nvcc's, `clang` and `auto` are clang's.
/// `auto` stays with clang because NVIDIA's `cooperative_groups` grid barrier needs a
/// driver workspace the emulator does not provide (see docs/STATUS.md); a clang build
/// that fails under `auto` says that `--compiler nvcc` exists ([`with_nvcc_hint`]).
pub fn host_route(args: &ProgramArgs, first: &Path) -> Result<HostRoute, CliError> {
    match args.compile.compiler {
        CompilerArg::Nvcc => {
            warpcheck_front::Compiler::discover(CompilerChoice::Nvcc, Language::Cuda, first)
                .map(HostRoute::Nvcc)
                .map_err(|e| CliError::msg(e.to_string()))
        }
        CompilerArg::Clang | CompilerArg::Auto => Ok(HostRoute::Clang),
    }
}

/// A failed clang build's message, with a hint at `--compiler nvcc` under `auto` when an
/// nvcc is there (programs that include NVIDIA headers the shims lack build with it).
fn with_nvcc_hint(args: &ProgramArgs, first: &Path, error: CliError) -> CliError {
    let CliError::Message(text) = error else {
        return error;
    };
    let nvcc = args.compile.compiler == CompilerArg::Auto
        && warpcheck_front::Compiler::discover(CompilerChoice::Nvcc, Language::Cuda, first)
            .is_ok_and(|c| c.kind == warpcheck_front::CompilerKind::Nvcc);
    if !nvcc {
        return CliError::Message(text);
    }
    CliError::msg(format!(
        "{text}\nhint: clang compiled the program with warpcheck's own CUDA headers; `--compiler nvcc` compiles it with nvcc and NVIDIA's headers"
    ))
}

/// Links `objects` with the runtime library into `executable`, with `driver` (clang or
/// g++); a link that fails on undefined symbols says which
/// ([`super::link_errors::explain`]).
pub(super) fn link_program(
    driver: &Path,
    objects: &[PathBuf],
    library: &Path,
    executable: &Path,
    args: &ProgramArgs,
    limit: Duration,
) -> Result<(), CliError> {
    let lib_dir = library.parent().unwrap_or(Path::new("."));
    let mut link = Command::new(driver);
    if driver
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("clang"))
    {
        link.arg("--driver-mode=g++");
    }
    link.args(objects);
    link.arg("-L").arg(lib_dir);
    link.args(["-Wl,--no-as-needed", "-lwarpcheck_cudart"]);
    link.args(args.link_dir.iter().map(|d| format!("-L{}", d.display())));
    link.args(super::link_libraries(&args.link_lib));
    let mut rpath = OsString::from("-Wl,-rpath,");
    rpath.push(lib_dir);
    link.arg(rpath);
    link.args(["-lm", "-lpthread", "-o"]).arg(executable);
    run_tool(link, "linking the program", limit).map_err(|e| match e {
        CliError::Message(text) => CliError::msg(super::link_errors::explain(&text)),
        other => other,
    })
}

/// Builds the program below `dir`.
pub fn build(args: &ProgramArgs, dir: &Path) -> Result<Built, CliError> {
    let library = runtime_library()?;
    let first = args
        .files
        .first()
        .ok_or_else(|| CliError::msg("no source file"))?;
    if let HostRoute::Nvcc(nvcc) = host_route(args, first)? {
        let limit = args.compile.options(&args.arch).time_limit();
        return super::nvcc_host::build(args, dir, &nvcc, &library, limit);
    }
    let shim_dir = dir.join("include");
    warpcheck_front::write_shim_headers(&shim_dir)
        .map_err(|e| CliError::msg(format!("cannot write the shim headers: {e}")))?;
    let compiler =
        warpcheck_front::Compiler::discover(CompilerChoice::Clang, Language::Cuda, first)
            .map_err(|e| CliError::msg(e.to_string()))?;
    let arch = ptx_arch(args, compiler.version.major);
    let clang = compiler.path;
    let limit = args.compile.options(&arch).time_limit();
    let mut objects: Vec<PathBuf> = Vec::new();
    let mut signatures = Vec::new();
    for (i, file) in args.files.iter().enumerate() {
        if !file.is_file() {
            return Err(CliError::msg(format!("{}: no such file", file.display())));
        }
        let file = std::fs::canonicalize(file).unwrap_or_else(|_| file.clone());
        let image = dir.join(format!("device{i}.img"));
        let is_cuda = file.extension().is_some_and(|e| e == "cu");
        if is_cuda {
            let compiled = device_image(args, &arch, &file, &image)
                .map_err(|e| with_nvcc_hint(args, first, e))?;
            signatures.extend(compiled);
        }
        let object = dir.join(format!("host{i}.o"));
        let respelt = if is_cuda {
            respelt_copy(&file, dir, i)
        } else {
            None
        };
        let mut cmd = host_compile(
            &clang,
            &arch,
            args,
            respelt.as_deref().unwrap_or(&file),
            is_cuda.then_some(image.as_path()),
            &shim_dir,
            &object,
        );
        if let (Some(_), Some(parent)) = (&respelt, file.parent()) {
            cmd.arg(format!("-iquote{}", parent.display()));
        }
        run_tool(
            cmd,
            &format!("the host compilation of {}", file.display()),
            limit,
        )
        .map_err(|e| with_nvcc_hint(args, first, e))?;
        objects.push(object);
    }
    let executable = dir.join("program");
    link_program(&clang, &objects, &library, &executable, args, limit)?;
    Ok(Built {
        executable,
        header_dirs: vec![shim_dir],
        nvidia_headers: None,
        signatures,
        ptx_arch: arch,
    })
}
