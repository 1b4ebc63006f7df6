//! warpcheck's typed IR (work in progress).
pub mod entity;
pub mod types;
pub mod modifiers;
pub mod operand;
#[macro_use]
mod isa_macros;
pub mod isa;
