//! Random expressions over a kernel's variables: 32-bit unsigned integers (`a0`…), floats
//! (`f0`…) and conditions. Every operation has one exact result on a GPU and in the
//! emulator: integer arithmetic is unsigned (wrapping is defined), shift counts are masked,
//! divisors are made non-zero (and positive for signed division, so `INT_MIN / -1` cannot
//! happen), float arithmetic goes through the rounding-mode intrinsics (`__fadd_rn`,
//! `__fmaf_rz`, …) that compilers never contract or reassociate, and float-to-integer
//! conversions use the saturating intrinsics instead of C casts (undefined out of range).

use crate::rng::Rng;

/// Number of unsigned variables `a0..a{U_VARS-1}` every kernel declares.
pub const U_VARS: u32 = 6;
/// Number of float variables `f0..f{F_VARS-1}` every kernel declares.
pub const F_VARS: u32 = 4;

/// The device helpers the expressions call, emitted once per program.
pub const DEVICE_HELPERS: &str = r#"__device__ __forceinline__ unsigned wc_umin(unsigned a, unsigned b) { return a < b ? a : b; }
__device__ __forceinline__ unsigned wc_umax(unsigned a, unsigned b) { return a > b ? a : b; }
__device__ __forceinline__ unsigned wc_smin(unsigned a, unsigned b) { return (int)a < (int)b ? a : b; }
__device__ __forceinline__ unsigned wc_smax(unsigned a, unsigned b) { return (int)a > (int)b ? a : b; }
__device__ __forceinline__ unsigned wc_sdiv(unsigned a, unsigned b) { return (unsigned)((int)a / (int)((b & 0xffffu) | 1u)); }
__device__ __forceinline__ unsigned wc_srem(unsigned a, unsigned b) { return (unsigned)((int)a % (int)((b & 0xffffu) | 1u)); }
__device__ __forceinline__ unsigned wc_sar(unsigned a, unsigned b) { return (unsigned)((int)a >> (b & 31u)); }
__device__ __forceinline__ unsigned wc_mulwide(unsigned a, unsigned b, unsigned s) { return (unsigned)(((unsigned long long)a * b) >> (s & 63u)); }
__device__ __forceinline__ unsigned wc_rotl(unsigned a, unsigned b) { return (a << (b & 31u)) | (a >> ((32u - (b & 31u)) & 31u)); }
"#;

/// Expression generator for one kernel: the loop variables in scope and the nesting budget.
pub struct ExprGen<'a> {
    pub rng: &'a mut Rng,
    /// Loop counters in scope (`i0`, `i1`, …), usable as unsigned leaves.
    pub loop_vars: Vec<String>,
}

