//! From a FILE argument to a parsed PTX module: compile (front end), parse, report errors.

use crate::output::CliError;
use std::path::PathBuf;
use warpcheck_front::{CompileOptions, CompilerChoice};
use warpcheck_ptx::{LineIndex, ast};
use warpcheck_report::{Code, Finding, Location, Severity, Sources};

/// Options shared by every command that reads a kernel file.
#[derive(clap::Args, Debug, Clone)]
pub struct CompileArgs {
    /// The kernel file: CUDA (.cu, .cuh, .cu.h), OpenCL C (.cl), C (.c) or PTX (.ptx).
    pub file: PathBuf,
    /// The file's language when its extension does not say it: cu (CUDA), cl, c or ptx.
    #[arg(short = 'x', value_name = "LANG", value_parser = parse_language)]
    pub language: Option<warpcheck_front::Language>,
    /// GPU architecture to compile for.
    #[arg(long, default_value = "sm_80", value_name = "sm_XX")]
    pub arch: String,
    #[command(flatten)]
    pub flags: CompilerFlags,
}

/// The compiler options that kernel mode and program mode share.
#[derive(clap::Args, Debug, Clone)]
pub struct CompilerFlags {
    /// The C++ standard (also written -std=c++20); default c++17 with nvcc.
    #[arg(long = "std", value_name = "STD")]
    pub std: Option<String>,
    /// Pass FLAG to the compiler as it is (repeat for several: -X -Wall -X -ftz=true).
    #[arg(short = 'X', value_name = "FLAG", allow_hyphen_values = true)]
    pub compiler_flag: Vec<String>,
    /// Add a directory to the include search path.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Define a preprocessor macro (NAME or NAME=VALUE).
    #[arg(short = 'D', value_name = "MACRO")]
    pub define: Vec<String>,
    /// Optimisation level of the compilation to PTX.
    #[arg(short = 'O', default_value_t = 3, value_parser = clap::value_parser!(u8).range(0..=3))]
    pub opt_level: u8,
    /// Which compiler turns the source into PTX: auto is the CUDA toolkit's nvcc, else the
    /// nvcc tools/setup.sh installed from NVIDIA's wheels, else clang. In program mode,
    /// auto is clang, which compiles the host side too with warpcheck's headers; nvcc
    /// compiles both sides with NVIDIA's headers.
    #[arg(long, value_enum, default_value_t = CompilerArg::Auto)]
    pub compiler: CompilerArg,
    /// Compile afresh: neither read nor write the compile cache
    /// (`$WARPCHECK_CACHE_DIR`, else `$XDG_CACHE_HOME/warpcheck` or `~/.cache/warpcheck`).
    #[arg(long)]
    pub no_cache: bool,
    /// Stop a compiler (its whole process group) that runs longer than SECS and fail
    /// (exit 2); default: $WARPCHECK_COMPILE_TIMEOUT, else 120.
    #[arg(long, value_name = "SECS", value_parser = warpcheck_front::process::parse_seconds)]
    pub compile_timeout: Option<std::time::Duration>,
}

impl CompilerFlags {
    /// clang at -O3, the cache on, nothing else.
    pub fn clang() -> CompilerFlags {
        CompilerFlags {
            std: None,
            compiler_flag: Vec::new(),
            include: Vec::new(),
            define: Vec::new(),
            opt_level: 3,
            compiler: CompilerArg::Clang,
            no_cache: false,
            compile_timeout: None,
        }
    }

    /// The front end's options for `arch`.
    pub fn options(&self, arch: &str) -> CompileOptions {
        CompileOptions {
            arch: arch.to_string(),
            include_dirs: self.include.clone(),
            defines: self.define.clone(),
            opt_level: self.opt_level,
            compiler: match self.compiler {
                CompilerArg::Auto => CompilerChoice::Auto,
                CompilerArg::Clang => CompilerChoice::Clang,
                CompilerArg::Nvcc => CompilerChoice::Nvcc,
            },
            std: self.std.clone(),
            extra_args: self.compiler_flag.clone(),
            use_cache: !self.no_cache,
            timeout: self.compile_timeout,
            ..CompileOptions::default()
        }
    }
}

fn parse_language(name: &str) -> Result<warpcheck_front::Language, String> {
    warpcheck_front::Language::from_name(name)
        .ok_or_else(|| format!("unknown language `{name}`: expected cu, cl, c or ptx"))
}

