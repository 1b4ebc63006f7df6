//! Building the program with nvcc compiling the host side too (`--compiler nvcc`):
//! NVIDIA's headers, so programs that include
//! `cuda_bf16.h`, `cooperative_groups/reduce.h`, CUB or cuBLAS's headers build as they
//! do with the CUDA toolkit.
//!
//! Each `.cu` file is compiled once to an object by nvcc, its host side by nvcc's host
//! compiler (`g++`), its device side to PTX only, with line information
//! (`-gencode arch=compute_XX,code=compute_XX -lineinfo`), uncompressed
//! (`-Xfatbin=-compress=false`). nvcc's host code registers that fat binary with
//! `__cudaRegisterFatBinary`, which `libwarpcheck_cudart.so` answers by reading its PTX
//! entry ([`warpcheck_cudart::fatbin`]). `.cpp` and `.c` files go through nvcc as well
//! (it hands them to the host compiler with the CUDA include directories);
//! `cuda_profiler_api.h`, which the wheels lack, is supplied when the program's include
//! path has none. The objects
//! are linked by the host compiler with `libwarpcheck_cudart.so` instead of NVIDIA's
//! runtime.
//!
//! The PTX that is validated is the PTX that runs: it is read out of the object's
//! `.nv_fatbin` section with the same reader the runtime uses, then parsed and lowered
//! (errors are findings, exit 2). The kernels' signatures (parameter names and types)
//! that `--capture` writes come from the front end's compilation of the same file with
//! the same nvcc (a PTX compilation, served from the compile cache on later runs), which
//! matches entries by their mangled names; without `--capture` that compilation is
//! skipped and the signatures are the PTX's (positional names), which nothing reads.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use object::{Object, ObjectSection};
use warpcheck_front::{Compiler, CompilerChoice};

use super::ProgramArgs;
use super::build::{Built, link_program, run_tool, validate_ptx};
use crate::output::CliError;

/// The architecture nvcc embeds PTX for: `sm_90a` -> `compute_90a`.
fn virtual_arch(arch: &str) -> String {
    format!("compute_{}", arch.trim_start_matches("sm_"))
}

/// The directories of the headers that implement the API (their frames are not user
/// lines): the wheels' trees, or a toolkit's `include` next to its `bin/nvcc`.
pub fn header_dirs(nvcc: &Compiler) -> Vec<PathBuf> {
    if let Some(tree) = &nvcc.nvidia {
        return tree.header_dirs.clone();
    }
    let Some(root) = nvcc.path.parent().and_then(Path::parent) else {
        return Vec::new();
    };
    [
        root.join("include"),
        root.join("targets/x86_64-linux/include"),
    ]
    .into_iter()
    .filter(|d| d.is_dir())
    .collect()
}

/// `cuda_profiler_api.h`, which NVIDIA ships in a wheel of its own (the samples include
/// it): the runtime's two functions, declared as NVIDIA's header does. Found only when
/// the program's include path has none (`-idirafter`).
const PROFILER_API_H: &str = "\
#ifndef WARPCHECK_CUDA_PROFILER_API_H
#define WARPCHECK_CUDA_PROFILER_API_H
#include <cuda_runtime_api.h>
#ifdef __cplusplus
extern \"C\" {
#endif
extern __host__ cudaError_t CUDARTAPI cudaProfilerStart(void);
extern __host__ cudaError_t CUDARTAPI cudaProfilerStop(void);
#ifdef __cplusplus
}
#endif
#endif
";

/// The cuBLAS headers of warpcheck's shims, which declare what the runtime implements
/// with NVIDIA's names and values: NVIDIA's cuBLAS headers come in a wheel of their own,
/// and when the program's include path has them, those are found first. The shims'
/// `cuda_runtime_api.h` and `library_types.h`, which these include, are NVIDIA's then.
const CUBLAS_HEADERS: &[&str] = &["cublas_v2.h", "cublas_api.h", "cublasLt.h"];

