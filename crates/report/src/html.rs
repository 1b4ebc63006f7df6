//! The HTML report (`--report run.html`): one self-contained page with the launches, the
//! findings and a source view of each kernel with per-line heat, like Nsight Compute's
//! source page.
//!
//! The page loads nothing: its CSS is inline, it has no script, no font, no image and no
//! link outside itself, so it opens offline and from an archive. Every text that comes
//! from the program (source lines, kernel names, file names, messages) is escaped
//! ([`escape`]); nothing is inserted as markup. The output is a pure function of the
//! [`Page`]: the same run gives the same bytes except the measured emulation times,
//! which are the only text in `<td class="time">` cells.
//!
//! Heat: per source line of a kernel, the warp-level and thread-level executions, the
//! global-memory sectors per request (and the ideal for the same bytes), and the shared
//! memory's extra wavefronts (bank conflicts) per request with the worst N-way degree.
//! Each figure's cell is shaded in five steps relative to the largest value of its
//! column in the view (`heat-1` … `heat-5`); a bank-conflict or sector cell is shaded
//! only where the line has conflicts or more sectors than ideal.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::{Finding, Label, Location, Sources, text};

/// One kernel launch.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LaunchRow {
    /// 1-based, in launch order.
    pub index: usize,
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Dynamic shared memory per block, in bytes.
    pub shared: u32,
    /// PTX instructions executed, once per active thread.
    pub lane_instructions: u64,
    /// Wall-clock seconds the emulator took for the launch (not a GPU's time).
    pub seconds: f64,
    /// Where the program launched it (program mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<Location>,
    /// Whether the launch repeated an earlier one exactly and was reused, not run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reused: bool,
}

/// What one source line of a kernel cost, summed over the kernel's launches.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineHeat {
    pub line: u32,
    /// Warp-level instruction executions (Nsight Compute: instructions executed).
    pub warp_executions: u64,
    /// Active threads summed over those executions (thread instructions executed).
    pub thread_executions: u64,
    /// Global loads and stores of the line: requests, sectors, and the fewest sectors
    /// that could hold the same bytes.
    pub global_requests: u64,
    pub global_sectors: u64,
    pub global_ideal_sectors: u64,
    /// Shared loads and stores of the line: requests, wavefronts, and wavefronts beyond
    /// one per phase (bank conflicts).
    pub shared_requests: u64,
    pub shared_wavefronts: u64,
    pub bank_conflicts: u64,
    /// The largest N-way bank conflict of one execution (1: none).
    pub worst_bank_degree: u32,
}

/// The heat of the lines of one kernel in one source file (a kernel's device functions
/// may lie in other files).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceHeat {
    pub kernel: String,
    pub file: String,
    /// Ascending by line.
    pub lines: Vec<LineHeat>,
}

/// Everything the page shows.
pub struct Page<'a> {
    /// What was checked: the command's files and arguments.
    pub title: String,
    pub launches: &'a [LaunchRow],
    pub findings: &'a [Finding],
    pub heat: &'a [SourceHeat],
}

/// Lines of context shown around the lines a kernel executed.
const CONTEXT: u32 = 2;

