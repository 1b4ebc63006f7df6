//! SARIF 2.1.0 rendering (OASIS Static Analysis Results Interchange Format), the format
//! code-scanning services read. One run, one rule per finding code.

use crate::{Code, Finding, Label, Severity};
use serde_json::{Value, json};

pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Renders findings as one SARIF run of the tool `warpcheck` at `version`.
pub fn render(findings: &[Finding], version: &str) -> Value {
    let mut rules: Vec<Code> = Vec::new();
    for f in findings {
        if !rules.contains(&f.code) {
            rules.push(f.code);
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
    let rules: Vec<Value> = rules.iter().map(|r| rule(*r)).collect();
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

/// A code's SARIF rule (`reportingDescriptor`): the registry's summary as the short
/// description, its explanation as the full description and help (plain text and
/// markdown), and its severity as the default level.
pub fn rule(code: Code) -> Value {
    let explanation = code.explanation();
    json!({
        "id": code.name(),
        "shortDescription": { "text": code.summary() },
        "fullDescription": { "text": explanation, "markdown": explanation },
        "help": { "text": explanation, "markdown": explanation },
        "defaultConfiguration": { "level": level(code.severity()) },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Location;

    #[test]
    fn results_reference_rules_and_locations() {
        let f = Finding::new(Code::SharedRace, Severity::Error, "race")
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
        let rule = &run["tool"]["driver"]["rules"][0];
        assert_eq!(rule["id"], "shared-race");
        assert_eq!(
            rule["shortDescription"]["text"],
            "Data race on shared memory."
        );
        assert_eq!(rule["defaultConfiguration"]["level"], "error");
        let help = rule["help"]["markdown"].as_str().unwrap_or_default();
        assert!(help.contains("## Why is this bad"), "{help}");
        assert!(help.contains("__syncthreads();"), "{help}");
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
