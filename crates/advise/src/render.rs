//! The advice as text, laid out like Juravle's Table 9.1: per loop nest a verdict, the
//! kernel parameters, a coalescing report, shared-memory opportunities and the
//! instantiated numbers. Each section line starts with the key the corpus files'
//! `warpcheck-expect-advice` lines use (`parallel:`, `inbound:`, `outbound:`, `calls:`,
//! `coalescing:`, `mapping:`, `shared:`).

use std::fmt::Write;

use crate::model::{FunctionAdvice, NestAdvice, Param};

/// Renders the whole advice.
pub fn text(advice: &FunctionAdvice, file: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{file}: function {}", advice.function);
    if !advice.values.is_empty() {
        let vals: Vec<String> = advice
            .values
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        let _ = writeln!(out, "  values: {}", vals.join(", "));
    }
    for s in &advice.solved {
        let _ = writeln!(out, "  solved: {s}");
    }
    if advice.nests.is_empty() {
        let _ = writeln!(out, "  no loops");
    }
    for nest in &advice.nests {
        nest_text(&mut out, nest);
    }
    if !advice.calls_outside_loops.is_empty() {
        let _ = writeln!(
            out,
            "  calls outside the loops: {}",
            advice.calls_outside_loops.join(", ")
        );
    }
    out
}

fn param_text(p: &Param) -> String {
    let mut s = p.name.clone();
    if let Some([lo, hi]) = &p.section {
        let _ = write!(s, " [{lo}, {hi}] bytes");
    }
    if let Some(n) = &p.section_note {
        let _ = write!(s, " ({n})");
    }
    if let Some([lo, hi]) = p.instantiated {
        let _ = write!(s, " (instantiated [{lo}, {hi}]");
        if p.runs.len() > 1 {
            let runs: Vec<String> = p
                .runs
                .iter()
                .map(|r| format!("[{}, {}]", r[0], r[1]))
                .collect();
            let _ = write!(s, " in runs {}", runs.join(" "));
        }
        s.push(')');
    }
    if let Some(root) = &p.nested_in {
        let _ = write!(s, " (nested through {root})");
    }
    if p.kind == "static" || p.kind == "global" {
        let _ = write!(s, " ({})", p.kind);
    }
    s
}

fn nest_text(out: &mut String, n: &NestAdvice) {
    let dims: Vec<String> = n.loops.iter().map(|l| l.var.clone()).collect();
    let _ = writeln!(
        out,
        "\n  loop nest at lines {}-{} ({}-D: {})",
        n.lines[0],
        n.lines[1],
        n.loops.len(),
        dims.join(", ")
    );
    for l in &n.loops {
        let mut s = format!("    loop {} (line {})", l.var, l.line);
        if let Some(h) = &l.header {
            let _ = write!(s, ": for ({}; {}; {})", h.init, h.cond, h.step);
        }
        if let Some(norm) = &l.normalised {
            let _ = write!(
                s,
                "; normalised: k_{} in [0, {}) with {norm}",
                l.var,
                l.trip_count.as_deref().unwrap_or("?")
            );
        }
        if let Some(t) = l.trip_value {
            let _ = write!(s, "; {t} iterations");
        }
        let _ = writeln!(out, "{s}");
    }
    let v = &n.verdict;
    if v.reasons.is_empty() {
        let _ = writeln!(
            out,
            "  parallel: {} ({}-D nest {}; no loop-carried dependencies; normalised bounds; no calls outside the device white-list)",
            v.parallel,
            v.dims.len(),
            v.dims.join(", ")
        );
    } else {
        let _ = writeln!(out, "  parallel: {} ({})", v.parallel, v.reasons.join("; "));
    }
    for s in &v.sequential_inner {
        let _ = writeln!(out, "    sequential inside each thread: {s}");
    }
    // Unless the verdict already says it (`unknown: the analysis bound …`).
    if let Some(b) = &n.bound
        && !v.reasons.iter().any(|r| r.contains(b.as_str()))
    {
        let _ = writeln!(out, "  bound: {b}");
    }
    // A nest that reached its bound has no parameters because they were not analysed.
    let none = if n.bound.is_some() {
        "not analysed (analysis bound)"
    } else {
        "none"
    };
    let ins: Vec<String> = n.inbound.iter().map(param_text).collect();
    let _ = writeln!(
        out,
        "  inbound: {}",
        if ins.is_empty() {
            none.into()
        } else {
            ins.join(", ")
        }
    );
    let outs: Vec<String> = n.outbound.iter().map(param_text).collect();
    let _ = writeln!(
        out,
        "  outbound: {}",
        if outs.is_empty() {
            none.into()
        } else {
            outs.join(", ")
        }
    );
    if !n.calls.is_empty() {
        let _ = writeln!(out, "  calls: {} (in the loop)", n.calls.join(", "));
    }
    if !n.coalescing.is_empty() {
        let _ = writeln!(out, "  coalescing (128-byte requests per warp):");
        for r in &n.coalescing {
            let fs: Vec<String> = r
                .factors
                .iter()
                .map(|f| {
                    let mut s = format!("{}: {}", f.mapping, f.factor);
                    if let Some(v) = f.value
                        && f.factor != v.to_string()
                    {
                        let _ = write!(s, " = {v}");
                    }
                    if let Some(st) = &f.stride {
                        let _ = write!(s, " (stride {st} bytes)");
                    }
                    s
                })
                .collect();
            let _ = writeln!(
                out,
                "    line {} {} {}: {}",
                r.line,
                r.kind,
                r.access,
                fs.join("; ")
            );
        }
    }
    if let Some(m) = &n.mapping {
        let mut s = format!("  mapping: {} ({})", m.recommended, m.reason);
        if let Some(w) = m.work_items {
            let _ = write!(s, "; {w} work items");
        }
        let _ = writeln!(out, "{s}");
    }
    for r in &n.rewrite {
        let _ = writeln!(out, "  mapping: {r}");
    }
    for sh in &n.shared {
        let lines: Vec<String> = sh.lines.iter().map(|l| l.to_string()).collect();
        let mut s = format!(
            "  shared: {} (lines {}): {} tile {}",
            sh.base,
            lines.join(", "),
            if sh.kind == "uniform" {
                "shared by all threads of a block;"
            } else {
                "adjacent threads overlap;"
            },
            sh.tile.join(", ")
        );
        if let Some(e) = &sh.elements {
            let _ = write!(s, " = {e} elements");
        }
        if !sh.overlap.is_empty() {
            let _ = write!(s, "; overlap {}", sh.overlap.join(", "));
        }
        if let (Some(b), Some(bl)) = (sh.bytes_per_block, sh.block) {
            let _ = write!(s, "; {b} bytes per block of {}x{}", bl[0], bl[1]);
        }
        let _ = writeln!(out, "{s}");
    }
    if !n.assumptions.is_empty() {
        let _ = writeln!(out, "  assuming: {}", n.assumptions.join(", "));
    }
}
