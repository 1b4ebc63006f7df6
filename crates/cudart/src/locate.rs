//! Where a kernel instruction is, for findings: its `.loc` source line (code inlined from
//! the shim or CUDA headers is reported at the user's call), or else its line in the PTX.
//! The same rules as the CLI's kernel mode, so that findings read alike.

use warpcheck_ir::{EntityRef, FuncId, InstId, SourceLoc};
use warpcheck_report::Location;

use crate::state::Module;

pub fn site_location(module: &Module, func: FuncId, inst: InstId) -> Option<Location> {
    let program = &module.program;
    let body = program.function(func).body.as_ref()?;
    if let Some(mut loc) = body
        .inst_locs
        .get(inst.index())
        .copied()
        .flatten()
        .filter(|l| l.line > 0 && !l.is_artificial())
    {
        if let Some(at) = loc.inlined_at
            && is_library_header(&program.files.path(loc.file))
        {
            loc = SourceLoc {
                file: at.file,
                line: at.line,
                column: at.column,
                inlined_at: None,
            };
        }
        return Some(Location {
            file: program.files.path(loc.file).to_string(),
            line: loc.line,
            column: loc.column,
        });
    }
    let span = body.inst_spans.get(inst.index()).copied()?;
    let lc = warpcheck_ptx::LineIndex::new(&module.ptx).line_col(&module.ptx, span.start);
    Some(Location {
        file: module.ptx_name.clone(),
        line: lc.line,
        column: lc.col,
    })
}

/// Whether a path is one of the headers that implement the device API.
fn is_library_header(p: &str) -> bool {
    p.starts_with("/warpcheck-shims/")
        || p.contains("/cuda/include/")
        || p.contains("/crt/")
        || p.contains("__clang_cuda")
}
