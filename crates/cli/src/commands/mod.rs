pub mod ir;
pub mod kernels;
pub mod ptx;