impl ExprGen<'_> {
    pub fn u_var(&mut self) -> String {
        format!("a{}", self.rng.below(U_VARS))
    }

    pub fn f_var(&mut self) -> String {
        format!("f{}", self.rng.below(F_VARS))
    }

    fn u_leaf(&mut self) -> String {
        match self.rng.below(10) {
            0..=4 => self.u_var(),
            5 => self.u_const(),
            6 => (*self.rng.pick(&["tid", "lane", "gid", "blockIdx.x", "warp"])).to_string(),
            7 if !self.loop_vars.is_empty() => self.rng.pick(&self.loop_vars.clone()).clone(),
            _ => self.u_var(),
        }
    }

    pub fn u_const(&mut self) -> String {
        match self.rng.below(4) {
            0 => format!("{}u", self.rng.below(8)),
            1 => format!("{}u", self.rng.below(1000)),
            2 => (*self
                .rng
                .pick(&["0xffffffffu", "0x80000000u", "0x7fffffffu", "0x55555555u"]))
            .to_string(),
            _ => format!("0x{:08x}u", self.rng.u32()),
        }
    }

    /// An unsigned expression of at most `depth` nested operations.
    pub fn u_expr(&mut self, depth: u32) -> String {
        if depth == 0 || self.rng.chance(25) {
            return self.u_leaf();
        }
        let d = depth - 1;
        match self.rng.below(16) {
            0..=4 => {
                let op = *self.rng.pick(&["+", "-", "*", "^", "&", "|"]);
                format!("({} {op} {})", self.u_expr(d), self.u_expr(d))
            }
            5 => {
                let op = *self.rng.pick(&["<<", ">>"]);
                format!("({} {op} ({} & 31u))", self.u_expr(d), self.u_expr(d))
            }
            6 => {
                let f = *self.rng.pick(&[
                    "wc_umin", "wc_umax", "wc_smin", "wc_smax", "wc_sdiv", "wc_srem", "wc_sar",
                    "wc_rotl", "__umulhi",
                ]);
                format!("{f}({}, {})", self.u_expr(d), self.u_expr(d))
            }
            7 => {
                let op = *self.rng.pick(&["/", "%"]);
                format!("({} {op} ({} | 1u))", self.u_expr(d), self.u_expr(d))
            }
            8 => {
                let f = *self.rng.pick(&["__popc", "__clz", "__brev", "__ffs"]);
                match f {
                    "__brev" => format!("__brev({})", self.u_expr(d)),
                    _ => format!("(unsigned){f}((int){})", self.u_expr(d)),
                }
            }
            9 => format!(
                "__byte_perm({}, {}, 0x{:04x}u)",
                self.u_expr(d),
                self.u_expr(d),
                self.rng.u32() & 0xffff
            ),
            10 => format!(
                "wc_mulwide({}, {}, {})",
                self.u_expr(d),
                self.u_expr(d),
                self.u_expr(d)
            ),
            11 => format!(
                "({} ? {} : {})",
                self.cond(d),
                self.u_expr(d),
                self.u_expr(d)
            ),
            12 => self.f_to_u(d),
            13 => format!("(~{})", self.u_expr(d)),
            _ => format!(
                "({} {} {})",
                self.u_expr(d),
                self.rng.pick(&["+", "^", "*"]),
                self.u_const()
            ),
        }
    }

    fn f_to_u(&mut self, d: u32) -> String {
        let f = *self.rng.pick(&[
            "__float_as_uint",
            "__float2uint_rz",
            "__float2uint_rn",
            "(unsigned)__float2int_rn",
            "(unsigned)__float2int_rd",
            "(unsigned)__float2int_ru",
            "__float_as_uint",
        ]);
        format!("{f}({})", self.f_expr(d))
    }

    fn f_leaf(&mut self) -> String {
        match self.rng.below(8) {
            0..=4 => self.f_var(),
            5 => (*self.rng.pick(&[
                "0.0f", "-0.0f", "1.0f", "-1.0f", "0.5f", "2.0f", "-3.25f", "1024.0f", "0.1f",
                "1e-30f", "3.0e38f", "1e-40f",
            ]))
            .to_string(),
            6 => format!("__uint_as_float(0x{:08x}u)", self.rng.u32()),
            _ => format!("__uint2float_rn({})", self.u_leaf()),
        }
    }

    /// A float expression of at most `depth` nested operations.
    pub fn f_expr(&mut self, depth: u32) -> String {
        if depth == 0 || self.rng.chance(25) {
            return self.f_leaf();
        }
        let d = depth - 1;
        let rounding = *self.rng.pick(&["rn", "rn", "rn", "rz", "ru", "rd"]);
        match self.rng.below(15) {
            0..=2 => {
                let op = *self.rng.pick(&["fadd", "fsub", "fmul"]);
                format!("__{op}_{rounding}({}, {})", self.f_expr(d), self.f_expr(d))
            }
            3 | 4 => format!(
                "__fmaf_{rounding}({}, {}, {})",
                self.f_expr(d),
                self.f_expr(d),
                self.f_expr(d)
            ),
            5 => format!("__fdiv_{rounding}({}, {})", self.f_expr(d), self.f_expr(d)),
            6 => format!("__fsqrt_{rounding}({})", self.f_expr(d)),
            7 => {
                let f = *self.rng.pick(&["fminf", "fmaxf", "copysignf"]);
                format!("{f}({}, {})", self.f_expr(d), self.f_expr(d))
            }
            8 => {
                let f = *self.rng.pick(&[
                    "fabsf",
                    "-",
                    "truncf",
                    "floorf",
                    "ceilf",
                    "rintf",
                    "__saturatef",
                ]);
                format!("{f}({})", self.f_expr(d))
            }
            9 => {
                let f = *self.rng.pick(&[
                    "__uint2float_rn",
                    "__uint2float_rz",
                    "__int2float_rn",
                    "__int2float_rd",
                ]);
                let cast = if f.starts_with("__int") { "(int)" } else { "" };
                format!("{f}({cast}{})", self.u_expr(d))
            }
            10 => format!(
                "({} ? {} : {})",
                self.cond(d),
                self.f_expr(d),
                self.f_expr(d)
            ),
            11 => format!("__uint_as_float({})", self.u_expr(d)),
            12 => {
                let op = *self.rng.pick(&["dadd", "dmul", "dsub"]);
                format!(
                    "__double2float_{rounding}(__{op}_rn((double){}, (double){}))",
                    self.f_expr(d),
                    self.f_expr(d)
                )
            }
            _ => self.f_leaf(),
        }
    }

    /// A condition (a C expression that is true or false) of at most `depth` operations.
    pub fn cond(&mut self, depth: u32) -> String {
        let d = depth.saturating_sub(1);
        match self.rng.below(9) {
            0 | 1 => {
                let op = *self.rng.pick(&["<", "<=", "==", "!=", ">"]);
                format!("{} {op} {}", self.u_expr(d), self.u_expr(d))
            }
            2 => format!("(int){} < (int){}", self.u_expr(d), self.u_expr(d)),
            3 => {
                let op = *self.rng.pick(&["<", "<=", "==", "!=", ">="]);
                format!("{} {op} {}", self.f_expr(d), self.f_expr(d))
            }
            4 => format!("!({} >= {})", self.f_expr(d), self.f_expr(d)),
            5 => format!(
                "({} & {}u) == {}u",
                self.u_expr(d),
                1u32 << self.rng.below(5),
                0
            ),
            6 => format!("tid < {}u", self.rng.below(300)),
            7 => format!("(lane & {}u) != 0u", 1u32 << self.rng.below(5)),
            _ => format!("({} & 7u) < {}u", self.u_expr(d), self.rng.below(8)),
        }
    }
}
