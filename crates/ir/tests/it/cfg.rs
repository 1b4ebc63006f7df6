//! CFG, dominator, post-dominator and loop tests on hand-written PTX.

use crate::common;

use common::{HEADER, lower};
use warpcheck_ir::{BlockId, Body, EntityRef, Program};

/// Lowers a kernel `k` whose body is `body` (registers %p<8>, %r<8> declared).
fn kernel_body(body: &str) -> Program {
    lower(&format!(
        "{HEADER}.visible .entry k(.param .u32 n)\n{{\n\t.reg .pred %p<8>;\n\t.reg .b32 %r<8>;\n{body}\n}}\n"
    ))
}

fn body(program: &Program) -> &Body {
    let f = program.function_by_name("k").expect("kernel k");
    program.function(f).body.as_ref().expect("body")
}

fn b(n: usize) -> BlockId {
    BlockId::new(n)
}

/// The block a label names.
fn block(body: &Body, label: &str) -> BlockId {
    body.blocks
        .iter()
        .find(|(_, blk)| blk.labels.iter().any(|l| l == label))
        .map(|(id, _)| id)
        .unwrap_or_else(|| panic!("no block labelled {label}"))
}

#[test]
fn diamond() {
    let p = kernel_body(
        "\tsetp.lt.s32 %p1, %r1, 0;\n\t@%p1 bra $ELSE;\n\tadd.s32 %r2, %r1, 1;\n\tbra.uni $JOIN;\n\
         $ELSE:\n\tsub.s32 %r2, %r1, 1;\n$JOIN:\n\tret;",
    );
    let body = body(&p);
    assert_eq!(body.blocks.len(), 4);
    let (else_, join) = (block(body, "$ELSE"), block(body, "$JOIN"));
    assert_eq!((else_, join), (b(2), b(3)));
    // Taken side first, then the fall-through.
    assert_eq!(body.cfg.succs(b(0)), &[b(2), b(1)]);
    assert_eq!(body.cfg.succs(b(1)), &[b(3)]);
    assert_eq!(body.cfg.succs(b(2)), &[b(3)]);
    assert_eq!(body.cfg.succs(b(3)), &[] as &[BlockId]);
    assert!(body.cfg.exits(b(3)) && !body.cfg.exits(b(0)));
    assert_eq!(body.cfg.preds(b(3)), &[b(1), b(2)]);
    for x in 1..4 {
        assert_eq!(body.idom(b(x)), Some(b(0)));
    }
    assert_eq!(body.idom(b(0)), None);
    // The branch reconverges at the join; the join post-dominates everything.
    assert_eq!(body.ipdom(b(0)), Some(b(3)));
    assert_eq!(body.ipdom(b(1)), Some(b(3)));
    assert_eq!(body.ipdom(b(2)), Some(b(3)));
    assert_eq!(body.ipdom(b(3)), None);
    assert!(body.post_dominators.post_dominates(b(3), b(0)));
    assert!(!body.post_dominators.post_dominates(b(1), b(0)));
    assert!(body.dominators.dominates(b(0), b(3)) && !body.dominators.dominates(b(1), b(3)));
    assert!(body.loops.loops.is_empty());
    assert_eq!(body.terminator(b(1)).map(|i| i.index()), Some(3));
    assert_eq!(body.terminator(b(2)), None);
}

#[test]
fn nested_loops() {
    let p = kernel_body(
        "\tmov.u32 %r1, 0;\n$OUTER:\n\tmov.u32 %r2, 0;\n$INNER:\n\tadd.s32 %r2, %r2, 1;\n\
         \tsetp.lt.s32 %p1, %r2, 10;\n\t@%p1 bra $INNER;\n\tadd.s32 %r1, %r1, 1;\n\
         \tsetp.lt.s32 %p2, %r1, 10;\n\t@%p2 bra $OUTER;\n\tret;",
    );
    let body = body(&p);
    assert_eq!(body.blocks.len(), 5);
    let (outer, inner) = (block(body, "$OUTER"), block(body, "$INNER"));
    assert_eq!((outer, inner), (b(1), b(2)));
    let loops = &body.loops;
    assert_eq!(loops.loops.len(), 2);
    let outer_loop = &loops.loops[0];
    assert_eq!(outer_loop.header, outer);
    assert_eq!(outer_loop.blocks, vec![b(1), b(2), b(3)]);
    assert_eq!(outer_loop.latches, vec![b(3)]);
    assert_eq!((outer_loop.depth, outer_loop.parent), (1, None));
    let inner_loop = &loops.loops[1];
    assert_eq!(inner_loop.header, inner);
    assert_eq!(inner_loop.blocks, vec![b(2)]);
    assert_eq!(inner_loop.latches, vec![b(2)]);
    assert_eq!((inner_loop.depth, inner_loop.parent), (2, Some(0)));
    assert_eq!(
        (0..5).map(|i| loops.depth(b(i))).collect::<Vec<_>>(),
        vec![0, 1, 2, 1, 0]
    );
    assert!(loops.is_header(outer) && loops.is_header(inner) && !loops.is_header(b(3)));
    assert!(!loops.is_irreducible());
    // Reconvergence: the inner loop's exit branch at block3, the outer one's at block4.
    assert_eq!(body.ipdom(b(2)), Some(b(3)));
    assert_eq!(body.ipdom(b(3)), Some(b(4)));
    assert_eq!(body.idom(b(3)), Some(b(2)));
    assert_eq!(
        body.dominators.reverse_postorder(),
        &[b(0), b(1), b(2), b(3), b(4)]
    );
}

