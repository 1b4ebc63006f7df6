//! Test helpers for the checkers: compile a kernel file (from the corpus or from a source
//! string), run its launches under a [`Checker`] and return the findings.
//!
//! [`run_header`] runs a corpus file's `// warpcheck-launch:` lines the way the kernel
//! file format describes them (buffers shared by name across launches, scalars typed by
//! the kernel's C signature), so the checkers can be compared with the file's markers.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use warpcheck_check::{Buffer, CheckOptions, Checker, LaunchInfo, ReportCx, Tools};
use warpcheck_corpus::KernelFile;
use warpcheck_emu::args::{self, ArgSpec, ElemType, Limits, Number};
use warpcheck_emu::{GlobalMemory, LaunchConfig, RunOutcome};
use warpcheck_front::{CompileOptions, CompilerChoice, KernelSignature, ParamKind, ScalarType};
use warpcheck_ir::symbols::VarRole;
use warpcheck_ir::{FuncId, InstId, Program};
use warpcheck_report::{Code, Finding, Location};

pub fn corpus(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/kernels")
        .canonicalize()
        .expect("tests/kernels")
        .join(file)
}

/// A compiled kernel file.
pub struct Compiled {
    pub program: Program,
    pub signatures: Vec<KernelSignature>,
    pub path: PathBuf,
}

pub fn compile_path(path: &Path, opt: u8) -> Compiled {
    let options = CompileOptions {
        opt_level: opt,
        compiler: CompilerChoice::Clang,
        ..CompileOptions::default()
    };
    let module = warpcheck_front::compile(path, &options)
        .unwrap_or_else(|e| panic!("compiling {}: {e}", path.display()));
    let parsed = warpcheck_ptx::parse(&module.ptx);
    assert!(
        parsed.errors.is_empty(),
        "parse errors: {:?}",
        parsed.errors
    );
    let program = warpcheck_ir::lower(&parsed.module).unwrap_or_else(|e| panic!("lowering: {e:?}"));
    Compiled {
        program,
        signatures: module.signatures,
        path: path.to_path_buf(),
    }
}

/// Compiles CUDA source text (written to a temporary `.cu` file named after `name`).
pub fn compile_source(name: &str, source: &str) -> Compiled {
    let dir = std::env::temp_dir().join(format!("warpcheck-check-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.cu"));
    std::fs::write(&path, source).unwrap();
    compile_path(&path, 3)
}

pub fn kernel(program: &Program, name: &str) -> FuncId {
    program
        .kernels()
        .find(|&k| {
            let f = program.function(k);
            f.name == name || f.display_name() == name
        })
        .unwrap_or_else(|| panic!("no kernel {name}"))
}

/// A kernel argument given by hand.
#[derive(Clone, Copy, Debug)]
pub enum A {
    Ptr(u64),
    I32(i32),
    U32(u32),
    F32(f32),
}

pub fn params(program: &Program, k: FuncId, args: &[A]) -> Vec<u8> {
    let f = program.function(k);
    assert_eq!(f.params.len(), args.len(), "argument count of {}", f.name);
    let mut out = vec![0u8; f.param_space_size as usize];
    for (&p, a) in f.params.iter().zip(args) {
        let VarRole::Param { offset, .. } = program.variable(p).role else {
            panic!()
        };
        let bytes: Vec<u8> = match *a {
            A::Ptr(x) => x.to_le_bytes().to_vec(),
            A::I32(x) => x.to_le_bytes().to_vec(),
            A::U32(x) => x.to_le_bytes().to_vec(),
            A::F32(x) => x.to_le_bytes().to_vec(),
        };
        out[offset as usize..offset as usize + bytes.len()].copy_from_slice(&bytes);
    }
    out
}

/// A session: a compiled file, its memory and a checker.
pub struct Session {
    pub compiled: Compiled,
    pub memory: GlobalMemory,
    pub checker: Checker,
    pub buffers: Vec<Buffer>,
    /// The instruction budget per launch (the emulator's default when `None`).
    pub budget: Option<u64>,
    /// Host threads per launch (0: one per core).
    pub threads: usize,
}

impl Session {
    pub fn new(compiled: Compiled, tools: &str) -> Session {
        let options = CheckOptions {
            tools: Tools::parse(tools).unwrap(),
            ..CheckOptions::default()
        };
        Session {
            compiled,
            memory: GlobalMemory::new(),
            checker: Checker::new(options),
            buffers: Vec::new(),
            budget: None,
            threads: 0,
        }
    }

