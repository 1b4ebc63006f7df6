//! What the `warpcheck` CLI tells the runtime, through environment variables of the
//! program's process (the CLI sets them; a program linked by hand runs with the defaults).
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `WARPCHECK_CUDART_REPORT` | path of the JSON report written at exit | none: findings go to stderr as text |
//! | `WARPCHECK_CUDART_CHECK` | `1`: run kernels under the checkers | off |
//! | `WARPCHECK_CUDART_TOOLS` | the checkers (as `check --tool`) | `all` |
//! | `WARPCHECK_CUDART_LEAK_CHECK` | `full`: report device memory never freed | off |
//! | `WARPCHECK_CUDART_ARCH` | the emulated device, `sm_XY` | `sm_90` |
//! | `WARPCHECK_CUDART_THREADS` | host threads per launch (0: one per core) | 0 |
//! | `WARPCHECK_CUDART_BUDGET` | warp-instructions one warp may execute | the emulator's |
//! | `WARPCHECK_CUDART_LAUNCH_BUDGET` | lane-instructions one launch may execute | no limit |
//! | `WARPCHECK_CUDART_TIMEOUT` | seconds one launch may take | no limit |
//! | `WARPCHECK_CUDART_INTRA_WARP` | `lockstep` or `its` (race model) | `its` |
//! | `WARPCHECK_CUDART_SHIMS` | the include directories of the API's headers, `:`-separated (their frames are not user lines) | none |
//! | `WARPCHECK_CUDART_PROFILE` | `1`: count executions per instruction, for the HTML report's heat (`check` only) | off |
//! | `WARPCHECK_CUDART_CAPTURE` | a directory: write every launch there as a launch file and `.npy` inputs ([`crate::capture`]) | none |
//! | `WARPCHECK_CUDART_KERNELS` | the kernels' parameter names and types (JSON, written by the CLI) for the capture | none: `argN`, bytes |
//! | `WARPCHECK_CUDART_RERUN_IDENTICAL` | `1`: run every launch, also those identical to an earlier one ([`crate::identical`]) | off: identical launches are reused |
//! | `WARPCHECK_CUDART_TIMINGS` | `1`: measure each launch's CPU time too ([`crate::timing`]) | off |
//! | `WARPCHECK_CUDART_HEADERS` | `nvidia-13`: the host side was compiled against NVIDIA's CUDA 13 headers (nvcc), whose `cudaDeviceProp` layout differs from the shim's | the shim's layout |
//! | `WARPCHECK_CUDART_REPLAY` | the compile options of the capture's replay command (`--compiler clang --arch … -I …`) | none |

use warpcheck_check::{CheckOptions, IntraWarp, RaceBlocks, Tools};

#[derive(Clone, Debug)]
pub struct Config {
    pub report: Option<String>,
    pub check: Option<CheckOptions>,
    pub leak_check: bool,
    /// Compute capability (major, minor).
    pub arch: (i32, i32),
    pub threads: usize,
    pub budget: u64,
    pub launch_budget: Option<u64>,
    pub timeout: Option<std::time::Duration>,
    pub shim_dir: Option<String>,
    pub profile: bool,
    pub capture: Option<String>,
    pub kernels: Option<String>,
    pub replay: Option<String>,
    pub timings: bool,
    /// Run launches identical to an earlier one instead of reusing it.
    pub rerun_identical: bool,
    /// The major version of NVIDIA's headers the host side was compiled with (nvcc);
    /// `None` for warpcheck's shim headers (clang).
    pub nvidia_headers: Option<u32>,
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

impl Config {
    pub fn from_env() -> Config {
        let check = (var("WARPCHECK_CUDART_CHECK").as_deref() == Some("1")).then(|| {
            let tools = var("WARPCHECK_CUDART_TOOLS")
                .and_then(|t| Tools::parse(&t).ok())
                .unwrap_or_else(Tools::all);
            CheckOptions {
                tools,
                intra_warp: match var("WARPCHECK_CUDART_INTRA_WARP").as_deref() {
                    Some("lockstep") => IntraWarp::LockStep,
                    _ => IntraWarp::Independent,
                },
                race_blocks: RaceBlocks::default(),
                strict_races: var("WARPCHECK_CUDART_STRICT_RACES").as_deref() == Some("1"),
            }
        });
        Config {
            report: var("WARPCHECK_CUDART_REPORT"),
            check,
            leak_check: var("WARPCHECK_CUDART_LEAK_CHECK").as_deref() == Some("full"),
            arch: var("WARPCHECK_CUDART_ARCH")
                .and_then(|a| parse_arch(&a))
                .unwrap_or((9, 0)),
            threads: var("WARPCHECK_CUDART_THREADS")
                .and_then(|t| t.parse().ok())
                .unwrap_or(0),
            budget: var("WARPCHECK_CUDART_BUDGET")
                .and_then(|t| t.parse().ok())
                .unwrap_or(warpcheck_emu::DEFAULT_BUDGET),
            launch_budget: var("WARPCHECK_CUDART_LAUNCH_BUDGET").and_then(|t| t.parse().ok()),
            timeout: var("WARPCHECK_CUDART_TIMEOUT")
                .and_then(|t| t.parse::<f64>().ok())
                .filter(|&s| s > 0.0 && s <= 1e9)
                .map(std::time::Duration::from_secs_f64),
            shim_dir: var("WARPCHECK_CUDART_SHIMS"),
            profile: var("WARPCHECK_CUDART_PROFILE").as_deref() == Some("1"),
            capture: var("WARPCHECK_CUDART_CAPTURE"),
            kernels: var("WARPCHECK_CUDART_KERNELS"),
            replay: var("WARPCHECK_CUDART_REPLAY"),
            timings: var("WARPCHECK_CUDART_TIMINGS").as_deref() == Some("1"),
            rerun_identical: var("WARPCHECK_CUDART_RERUN_IDENTICAL").as_deref() == Some("1"),
            nvidia_headers: var("WARPCHECK_CUDART_HEADERS")
                .and_then(|h| h.strip_prefix("nvidia-")?.parse().ok()),
        }
    }

    /// The emulated architecture's `sm_XX` number (90 for `sm_90`).
    pub fn sm(&self) -> u32 {
        (self.arch.0 * 10 + self.arch.1).max(0) as u32
    }
}

/// `sm_86` -> (8, 6).
fn parse_arch(a: &str) -> Option<(i32, i32)> {
    let digits = a.strip_prefix("sm_")?.trim_end_matches(['a', 'f']);
    let n: i32 = digits.parse().ok()?;
    Some((n / 10, n % 10))
}

#[cfg(test)]
mod tests {
    #[test]
    fn arch_names_give_compute_capabilities() {
        assert_eq!(super::parse_arch("sm_90"), Some((9, 0)));
        assert_eq!(super::parse_arch("sm_86"), Some((8, 6)));
        assert_eq!(super::parse_arch("sm_90a"), Some((9, 0)));
        assert_eq!(super::parse_arch("compute_90"), None);
    }
}
