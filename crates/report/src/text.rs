//! Human-readable rendering in the style of rustc, with quoted source lines.

use crate::{Finding, Label, Severity, Sources, Tally};
use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use std::ops::Range;

/// Renders findings as compiler-style diagnostics followed by a one-line summary.
/// `color` selects ANSI styling (for terminals).
pub fn render(findings: &[Finding], sources: &mut Sources, color: bool) -> String {
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut out = String::new();
    for finding in findings {
        out.push_str(&render_one(finding, sources, &renderer));
        out.push_str("\n\n");
    }
    out.push_str(&summary(findings));
    out.push('\n');
    out
}

/// `2 errors, 1 warning` or `no findings`; `lint-undecided` notes are counted apart as
/// `undecided: N accesses (see notes)`, so that accesses the lint could not judge never
/// read as a clean result.
pub fn summary(findings: &[Finding]) -> String {
    let undecided = findings
        .iter()
        .filter(|f| f.code == crate::Code::LintUndecided)
        .count();
    let mut t = Tally::of(findings);
    t.notes -= undecided.min(t.notes);
    if findings.is_empty() {
        return "no findings".to_string();
    }
    let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    let mut parts = Vec::new();
    if t.errors > 0 {
        parts.push(plural(t.errors, "error"));
    }
    if t.warnings > 0 {
        parts.push(plural(t.warnings, "warning"));
    }
    if t.notes > 0 {
        parts.push(plural(t.notes, "note"));
    }
    if undecided > 0 {
        let word = if undecided == 1 { "access" } else { "accesses" };
        parts.push(format!("undecided: {undecided} {word} (see notes)"));
    }
    parts.join(", ")
}

fn level(severity: Severity) -> Level<'static> {
    match severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Note => Level::NOTE,
    }
}

fn render_one(finding: &Finding, sources: &mut Sources, renderer: &Renderer) -> String {
    // Collect the texts first: annotate-snippets borrows them for the whole report.
    let labels: Vec<(&Label, bool)> = finding
        .primary
        .iter()
        .map(|l| (l, true))
        .chain(finding.related.iter().map(|l| (l, false)))
        .collect();
    let texts: Vec<Option<String>> = labels
        .iter()
        .map(|(l, _)| sources.get(&l.location.file).map(str::to_string))
        .collect();

    let mut title = finding.message.clone();
    if finding.occurrences > 1 {
        title.push_str(&format!(" ({} times)", finding.occurrences));
    }
    if let Some(k) = &finding.kernel {
        title.push_str(&format!(" [kernel `{k}`]"));
    }
    let mut group = Group::with_title(
        level(finding.severity)
            .primary_title(title)
            .id(finding.code.name()),
    );

    // One snippet per file, in order of first mention, with all of that file's labels.
    let mut files: Vec<&str> = Vec::new();
    for (l, _) in &labels {
        if !files.contains(&l.location.file.as_str()) {
            files.push(&l.location.file);
        }
    }
    let mut without_source = Vec::new();
    for file in files {
        let idx: Vec<usize> = (0..labels.len())
            .filter(|&i| labels[i].0.location.file == file)
            .collect();
        let Some(text) = texts[idx[0]].as_deref() else {
            without_source.extend(idx);
            continue;
        };
        let mut snippet = Snippet::source(text).path(file).fold(true);
        let mut any = false;
        for &i in &idx {
            let (label, primary) = labels[i];
            match byte_range(text, label.location.line, label.location.column) {
                Some(range) => {
                    let kind = if primary {
                        AnnotationKind::Primary
                    } else {
                        AnnotationKind::Context
                    };
                    snippet = snippet.annotation(kind.span(range).label(label.message.as_str()));
                    any = true;
                }
                None => without_source.push(i),
            }
        }
        if any {
            group = group.element(snippet);
        }
    }
    let located: Vec<String> = without_source
        .iter()
        .map(|&i| format!("{}: {}", labels[i].0.location, labels[i].0.message))
        .collect();
    for l in &located {
        group = group.element(Level::NOTE.message(l.as_str()));
    }
    for n in &finding.notes {
        group = group.element(Level::NOTE.message(n.as_str()));
    }
    let mut report: Vec<Group> = vec![group];
    if let Some(h) = &finding.help {
        report.push(Group::with_title(Level::HELP.secondary_title(h.as_str())));
    }
    renderer.render(&report).to_string()
}