#[test]
fn early_return() {
    let p = kernel_body(
        "\tsetp.eq.s32 %p1, %r1, 0;\n\t@%p1 ret;\n\tsetp.eq.s32 %p2, %r1, 1;\n\t@%p2 bra $LATE;\n\
         \tmov.u32 %r2, 5;\n\tret;\n$LATE:\n\tmov.u32 %r2, 6;\n\tret;",
    );
    let body = body(&p);
    assert_eq!(body.blocks.len(), 4);
    // A guarded `ret` ends its block: fall-through plus the exit.
    assert_eq!(body.cfg.succs(b(0)), &[b(1)]);
    assert!(body.cfg.exits(b(0)));
    assert_eq!(body.cfg.succs(b(1)), &[b(3), b(2)]);
    // Both paths leave the function before meeting: reconvergence at the exit.
    assert_eq!(body.ipdom(b(0)), None);
    assert_eq!(body.ipdom(b(1)), None);
    assert_eq!(body.idom(b(3)), Some(b(1)));
}

#[test]
fn infinite_loop_gets_an_artificial_exit() {
    let p = kernel_body(
        "\tsetp.eq.s32 %p1, %r1, 0;\n\t@%p1 bra $SPIN;\n\tret;\n$SPIN:\n\tnanosleep.u32 100;\n\
         \tsetp.eq.s32 %p2, %r2, 0;\n\t@%p2 bra $SPIN2;\n\tbra.uni $SPIN;\n$SPIN2:\n\tbra.uni $SPIN;",
    );
    let body = body(&p);
    let (spin, spin2) = (block(body, "$SPIN"), block(body, "$SPIN2"));
    assert_eq!((spin, spin2), (b(2), b(4)));
    assert_eq!(body.cfg.succs(b(3)), &[spin]);
    // No block of the loop reaches an exit; the deepest one is connected to the virtual
    // exit and every block still gets an answer.
    assert_eq!(body.post_dominators.artificial_exits(), &[spin2]);
    assert_eq!(body.ipdom(b(0)), None);
    // With the artificial edge, every path from the loop leaves through `$SPIN2`.
    assert_eq!(body.ipdom(spin), Some(spin2));
    assert_eq!(body.ipdom(b(3)), Some(spin));
    assert_eq!(body.ipdom(spin2), None);
    assert_eq!(body.loops.loops.len(), 1);
    assert_eq!(body.loops.loops[0].header, spin);
    assert_eq!(body.loops.loops[0].blocks, vec![spin, b(3), spin2]);
    assert_eq!(body.loops.loops[0].latches.len(), 2);
}

#[test]
fn single_block_self_loop() {
    let p = kernel_body("$L:\n\tbra.uni $L;");
    let body = body(&p);
    assert_eq!(body.blocks.len(), 1);
    assert_eq!(body.blocks[b(0)].labels, vec!["$L".to_string()]);
    assert_eq!(body.cfg.succs(b(0)), &[b(0)]);
    assert_eq!(body.ipdom(b(0)), None);
    assert_eq!(body.loops.loops.len(), 1);
    assert_eq!(body.loops.loops[0].header, b(0));
}

#[test]
fn unreachable_block() {
    let p = kernel_body("\tbra.uni $END;\n\tadd.s32 %r1, %r1, 1;\n$END:\n\tret;");
    let body = body(&p);
    assert_eq!(body.blocks.len(), 3);
    assert!(!body.dominators.is_reachable(b(1)));
    assert_eq!(body.idom(b(1)), None);
    assert_eq!(body.cfg.preds(b(2)), &[b(0), b(1)]);
    assert_eq!(body.idom(b(2)), Some(b(0)));
    assert!(!body.dominators.dominates(b(1), b(2)));
    assert_eq!(body.ipdom(b(1)), Some(b(2)));
    assert_eq!(body.loops.depth(b(1)), 0);
    assert_eq!(body.dominators.reverse_postorder(), &[b(0), b(2)]);
}

