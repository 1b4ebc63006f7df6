//! The unknowns that expressions range over.
//!
//! Launch indices ([`Symbol::ThreadIdx`] …) have built-in ranges
//! (`0 ≤ threadIdx.x < blockDim.x`, `1 ≤ blockDim.x ≤ 1024` …, see [`crate::sign`]);
//! inputs ([`Symbol::Param`], [`Symbol::Var`]) have none unless a caller states one;
//! [`Symbol::Iteration`] counts the iterations of a loop from 0; [`Symbol::Opaque`]
//! stands for a value the engine cannot express (a load from memory, an operation it
//! does not model) and says which launch indices it may depend on.

use std::fmt;
use std::sync::Arc;

/// A component of a launch index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Axis {
    X,
    Y,
    Z,
}

impl Axis {
    pub const ALL: [Axis; 3] = [Axis::X, Axis::Y, Axis::Z];

    pub fn name(self) -> char {
        match self {
            Axis::X => 'x',
            Axis::Y => 'y',
            Axis::Z => 'z',
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// Which launch indices a value may depend on: a set of `threadIdx` components and
/// `blockIdx` (any component). Used for opaque values, whose expression is unknown but
/// whose thread dependence the analyses still track (GPUDrano §4: a load from a
/// thread-dependent address is thread-dependent, a load from a uniform one is uniform).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Deps(u8);

impl Deps {
    pub const NONE: Deps = Deps(0);
    pub const THREAD_X: Deps = Deps(1);
    pub const THREAD_Y: Deps = Deps(2);
    pub const THREAD_Z: Deps = Deps(4);
    pub const BLOCK: Deps = Deps(8);
    pub const THREAD: Deps = Deps(7);
    pub const ALL: Deps = Deps(15);

    pub fn thread(axis: Axis) -> Deps {
        Deps(1 << axis.index())
    }

    pub fn union(self, other: Deps) -> Deps {
        Deps(self.0 | other.0)
    }

    pub fn contains(self, other: Deps) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn intersects(self, other: Deps) -> bool {
        self.0 & other.0 != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the value may differ between threads of one block.
    pub fn varies_in_block(self) -> bool {
        self.intersects(Deps::THREAD)
    }

    pub fn bits(self) -> u8 {
        self.0
    }

    pub fn from_bits(bits: u8) -> Deps {
        Deps(bits & 15)
    }
}

impl fmt::Display for Deps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        for a in Axis::ALL {
            if self.contains(Deps::thread(a)) {
                parts.push(format!("threadIdx.{}", a.name()));
            }
        }
        if self.contains(Deps::BLOCK) {
            parts.push("blockIdx".to_string());
        }
        if parts.is_empty() {
            f.write_str("uniform")
        } else {
            f.write_str(&parts.join(", "))
        }
    }
}

/// An unknown value: its identity, what it may depend on, and a name for printing.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Opaque {
    /// Distinguishes opaque values; two opaque symbols with the same id are the same value.
    pub id: u32,
    pub deps: Deps,
    /// How the value prints, e.g. `rowPtr[row]` or `ld@17`.
    pub name: Arc<str>,
}

/// An unknown of an expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Symbol {
    /// `threadIdx.{x,y,z}`: `0 ≤ threadIdx.a < blockDim.a`.
    ThreadIdx(Axis),
    /// `blockIdx.{x,y,z}`: `0 ≤ blockIdx.a < gridDim.a`.
    BlockIdx(Axis),
    /// `blockDim.{x,y,z}`: at least 1 (at most 1024 for x and y, 64 for z).
    BlockDim(Axis),
    /// `gridDim.{x,y,z}`: at least 1.
    GridDim(Axis),
    /// A named input: a kernel parameter, a C variable, a field path (`img->width`).
    Param(Arc<str>),
    /// A named program variable with no built-in range (the advisor's loop indices).
    Var(Arc<str>),
    /// The iteration counter of loop `id`, 0 in the first iteration; `name` prints it.
    Iteration { id: u32, name: Arc<str> },
    /// A value the engine cannot express.
    Opaque(Opaque),
}

impl Symbol {
    pub fn param(name: &str) -> Symbol {
        Symbol::Param(Arc::from(name))
    }

    pub fn var(name: &str) -> Symbol {
        Symbol::Var(Arc::from(name))
    }

    pub fn iteration(id: u32, name: &str) -> Symbol {
        Symbol::Iteration {
            id,
            name: Arc::from(name),
        }
    }

    pub fn opaque(id: u32, deps: Deps, name: &str) -> Symbol {
        Symbol::Opaque(Opaque {
            id,
            deps,
            name: Arc::from(name),
        })
    }

    /// The launch indices this symbol depends on.
    pub fn deps(&self) -> Deps {
        match self {
            Symbol::ThreadIdx(a) => Deps::thread(*a),
            Symbol::BlockIdx(_) => Deps::BLOCK,
            Symbol::Opaque(o) => o.deps,
            _ => Deps::NONE,
        }
    }

    /// Whether the symbol is a launch index or dimension.
    pub fn is_launch(&self) -> bool {
        matches!(
            self,
            Symbol::ThreadIdx(_) | Symbol::BlockIdx(_) | Symbol::BlockDim(_) | Symbol::GridDim(_)
        )
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Symbol::ThreadIdx(a) => write!(f, "threadIdx.{}", a.name()),
            Symbol::BlockIdx(a) => write!(f, "blockIdx.{}", a.name()),
            Symbol::BlockDim(a) => write!(f, "blockDim.{}", a.name()),
            Symbol::GridDim(a) => write!(f, "gridDim.{}", a.name()),
            Symbol::Param(n) | Symbol::Var(n) => f.write_str(n),
            Symbol::Iteration { name, .. } => f.write_str(name),
            Symbol::Opaque(o) => f.write_str(&o.name),
        }
    }
}