/// The byte range to underline for a 1-based line and column: from the column to the end of
/// the token there, or the line without its indentation when the column is unknown (0).
fn byte_range(text: &str, line: u32, column: u32) -> Option<Range<usize>> {
    if line == 0 {
        return None;
    }
    let mut start = 0usize;
    for _ in 1..line {
        start += text[start..].find('\n')? + 1;
    }
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let line_text = &text[start..end];
    if column == 0 || column as usize > line_text.chars().count() {
        let indent = line_text.len() - line_text.trim_start().len();
        let content = line_text.trim_end();
        if content.len() <= indent {
            return Some(start..start);
        }
        return Some(start + indent..start + content.len());
    }
    let col_byte = line_text
        .char_indices()
        .nth(column as usize - 1)
        .map(|(b, _)| b)?;
    let rest = &line_text[col_byte..];
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == '%' || c == '.';
    let len = match rest.chars().next() {
        Some(c) if is_word(c) => rest.find(|c: char| !is_word(c)).unwrap_or(rest.len()),
        Some(c) => c.len_utf8(),
        None => 0,
    };
    Some(start + col_byte..start + col_byte + len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Code, Location};

    fn loc(line: u32, column: u32) -> Location {
        Location {
            file: "k.cu".into(),
            line,
            column,
        }
    }

    #[test]
    fn renders_primary_and_related_labels_with_source() {
        let mut sources = Sources::new();
        sources.insert("k.cu", "int a;\n  tile[t] = x;\n  y = tile[t+1];\n");
        let f = Finding::new(
            Code::SharedRace,
            Severity::Error,
            "read-after-write race on `tile`",
        )
        .at(loc(3, 7), "(2) read by thread (0,0,0) of block (0,0,0)")
        .related(loc(2, 3), "(1) write by thread (1,0,0) of block (0,0,0)")
        .note("no barrier separates the two accesses")
        .help("add __syncthreads() between the write and the read");
        let out = render(&[f], &mut sources, false);
        assert!(
            out.contains("error[shared-race]: read-after-write race on `tile`"),
            "{out}"
        );
        assert!(out.contains("k.cu:3:7"), "{out}");
        assert!(out.contains("tile[t] = x;"), "{out}");
        assert!(out.contains("(1) write by thread (1,0,0)"), "{out}");
        assert!(out.contains("note: no barrier separates"), "{out}");
        assert!(out.contains("help: add __syncthreads()"), "{out}");
        assert!(out.trim_end().ends_with("1 error"), "{out}");
    }

    #[test]
    fn missing_source_falls_back_to_a_location_note() {
        let mut sources = Sources::new();
        let f = Finding::new(Code::BankConflict, Severity::Warning, "msg").at(
            Location {
                file: "/nonexistent/file.cu".into(),
                line: 4,
                column: 2,
            },
            "here",
        );
        let out = render(&[f], &mut sources, false);
        assert!(out.contains("/nonexistent/file.cu:4:2: here"), "{out}");
        assert!(out.contains("1 warning"));
    }

    #[test]
    fn byte_range_covers_the_token_at_the_column() {
        let text = "ab\n  foo.bar(x)\n";
        assert_eq!(byte_range(text, 2, 3), Some(5..12));
        assert_eq!(byte_range(text, 2, 0), Some(5..15));
        assert_eq!(byte_range(text, 9, 1), None);
    }

    #[test]
    fn summary_counts_each_severity() {
        let e = Finding::new(Code::SharedRace, Severity::Error, "m");
        let w = Finding::new(Code::BankConflict, Severity::Warning, "m");
        assert_eq!(summary(&[e.clone(), e, w]), "2 errors, 1 warning");
        assert_eq!(summary(&[]), "no findings");
        let u = Finding::new(crate::Code::LintUndecided, Severity::Note, "m");
        assert_eq!(
            summary(&[u.clone(), u]),
            "undecided: 2 accesses (see notes)"
        );
    }
}