/// The command line with `-std=STD`, as compilers spell it, turned into `--std=STD`.
pub fn respell_std(args: impl Iterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    args.map(
        |arg| match arg.to_str().and_then(|a| a.strip_prefix("-std=")) {
            Some(std) => format!("--std={std}").into(),
            None => arg,
        },
    )
    .collect()
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompilerArg {
    Auto,
    Clang,
    Nvcc,
}

impl CompileArgs {
    fn options(&self) -> CompileOptions {
        CompileOptions {
            language: self.language,
            ..self.flags.options(&self.arch)
        }
    }
}

/// A kernel file compiled to PTX and parsed without errors.
pub struct Loaded {
    /// The PTX text.
    pub ptx: String,
    /// The name under which the PTX appears in diagnostics: the file itself for `.ptx`
    /// input, else `<file>.ptx` (the PTX exists only in memory).
    pub ptx_name: String,
    pub module: ast::Module,
}

impl Loaded {
    /// The PTX and its name, for locations of instructions without a source line.
    pub fn ptx_text(&self) -> warpcheck_launch::PtxText<'_> {
        warpcheck_launch::PtxText {
            text: &self.ptx,
            name: &self.ptx_name,
        }
    }
}

/// Compiles FILE to PTX (unless it is PTX) without parsing it.
pub fn compile(args: &CompileArgs) -> Result<warpcheck_front::CompiledModule, CliError> {
    warpcheck_front::compile(&args.file, &args.options()).map_err(|e| CliError::msg(e.to_string()))
}

/// Compiles and parses FILE. Syntax errors are returned as findings pointing into the PTX.
pub fn load(args: &CompileArgs) -> Result<Loaded, CliError> {
    load_compiled(args, compile(args)?)
}

/// Parses an already compiled module (see [`load`]).
pub fn load_compiled(
    args: &CompileArgs,
    compiled: warpcheck_front::CompiledModule,
) -> Result<Loaded, CliError> {
    let is_ptx = args.file.extension().is_some_and(|e| e == "ptx");
    let ptx_name = if is_ptx {
        args.file.display().to_string()
    } else {
        format!("{}.ptx", args.file.display())
    };
    let parsed = warpcheck_ptx::parse(&compiled.ptx);
    if !parsed.errors.is_empty() {
        let index = LineIndex::new(&compiled.ptx);
        let findings = parsed
            .errors
            .iter()
            .map(|e| {
                let lc = index.line_col(&compiled.ptx, e.span.start);
                Finding::new(Code::SyntaxError, Severity::Error, e.message.clone()).at(
                    Location {
                        file: ptx_name.clone(),
                        line: lc.line,
                        column: lc.col,
                    },
                    "here",
                )
            })
            .collect();
        let mut sources = Sources::new();
        sources.insert(ptx_name.clone(), compiled.ptx.clone());
        return Err(CliError::Findings { findings, sources });
    }
    Ok(Loaded {
        ptx: compiled.ptx,
        ptx_name,
        module: parsed.module,
    })
}

/// Lowers a loaded module into the IR; unsupported constructs become findings pointing into
/// the PTX.
pub fn lower(loaded: &Loaded) -> Result<warpcheck_ir::Program, CliError> {
    warpcheck_ir::lower(&loaded.module).map_err(|errors| {
        let index = LineIndex::new(&loaded.ptx);
        let findings = errors
            .iter()
            .map(|e| {
                let lc = index.line_col(&loaded.ptx, e.span.start);
                let mut f = Finding::new(Code::LoweringError, Severity::Error, e.message.clone())
                    .at(
                        Location {
                            file: loaded.ptx_name.clone(),
                            line: lc.line,
                            column: lc.col,
                        },
                        "here",
                    );
                if let Some(func) = &e.function {
                    f = f.kernel(func.clone());
                }
                if let Some(h) = &e.help {
                    f = f.help(h.clone());
                }
                f
            })
            .collect();
        let mut sources = Sources::new();
        sources.insert(loaded.ptx_name.clone(), loaded.ptx.clone());
        CliError::Findings { findings, sources }
    })
}

/// Finds the kernel or function the user named, or explains which ones exist.
pub fn select_function(
    program: &warpcheck_ir::Program,
    name: &str,
) -> Result<warpcheck_ir::FuncId, CliError> {
    Ok(warpcheck_launch::select_function(program, name)?)
}
