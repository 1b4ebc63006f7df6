//! Control flow: `bra` and `brx.idx` to block pcs (each with the pc where the warp
//! reconverges, the block's immediate post-dominator), and `call` to a function
//! body, a native implementation of an external function, or a function pointer.
//! `ret`, `exit`, `trap` and `brkpt` need no operands and are translated in the
//! dispatch.

use warpcheck_ir::operand::Symbol;
use warpcheck_ir::{EntityRef, Operand, Type};

use super::{BlockPc, InstCx, opnd, unsupported};
use crate::calls::Native;
use crate::fault::EmuError;
use crate::ops::*;
use crate::translate::{NO_PC, VarLoc};

impl InstCx<'_, '_> {
    /// The pc where a branch from this instruction's block reconverges.
    fn reconverge(&self, block_pc: BlockPc<'_>) -> u32 {
        let block = self.body.inst_block[self.id.index()];
        match self.body.ipdom(block) {
            Some(b) => block_pc(b),
            None => NO_PC,
        }
    }

    pub(super) fn bra(
        &mut self,
        ops: &[Operand],
        block_pc: BlockPc<'_>,
    ) -> Result<OpKind, EmuError> {
        let Operand::Label(target) = opnd(ops, 0) else {
            return unsupported("branch without a label");
        };
        Ok(OpKind::Bra {
            target: block_pc(target),
            reconverge: self.reconverge(block_pc),
        })
    }

    /// `brx.idx a, table`.
    pub(super) fn brx_idx(
        &mut self,
        ops: &[Operand],
        block_pc: BlockPc<'_>,
    ) -> Result<OpKind, EmuError> {
        let a = self.src(&opnd(ops, 0), Type::U32)?;
        let Operand::BranchTable(t) = opnd(ops, 1) else {
            return unsupported("brx.idx without a .branchtargets list");
        };
        let table = self
            .body
            .branch_tables
            .get(t as usize)
            .ok_or_else(|| EmuError::Internal("missing branch table".into()))?;
        let targets = table.targets.iter().map(|&b| block_pc(b)).collect();
        Ok(OpKind::BrxIdx {
            a,
            targets,
            reconverge: self.reconverge(block_pc),
        })
    }

    /// `call (rets), target, (args)`.
    pub(super) fn call(&mut self, ops: &[Operand]) -> Result<OpKind, EmuError> {
        let list = |op: Operand| -> Vec<Operand> {
            match op {
                Operand::List(l) => self.body.list(l).to_vec(),
                _ => Vec::new(),
            }
        };
        let rets_ops = list(opnd(ops, 0));
        let args_ops = list(opnd(ops, 2));
        let target = self.call_target(opnd(ops, 1))?;
        let mut args = Vec::new();
        for a in &args_ops {
            args.push(self.arg_src(a)?);
        }
        let mut rets = Vec::new();
        for r in &rets_ops {
            rets.push(self.arg_src(r)?);
        }
        Ok(OpKind::Call(Box::new(CallOp { target, args, rets })))
    }

    /// What a call calls: a body, a native function, or a register's function pointer.
    fn call_target(&mut self, op: Operand) -> Result<CallTarget, EmuError> {
        match op {
            Operand::Func(f) => {
                let func = self.t.program.function(f);
                if func.body.is_some() {
                    let idx = self.t.func_index.get(&f).copied().ok_or_else(|| {
                        EmuError::Internal(format!("function `{}` was not collected", func.name))
                    })?;
                    Ok(CallTarget::Body { func: idx })
                } else {
                    let native = Native::from_name(&func.name).ok_or_else(|| {
                        EmuError::unsupported(format!(
                            "call to the external function `{}`, which the emulator does not implement",
                            func.name
                        ))
                    })?;
                    Ok(CallTarget::Native(native))
                }
            }
            Operand::Reg(r) => Ok(CallTarget::Indirect(self.reg(r))),
            other => unsupported(format!("call target {other:?}")),
        }
    }

    /// One argument or return value of a call: a `.param` variable in the frame or a
    /// register.
    fn arg_src(&mut self, op: &Operand) -> Result<ArgSrc, EmuError> {
        match *op {
            Operand::SymbolAddress {
                symbol: Symbol::Var(v),
                ..
            } => {
                let var = self.t.program.variable(v);
                let size = var.size.unwrap_or(0) as u32;
                match self.var_loc(v)? {
                    VarLoc::Frame(offset) => Ok(ArgSrc::Frame { offset, size }),
                    _ => unsupported("a call argument that is not a .param variable"),
                }
            }
            Operand::Reg(r) => {
                let size = self.reg_ty(r).size();
                Ok(ArgSrc::Reg {
                    slot: self.reg(r),
                    size,
                })
            }
            Operand::Imm(i) => Ok(ArgSrc::Reg {
                slot: self.t.const_slot(i.bits),
                size: 8,
            }),
            ref other => unsupported(format!("call argument {other:?}")),
        }
    }
}
