//! Instruction modifiers: what they mean, separate from how they are spelled.
//!
//! Each enum below is one group of mutually exclusive modifiers (ZLUDA style): the variant
//! names the meaning (`RoundingMode::Rz`, round towards zero) and [`Modifier::spelling`]
//! gives the text without its dot (`rz`). Some meanings have alternative spellings
//! (`.shared` and `.shared::cta`); the first one is canonical and is what the printer
//! writes. A variant whose spelling is empty (such as [`MemSpace::Generic`]) is the value
//! a field takes when the modifier is absent; it is never parsed and never printed.

use std::fmt;

/// A group of mutually exclusive modifiers.
pub trait Modifier: Copy + Sized + 'static {
    /// What the group is called in diagnostics, e.g. "rounding mode".
    const WHAT: &'static str;
    /// Every meaning of the group, in declaration order.
    const ALL: &'static [Self];
    /// Canonical spelling without the dot; empty for the implicit default.
    fn spelling(self) -> &'static str;
    /// Parses one spelling (canonical or alternative) without the dot.
    fn from_spelling(s: &str) -> Option<Self>;
}

/// The canonical spellings of a group, for "expected one of" messages.
pub fn spellings<M: Modifier>() -> Vec<&'static str> {
    M::ALL
        .iter()
        .map(|m| m.spelling())
        .filter(|s| !s.is_empty())
        .collect()
}

macro_rules! modifier_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident : $what:literal {
            $( $(#[$vmeta:meta])* $variant:ident = $spelling:literal $(| $alias:literal)* ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl Modifier for $name {
            const WHAT: &'static str = $what;
            const ALL: &'static [$name] = &[$($name::$variant),+];

            fn spelling(self) -> &'static str {
                match self {
                    $( $name::$variant => $spelling ),+
                }
            }

            fn from_spelling(s: &str) -> Option<Self> {
                if s.is_empty() {
                    return None;
                }
                $(
                    if s == $spelling $(|| s == $alias)* {
                        return Some($name::$variant);
                    }
                )+
                None
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.spelling())
            }
        }
    };
}

modifier_enum! {
    /// The state space an instruction accesses (§5.1, §6.4). `Generic` (no modifier) means
    /// a generic address that the hardware maps to global, shared or local memory.
    #[derive(Default)]
    pub enum MemSpace: "state space" {
        #[default]
        Generic = "",
        Global = "global",
        Shared = "shared" | "shared::cta",
        /// Shared memory of another CTA of the cluster (sm_90).
        SharedCluster = "shared::cluster",
        Local = "local",
        Const = "const",
        Param = "param" | "param::entry" | "param::func",
    }
}

modifier_enum! {
    /// Floating-point rounding (§9.7.3 "Rounding modifiers"; `.rna` only on `cvt` to tf32).
    pub enum RoundingMode: "rounding mode" {
        /// Round to nearest, ties to even.
        Rn = "rn",
        /// Round to nearest, ties away from zero.
        Rna = "rna",
        /// Round towards zero.
        Rz = "rz",
        /// Round towards negative infinity.
        Rm = "rm",
        /// Round towards positive infinity.
        Rp = "rp",
    }
}

modifier_enum! {
    /// Rounding of a float to an integral value in `cvt` (§9.7.8.20).
    pub enum IntRounding: "integer rounding mode" {
        Rni = "rni",
        Rzi = "rzi",
        Rmi = "rmi",
        Rpi = "rpi",
    }
}

modifier_enum! {
    /// Cache operators of `ld`/`st` (§9.7.8.1).
    pub enum CacheOperator: "cache operator" {
        /// Cache at all levels (loads).
        Ca = "ca",
        /// Cache at L2, not L1 (loads).
        Cg = "cg",
        /// Streaming, likely accessed once.
        Cs = "cs",
        /// Last use.
        Lu = "lu",
        /// Do not cache, fetch again (volatile-like).
        Cv = "cv",
        /// Write back (stores).
        Wb = "wb",
        /// Write through (stores).
        Wt = "wt",
    }
}

modifier_enum! {
    /// L1 eviction priority hints (§9.7.8.2).
    pub enum L1Eviction: "L1 eviction priority" {
        EvictNormal = "L1::evict_normal",
        EvictUnchanged = "L1::evict_unchanged",
        EvictFirst = "L1::evict_first",
        EvictLast = "L1::evict_last",
        NoAllocate = "L1::no_allocate",
    }
}

