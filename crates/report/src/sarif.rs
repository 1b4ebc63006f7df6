//! SARIF 2.1.0 rendering (OASIS Static Analysis Results Interchange Format), the format
//! code-scanning services read. One run, one rule per finding code.

use crate::{Finding, Label, Severity};
use serde_json::{Value, json};

pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Renders findings as one SARIF run of the tool `warpcheck` at `version`.
pub fn render(findings: &[Finding], version: &str) -> Value {
    let mut rules: Vec<&str> = Vec::new();
    for f in findings {
        if !rules.contains(&f.code.as_str()) {
            rules.push(&f.code);
        }
    }
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            let rule_index = rules.iter().position(|r| *r == f.code).unwrap_or(0);
            let mut text = f.message.clone();
            for n in &f.notes {
                text.push('\n');
                text.push_str(n);
            }
            let mut result = json!({
                "ruleId": f.code,
                "ruleIndex": rule_index,
                "level": level(f.severity),
                "message": { "text": text },
                "properties": { "occurrences": f.occurrences },
            });
            if let Some(p) = &f.primary {
                result["locations"] = json!([location(p, None)]);
            }
            if !f.related.is_empty() {
                let related: Vec<Value> = f
                    .related
                    .iter()
                    .enumerate()
                    .map(|(i, l)| location(l, Some(i)))
                    .collect();
                result["relatedLocations"] = Value::Array(related);
            }
            if let Some(k) = &f.kernel {
                result["properties"]["kernel"] = json!(k);
            }
            result
        })
        .collect();
    let rules: Vec<Value> = rules
        .iter()
        .map(|r| json!({ "id": r, "shortDescription": { "text": rule_description(r) } }))
        .collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "warpcheck",
                "version": version,
                "informationUri": "https://github.com/warpcheck/warpcheck",
                "rules": rules,
            }},
            "results": results,
        }],
    })
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

fn location(label: &Label, id: Option<usize>) -> Value {
    let mut region = json!({ "startLine": label.location.line.max(1) });
    if label.location.column > 0 {
        region["startColumn"] = json!(label.location.column);
    }
    let mut v = json!({
        "physicalLocation": {
            "artifactLocation": { "uri": label.location.file },
            "region": region,
        },
        "message": { "text": label.message },
    });
    if let Some(id) = id {
        v["id"] = json!(id);
    }
    v
}

/// One-line descriptions of the finding codes, shown by SARIF viewers.
pub fn rule_description(code: &str) -> &'static str {
    match code {
        "syntax-error" => "The PTX text could not be parsed.",
        "lowering-error" => "The PTX uses an instruction or form warpcheck does not support.",
        "compile-error" => "The compiler rejected the source file.",
        "shared-race" => "Data race on shared memory.",
        "global-race" => "Data race on global memory.",
        "barrier-divergence" => "A barrier is reached by some but not all threads of a block.",
        "deadlock" => "Threads wait at a barrier that other threads never reach.",
        "out-of-bounds" => "Access outside the bounds of a buffer or variable.",
        "misaligned" => "Access at an address not aligned to its size.",
        "uninit-read" => "Read of memory that was never written.",
        "bank-conflict" => "Shared-memory accesses of a warp conflict on banks.",
        "uncoalesced-access" => "A warp's global-memory access touches more sectors than needed.",
        _ => "warpcheck finding.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Location;

    #[test]
    fn results_reference_rules_and_locations() {
        let f = Finding::new("shared-race", Severity::Error, "race")
            .at(
                Location {
                    file: "k.cu".into(),
                    line: 3,
                    column: 4,
                },
                "(2) read",
            )
            .related(
                Location {
                    file: "k.cu".into(),
                    line: 2,
                    column: 0,
                },
                "(1) write",
            );
        let v = render(&[f], "0.1.0");
        assert_eq!(v["version"], "2.1.0");
        let run = &v["runs"][0];
        assert_eq!(run["tool"]["driver"]["rules"][0]["id"], "shared-race");
        let r = &run["results"][0];
        assert_eq!(r["ruleIndex"], 0);
        assert_eq!(r["level"], "error");
        let region = &r["locations"][0]["physicalLocation"]["region"];
        assert_eq!(region["startLine"], 3);
        assert_eq!(region["startColumn"], 4);
        let related = &r["relatedLocations"][0];
        assert_eq!(related["id"], 0);
        assert!(
            related["physicalLocation"]["region"]
                .get("startColumn")
                .is_none()
        );
    }
}
