pub mod gpu_pack;
pub mod ir;
pub mod kernels;
pub mod launch_args;
pub mod ptx;
pub mod run;