modifier_enum! {
    /// L2 eviction priority hints (§9.7.8.2).
    pub enum L2Eviction: "L2 eviction priority" {
        EvictNormal = "L2::evict_normal",
        EvictFirst = "L2::evict_first",
        EvictLast = "L2::evict_last",
    }
}

modifier_enum! {
    /// L2 prefetch size hints of `ld` and `cp.async` (§9.7.8.8).
    pub enum L2Prefetch: "L2 prefetch size" {
        B64 = "L2::64B",
        B128 = "L2::128B",
        B256 = "L2::256B",
    }
}

modifier_enum! {
    /// Memory-ordering semantics of memory operations and fences (§8.4, §9.7.8.8).
    /// Absence means `.weak` for `ld`/`st` and `.relaxed` for `atom`/`red`.
    pub enum MemOrder: "memory ordering" {
        Weak = "weak",
        Volatile = "volatile",
        Relaxed = "relaxed",
        Acquire = "acquire",
        Release = "release",
        AcqRel = "acq_rel",
        SeqCst = "sc",
    }
}

modifier_enum! {
    /// The set of threads a memory operation or fence synchronises with (§8.5).
    pub enum MemScope: "scope" {
        Cta = "cta",
        Cluster = "cluster",
        Gpu = "gpu",
        Sys = "sys",
    }
}

modifier_enum! {
    /// `membar` levels (§9.7.12.4); `membar.gl` is `fence.sc.gpu`.
    pub enum MembarLevel: "membar level" {
        Cta = "cta",
        Gl = "gl",
        Sys = "sys",
    }
}

modifier_enum! {
    /// What `griddepcontrol` does (§9.7.12.13): `.launch_dependents` lets the grids
    /// that depend on this one start, `.wait` waits until the grids it depends on have
    /// completed and their memory is visible.
    pub enum GriddepAction: "griddepcontrol action" {
        LaunchDependents = "launch_dependents",
        Wait = "wait",
    }
}

modifier_enum! {
    /// Proxy kinds of `fence.proxy` (§9.7.12.4).
    pub enum ProxyKind: "proxy kind" {
        Alias = "alias",
        Async = "async",
        AsyncGlobal = "async::global",
        AsyncShared = "async::shared::cta" | "async.shared::cta",
        AsyncSharedCluster = "async::shared::cluster",
    }
}

modifier_enum! {
    /// Vector width of `ld`, `st`, `ldu`, `mov`, `tex` … (§5.2.2).
    pub enum VecWidth: "vector width" {
        V2 = "v2",
        V4 = "v4",
        V8 = "v8",
    }
}

impl VecWidth {
    pub fn lanes(self) -> u32 {
        match self {
            VecWidth::V2 => 2,
            VecWidth::V4 => 4,
            VecWidth::V8 => 8,
        }
    }
}

modifier_enum! {
    /// Which part of the double-width product `mul`/`mad` keep (§9.7.1.3).
    pub enum MulMode: "multiplication mode" {
        Lo = "lo",
        Hi = "hi",
        Wide = "wide",
    }
}

modifier_enum! {
    /// Half of the 48-bit product kept by `mul24`/`mad24` (§9.7.1.5).
    pub enum Mul24Mode: "mul24 mode" {
        Lo = "lo",
        Hi = "hi",
    }
}

modifier_enum! {
    /// How `bmsk` treats a start position or width of 32 or more (§9.7.1.22): `.clamp`
    /// saturates them, `.wrap` takes them modulo 32.
    pub enum BmskMode: "bmsk mode" {
        Clamp = "clamp",
        Wrap = "wrap",
    }
}

modifier_enum! {
    /// Half of `b` used by `dp2a` (§9.7.1.24).
    pub enum Dp2aMode: "dp2a mode" {
        Lo = "lo",
        Hi = "hi",
    }
}

modifier_enum! {
    /// Comparison operators of `setp`, `set`, `slct` (§9.3.1). `lo/ls/hi/hs` are the
    /// unsigned spellings; the `u` forms are the unordered float comparisons (true if
    /// either operand is NaN).
    pub enum CmpOp: "comparison" {
        Eq = "eq",
        Ne = "ne",
        Lt = "lt",
        Le = "le",
        Gt = "gt",
        Ge = "ge",
        Lo = "lo",
        Ls = "ls",
        Hi = "hi",
        Hs = "hs",
        Equ = "equ",
        Neu = "neu",
        Ltu = "ltu",
        Leu = "leu",
        Gtu = "gtu",
        Geu = "geu",
        Num = "num",
        Nan = "nan",
    }
}

