//! `warpcheck explain [CODE]`: the registry of finding codes, like `rustc --explain`.
//! Without a code it lists every code (name, severity, tool, summary) as an aligned
//! table; with one it prints that code's explanation. Both read `warpcheck_report::Code`.

use crate::Outcome;
use crate::output::{self, CliError};
use warpcheck_report::Code;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The finding code to explain, e.g. `shared-race`. Without it, every code is listed.
    pub code: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// Prose is wrapped to this many columns; code blocks are printed as they are.
const WIDTH: usize = 88;

pub fn run(args: Args) -> Result<Outcome, CliError> {
    let code = match &args.code {
        Some(name) => Some(
            name.parse::<Code>()
                .map_err(|e| CliError::msg(format!("{e}; `warpcheck explain` lists every code")))?,
        ),
        None => None,
    };
    let text = match (args.format, code) {
        (Format::Json, Some(c)) => json(&c.to_json()),
        (Format::Json, None) => json(&Code::registry_json()),
        (Format::Text, Some(c)) => explain(c),
        (Format::Text, None) => table(),
    };
    output::print(&text)?;
    Ok(Outcome::Clean)
}

fn json(v: &serde_json::Value) -> String {
    format!("{}\n", serde_json::to_string_pretty(v).unwrap_or_default())
}

/// Every code as an aligned table: name, severity, tool, summary.
fn table() -> String {
    let rows: Vec<[String; 4]> = Code::ALL
        .iter()
        .map(|c| {
            [
                c.name().to_string(),
                c.severity().name().to_string(),
                c.tools_label(),
                c.summary().to_string(),
            ]
        })
        .collect();
    let header = ["CODE", "SEVERITY", "EMITTED BY", "SUMMARY"].map(String::from);
    let mut widths = [0usize; 3];
    for row in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        out.push_str(&format!(
            "{:<w0$}  {:<w1$}  {:<w2$}  {}\n",
            row[0],
            row[1],
            row[2],
            row[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
        ));
    }
    out.push_str("\n`warpcheck explain CODE` explains a code.\n");
    out
}

/// One code's explanation: a heading line, then the registry's markdown with its prose
/// wrapped to [`WIDTH`] columns.
fn explain(code: Code) -> String {
    let mut out = format!(
        "{} ({}; emitted by {})\n\n",
        code.name(),
        code.severity().name(),
        code.tools_label()
    );
    let mut in_code = false;
    for line in code.explanation().lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        }
        if in_code || line.starts_with("```") || line.chars().count() <= WIDTH {
            out.push_str(line);
            out.push('\n');
        } else {
            wrap(line, &mut out);
        }
    }
    out
}

/// Appends `paragraph` to `out`, broken at spaces into lines of at most [`WIDTH`]
/// columns (a single longer word gets a line of its own).
fn wrap(paragraph: &str, out: &mut String) {
    let mut len = 0;
    for word in paragraph.split(' ') {
        let n = word.chars().count();
        if len > 0 && len + 1 + n > WIDTH {
            out.push('\n');
            len = 0;
        }
        if len > 0 {
            out.push(' ');
            len += 1;
        }
        out.push_str(word);
        len += n;
    }
    out.push('\n');
}
