//! NVIDIA's own compiler from the pip wheels that `tools/setup.sh` installs into a private
//! directory (no CUDA toolkit installer, no system changes).
//!
//! The directory is `$WARPCHECK_NVIDIA_DIR` when set (and then only it), else
//! `$XDG_DATA_HOME/warpcheck/nvidia`, else `~/.local/share/warpcheck/nvidia`. It holds what
//! `pip install --target DIR` writes, in one of two layouts:
//!
//! * CUDA 13 wheels share one tree, `nvidia/cu13/` with `bin/nvcc`, `nvvm/bin/cicc`,
//!   `nvvm/libdevice/`, `include/` (runtime, crt, `cuda_bf16.h`, cooperative groups) and
//!   `include/cccl/` (libcu++, CUB, Thrust). The `bin/nvcc.profile` that comes with nvcc
//!   already points at all of them, so nvcc needs nothing more.
//! * CUDA 12 wheels install one tree per package: `nvidia/cuda_nvcc/` (nvcc, and cicc and
//!   libdevice under `nvvm/`), `nvidia/cuda_runtime/include`, `nvidia/cuda_cccl/include`,
//!   `nvidia/cuda_crt/include`. nvcc's profile knows only its own tree, so the others'
//!   `include` directories are passed with `-isystem`.
//!
//! In both layouts the headers are NVIDIA's, so a diagnostic located in them is the
//! headers' business, not the user's: [`NvidiaTree::header_dirs`] lists them for filtering.

use std::env;
use std::path::{Path, PathBuf};

/// The environment variable that names the private directory.
pub const NVIDIA_DIR_VAR: &str = "WARPCHECK_NVIDIA_DIR";

/// The private directory to look in, from the environment (see the module documentation);
/// `None` when neither the variable nor a home directory is set.
pub fn private_dir() -> Option<PathBuf> {
    private_dir_from(|name| env::var_os(name).filter(|v| !v.is_empty()))
}

/// [`private_dir`] with the environment read through `var` (for tests).
pub(crate) fn private_dir_from(
    var: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Option<PathBuf> {
    if let Some(dir) = var(NVIDIA_DIR_VAR) {
        return Some(PathBuf::from(dir));
    }
    let data_home = var("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|home| Path::new(&home).join(".local/share")))?;
    Some(data_home.join("warpcheck").join("nvidia"))
}

/// Which wheel layout a private directory has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Layout {
    /// `nvidia/cu13/…`: one tree for every package.
    Unified,
    /// `nvidia/cuda_nvcc/…`, `nvidia/cuda_runtime/…`: one tree per package.
    PerPackage,
}

/// The compiler pieces found in a private directory.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct NvidiaTree {
    /// The directory given to `pip install --target`.
    pub root: PathBuf,
    pub layout: Layout,
    /// `nvcc`, when the nvcc wheel is installed.
    pub nvcc: Option<PathBuf>,
    /// Include directories nvcc does not find through its profile (per-package layout).
    pub extra_includes: Vec<PathBuf>,
    /// Every directory of NVIDIA headers in the tree.
    pub header_dirs: Vec<PathBuf>,
}

impl NvidiaTree {
    /// The pieces under `root`, or `None` when it holds neither layout.
    pub fn locate(root: &Path) -> Option<NvidiaTree> {
        let unified = root.join("nvidia/cu13");
        if unified.is_dir() {
            let nvcc = Some(unified.join("bin/nvcc")).filter(|p| p.is_file());
            let header_dirs = existing([unified.join("include")]);
            return Some(NvidiaTree {
                root: root.to_path_buf(),
                layout: Layout::Unified,
                nvcc,
                extra_includes: Vec::new(),
                header_dirs,
            });
        }
        let packages = root.join("nvidia");
        let nvcc = Some(packages.join("cuda_nvcc/bin/nvcc")).filter(|p| p.is_file());
        let extra_includes = existing(
            ["cuda_runtime", "cuda_crt", "cuda_cccl"].map(|p| packages.join(p).join("include")),
        );
        if nvcc.is_none() && extra_includes.is_empty() {
            return None;
        }
        let mut header_dirs = existing([packages.join("cuda_nvcc/include")]);
        header_dirs.extend(extra_includes.iter().cloned());
        Some(NvidiaTree {
            root: root.to_path_buf(),
            layout: Layout::PerPackage,
            nvcc,
            extra_includes,
            header_dirs,
        })
    }

    /// The tree in the private directory of the environment, if one is installed there.
    pub fn from_env() -> Option<NvidiaTree> {
        NvidiaTree::locate(&private_dir()?)
    }
}

fn existing<const N: usize>(dirs: [PathBuf; N]) -> Vec<PathBuf> {
    dirs.into_iter().filter(|d| d.is_dir()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::ffi::OsString;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let map: HashMap<String, OsString> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn the_private_directory_follows_the_environment() {
        let all = env_of(&[
            (NVIDIA_DIR_VAR, "/opt/nv"),
            ("XDG_DATA_HOME", "/data"),
            ("HOME", "/home/u"),
        ]);
        assert_eq!(private_dir_from(all), Some(PathBuf::from("/opt/nv")));
        let xdg = env_of(&[("XDG_DATA_HOME", "/data"), ("HOME", "/home/u")]);
        assert_eq!(
            private_dir_from(xdg),
            Some(PathBuf::from("/data/warpcheck/nvidia"))
        );
        let home = env_of(&[("HOME", "/home/u")]);
        assert_eq!(
            private_dir_from(home),
            Some(PathBuf::from("/home/u/.local/share/warpcheck/nvidia"))
        );
        assert_eq!(private_dir_from(env_of(&[])), None);
    }

    fn touch(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "").unwrap();
    }

    #[test]
    fn finds_nvcc_in_the_cuda_13_layout() {
        let root = tempfile::tempdir().unwrap();
        touch(&root.path().join("nvidia/cu13/bin/nvcc"));
        std::fs::create_dir_all(root.path().join("nvidia/cu13/include/cccl")).unwrap();
        let tree = NvidiaTree::locate(root.path()).expect("a tree");
        assert_eq!(tree.layout, Layout::Unified);
        assert_eq!(
            tree.nvcc,
            Some(root.path().join("nvidia/cu13/bin/nvcc")),
            "{tree:?}"
        );
        assert!(tree.extra_includes.is_empty());
        assert_eq!(tree.header_dirs, [root.path().join("nvidia/cu13/include")]);
    }

    #[test]
    fn finds_nvcc_and_headers_in_the_cuda_12_layout() {
        let root = tempfile::tempdir().unwrap();
        touch(&root.path().join("nvidia/cuda_nvcc/bin/nvcc"));
        for package in ["cuda_runtime", "cuda_cccl"] {
            std::fs::create_dir_all(root.path().join("nvidia").join(package).join("include"))
                .unwrap();
        }
        let tree = NvidiaTree::locate(root.path()).expect("a tree");
        assert_eq!(tree.layout, Layout::PerPackage);
        assert_eq!(
            tree.nvcc,
            Some(root.path().join("nvidia/cuda_nvcc/bin/nvcc"))
        );
        let nv = root.path().join("nvidia");
        assert_eq!(
            tree.extra_includes,
            [
                nv.join("cuda_runtime/include"),
                nv.join("cuda_cccl/include")
            ]
        );
    }

    #[test]
    fn an_empty_or_missing_directory_holds_no_tree() {
        let root = tempfile::tempdir().unwrap();
        assert_eq!(NvidiaTree::locate(root.path()), None);
        assert_eq!(NvidiaTree::locate(&root.path().join("absent")), None);
    }
}
