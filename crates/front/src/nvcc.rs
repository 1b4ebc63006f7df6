//! nvcc's command line.
//!
//! `nvcc -ptx -x cu -arch=sm_XX -lineinfo -O3 -std=c++17 [-ccbin HOST] [-isystem NVIDIA]…
//! [-I DIR]… [-D MACRO]… [EXTRA]… -o OUT FILE`:
//!
//! * `-x cu` makes nvcc read any file as CUDA (`.cuh`, `.cu.h`, `.cpp` with `-x cu`).
//! * `-G` replaces `-lineinfo` at `-O0`, since nvcc only stops optimising device code in
//!   debug mode.
//! * `-std=c++17` unless the caller chose a standard (it is nvcc's own default since CUDA 11;
//!   saying it keeps older nvccs alike).
//! * `-ccbin` names a clang when there is no `g++`, the host compiler nvcc preprocesses with.
//! * For nvcc from NVIDIA's per-package wheels (CUDA 12), the runtime's, crt's and CCCL's
//!   `include` directories, which its profile does not know, as `-isystem`.
//! * The user's extra arguments come after warpcheck's, so that they win.

use crate::arch::Arch;
use crate::options::CompileOptions;
use crate::toolchain::Compiler;
use std::ffi::OsString;
use std::path::Path;

/// The standard used when the caller names none.
pub(crate) const DEFAULT_STD: &str = "c++17";

/// The arguments (without the program) that compile `path` to PTX at `output`;
/// `host_compiler` is the `-ccbin` to pass, if any.
pub(crate) fn nvcc_args(
    nvcc: &Compiler,
    arch: &Arch,
    path: &Path,
    options: &CompileOptions,
    host_compiler: Option<&Path>,
    output: &Path,
) -> Vec<OsString> {
    let mut args: Vec<OsString> = ["-ptx", "-x", "cu"].map(OsString::from).to_vec();
    args.push(format!("-arch={}", arch.name).into());
    args.push(
        if options.opt_level == 0 {
            "-G"
        } else {
            "-lineinfo"
        }
        .into(),
    );
    args.push(format!("-O{}", options.opt_level).into());
    let std = options.std.as_deref().unwrap_or(DEFAULT_STD);
    args.push(format!("-std={std}").into());
    if let Some(host) = host_compiler {
        args.push("-ccbin".into());
        args.push(host.into());
    }
    if let Some(tree) = &nvcc.nvidia {
        for dir in &tree.extra_includes {
            args.push("-isystem".into());
            args.push(dir.into());
        }
    }
    for dir in &options.include_dirs {
        args.push("-I".into());
        args.push(dir.into());
    }
    for define in &options.defines {
        args.push(format!("-D{define}").into());
    }
    args.extend(options.extra_args.iter().map(OsString::from));
    args.push("-o".into());
    args.push(output.into());
    args.push(path.into());
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nvidia::{Layout, NvidiaTree};
    use crate::toolchain::{CompilerKind, Version};
    use std::path::PathBuf;

    fn nvcc(nvidia: Option<NvidiaTree>) -> Compiler {
        Compiler {
            kind: CompilerKind::Nvcc,
            path: PathBuf::from("/p/nvidia/cu13/bin/nvcc"),
            version: Version {
                major: 13,
                minor: 5,
                patch: 37,
            },
            nvidia,
        }
    }

    fn text(args: &[OsString]) -> String {
        let words: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        words.join(" ")
    }

    #[test]
    fn compiles_any_file_as_cuda_with_line_info_and_cxx17() {
        let options = CompileOptions {
            include_dirs: vec![PathBuf::from("inc")],
            defines: vec!["N=4".into()],
            extra_args: vec!["-Wno-deprecated-gpu-targets".into()],
            ..CompileOptions::default()
        };
        let arch = Arch::parse("sm_90").unwrap();
        let args = nvcc_args(
            &nvcc(None),
            &arch,
            Path::new("k.cuh"),
            &options,
            None,
            Path::new("o.ptx"),
        );
        assert_eq!(
            text(&args),
            "-ptx -x cu -arch=sm_90 -lineinfo -O3 -std=c++17 -I inc -DN=4 \
             -Wno-deprecated-gpu-targets -o o.ptx k.cuh"
        );
    }

    #[test]
    fn debug_mode_standard_and_host_compiler_follow_the_options() {
        let options = CompileOptions {
            opt_level: 0,
            std: Some("c++20".into()),
            ..CompileOptions::default()
        };
        let arch = Arch::parse("sm_80").unwrap();
        let args = nvcc_args(
            &nvcc(None),
            &arch,
            Path::new("k.cpp"),
            &options,
            Some(Path::new("/usr/bin/clang++")),
            Path::new("o.ptx"),
        );
        assert_eq!(
            text(&args),
            "-ptx -x cu -arch=sm_80 -G -O0 -std=c++20 -ccbin /usr/bin/clang++ -o o.ptx k.cpp"
        );
    }

    #[test]
    fn per_package_wheels_get_their_headers_as_system_includes() {
        let tree = NvidiaTree {
            root: PathBuf::from("/p"),
            layout: Layout::PerPackage,
            nvcc: Some(PathBuf::from("/p/nvidia/cuda_nvcc/bin/nvcc")),
            extra_includes: vec![
                PathBuf::from("/p/nvidia/cuda_runtime/include"),
                PathBuf::from("/p/nvidia/cuda_cccl/include"),
            ],
            header_dirs: Vec::new(),
        };
        let arch = Arch::parse("sm_80").unwrap();
        let args = nvcc_args(
            &nvcc(Some(tree)),
            &arch,
            Path::new("k.cu"),
            &CompileOptions::default(),
            None,
            Path::new("o.ptx"),
        );
        assert!(
            text(&args).contains(
                "-isystem /p/nvidia/cuda_runtime/include -isystem /p/nvidia/cuda_cccl/include -o"
            ),
            "{}",
            text(&args)
        );
    }
}
