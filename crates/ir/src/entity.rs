//! Entity references: `u32` newtypes and the dense tables keyed by them (Cranelift style).
//!
//! Every object of the IR that others refer to — a register, a block, an instruction, a
//! variable, a function — lives in an [`EntityVec`] and is referred to by a 4-byte index.
//! Side tables (predecessors, dominators, source locations) are plain vectors indexed by
//! the same entity, so a consumer can attach its own per-entity data without touching the
//! IR types.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// An entity reference: a dense `u32` index into one table.
pub trait EntityRef: Copy + Eq {
    fn new(index: usize) -> Self;
    fn index(self) -> usize;
}

macro_rules! entity {
    ($(#[$meta:meta])* $name:ident, $prefix:literal) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u32);

        impl $name {
            /// The entity with the given index. Panics only if the index does not fit in
            /// 32 bits, which the lowering rules out by construction (tables are built
            /// from a text of at most 4 GiB).
            #[inline]
            pub const fn from_u32(index: u32) -> Self {
                $name(index)
            }

            #[inline]
            pub const fn as_u32(self) -> u32 {
                self.0
            }
        }

        impl EntityRef for $name {
            #[inline]
            fn new(index: usize) -> Self {
                $name(u32::try_from(index).expect("entity index fits in u32"))
            }

            #[inline]
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

entity!(
    /// A virtual register of one function (`%r1`, `%fd3`, `%p2`, `%SP`).
    Reg,
    "reg"
);
entity!(
    /// A basic block of one function. Block ids are in layout (text) order.
    BlockId,
    "block"
);
entity!(
    /// An instruction of one function. Instruction ids are in layout (text) order, so the
    /// id doubles as the program counter of the emulator.
    InstId,
    "inst"
);
entity!(
    /// A variable of the program: module-scope (`.global`, `.const`, `.shared`, `.extern
    /// .shared`), or function-scope (`.local`, `.shared`, `.param`, kernel parameters).
    VarId,
    "var"
);
entity!(
    /// A kernel (`.entry`) or device function (`.func`), with or without a body.
    FuncId,
    "func"
);

/// A dense table of `V` indexed by the entity `K`; entities are handed out by [`push`].
///
/// [`push`]: EntityVec::push
#[derive(Clone, PartialEq)]
pub struct EntityVec<K, V> {
    items: Vec<V>,
    _key: PhantomData<K>,
}

impl<K: EntityRef, V> EntityVec<K, V> {
    pub fn new() -> Self {
        EntityVec {
            items: Vec::new(),
            _key: PhantomData,
        }
    }

    pub fn with_capacity(n: usize) -> Self {
        EntityVec {
            items: Vec::with_capacity(n),
            _key: PhantomData,
        }
    }

    /// Appends `value` and returns its new entity.
    pub fn push(&mut self, value: V) -> K {
        let key = K::new(self.items.len());
        self.items.push(value);
        key
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn get(&self, key: K) -> Option<&V> {
        self.items.get(key.index())
    }

    pub fn get_mut(&mut self, key: K) -> Option<&mut V> {
        self.items.get_mut(key.index())
    }

    /// The entity that the next `push` will return.
    pub fn next_key(&self) -> K {
        K::new(self.items.len())
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = K> + ExactSizeIterator + use<K, V> {
        (0..self.items.len()).map(K::new)
    }

    pub fn values(&self) -> std::slice::Iter<'_, V> {
        self.items.iter()
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (K, &V)> + ExactSizeIterator {
        self.items.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }

    pub fn as_slice(&self) -> &[V] {
        &self.items
    }
}

impl<K: EntityRef, V> Default for EntityVec<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: EntityRef, V> Index<K> for EntityVec<K, V> {
    type Output = V;
    #[inline]
    fn index(&self, key: K) -> &V {
        &self.items[key.index()]
    }
}

impl<K: EntityRef, V> IndexMut<K> for EntityVec<K, V> {
    #[inline]
    fn index_mut(&mut self, key: K) -> &mut V {
        &mut self.items[key.index()]
    }
}

impl<K: EntityRef + fmt::Debug, V: fmt::Debug> fmt::Debug for EntityVec<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: EntityRef, V> FromIterator<V> for EntityVec<K, V> {
    fn from_iter<I: IntoIterator<Item = V>>(iter: I) -> Self {
        EntityVec {
            items: iter.into_iter().collect(),
            _key: PhantomData,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_hands_out_dense_keys() {
        let mut v: EntityVec<BlockId, &str> = EntityVec::new();
        let a = v.push("a");
        let b = v.push("b");
        assert_eq!(a.index(), 0);
        assert_eq!(b.index(), 1);
        assert_eq!(v[b], "b");
        assert_eq!(format!("{b:?}"), "block1");
        assert_eq!(v.keys().collect::<Vec<_>>(), vec![a, b]);
    }
}