/// `text` with `& < > " '` replaced by character references: safe in element content and
/// in quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1400px;padding:0 16px 40px;color:#1d1d1f;background:#fff}
h1{font-size:22px;margin:18px 0 2px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd}
h3{font-size:15px;margin:16px 0 6px}code,pre,.mono{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px}
.subtitle{color:#555;margin:0}nav a{margin-right:14px}
table{border-collapse:collapse}th,td{padding:2px 8px;border:1px solid #e2e2e2;text-align:left;vertical-align:top}
th{background:#f4f4f6;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums}
.finding{border-left:4px solid #999;padding:4px 10px;margin:10px 0;background:#fafafa}
.finding.error{border-color:#c62828}.finding.warning{border-color:#ef8f00}.finding.note{border-color:#1565c0}
.sev{font-weight:700;text-transform:uppercase;font-size:11px;margin-right:6px}
.error .sev{color:#c62828}.warning .sev{color:#b36b00}.note .sev{color:#1565c0}
.finding ul{margin:2px 0 2px 18px;padding:0}.help{color:#2e6b2e}
table.source td.code{white-space:pre;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px;border:none;padding-left:12px;min-width:500px}
table.source td.ln{color:#888;text-align:right}table.source tr.cold td.num{color:#bbb}
table.source td.marks{white-space:nowrap}table.source td.marks a{font-size:11px;margin-right:4px}
td.exec.heat-1{background:#e3eefa}td.exec.heat-2{background:#c4daf4}td.exec.heat-3{background:#9cc0ec}td.exec.heat-4{background:#6fa3e2}td.exec.heat-5{background:#3f82d6;color:#fff}
td.sectors.heat-1{background:#fff1dc}td.sectors.heat-2{background:#ffddb0}td.sectors.heat-3{background:#ffc27a}td.sectors.heat-4{background:#ffa340}td.sectors.heat-5{background:#f07f00;color:#fff}
td.bank.heat-1{background:#fbe2de}td.bank.heat-2{background:#f6bfb6}td.bank.heat-3{background:#ee8f80}td.bank.heat-4{background:#e45f4b}td.bank.heat-5{background:#d7301f;color:#fff}
tr.hot td.code{background:#fff6f4}.legend{color:#555;font-size:12.5px}
";

/// Renders the page.
pub fn render(page: &Page, sources: &mut Sources) -> String {
    let mut out = String::new();
    let title = escape(&page.title);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>warpcheck report: {title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>warpcheck report</h1>\n<p class=\"subtitle mono\">{title}</p>\n\
         <p class=\"summary\">{} kernel launch(es); {}</p>\n\
         <nav><a href=\"#launches\">Launches</a><a href=\"#findings\">Findings</a>\
         <a href=\"#source\">Source</a></nav>\n",
        page.launches.len(),
        escape(&text::summary(page.findings))
    );
    launches(&mut out, page.launches);
    findings(&mut out, page.findings);
    source_views(&mut out, page, sources);
    out.push_str("</body>\n</html>\n");
    out
}

fn dim3(d: [u32; 3]) -> String {
    format!("({},{},{})", d[0], d[1], d[2])
}

fn location_text(l: &Location) -> String {
    escape(&l.to_string())
}

fn launches(out: &mut String, rows: &[LaunchRow]) {
    out.push_str(
        "<section id=\"launches\">\n<h2>Launches</h2>\n<table id=\"launch-table\">\n\
         <thead><tr><th>#</th><th>kernel</th><th>grid</th><th>block</th>\
         <th>dynamic shared (bytes)</th><th>lane-instructions</th>\
         <th>emulation time (ms)</th><th>launched at</th></tr></thead>\n<tbody>\n",
    );
    for r in rows {
        let site = r.site.as_ref().map(location_text).unwrap_or_default();
        let time = match r.reused {
            true => "reused".to_string(),
            false => format!("{:.3}", r.seconds * 1e3),
        };
        let _ = writeln!(
            out,
            "<tr class=\"launch\"><td class=\"num\">{}</td><td class=\"mono\">{}</td>\
             <td class=\"mono\">{}</td><td class=\"mono\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num time\">{time}</td>\
             <td class=\"mono\">{site}</td></tr>",
            r.index,
            escape(&r.kernel),
            dim3(r.grid),
            dim3(r.block),
            r.shared,
            r.lane_instructions,
        );
    }
    out.push_str("</tbody>\n</table>\n");
    out.push_str(
        "<p class=\"legend\">Emulation time is the host's wall-clock time in warpcheck's \
         emulator, not a GPU's time; a reused launch repeated an earlier launch exactly \
         (same kernel, configuration, arguments and device memory) and was not run \
         again.</p>\n</section>\n",
    );
}

fn label_item(out: &mut String, l: &Label) {
    let _ = writeln!(
        out,
        "<li><span class=\"mono\">{}</span>: {}</li>",
        location_text(&l.location),
        escape(&l.message)
    );
}

fn findings(out: &mut String, list: &[Finding]) {
    out.push_str("<section id=\"findings\">\n<h2>Findings</h2>\n");
    if list.is_empty() {
        out.push_str("<p>No findings.</p>\n");
    }
    for (i, f) in list.iter().enumerate() {
        let sev = f.severity.name();
        let times = if f.occurrences > 1 {
            format!(" ({} times)", f.occurrences)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "<article class=\"finding {sev}\" id=\"finding-{}\">\n<div><span class=\"sev\">{sev}</span>\
             <code>[{}]</code> {}{times}</div>",
            i + 1,
            f.code,
            escape(&f.message)
        );
        if let Some(k) = &f.kernel {
            let _ = writeln!(out, "<div>kernel <code>{}</code></div>", escape(k));
        }
        if f.primary.is_some() || !f.related.is_empty() {
            out.push_str("<ul class=\"labels\">\n");
            for l in f.primary.iter().chain(&f.related) {
                label_item(out, l);
            }
            out.push_str("</ul>\n");
        }
        if !f.notes.is_empty() {
            out.push_str("<ul class=\"notes\">\n");
            for n in &f.notes {
                let _ = writeln!(out, "<li>{}</li>", escape(n));
            }
            out.push_str("</ul>\n");
        }
        if let Some(h) = &f.help {
            let _ = writeln!(out, "<div class=\"help\">help: {}</div>", escape(h));
        }
        out.push_str("</article>\n");
    }
    out.push_str("</section>\n");
}

/// The shade of `value` against the column's `max`: 0 (none) or 1–5.
fn level(value: f64, max: f64) -> u8 {
    if value <= 0.0 || max <= 0.0 {
        return 0;
    }
    ((value / max * 5.0).ceil() as u8).clamp(1, 5)
}

/// A numeric cell, shaded `heat-N` in the column's colour.
fn cell(out: &mut String, class: &str, text: &str, heat: u8) {
    if heat == 0 {
        let _ = write!(out, "<td class=\"num {class}\">{text}</td>");
    } else {
        let _ = write!(out, "<td class=\"num {class} heat-{heat}\">{text}</td>");
    }
}

/// Findings of a kernel at a line of a file, by their index in the list (1-based).
fn marks<'f>(
    findings: &'f [Finding],
    kernel: &str,
    file: &str,
    line: u32,
) -> Vec<(usize, &'f Finding)> {
    findings
        .iter()
        .enumerate()
        .filter(|(_, f)| f.kernel.as_deref() == Some(kernel))
        .filter(|(_, f)| {
            f.primary
                .as_ref()
                .is_some_and(|p| p.location.file == file && p.location.line == line)
        })
        .map(|(i, f)| (i + 1, f))
        .collect()
}

/// Per-request ratios of a line: sectors (and ideal), extra wavefronts.
fn ratios(h: &LineHeat) -> (f64, f64, f64) {
    let per = |n: u64, d: u64| if d == 0 { 0.0 } else { n as f64 / d as f64 };
    (
        per(h.global_sectors, h.global_requests),
        per(h.global_ideal_sectors, h.global_requests),
        per(h.bank_conflicts, h.shared_requests),
    )
}

fn source_views(out: &mut String, page: &Page, sources: &mut Sources) {
    out.push_str(
        "<section id=\"source\">\n<h2>Source</h2>\n<p class=\"legend\">Per line, summed over \
         the kernel's launches: warp-level executions, thread executions, global sectors \
         per request (ideal in parentheses: the fewest sectors that hold the same bytes), \
         and shared-memory extra wavefronts per request from bank conflicts (worst N-way \
         degree in parentheses). Shading is relative to the largest value of the column in \
         the view.</p>\n",
    );
    if page.heat.is_empty() {
        out.push_str("<p>No kernel ran with line information.</p>\n");
    }
    for (v, view) in page.heat.iter().enumerate() {
        source_view(out, page, view, v + 1, sources);
    }
    out.push_str("</section>\n");
}

fn source_view(out: &mut String, page: &Page, view: &SourceHeat, n: usize, sources: &mut Sources) {
    let text = sources.get(&view.file).map(str::to_string);
    let lines: Vec<&str> = text
        .as_deref()
        .map(|t| t.lines().collect())
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "<div class=\"kernel-view\" id=\"view-{n}\">\n<h3>kernel <code>{}</code> in <code>{}</code></h3>",
        escape(&view.kernel),
        escape(&view.file)
    );
    if text.is_none() {
        out.push_str("<p>The source file could not be read; counts only.</p>\n");
    }
    let (Some(first), Some(last)) = (view.lines.first(), view.lines.last()) else {
        out.push_str("</div>\n");
        return;
    };
    let from = first.line.saturating_sub(CONTEXT).max(1);
    let to = (last.line + CONTEXT).min((lines.len() as u32).max(last.line));
    let max = |f: &dyn Fn(&LineHeat) -> f64| view.lines.iter().map(f).fold(0.0, f64::max);
    let max_warps = max(&|h| h.warp_executions as f64);
    let max_threads = max(&|h| h.thread_executions as f64);
    let max_excess = max(&|h| ratios(h).0 - ratios(h).1);
    let max_bank = max(&|h| ratios(h).2);
    out.push_str(
        "<table class=\"source\">\n<thead><tr><th>line</th><th>warp executions</th>\
         <th>thread executions</th><th>sectors / request</th>\
         <th>bank-conflict extra wavefronts / request</th><th>findings</th><th>source</th>\
         </tr></thead>\n<tbody>\n",
    );
    let mut heat = view.lines.iter().peekable();
    for line in from..=to {
        while heat.peek().is_some_and(|h| h.line < line) {
            heat.next();
        }
        let h = heat.peek().filter(|h| h.line == line).copied();
        let code = lines.get(line as usize - 1).copied().unwrap_or("");
        let hot = h.is_some_and(|h| h.bank_conflicts > 0);
        let class = match (h, hot) {
            (None, _) => "cold",
            (Some(_), true) => "hot",
            (Some(_), false) => "ran",
        };
        let _ = write!(
            out,
            "<tr class=\"{class}\" id=\"view-{n}-line-{line}\" data-line=\"{line}\">\
             <td class=\"ln\">{line}</td>"
        );
        match h {
            None => out.push_str("<td class=\"num\"></td>".repeat(4).as_str()),
            Some(h) => heat_cells(out, h, (max_warps, max_threads, max_excess, max_bank)),
        }
        out.push_str("<td class=\"marks\">");
        for (i, f) in marks(page.findings, &view.kernel, &view.file, line) {
            let _ = write!(
                out,
                "<a href=\"#finding-{i}\" class=\"{}\">{}</a>",
                f.severity.name(),
                f.code
            );
        }
        let _ = writeln!(out, "</td><td class=\"code\">{}</td></tr>", escape(code));
    }
    out.push_str("</tbody>\n</table>\n</div>\n");
}

fn heat_cells(
    out: &mut String,
    h: &LineHeat,
    (warps, threads, excess, bank): (f64, f64, f64, f64),
) {
    cell(
        out,
        "exec",
        &h.warp_executions.to_string(),
        level(h.warp_executions as f64, warps),
    );
    cell(
        out,
        "exec",
        &h.thread_executions.to_string(),
        level(h.thread_executions as f64, threads),
    );
    let (sectors, ideal, extra) = ratios(h);
    if h.global_requests == 0 {
        cell(out, "sectors", "", 0);
    } else {
        let text = format!("{sectors:.2} ({ideal:.2})");
        cell(out, "sectors", &text, level(sectors - ideal, excess));
    }
    if h.shared_requests == 0 {
        cell(out, "bank", "", 0);
    } else {
        let text = format!("{extra:.2} ({}-way)", h.worst_bank_degree.max(1));
        cell(out, "bank", &text, level(extra, bank));
    }
}
