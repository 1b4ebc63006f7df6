//! Calls to functions declared without a body, which the emulator implements natively:
//! `vprintf` (device `printf`), `__assertfail` (a failing `assert`) and the libdevice
//! math functions (see [`crate::math`]). Calls to functions with a body are ordinary
//! control flow (see `crate::block`).

use crate::math::{self, MathFn};

/// A natively implemented external function.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Native {
    /// `int vprintf(const char *format, void *args)`.
    Vprintf,
    /// `void __assertfail(const char *message, const char *file, unsigned line,
    /// const char *function, size_t charSize)`.
    AssertFail,
    Math(&'static MathFn),
}

impl Native {
    pub fn from_name(name: &str) -> Option<Native> {
        match name {
            "vprintf" => Some(Native::Vprintf),
            "__assertfail" | "__assert_fail" => Some(Native::AssertFail),
            _ => math::lookup(name).map(Native::Math),
        }
    }
}
