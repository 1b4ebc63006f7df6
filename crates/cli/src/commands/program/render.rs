//! Rendering the runtime's report with the normal renderers (text, JSON, SARIF).

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::PathBuf;

use serde_json::Value;
use warpcheck_report::html::{LaunchRow, SourceHeat};
use warpcheck_report::{Code, Finding, Label, Location, Severity, Sources, json, sarif, text};

use super::ProgramArgs;
use crate::commands::html_report;
use crate::commands::lint::Format;
use crate::output::CliError;

/// A location from the report's JSON.
fn location(v: &Value) -> Option<Location> {
    Some(Location {
        file: v["file"].as_str()?.to_string(),
        line: v["line"].as_u64()? as u32,
        column: v["column"].as_u64().unwrap_or(0) as u32,
    })
}

fn label(v: &Value) -> Option<Label> {
    Some(Label {
        location: location(&v["location"])?,
        message: v["message"].as_str().unwrap_or_default().to_string(),
    })
}

/// A finding from the report's JSON (the fields `warpcheck_report::json` writes).
pub fn finding(v: &Value) -> Option<Finding> {
    let severity = match v["severity"].as_str()? {
        "error" => Severity::Error,
        "warning" => Severity::Warning,
        _ => Severity::Note,
    };
    let mut f = Finding::new(
        Code::from_name(v["code"].as_str()?)?,
        severity,
        v["message"].as_str()?.to_string(),
    );
    f.kernel = v["kernel"].as_str().map(str::to_string);
    f.primary = label(&v["primary"]);
    f.related = v["related"]
        .as_array()
        .map(|a| a.iter().filter_map(label).collect())
        .unwrap_or_default();
    f.notes = v["notes"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|n| n.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    f.help = v["help"].as_str().map(str::to_string);
    f.occurrences = v["occurrences"].as_u64().unwrap_or(1);
    f.degree = v["degree"].as_u64();
    Some(f)
}

/// The launches of the runtime's report, as the HTML page lists them.
fn launch_rows(value: &Value) -> Vec<LaunchRow> {
    let dims = |v: &Value| {
        let d = |i: usize| v[i].as_u64().unwrap_or(1) as u32;
        [d(0), d(1), d(2)]
    };
    let launches = value["launches"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    launches
        .iter()
        .enumerate()
        .map(|(i, l)| LaunchRow {
            index: i + 1,
            kernel: l["kernel"].as_str().unwrap_or_default().to_string(),
            grid: dims(&l["grid"]),
            block: dims(&l["block"]),
            shared: l["shared"].as_u64().unwrap_or(0) as u32,
            lane_instructions: l["lane_instructions"].as_u64().unwrap_or(0),
            seconds: l["seconds"].as_f64().unwrap_or(0.0),
            site: l["file"].as_str().map(|file| Location {
                file: crate::output::display_path(file),
                line: l["line"].as_u64().unwrap_or(0) as u32,
                column: 0,
            }),
            reused: l["reused"].as_bool().unwrap_or(false),
        })
        .collect()
}

/// Writes `--report`'s file from the runtime's report, in the format its extension names.
fn report_file(
    path: &std::path::Path,
    inputs: &[&std::path::Path],
    value: &Value,
    findings: &[Finding],
) -> Result<(), CliError> {
    let text = match crate::output::ReportFormat::of(path) {
        crate::output::ReportFormat::Html => {
            let heat: Vec<SourceHeat> =
                serde_json::from_value(value["heat"].clone()).unwrap_or_default();
            let title = html_report::title(std::env::args_os().skip(1));
            let rows = launch_rows(value);
            return html_report::write(
                path,
                inputs,
                title,
                &rows,
                findings,
                heat,
                &mut Sources::new(),
            );
        }
        crate::output::ReportFormat::Json => {
            let mut v = json::render(findings);
            v["launches"] = value["launches"].clone();
            v["not_supported"] = value["not_supported"].clone();
            format!("{v:#}\n")
        }
        crate::output::ReportFormat::Sarif => {
            format!("{:#}\n", sarif::render(findings, env!("CARGO_PKG_VERSION")))
        }
    };
    crate::output::write_file(path, inputs, |w| w.write_all(text.as_bytes()))
}

/// Renders the report; returns the number of errors.
pub fn report(
    args: &ProgramArgs,
    check: bool,
    report: Option<&str>,
    status: &std::process::ExitStatus,
    measured: Option<&super::timings::Measured>,
) -> Result<usize, CliError> {
    let value: Value = report
        .and_then(|r| serde_json::from_str(r).ok())
        .unwrap_or(Value::Null);
    let timings = measured.map(|m| m.with_runtime(&value["timings"]));
    let mut findings: Vec<Finding> = value["findings"]
        .as_array()
        .map(|a| a.iter().filter_map(finding).collect())
        .unwrap_or_default();
    if report.is_none() {
        findings.push(Finding::new(
            Code::ProgramEndedEarly,
            Severity::Error,
            format!("the program ended ({status}) before warpcheck's runtime could write its report; findings of the run are lost"),
        ));
    }
    crate::output::relativize(&mut findings);
    if let Some(path) = &args.report {
        let inputs: Vec<&std::path::Path> = args.files.iter().map(PathBuf::as_path).collect();
        report_file(path, &inputs, &value, &findings)?;
    }
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let shown = if args.print_limit > 0 && findings.len() > args.print_limit {
        &findings[..args.print_limit]
    } else {
        &findings[..]
    };
    let to_file = args.output.is_some();
    let rendered = match args.format {
        Format::Text => {
            let color = !to_file && std::io::stderr().is_terminal();
            let mut out = if shown.is_empty() {
                String::new()
            } else {
                text::render(shown, &mut Sources::new(), color)
            };
            if shown.len() < findings.len() {
                let _ = writeln!(
                    out,
                    "{} more findings not shown (--print-limit {})",
                    findings.len() - shown.len(),
                    args.print_limit
                );
            }
            if let Some(t) = &timings {
                out.push_str(&super::timings::summary(t));
            }
            let launches = value["launches"].as_array().map_or(0, Vec::len);
            if check || !findings.is_empty() {
                let _ = writeln!(
                    out,
                    "warpcheck: {launches} kernel launch(es); {}",
                    if findings.is_empty() {
                        "no findings".to_string()
                    } else {
                        format!("{} finding(s), {errors} error(s)", findings.len())
                    }
                );
            }
            out
        }
        Format::Json => {
            let mut v = json::render(shown);
            v["omitted"] = serde_json::json!(findings.len() - shown.len());
            v["launches"] = value["launches"].clone();
            v["not_supported"] = value["not_supported"].clone();
            v["exit"] = serde_json::json!(status.code());
            if let Some(t) = timings {
                v["timings"] = t;
            }
            format!("{v:#}\n")
        }
        Format::Sarif => format!("{:#}\n", sarif::render(shown, env!("CARGO_PKG_VERSION"))),
    };
    match &args.output {
        Some(p) => {
            let inputs: Vec<&std::path::Path> = args.files.iter().map(PathBuf::as_path).collect();
            crate::output::write_file(p, &inputs, |w| w.write_all(rendered.as_bytes()))?
        }
        None => eprint!("{rendered}"),
    }
    Ok(errors)
}