    /// Allocates a named buffer; `init` None makes it uninitialised.
    pub fn buffer(&mut self, name: &str, bytes: &[u8], initialized: bool) -> u64 {
        let a = self
            .memory
            .alloc_labeled(bytes.len().max(1) as u64, initialized, Some(name.into()))
            .unwrap();
        self.memory.write(a, bytes).unwrap();
        self.buffers.push(Buffer {
            name: name.into(),
            address: a,
            size: bytes.len() as u64,
            too_small: None,
        });
        a
    }

    pub fn f32s(&mut self, name: &str, v: &[f32]) -> u64 {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.buffer(name, &bytes, true)
    }

    pub fn zeros(&mut self, name: &str, bytes: usize) -> u64 {
        self.buffer(name, &vec![0; bytes], true)
    }

    pub fn uninit(&mut self, name: &str, bytes: usize) -> u64 {
        self.buffer(name, &vec![0xCD; bytes], false)
    }

    pub fn launch(
        &mut self,
        kernel_name: &str,
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_shared: u32,
        args: &[A],
    ) -> RunOutcome {
        let k = kernel(&self.compiled.program, kernel_name);
        let p = params(&self.compiled.program, k, args);
        self.launch_raw(k, &p, grid, block, dynamic_shared)
    }

    pub fn launch_raw(
        &mut self,
        k: FuncId,
        params: &[u8],
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_shared: u32,
    ) -> RunOutcome {
        let mut config = LaunchConfig::new(grid, block);
        config.dynamic_shared = dynamic_shared;
        config.threads = self.threads;
        if let Some(b) = self.budget {
            config.budget = b;
        }
        let info = LaunchInfo {
            kernel: k,
            kernel_name: self.compiled.program.function(k).display_name().to_string(),
            kernel_mangled: self.compiled.program.function(k).name.clone(),
            grid,
            block,
            dynamic_shared,
            buffers: self.buffers.clone(),
        };
        self.checker
            .launch(
                &self.compiled.program,
                params,
                &mut self.memory,
                &config,
                info,
            )
            .unwrap_or_else(|e| panic!("launch: {e:?}"))
    }

    pub fn findings(&self) -> Vec<Finding> {
        let program = &self.compiled.program;
        let locate = |f: FuncId, i: InstId| locate(program, f, i);
        let cx = ReportCx {
            program,
            locate: &locate,
        };
        self.checker.findings(&cx)
    }
}

pub fn locate(program: &Program, f: FuncId, i: InstId) -> Option<Location> {
    let body = program.function(f).body.as_ref()?;
    let loc = body.inst_locs.get(i.index())?.as_ref()?;
    if loc.line == 0 {
        return None;
    }
    // As the CLI does: code inlined from the shim or CUDA headers is reported at the call.
    let path = program.files.path(loc.file);
    if let Some(at) = loc.inlined_at
        && (path.starts_with("/warpcheck-shims/") || path.contains("__clang_cuda"))
    {
        return Some(Location {
            file: program.files.path(at.file),
            line: at.line,
            column: at.column,
        });
    }
    Some(Location {
        file: path,
        line: loc.line,
        column: loc.column,
    })
}

use warpcheck_ir::EntityRef;

fn elem_of(t: &ScalarType) -> Option<ElemType> {
    let name = match t {
        ScalarType::Bool | ScalarType::U8 => "u8",
        ScalarType::I8 => "i8",
        ScalarType::I16 => "i16",
        ScalarType::U16 => "u16",
        ScalarType::I32 => "i32",
        ScalarType::U32 => "u32",
        ScalarType::I64 => "i64",
        ScalarType::U64 => "u64",
        ScalarType::F16 => "f16",
        ScalarType::F32 => "f32",
        ScalarType::F64 => "f64",
        _ => return None,
    };
    ElemType::from_name(name)
}

/// Runs the `// warpcheck-launch:` lines of a corpus file under the given tools.
pub fn run_header(file: &str, tools: &str) -> Session {
    run_header_with(file, tools, None)
}