impl CmpOp {
    /// Whether the comparison is only meaningful for floating-point operands.
    pub fn is_float_only(self) -> bool {
        use CmpOp::*;
        matches!(self, Equ | Neu | Ltu | Leu | Gtu | Geu | Num | Nan)
    }

    /// Whether the comparison is only meaningful for unsigned or bit operands.
    pub fn is_unsigned_only(self) -> bool {
        matches!(self, CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs)
    }
}

modifier_enum! {
    /// Boolean combination with a predicate operand in `setp`/`set` (§9.7.5.2).
    pub enum BoolOp: "boolean operation" {
        And = "and",
        Or = "or",
        Xor = "xor",
    }
}

modifier_enum! {
    /// Read-modify-write operations of `atom` and `red` (§9.7.12.5).
    pub enum AtomOp: "atomic operation" {
        And = "and",
        Or = "or",
        Xor = "xor",
        /// Compare and swap: `atom.cas d, [a], b, c` stores `c` if `[a] == b`.
        Cas = "cas",
        Exch = "exch",
        Add = "add",
        /// `(old >= b) ? 0 : old + 1`.
        Inc = "inc",
        /// `(old == 0 || old > b) ? b : old - 1`.
        Dec = "dec",
        Min = "min",
        Max = "max",
    }
}

modifier_enum! {
    /// Lane selection of `shfl.sync` (§9.7.8.6).
    pub enum ShflMode: "shuffle mode" {
        Up = "up",
        Down = "down",
        Bfly = "bfly",
        Idx = "idx",
    }
}

modifier_enum! {
    /// Reductions of `vote.sync` (§9.7.12.9).
    pub enum VoteMode: "vote mode" {
        All = "all",
        Any = "any",
        /// True if all active threads agree.
        Uni = "uni",
        /// The mask of lanes whose predicate is true.
        Ballot = "ballot",
    }
}

modifier_enum! {
    /// `match.sync` modes (§9.7.12.10).
    pub enum MatchMode: "match mode" {
        Any = "any",
        All = "all",
    }
}

modifier_enum! {
    /// Reductions of `redux.sync` (§9.7.12.12).
    pub enum ReduxOp: "reduction" {
        Add = "add",
        Min = "min",
        Max = "max",
        And = "and",
        Or = "or",
        Xor = "xor",
    }
}

modifier_enum! {
    /// What a `bar`/`barrier` instruction does (§9.7.12.1).
    pub enum BarrierMode: "barrier operation" {
        /// Wait until the expected number of threads have arrived.
        Sync = "sync",
        /// Arrive without waiting.
        Arrive = "arrive",
        /// Wait, and reduce a predicate over the participating threads.
        Red = "red",
    }
}

modifier_enum! {
    /// Predicate reductions of `bar.red` (§9.7.12.1).
    pub enum BarrierRedOp: "barrier reduction" {
        /// Number of threads with a true predicate (`.u32` result).
        Popc = "popc",
        And = "and",
        Or = "or",
    }
}

modifier_enum! {
    /// Shift direction of `shf` (§9.7.7.7).
    pub enum ShfDirection: "funnel-shift direction" {
        L = "l",
        R = "r",
    }
}

modifier_enum! {
    /// Shift-amount handling of `shf` (§9.7.7.7).
    pub enum ShfMode: "funnel-shift mode" {
        Clamp = "clamp",
        Wrap = "wrap",
    }
}

modifier_enum! {
    /// Byte-permute modes of `prmt` (§9.7.8.7); absent means the generic selector form.
    pub enum PrmtMode: "permute mode" {
        F4e = "f4e",
        B4e = "b4e",
        Rc8 = "rc8",
        Ecl = "ecl",
        Ecr = "ecr",
        Rc16 = "rc16",
    }
}

modifier_enum! {
    /// Classes tested by `testp` (§9.7.3.1).
    pub enum TestpOp: "float class" {
        Finite = "finite",
        Infinite = "infinite",
        Number = "number",
        NotANumber = "notanumber",
        Normal = "normal",
        Subnormal = "subnormal",
    }
}

modifier_enum! {
    /// Cache levels of `prefetch` (§9.7.8.14).
    pub enum PrefetchLevel: "prefetch level" {
        L1 = "L1",
        L2 = "L2",
        L2EvictLast = "L2::evict_last",
        L2EvictNormal = "L2::evict_normal",
    }
}

