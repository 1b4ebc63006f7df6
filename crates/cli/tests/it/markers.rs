//! The corpus's `//~` markers (tests/kernels/README.md defines them) against the findings
//! of a `check` JSON report: the right kind on the right line, with the right count for
//! `bank-conflict(N)` and `uncoalesced(N)`, and nothing on unmarked lines. A race finding
//! names both lines of its pair; both must carry the race marker.

use std::collections::BTreeSet;

use warpcheck_corpus::{KernelFile, Marker, MarkerKind, Variant};
use warpcheck_report::Code;

/// (kind, line, count) as the markers spell them; count 0 when the marker has none.
pub type Mark = (String, u32, u32);

/// Marks a compiler misses, each with the reason: (file and flags, missing mark).
pub type Misses<'a> = &'a [(&'a str, (&'a str, u32, u32), &'a str)];

/// A corpus marker as a [`Mark`].
fn mark(m: &Marker) -> Mark {
    (m.kind.name().to_string(), m.line, m.degree.unwrap_or(0))
}

/// The markers of a kernel file, plus those `variant` adds, less the `misses` listed for
/// `label` (the file name and the variant's flag).
pub fn expected(
    file: &KernelFile,
    variant: Option<&Variant>,
    label: &str,
    misses: Misses<'_>,
) -> BTreeSet<Mark> {
    let mut want: BTreeSet<Mark> = file.markers_for(variant).iter().map(mark).collect();
    for (l, (kind, line, count), _) in misses {
        if label.trim() == *l {
            want.remove(&(kind.to_string(), *line, *count));
        }
    }
    want
}

/// The findings of a `check --format json` report as marks, lines in the file called
/// `name` only.
pub fn found(json: &serde_json::Value, name: &str) -> BTreeSet<Mark> {
    let mut marks = BTreeSet::new();
    for f in json["findings"].as_array().into_iter().flatten() {
        let code = f["code"].as_str().unwrap_or_default();
        let kind: &str = MarkerKind::from_code(code).map_or(code, |k| k.name());
        let count = f["degree"].as_u64().unwrap_or(0) as u32;
        let mut labels = vec![&f["primary"]];
        if kind.ends_with("-race") || kind == Code::Deadlock.name() {
            labels.extend(f["related"].as_array().into_iter().flatten());
        }
        for l in labels {
            let path = l["location"]["file"].as_str().unwrap_or_default();
            if !path.ends_with(name) {
                continue;
            }
            let line = l["location"]["line"].as_u64().unwrap_or(0) as u32;
            marks.insert((kind.to_string(), line, count));
        }
    }
    marks
}

/// `None` when `got` is `want`, else what is missing and what is unexpected.
pub fn differences(label: &str, want: &BTreeSet<Mark>, got: &BTreeSet<Mark>) -> Option<String> {
    if got == want {
        return None;
    }
    let missing: Vec<_> = want.difference(got).collect();
    let extra: Vec<_> = got.difference(want).collect();
    Some(format!(
        "{label}: missing {missing:?}, unexpected {extra:?}"
    ))
}
