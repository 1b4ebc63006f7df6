//! JSON rendering: the finding model as it is, plus a summary, for tools and tests.

use crate::{Finding, Tally};
use serde_json::{Value, json};

/// `{"findings": [...], "summary": {"errors": N, "warnings": N, "notes": N}}`.
pub fn render(findings: &[Finding]) -> Value {
    json!({
        "findings": findings,
        "summary": Tally::of(findings),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Code, Location, Severity};

    #[test]
    fn findings_keep_codes_locations_and_counts() {
        let mut f = Finding::new(Code::GlobalRace, Severity::Error, "write-after-write race").at(
            Location {
                file: "k.cu".into(),
                line: 7,
                column: 5,
            },
            "(2) write",
        );
        f.occurrences = 12;
        let v = render(&[f]);
        assert_eq!(v["findings"][0]["code"], "global-race");
        assert_eq!(v["findings"][0]["severity"], "error");
        assert_eq!(v["findings"][0]["primary"]["location"]["line"], 7);
        assert_eq!(v["findings"][0]["occurrences"], 12);
        assert_eq!(v["summary"]["errors"], 1);
        assert_eq!(v["summary"]["warnings"], 0);
    }
}