modifier_enum! {
    /// Cache level of `prefetchu` (§9.7.8.14).
    pub enum PrefetchuLevel: "prefetchu level" {
        L1 = "L1",
    }
}

modifier_enum! {
    /// Cache operator of `cp.async` (§9.7.8.24.3).
    pub enum CpAsyncCache: "cp.async cache operator" {
        Ca = "ca",
        Cg = "cg",
    }
}

modifier_enum! {
    /// Texture and surface geometries (§9.7.9.3, §9.7.10.1).
    pub enum Geometry: "geometry" {
        D1 = "1d",
        D2 = "2d",
        D3 = "3d",
        A1d = "a1d",
        A2d = "a2d",
        Cube = "cube",
        ACube = "acube",
        D2ms = "2dms",
        A2dms = "a2dms",
    }
}

modifier_enum! {
    /// Level-of-detail selection of `tex` (§9.7.9.3); absent means the base level.
    pub enum TexMode: "texture mode" {
        Base = "base",
        Level = "level",
        Grad = "grad",
    }
}

modifier_enum! {
    /// Out-of-bounds handling of surface instructions (§9.7.10.1).
    pub enum SurfaceClamp: "surface clamp mode" {
        Trap = "trap",
        Clamp = "clamp",
        Zero = "zero",
    }
}

modifier_enum! {
    /// Surface access granularity (§9.7.10.1): `.b` is byte-addressed x.
    pub enum SurfaceAccess: "surface access" {
        B = "b",
        P = "p",
    }
}

modifier_enum! {
    /// Matrix shape of the warp-level matrix instructions (§9.7.13): `mma`, `wmma` and
    /// `ldmatrix`/`stmatrix` (`.m8n8`).
    pub enum MatrixShape: "matrix shape" {
        M16n8k16 = "m16n8k16",
        M16n8k8 = "m16n8k8",
        M16n8k4 = "m16n8k4",
        M16n8k32 = "m16n8k32",
        M8n8k16 = "m8n8k16",
        M8n8k4 = "m8n8k4",
        M16n16k16 = "m16n16k16",
        M32n8k16 = "m32n8k16",
        M8n32k16 = "m8n32k16",
        M16n16k8 = "m16n16k8",
        M8n8 = "m8n8",
    }
}

impl MatrixShape {
    /// `(m, n, k)`; `.m8n8` (ldmatrix, stmatrix) has k = 0.
    pub fn mnk(self) -> (u32, u32, u32) {
        use MatrixShape::*;
        match self {
            M16n8k16 => (16, 8, 16),
            M16n8k8 => (16, 8, 8),
            M16n8k4 => (16, 8, 4),
            M16n8k32 => (16, 8, 32),
            M8n8k16 => (8, 8, 16),
            M8n8k4 => (8, 8, 4),
            M16n16k16 => (16, 16, 16),
            M32n8k16 => (32, 8, 16),
            M8n32k16 => (8, 32, 16),
            M16n16k8 => (16, 16, 8),
            M8n8 => (8, 8, 0),
        }
    }
}

modifier_enum! {
    /// Layout of a matrix in memory or of an `mma` operand (§9.7.13).
    pub enum MatrixLayout: "matrix layout" {
        Row = "row",
        Col = "col",
    }
}

modifier_enum! {
    /// Which matrix a `wmma.load` fragment holds (§9.7.13.3.7).
    pub enum FragmentKind: "fragment" {
        A = "a",
        B = "b",
        C = "c",
    }
}

modifier_enum! {
    /// How many 8x8 matrices `ldmatrix`/`stmatrix` move (§9.7.13.4.15–16).
    pub enum MatrixCount: "matrix count" {
        X1 = "x1",
        X2 = "x2",
        X4 = "x4",
    }
}

impl MatrixCount {
    pub fn count(self) -> u32 {
        match self {
            MatrixCount::X1 => 1,
            MatrixCount::X2 => 2,
            MatrixCount::X4 => 4,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_round_trip_and_aliases_parse() {
        for &m in RoundingMode::ALL {
            assert_eq!(RoundingMode::from_spelling(m.spelling()), Some(m));
        }
        assert_eq!(
            MemSpace::from_spelling("shared::cta"),
            Some(MemSpace::Shared)
        );
        assert_eq!(MemSpace::Shared.spelling(), "shared");
        assert_eq!(MemSpace::from_spelling(""), None);
        assert_eq!(
            spellings::<MemScope>(),
            vec!["cta", "cluster", "gpu", "sys"]
        );
        assert!(!spellings::<MemSpace>().contains(&""));
    }
}
