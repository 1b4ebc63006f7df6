//! Choosing the kernel (or function) a launch or a command names.

use crate::LaunchError;
use warpcheck_ir::{FuncId, Program};

/// Finds the kernel or function the user named, or explains which ones exist.
pub fn select_function(program: &Program, name: &str) -> Result<FuncId, LaunchError> {
    let found = program.functions_named(name);
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(LaunchError::NoSuchFunction {
            name: name.to_string(),
            kernels: kernel_list(program),
        }),
        many => Err(LaunchError::AmbiguousFunction {
            name: name.to_string(),
            candidates: many
                .iter()
                .map(|&f| program.function(f).name.clone())
                .collect(),
        }),
    }
}

/// `a(int*), b(float*)`: the kernels of a program, for error messages.
pub fn kernel_list(program: &Program) -> String {
    let names: Vec<String> = program
        .kernels()
        .map(|k| {
            let f = program.function(k);
            f.demangled
                .as_ref()
                .map_or_else(|| f.name.clone(), |d| d.full.clone())
        })
        .collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// The program's only kernel, for launches that name none.
pub fn only_kernel(program: &Program) -> Result<FuncId, LaunchError> {
    let kernels: Vec<_> = program.kernels().collect();
    match kernels.as_slice() {
        [one] => Ok(*one),
        [] => Err(LaunchError::NoKernel),
        _ => Err(LaunchError::SeveralKernels {
            kernels: kernel_list(program),
        }),
    }
}