#[test]
fn irreducible_cycle_is_flagged_not_a_loop() {
    let p = kernel_body(
        "\t@%p1 bra $B;\n$A:\n\tadd.s32 %r1, %r1, 1;\n$B:\n\tadd.s32 %r2, %r2, 1;\n\t@%p2 bra $A;\n\tret;",
    );
    let body = body(&p);
    assert!(body.loops.is_irreducible());
    assert!(body.loops.loops.is_empty());
}

#[test]
fn brx_idx_branches_to_every_target() {
    let p = kernel_body(
        "$L_brx_0: .branchtargets $C0, $C1, $C2, $C1;\n\tbrx.idx %r1, $L_brx_0;\n\
         $C0:\n\tmov.u32 %r2, 0;\n\tbra.uni $END;\n$C1:\n\tmov.u32 %r2, 1;\n\tbra.uni $END;\n\
         $C2:\n\tmov.u32 %r2, 2;\n$END:\n\tret;",
    );
    let body = body(&p);
    let (c0, c1, c2, end) = (
        block(body, "$C0"),
        block(body, "$C1"),
        block(body, "$C2"),
        block(body, "$END"),
    );
    assert_eq!(body.branch_tables.len(), 1);
    assert_eq!(body.branch_tables[0].targets, vec![c0, c1, c2, c1]);
    assert_eq!(body.cfg.succs(b(0)), &[c0, c1, c2]);
    assert_eq!(body.ipdom(b(0)), Some(end));
    assert_eq!(
        warpcheck_ir::format_inst(&p, body, body.blocks[b(0)].start),
        "brx.idx %r1, $L_brx_0"
    );
}

#[test]
fn unreferenced_labels_do_not_split_blocks() {
    let p = kernel_body(
        "$L__func_begin0:\n\tmov.u32 %r1, 1;\n$L__tmp0:\n\tadd.s32 %r1, %r1, 1;\n$L__tmp1:\n\tret;\n$L__tmp2:\n$L__func_end0:",
    );
    let body = body(&p);
    assert_eq!(body.blocks.len(), 1);
    assert_eq!(body.blocks[b(0)].len(), 3);
    assert!(body.blocks[b(0)].labels.is_empty());
}

#[test]
fn branch_to_the_next_block_and_to_a_trailing_label() {
    let p = kernel_body("\t@%p1 bra $NEXT;\n$NEXT:\n\t@%p2 bra $END;\n\tmov.u32 %r1, 1;\n$END:");
    let body = body(&p);
    assert_eq!(body.blocks.len(), 4);
    // Both sides of the first branch are the same block: one edge.
    assert_eq!(body.cfg.succs(b(0)), &[b(1)]);
    // `$END` labels no instruction: an empty last block that leaves the function.
    let end = block(body, "$END");
    assert!(body.blocks[end].is_empty());
    assert!(body.cfg.exits(end));
    assert_eq!(body.cfg.succs(b(1)), &[end, b(2)]);
    assert_eq!(body.ipdom(b(1)), Some(end));
}

#[test]
fn label_before_first_instruction_names_the_entry_block() {
    let p = kernel_body(
        "$LOOP:\n\tadd.s32 %r1, %r1, 1;\n\tsetp.lt.s32 %p1, %r1, 4;\n\t@%p1 bra $LOOP;\n\tret;",
    );
    let body = body(&p);
    assert_eq!(block(body, "$LOOP"), b(0));
    assert_eq!(body.cfg.preds(b(0)), &[b(0)]);
    assert_eq!(body.idom(b(1)), Some(b(0)));
    assert_eq!(body.loops.loops[0].header, b(0));
}

#[test]
fn blocks_partition_instructions_in_order() {
    let p = kernel_body(
        "\tsetp.lt.s32 %p1, %r1, 0;\n\t@%p1 bra $ELSE;\n\tadd.s32 %r2, %r1, 1;\n\tbra.uni $JOIN;\n\
         $ELSE:\n\tsub.s32 %r2, %r1, 1;\n$JOIN:\n\tret;",
    );
    let body = body(&p);
    let mut next = 0;
    for (id, blk) in body.blocks.iter() {
        assert_eq!(blk.start.index(), next);
        for i in blk.insts() {
            assert_eq!(body.inst_block[i.index()], id);
        }
        next = blk.end.index();
    }
    assert_eq!(next, body.insts.len());
    assert_eq!(body.inst_spans.len(), body.insts.len());
    assert_eq!(body.inst_locs.len(), body.insts.len());
}
