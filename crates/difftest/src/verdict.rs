//! Judging what `warpcheck check --format json` reported against the construction, and
//! comparing output hashes.
//!
//! A race-free kernel agrees when no finding of severity `error` names it. A racy kernel
//! agrees when its only error findings are races with the planted code whose two lines
//! (the primary location and the other access, not the launch) are the planted pair.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::program::Program;

/// One kernel's verdict: agreement, or the reason for a disagreement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub kernel: String,
    pub agrees: bool,
    pub detail: String,
}

/// An error finding of one kernel: its code and the source lines of its accesses.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ErrorFinding {
    code: String,
    lines: Vec<u64>,
}

impl ErrorFinding {
    fn describe(&self) -> String {
        let lines: Vec<String> = self.lines.iter().map(u64::to_string).collect();
        format!("{}@{}", self.code, lines.join(","))
    }
}

/// The error findings of `report` (the JSON of `warpcheck check`) by kernel name. Findings
/// without a kernel (host-side) are listed under the empty name.
fn errors_by_kernel(report: &Value) -> BTreeMap<String, Vec<ErrorFinding>> {
    let mut map: BTreeMap<String, Vec<ErrorFinding>> = BTreeMap::new();
    let findings = report["findings"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    for f in findings.iter().filter(|f| f["severity"] == "error") {
        let mut lines = vec![f["primary"]["location"]["line"].as_u64().unwrap_or(0)];
        let related = f["related"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        for r in related {
            let is_launch = r["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("kernel launched here"));
            if let (false, Some(line)) = (is_launch, r["location"]["line"].as_u64()) {
                lines.push(line);
            }
        }
        lines.sort_unstable();
        lines.dedup();
        let kernel = f["kernel"].as_str().unwrap_or_default().to_string();
        let code = f["code"].as_str().unwrap_or_default().to_string();
        map.entry(kernel)
            .or_default()
            .push(ErrorFinding { code, lines });
    }
    map
}

/// The verdict of every kernel of `program` from the report of `warpcheck check` on it;
/// host-side error findings, if any, come last under the kernel name `(host)`.
pub fn judge(program: &Program, report: &Value) -> Vec<Verdict> {
    let mut errors = errors_by_kernel(report);
    let mut verdicts: Vec<Verdict> = program
        .kernels
        .iter()
        .map(|k| {
            let found = errors.remove(&k.name).unwrap_or_default();
            let listed = || {
                found
                    .iter()
                    .map(ErrorFinding::describe)
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let (agrees, detail) = match k.plant {
                None if found.is_empty() => (true, "no error".to_string()),
                None => (false, format!("race-free, reported {}", listed())),
                Some((kind, a, b)) => {
                    let pair = [u64::from(a.min(b)), u64::from(a.max(b))];
                    let hit = found
                        .iter()
                        .any(|f| f.code == kind.code() && f.lines == pair);
                    let only = found
                        .iter()
                        .all(|f| f.code == kind.code() && f.lines == pair);
                    let planted =
                        format!("{} {}@{},{}", kind.name(), kind.code(), pair[0], pair[1]);
                    match (hit, only) {
                        (true, true) => (true, planted),
                        (true, false) => (
                            false,
                            format!("planted {planted}, also reported {}", listed()),
                        ),
                        (false, _) if found.is_empty() => {
                            (false, format!("planted {planted}, nothing reported"))
                        }
                        (false, _) => (false, format!("planted {planted}, reported {}", listed())),
                    }
                }
            };
            Verdict {
                kernel: k.name.clone(),
                agrees,
                detail,
            }
        })
        .collect();
    for (kernel, found) in errors {
        let listed: Vec<String> = found.iter().map(ErrorFinding::describe).collect();
        let name = if kernel.is_empty() {
            "(host)".to_string()
        } else {
            kernel
        };
        verdicts.push(Verdict {
            kernel: name,
            agrees: false,
            detail: format!("unexpected {}", listed.join(" ")),
        });
    }
    verdicts
}

/// Hashes by (seed, kernel) from TSV lines `seed kernel hash` (`#` comments skipped).
pub fn parse_hashes(tsv: &str) -> BTreeMap<(u64, String), String> {
    tsv.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let seed = f.next()?.parse().ok()?;
            Some(((seed, f.next()?.to_string()), f.next()?.to_string()))
        })
        .collect()
}

/// Hashes by kernel from a generated program's stdout (`kID HASH` lines; a line
/// `kID error NAME` gives `error:NAME`).
pub fn parse_program_output(seed: u64, stdout: &str) -> BTreeMap<(u64, String), String> {
    stdout
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            match f.as_slice() {
                [k, h] if k.starts_with('k') => Some(((seed, k.to_string()), h.to_string())),
                [k, "error", e] => Some(((seed, k.to_string()), format!("error:{e}"))),
                _ => None,
            }
        })
        .collect()
}

