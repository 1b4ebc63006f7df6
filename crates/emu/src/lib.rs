//! The SIMT emulator: runs PTX kernels on the CPU, a warp at a time over lane arrays.
//!
//! This crate grows in stages; today it holds the launch description that the command line
//! and the emulator share: kernel arguments given as text (`n=1024`, `a=f32[n]:rand`) and
//! their materialisation into bytes ([`args`]).

pub mod args;