/// [`run_header`] with an instruction budget (for kernels that spin forever).
pub fn run_header_with(file: &str, tools: &str, budget: Option<u64>) -> Session {
    let path = corpus(file);
    let header = KernelFile::read(&path).unwrap_or_else(|e| panic!("{e}"));
    let compiled = compile_path(&path, 3);
    let mut s = Session::new(compiled, tools);
    s.budget = budget;
    let mut named: HashMap<String, u64> = HashMap::new();
    assert!(!header.launches.is_empty(), "{file} has no launch line");
    for line in &header.launches {
        let (grid, block, shared) = (line.grid.0, line.block.0, line.shared);
        let arg_list: Vec<_> = line
            .args
            .iter()
            .map(|a| args::parse_arg(a).unwrap())
            .collect();
        let kernel_name = line.kernel.clone().expect("a --kernel");
        let sig = s
            .compiled
            .signatures
            .iter()
            .find(|g| {
                g.name == kernel_name
                    || g.demangled_name.starts_with(&format!("{kernel_name}("))
                    || g.demangled_name.contains(&format!(" {kernel_name}("))
            })
            .unwrap_or_else(|| panic!("no kernel {kernel_name}"))
            .clone();
        let k = s
            .compiled
            .program
            .kernels()
            .find(|&k| s.compiled.program.function(k).name == sig.mangled_name)
            .unwrap();
        let scalars: HashMap<String, Number> = arg_list
            .iter()
            .filter_map(|a| match &a.spec {
                ArgSpec::Scalar(n) => Some((a.name.clone(), *n)),
                _ => None,
            })
            .collect();
        let f = s.compiled.program.function(k);
        let mut params = vec![0u8; f.param_space_size as usize];
        let offsets: Vec<u64> = f
            .params
            .iter()
            .map(|&p| match s.compiled.program.variable(p).role {
                VarRole::Param { offset, .. } => offset,
                _ => panic!("not a parameter"),
            })
            .collect();
        for (pi, p) in sig.params.iter().enumerate() {
            let arg = arg_list
                .iter()
                .find(|a| a.name == p.name)
                .unwrap_or_else(|| panic!("no --arg for {}", p.name));
            let bytes: Vec<u8> = match &arg.spec {
                ArgSpec::Scalar(n) => {
                    let ParamKind::Scalar(t) = &p.kind else {
                        panic!("scalar for non-scalar {}", p.name)
                    };
                    let elem = elem_of(t).unwrap();
                    let mut out = Vec::new();
                    elem.encode(*n, &mut out).unwrap();
                    out
                }
                ArgSpec::Buffer { elem, len, init } => {
                    let address = match named.get(&arg.name) {
                        Some(&a) => a,
                        None => {
                            let value = args::materialize(
                                &arg.name,
                                *elem,
                                len.as_ref(),
                                init,
                                &scalars,
                                0,
                                Limits::default(),
                            )
                            .unwrap();
                            let a = s.buffer(&arg.name, &value.bytes, value.initialized);
                            named.insert(arg.name.clone(), a);
                            a
                        }
                    };
                    address.to_le_bytes().to_vec()
                }
            };
            let o = offsets[pi] as usize;
            params[o..o + bytes.len()].copy_from_slice(&bytes);
        }
        s.launch_raw(k, &params, grid, block, shared);
    }
    s
}

/// The `//~` markers of a corpus file: (line, degree) for markers of `kind`
/// (`bank-conflict(32)` gives ("bank-conflict", Some(32))).
pub fn markers(file: &str, kind: &str) -> Vec<(u32, Option<u32>)> {
    KernelFile::read(corpus(file))
        .unwrap_or_else(|e| panic!("{e}"))
        .markers
        .iter()
        .filter(|m| m.kind.name() == kind)
        .map(|m| (m.line, m.degree))
        .collect()
}

/// The findings of `code` as (line, finding).
pub fn by_code(findings: &[Finding], code: Code) -> Vec<(u32, &Finding)> {
    let mut v: Vec<(u32, &Finding)> = findings
        .iter()
        .filter(|f| f.code == code)
        .map(|f| (f.primary.as_ref().map_or(0, |p| p.location.line), f))
        .collect();
    v.sort_by_key(|(l, _)| *l);
    v
}

/// The degree a finding reports (`Finding::degree`: wavefronts per phase, sectors).
pub fn degree(f: &Finding) -> Option<u32> {
    f.degree.map(|d| d as u32)
}