/// Kernels whose hashes differ between `expected` and `actual`, and those only in
/// `expected` (hash `missing`); kernels only in `actual` are not compared.
pub fn compare_hashes(
    expected: &BTreeMap<(u64, String), String>,
    actual: &BTreeMap<(u64, String), String>,
) -> Vec<(u64, String, String, String)> {
    expected
        .iter()
        .filter_map(|((seed, k), want)| {
            let got = actual
                .get(&(*seed, k.clone()))
                .map_or("missing", String::as_str);
            (got != want).then(|| (*seed, k.clone(), want.clone(), got.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{Variant, generate};

    fn race(kernel: &str, code: &str, lines: [u64; 2]) -> Value {
        serde_json::json!({
            "kernel": kernel, "code": code, "severity": "error",
            "primary": {"location": {"line": lines[1]}},
            "related": [
                {"location": {"line": lines[0]}, "message": "(1) write by thread (1,0,0)"},
                {"location": {"line": 9999}, "message": "kernel launched here (launch 1)"}
            ]
        })
    }

    #[test]
    fn racy_kernel_agrees_only_with_its_planted_pair() {
        let p = generate(7, 2, Variant::Racy);
        let (kind, a, b) = p.kernels[0].plant.unwrap();
        let (lo, hi) = (u64::from(a.min(b)), u64::from(a.max(b)));
        let (kind1, a1, b1) = p.kernels[1].plant.unwrap();
        let good = race(
            "k1",
            kind1.code(),
            [u64::from(a1.min(b1)), u64::from(a1.max(b1))],
        );
        let report =
            serde_json::json!({"findings": [race("k0", kind.code(), [lo, hi]), good.clone()]});
        assert!(judge(&p, &report).iter().all(|v| v.agrees));
        let wrong_line =
            serde_json::json!({"findings": [race("k0", kind.code(), [lo, hi + 1]), good.clone()]});
        assert!(!judge(&p, &wrong_line)[0].agrees);
        let extra = serde_json::json!({"findings": [race("k0", kind.code(), [lo, hi]), race("k0", "uninit-read", [lo, lo]), good]});
        let v = judge(&p, &extra);
        assert!(!v[0].agrees && v[1].agrees, "{v:?}");
        let nothing = judge(&p, &serde_json::json!({"findings": []}));
        assert!(nothing.iter().all(|v| !v.agrees));
    }

    #[test]
    fn race_free_kernel_agrees_without_errors() {
        let p = generate(7, 2, Variant::RaceFree);
        let warning = serde_json::json!({"kernel": "k0", "code": "bank-conflict", "severity": "warning",
            "primary": {"location": {"line": 3}}});
        let v = judge(&p, &serde_json::json!({"findings": [warning]}));
        assert!(v.iter().all(|v| v.agrees));
        let v = judge(
            &p,
            &serde_json::json!({"findings": [race("k1", "shared-race", [3, 4])]}),
        );
        assert!(v[0].agrees && !v[1].agrees);
        let v = judge(
            &p,
            &serde_json::json!({"findings": [race("", "api-error", [3, 4])]}),
        );
        assert_eq!(v.len(), 3);
        assert!(!v[2].agrees);
    }

    #[test]
    fn hashes_compare_by_seed_and_kernel() {
        let expected = parse_hashes("# seed\tkernel\thash\n1\tk0\taa\n1\tk1\tbb\n2\tk0\tcc\n");
        let actual = parse_program_output(1, "k0 aa\nk1 error cudaErrorLaunchFailure\n");
        let diff = compare_hashes(&expected, &actual);
        assert_eq!(
            diff,
            vec![
                (
                    1,
                    "k1".to_string(),
                    "bb".to_string(),
                    "error:cudaErrorLaunchFailure".to_string()
                ),
                (2, "k0".to_string(), "cc".to_string(), "missing".to_string()),
            ]
        );
    }
}
