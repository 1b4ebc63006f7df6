//! `warpcheck explain`: the code table, one code's explanation, unknown codes, JSON.

use std::process::{Command, Output};
use warpcheck_report::Code;

fn explain(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("explain")
        .args(args)
        .output()
        .expect("warpcheck runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn without_a_code_lists_every_code_in_aligned_columns() {
    let out = explain(&[]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("CODE"), "{text}");
    for c in Code::ALL {
        let row = lines
            .iter()
            .find(|l| l.split_whitespace().next() == Some(c.name()))
            .unwrap_or_else(|| panic!("no row for {c}:\n{text}"));
        assert!(row.contains(c.severity().name()), "{row}");
        assert!(row.contains(&c.tools_label()), "{row}");
        assert!(row.ends_with(c.summary()), "{row}");
    }
    // Aligned: every row's summary starts in the header's SUMMARY column.
    let column = lines[0].find("SUMMARY").expect("SUMMARY header");
    let shared = lines
        .iter()
        .find(|l| l.starts_with("shared-race "))
        .expect("shared-race row");
    assert_eq!(
        shared.find(Code::SharedRace.summary()),
        Some(column),
        "{text}"
    );
    let race = lines
        .iter()
        .find(|l| l.starts_with("uncoalesced-data-dependent "))
        .expect("row");
    assert_eq!(
        race.find(Code::UncoalescedDataDependent.summary()),
        Some(column),
        "{text}"
    );
}

#[test]
fn a_code_prints_its_explanation_with_example_and_fix() {
    let out = explain(&["shared-race"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(
        text.starts_with("shared-race (error; emitted by check --tool race, lint)"),
        "{text}"
    );
    for heading in [
        "## What it does",
        "## Why is this bad",
        "## Example",
        "## Fixed",
    ] {
        assert!(text.contains(heading), "no {heading}:\n{text}");
    }
    assert!(text.contains("```cuda"), "{text}");
    assert!(text.contains("__syncthreads();"), "{text}");
    // Prose is wrapped; code is not.
    assert!(text.lines().all(|l| l.chars().count() <= 88), "{text}");
}

#[test]
fn an_unknown_code_exits_2_and_suggests_the_closest() {
    let out = explain(&["bank-conflicts"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown finding code `bank-conflicts` (did you mean `bank-conflict`?)"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn json_gives_the_registry() {
    let out = explain(&["--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let codes = v["codes"].as_array().expect("codes");
    assert_eq!(codes.len(), Code::ALL.len());
    let bank = codes
        .iter()
        .find(|c| c["name"] == Code::BankConflict.name())
        .expect("bank-conflict");
    assert_eq!(bank["severity"], "warning");
    assert_eq!(
        bank["tools"],
        serde_json::json!(["check --tool bank", "lint"])
    );
    assert!(
        bank["explanation"]
            .as_str()
            .unwrap_or("")
            .contains("32 banks")
    );
    let benign = codes
        .iter()
        .find(|c| c["name"] == Code::BenignRace.name())
        .expect("benign-race");
    assert_eq!(benign["emitted"], true);
    assert_eq!(
        benign["tools"],
        serde_json::json!(["check --tool race", "check --gpu"])
    );

    let one = explain(&["misaligned", "--format", "json"]);
    assert_eq!(one.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&one.stdout).expect("JSON");
    assert_eq!(v["name"], "misaligned");
    assert_eq!(v["severity"], "error");
}
