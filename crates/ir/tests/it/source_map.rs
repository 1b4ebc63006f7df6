//! Source map: `.file` table (which may come after the functions) and the most recent
//! `.loc` of each instruction.

use crate::common;

use common::{HEADER, lower};
use warpcheck_ir::source_map::InlinedAt;
use warpcheck_ir::{InstId, SourceLoc};

#[test]
fn instructions_get_the_most_recent_loc() {
    let p = lower(&format!(
        "{HEADER}.visible .entry k()\n{{\n\t.reg .b32 %r<4>;\n\tmov.u32 %r1, 1;\n\t.loc 1 10 5\n\tmov.u32 %r2, 2;\n\
         \t{{\n\t.loc 2 3 7, function_name $L__info_string0, inlined_at 1 11 9\n\tadd.s32 %r3, %r1, %r2;\n\t}}\n\
         \tmov.u32 %r1, 3;\n\t.loc 1 0 7\n\tret;\n}}\n\
         .visible .entry k2()\n{{\n\tret;\n}}\n\
         \t.file 1 \"/src/kernel.cu\"\n\t.file 2 \"/src/helpers.h\", 1700000000, 1234\n"
    ));
    let k = p
        .function(p.function_by_name("k").unwrap())
        .body
        .as_ref()
        .unwrap();
    let locs: Vec<Option<SourceLoc>> = k.inst_locs.clone();
    assert_eq!(locs[0], None);
    assert_eq!(
        locs[1],
        Some(SourceLoc {
            file: 1,
            line: 10,
            column: 5,
            inlined_at: None
        })
    );
    let inlined = SourceLoc {
        file: 2,
        line: 3,
        column: 7,
        inlined_at: Some(InlinedAt {
            file: 1,
            line: 11,
            column: 9,
        }),
    };
    assert_eq!(locs[2], Some(inlined));
    // The location persists after the nested scope closes.
    assert_eq!(locs[3], Some(inlined));
    assert_eq!(
        locs[4],
        Some(SourceLoc {
            file: 1,
            line: 0,
            column: 7,
            inlined_at: None
        })
    );
    assert!(locs[4].unwrap().is_artificial());
    assert_eq!(p.files.render(&locs[1].unwrap()), "/src/kernel.cu:10:5");
    assert_eq!(
        p.files.render_with_inlining(&inlined),
        "/src/helpers.h:3:7 (inlined at /src/kernel.cu:11:9)"
    );
    let h = p.files.get(2).unwrap();
    assert_eq!((h.timestamp, h.size), (Some(1_700_000_000), Some(1234)));
    assert_eq!(p.files.len(), 2);
    // Locations do not leak from one function into the next.
    let k2 = p
        .function(p.function_by_name("k2").unwrap())
        .body
        .as_ref()
        .unwrap();
    assert_eq!(k2.inst_locs[0], None);
    // Spans point at the instruction text.
    let text_of = |i: usize| k.inst_spans[i];
    assert!(text_of(1).start < text_of(2).start && text_of(2).start < text_of(3).start);
    let _ = InstId::from_u32(0);
}
