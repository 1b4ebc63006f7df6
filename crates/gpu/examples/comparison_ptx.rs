//! Prints the PTX module of GPU mode's comparison kernels, e.g. to check it with `ptxas`
//! on a machine with the CUDA toolkit:
//!
//!     cargo run --release -p warpcheck-gpu --example comparison_ptx > kernels.ptx
//!     ptxas -arch=sm_90 kernels.ptx -o /dev/null

fn main() {
    print!("{}", warpcheck_gpu::kernels::module());
}
