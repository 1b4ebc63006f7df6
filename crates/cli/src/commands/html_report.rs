//! `--report PATH.html` of `check`, in kernel and program mode: the HTML renderer
//! ([`warpcheck_report::html`]) fed with the launches, the findings and the per-line heat,
//! written to the file.

use std::path::Path;

use warpcheck_report::html::{LaunchRow, Page, SourceHeat};
use warpcheck_report::{Finding, Sources, html};

use crate::output::{CliError, display_path};

/// Writes the page. `findings` are the ones reported (all of them, not only those a
/// `--print-limit` shows); file names of the heat are shown as findings show them.
pub fn write(
    path: &Path,
    inputs: &[&Path],
    title: String,
    launches: &[LaunchRow],
    findings: &[Finding],
    mut heat: Vec<SourceHeat>,
    sources: &mut Sources,
) -> Result<(), CliError> {
    for view in &mut heat {
        view.file = display_path(&view.file);
    }
    let page = Page {
        title,
        launches,
        findings,
        heat: &heat,
    };
    let text = html::render(&page, sources);
    crate::output::write_file(path, inputs, |w| w.write_all(text.as_bytes()))
}

/// The page's title: the command's arguments as the user gave them.
pub fn title(args: impl Iterator<Item = std::ffi::OsString>) -> String {
    let words: Vec<String> = args.map(|a| a.to_string_lossy().into_owned()).collect();
    format!("warpcheck {}", words.join(" "))
}
