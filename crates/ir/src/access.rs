//! What memory an instruction touches, summarised from its decoded [`Op`] — for the
//! checkers (races, bank conflicts, coalescing) and the static address analyses, which
//! should not each re-derive it from the instruction table.

use crate::isa::Op;
use crate::modifiers::{AtomOp, MemOrder, MemScope, MemSpace};
use crate::operand::{Class, Role};
use crate::types::Type;

/// The kind of a memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// `ld`, `ldu`.
    Load,
    /// `st`.
    Store,
    /// `atom`: a read-modify-write that returns the old value.
    Atomic(AtomOp),
    /// `red`: a read-modify-write without result.
    Reduction(AtomOp),
    /// `prefetch`, `prefetchu`: a hint, no architectural effect.
    Prefetch,
    /// `cp.async`: reads global memory (slot 1) and writes shared memory (slot 0) later.
    AsyncCopy,
}

/// One memory access of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemAccess {
    pub kind: AccessKind,
    /// The state space the address is in (`Generic` for generic addresses).
    pub space: MemSpace,
    /// Bytes per thread (element size × vector width); `None` when an operand decides
    /// (`cp.async`'s copy size) or for prefetches.
    pub bytes: Option<u32>,
    /// The position of the address operand.
    pub address_slot: usize,
    /// Memory-ordering semantics, when given (`.volatile`, `.relaxed`, `.acquire` …).
    pub order: Option<MemOrder>,
    pub scope: Option<MemScope>,
}

impl Op {
    /// The memory access of a load, store, atomic, reduction, prefetch or async copy;
    /// `None` for instructions that do not access memory through an address operand.
    pub fn memory_access(&self) -> Option<MemAccess> {
        let address_slot = self
            .slots()
            .iter()
            .position(|s| s.class == Class::Address && s.role == Role::Use)?;
        let bytes = |ty: Type, lanes: Option<u32>| Some(ty.size() * lanes.unwrap_or(1));
        let access = |kind, space, bytes, order, scope| MemAccess {
            kind,
            space,
            bytes,
            address_slot,
            order,
            scope,
        };
        Some(match *self {
            Op::Ld {
                order,
                scope,
                space,
                ty,
                ..
            } => access(
                AccessKind::Load,
                space,
                bytes(ty, self.vector_width()),
                order,
                scope,
            ),
            Op::Ldu { space, ty, .. } => access(
                AccessKind::Load,
                space,
                bytes(ty, self.vector_width()),
                None,
                None,
            ),
            Op::St {
                order,
                scope,
                space,
                ty,
                ..
            } => access(
                AccessKind::Store,
                space,
                bytes(ty, self.vector_width()),
                order,
                scope,
            ),
            Op::Atom {
                order,
                scope,
                space,
                op,
                ty,
                ..
            } => access(AccessKind::Atomic(op), space, bytes(ty, None), order, scope),
            Op::Red {
                order,
                scope,
                space,
                op,
                ty,
                ..
            } => access(
                AccessKind::Reduction(op),
                space,
                bytes(ty, None),
                order,
                scope,
            ),
            Op::Prefetch { space, .. } => access(AccessKind::Prefetch, space, None, None, None),
            Op::Prefetchu { .. } => {
                access(AccessKind::Prefetch, MemSpace::Generic, None, None, None)
            }
            Op::CpAsync { dst_space, .. } => {
                access(AccessKind::AsyncCopy, dst_space, None, None, None)
            }
            _ => return None,
        })
    }

    /// Whether the instruction synchronises threads of a CTA or warp (`bar`/`barrier`,
    /// `bar.warp.sync`); the warp-level `*.sync` collectives also synchronise their lanes.
    pub fn is_barrier(&self) -> bool {
        matches!(self, Op::Barrier { .. } | Op::BarWarpSync {})
    }

    /// Whether the instruction is a memory fence (`membar`, `fence`, `fence.proxy`).
    pub fn is_fence(&self) -> bool {
        matches!(
            self,
            Op::Membar { .. } | Op::Fence { .. } | Op::FenceProxy { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{Opcode, lookup};

    fn decode(text: &str) -> Op {
        let mut parts = text.split('.');
        let opcode = parts.next().unwrap_or_default();
        let mods: Vec<&str> = parts.collect();
        let (spelling, consumed) = lookup(opcode, &mods).expect("known opcode");
        let mut tokens: Vec<&str> = spelling.implies.to_vec();
        tokens.extend_from_slice(&mods[consumed..]);
        spelling
            .opcode
            .decode_modifiers(&tokens)
            .expect("valid modifiers")
    }

    #[test]
    fn accesses_of_memory_instructions() {
        let ld = decode("ld.global.nc.v4.f32").memory_access().unwrap();
        assert_eq!(
            (ld.kind, ld.space, ld.bytes, ld.address_slot),
            (AccessKind::Load, MemSpace::Global, Some(16), 1)
        );
        let st = decode("st.shared.u8").memory_access().unwrap();
        assert_eq!(
            (st.kind, st.space, st.bytes, st.address_slot),
            (AccessKind::Store, MemSpace::Shared, Some(1), 0)
        );
        let atom = decode("atom.relaxed.gpu.global.cas.b64")
            .memory_access()
            .unwrap();
        assert_eq!(atom.kind, AccessKind::Atomic(AtomOp::Cas));
        assert_eq!(
            (atom.bytes, atom.order, atom.scope),
            (Some(8), Some(MemOrder::Relaxed), Some(MemScope::Gpu))
        );
        let red = decode("red.add.f32").memory_access().unwrap();
        assert_eq!(
            (red.kind, red.space, red.address_slot),
            (AccessKind::Reduction(AtomOp::Add), MemSpace::Generic, 0)
        );
        let volatile = decode("ld.volatile.shared.u32").memory_access().unwrap();
        assert_eq!(volatile.order, Some(MemOrder::Volatile));
        assert_eq!(decode("add.s32").memory_access(), None);
        assert!(decode("bar.sync").is_barrier() && decode("bar.warp.sync").is_barrier());
        assert!(decode("membar.gl").is_fence() && !decode("bar.sync").is_fence());
        assert_eq!(Opcode::Ld.info().name, "ld");
    }
}
