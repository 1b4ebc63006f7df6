//! Where a kernel instruction is, for findings: kernel mode's rule
//! ([`warpcheck_launch::site_location`]: the `.loc` source line, code inlined from the shim
//! or CUDA headers reported at the user's call, else the line in the PTX), so that
//! findings of both modes read alike.

use warpcheck_ir::{FuncId, InstId};
use warpcheck_launch::PtxText;
use warpcheck_report::Location;

use crate::state::Module;

pub fn site_location(module: &Module, func: FuncId, inst: InstId) -> Option<Location> {
    let ptx = PtxText {
        text: &module.ptx,
        name: &module.ptx_name,
    };
    warpcheck_launch::site_location(&module.program, ptx, func, inst)
}
