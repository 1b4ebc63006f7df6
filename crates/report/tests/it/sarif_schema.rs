//! warpcheck's SARIF output against the SARIF 2.1.0 schema: `serde-sarif`'s types are
//! generated from the OASIS JSON schema, so a log that deserialises into them has the
//! schema's structure (required properties, types, enumerations such as `level`). The
//! constraints the generated types cannot express (1-based lines, indices into `rules`)
//! are checked by hand.

use warpcheck_report::{Code, Finding, Location, Severity, sarif};

fn at(file: &str, line: u32, column: u32) -> Location {
    Location {
        file: file.into(),
        line,
        column,
    }
}

fn findings() -> Vec<Finding> {
    let mut race = Finding::new(
        Code::SharedRace,
        Severity::Error,
        "data race on shared memory (read-after-write) at `s` + 4 bytes",
    )
    .kernel("kernel")
    .at(
        at("k.cu", 19, 15),
        "(2) read by thread (0,0,0) of block (0,0,0)",
    )
    .related(
        at("k.cu", 18, 11),
        "(1) write by thread (1,0,0) of block (0,0,0)",
    )
    .note("between lanes of one warp")
    .help("put a `__syncwarp()` between the accesses");
    race.occurrences = 64;
    let bank = Finding::new(
        Code::BankConflict,
        Severity::Warning,
        "shared load with 32-way bank conflict",
    )
    .at(at("t.cu", 29, 0), "here");
    let summary = Finding::new(
        Code::RaceCheckIncomplete,
        Severity::Note,
        "not every access was checked",
    );
    vec![race, bank, summary]
}

#[test]
fn sarif_output_is_a_valid_sarif_2_1_0_log() {
    let value = sarif::render(&findings(), "0.1.0");
    let log: serde_sarif::sarif::Sarif = serde_json::from_value(value.clone())
        .unwrap_or_else(|e| panic!("not a SARIF 2.1.0 log: {e}\n{value:#}"));
    assert_eq!(
        serde_json::to_value(&log.version).ok(),
        Some(serde_json::json!("2.1.0"))
    );
    assert_eq!(log.runs.len(), 1);
    let run = &log.runs[0];
    assert_eq!(run.tool.driver.name, "warpcheck");
    let results = run.results.as_ref().expect("results");
    assert_eq!(results.len(), 3);
    // ruleIndex points at the rule with the result's ruleId.
    let rules = run.tool.driver.rules.as_ref().expect("rules");
    for (r, raw) in results
        .iter()
        .zip(value["runs"][0]["results"].as_array().expect("array"))
    {
        let index = raw["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(Some(&rules[index].id), r.rule_id.as_ref());
    }
    // Regions are 1-based; a whole-line location has no column.
    let race = &value["runs"][0]["results"][0];
    assert_eq!(race["level"], "error");
    assert_eq!(
        race["locations"][0]["physicalLocation"]["region"]["startLine"],
        19
    );
    assert_eq!(
        race["relatedLocations"][0]["physicalLocation"]["region"]["startLine"],
        18
    );
    let bank = &value["runs"][0]["results"][1];
    assert_eq!(bank["level"], "warning");
    assert!(bank["locations"][0]["physicalLocation"]["region"]["startColumn"].is_null());
    assert_eq!(value["runs"][0]["results"][2]["level"], "note");
}

#[test]
fn the_schema_check_rejects_invalid_logs() {
    let mut value = sarif::render(&findings(), "0.1.0");
    value["runs"][0]["results"][0]["level"] = serde_json::json!("fatal");
    assert!(serde_json::from_value::<serde_sarif::sarif::Sarif>(value).is_err());
    let mut value = sarif::render(&findings(), "0.1.0");
    value["runs"][0]["tool"]["driver"]
        .as_object_mut()
        .expect("driver")
        .remove("name");
    assert!(serde_json::from_value::<serde_sarif::sarif::Sarif>(value).is_err());
}

#[test]
fn every_registered_code_is_a_valid_rule_with_the_registrys_texts() {
    let findings: Vec<Finding> = Code::ALL
        .iter()
        .map(|c| Finding::new(*c, c.severity(), c.summary()))
        .collect();
    let value = sarif::render(&findings, "0.1.0");
    let log: serde_sarif::sarif::Sarif = serde_json::from_value(value.clone())
        .unwrap_or_else(|e| panic!("not a SARIF 2.1.0 log: {e}\n{value:#}"));
    let rules = log.runs[0].tool.driver.rules.as_ref().expect("rules");
    assert_eq!(rules.len(), Code::ALL.len());
    for (code, rule) in Code::ALL.iter().zip(rules) {
        assert_eq!(rule.id, code.name());
        let raw = &value["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .expect("rules")
            .iter()
            .find(|r| r["id"] == code.name())
            .expect("rule");
        assert_eq!(raw["shortDescription"]["text"], code.summary());
        assert_eq!(raw["fullDescription"]["text"], code.explanation());
        assert_eq!(raw["help"]["markdown"], code.explanation());
        assert_eq!(
            raw["defaultConfiguration"]["level"],
            code.severity().name(),
            "{code}"
        );
    }
}
