pub mod check;
pub mod gpu_pack;
pub mod ir;
pub mod kernels;
pub mod launch_args;
pub mod lint;
pub mod ptx;
pub mod run;