/// Writes the headers that NVIDIA's compiler wheels lack into `dir` ([`PROFILER_API_H`],
/// [`CUBLAS_HEADERS`]).
fn write_fallback_headers(dir: &Path) -> Result<(), CliError> {
    let fail = |e: std::io::Error| CliError::msg(format!("cannot write {}: {e}", dir.display()));
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(dir.join("cuda_profiler_api.h"), PROFILER_API_H))
        .map_err(fail)?;
    for (name, text) in warpcheck_front::embedded_headers() {
        if CUBLAS_HEADERS.contains(name) {
            std::fs::write(dir.join(name), text).map_err(fail)?;
        }
    }
    Ok(())
}

/// nvcc's compilation of one file to an object.
fn compile_command(
    nvcc: &Compiler,
    args: &ProgramArgs,
    file: &Path,
    fallback: &Path,
    object: &Path,
) -> Command {
    let flags = &args.compile;
    let mut cmd = Command::new(&nvcc.path);
    cmd.arg("-c");
    let cuda = file.extension().is_some_and(|e| e == "cu");
    if cuda {
        cmd.args(["-x", "cu"]);
    }
    let arch = virtual_arch(&args.arch);
    cmd.arg("-gencode").arg(format!("arch={arch},code={arch}"));
    // As the front end compiles the device side (`warpcheck_front`'s nvcc command line).
    cmd.arg(if flags.opt_level == 0 {
        "-G"
    } else {
        "-lineinfo"
    });
    cmd.arg(format!("-O{}", flags.opt_level));
    if file.extension().is_none_or(|e| e != "c") {
        cmd.arg(format!("-std={}", flags.std.as_deref().unwrap_or("c++17")));
    }
    // Host code as clang's host compilation has it: debug lines, frame pointers.
    cmd.args(["-g", "-Xcompiler", "-fno-omit-frame-pointer"]);
    cmd.arg("-Xfatbin=-compress=false");
    if let Some(host) = warpcheck_front::nvcc_host_compiler() {
        cmd.arg("-ccbin").arg(host);
    }
    if let Some(tree) = &nvcc.nvidia {
        for dir in &tree.extra_includes {
            cmd.arg("-isystem").arg(dir);
        }
    }
    for d in &flags.include {
        cmd.arg("-I").arg(d);
    }
    for d in &flags.define {
        cmd.arg(format!("-D{d}"));
    }
    cmd.args(&flags.compiler_flag);
    // nvcc has no -idirafter; its host compiler's preprocessing (both sides) takes it
    // through -Xcompiler, which splits its argument at commas.
    if !fallback.to_string_lossy().contains(',') {
        let mut idirafter = std::ffi::OsString::from("-idirafter,");
        idirafter.push(fallback);
        cmd.arg("-Xcompiler").arg(idirafter);
    }
    cmd.arg("-o").arg(object).arg(file);
    cmd
}

/// The PTX embedded in an object: its `.nv_fatbin` section's entry for `arch`.
pub fn ptx_of_object(object: &Path, arch: &str) -> Result<String, String> {
    let bytes = std::fs::read(object).map_err(|e| format!("cannot read its object: {e}"))?;
    let file =
        object::File::parse(&*bytes).map_err(|e| format!("nvcc made no object file: {e}"))?;
    if file.section_by_name("__nv_relfatbin").is_some() {
        return Err(
            "compiled as relocatable device code (-rdc=true), which warpcheck does not support"
                .into(),
        );
    }
    let section = file
        .section_by_name(".nv_fatbin")
        .ok_or("nvcc embedded no device code (no .nv_fatbin section)")?;
    let data = section
        .data()
        .map_err(|e| format!("cannot read the .nv_fatbin section: {e}"))?;
    let entries = warpcheck_cudart::fatbin::ptx_entries(data).map_err(|e| e.to_string())?;
    let sm = arch
        .trim_start_matches("sm_")
        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
        .parse()
        .unwrap_or(u32::MAX);
    let entry =
        warpcheck_cudart::fatbin::select(&entries, sm).ok_or("the fat binary holds no PTX")?;
    Ok(entry.ptx.clone())
}

/// Builds the program below `dir` with `nvcc`.
pub fn build(
    args: &ProgramArgs,
    dir: &Path,
    nvcc: &Compiler,
    library: &Path,
    limit: Duration,
) -> Result<Built, CliError> {
    let fallback = dir.join("fallback-include");
    write_fallback_headers(&fallback)?;
    let mut objects = Vec::new();
    let mut signatures = Vec::new();
    let mut options = args.compile.options(&args.arch);
    options.compiler = CompilerChoice::Nvcc;
    for (i, file) in args.files.iter().enumerate() {
        if !file.is_file() {
            return Err(CliError::msg(format!("{}: no such file", file.display())));
        }
        let file = std::fs::canonicalize(file).unwrap_or_else(|_| file.clone());
        let object = dir.join(format!("host{i}.o"));
        let cuda = file.extension().is_some_and(|e| e == "cu");
        let what = format!("the nvcc compilation of {}", file.display());
        let cmd = compile_command(nvcc, args, &file, &fallback, &object);
        run_tool(cmd, &what, limit)?;
        if cuda {
            let ptx = ptx_of_object(&object, &args.arch)
                .map_err(|e| CliError::msg(format!("{}: {e}", file.display())))?;
            validate_ptx(&format!("{}.ptx", file.display()), &ptx)?;
            // Parameter names cost a compilation: only `--capture` writes them. Should the
            // front end's compilation fail where nvcc's succeeded, the names are
            // positional.
            let named = args
                .capture
                .is_some()
                .then(|| warpcheck_front::compile_with(nvcc, &file, &options).ok())
                .flatten();
            match named {
                Some(compiled) => signatures.extend(compiled.signatures),
                None => signatures.extend(warpcheck_front::signatures_from_ptx(&ptx)),
            }
        }
        objects.push(object);
    }
    let host = warpcheck_front::nvcc_host_compiler().unwrap_or_else(|| PathBuf::from("g++"));
    let executable = dir.join("program");
    link_program(&host, &objects, library, &executable, args, limit)?;
    Ok(Built {
        executable,
        header_dirs: header_dirs(nvcc),
        nvidia_headers: Some(nvcc.version.major),
        signatures,
        ptx_arch: args.arch.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The object's device side is PTX only, with lines, uncompressed; the host side has
    /// debug lines; the user's options come after warpcheck's.
    #[test]
    fn nvcc_compiles_an_object_with_uncompressed_ptx_and_lines() {
        use clap::Parser;
        let args = ProgramArgs::try_parse_from([
            "k.cu",
            "--compiler",
            "nvcc",
            "--arch",
            "sm_80",
            "-I",
            "inc",
            "-D",
            "N=4",
            "-X",
            "--use_fast_math",
        ])
        .unwrap();
        let nvcc = Compiler {
            kind: warpcheck_front::CompilerKind::Nvcc,
            path: PathBuf::from("/nv/bin/nvcc"),
            version: warpcheck_front::Version {
                major: 13,
                minor: 5,
                patch: 37,
            },
            nvidia: None,
        };
        let cmd = compile_command(
            &nvcc,
            &args,
            Path::new("/src/k.cu"),
            Path::new("/w/fallback"),
            Path::new("/w/host0.o"),
        );
        let words: Vec<String> = cmd
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .filter(|a| a != "-ccbin" && !a.contains("clang"))
            .collect();
        assert_eq!(
            words.join(" "),
            "-c -x cu -gencode arch=compute_80,code=compute_80 -lineinfo -O3 -std=c++17 -g \
             -Xcompiler -fno-omit-frame-pointer -Xfatbin=-compress=false -I inc -DN=4 \
             --use_fast_math -Xcompiler -idirafter,/w/fallback -o /w/host0.o /src/k.cu"
        );
    }

    #[test]
    fn the_virtual_architecture_keeps_the_suffix() {
        assert_eq!(virtual_arch("sm_90"), "compute_90");
        assert_eq!(virtual_arch("sm_90a"), "compute_90a");
    }
}
