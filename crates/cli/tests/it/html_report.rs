//! `check --report PATH.html` in program mode and in kernel mode: the page lists the
//! launches (kernel, configuration, lane-instructions, the `<<<>>>` line) and the
//! findings, and its source view marks the bank-conflicting line as the hottest. (The
//! page's structure and escaping are tested in `crates/report/tests/it/html.rs`; that it
//! renders in a browser, by `tools/html_report_check.sh`.)

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root")
}

/// The table row of a source line (its `<tr>` up to `</tr>`) in the page.
fn line_row(html: &str, line: u32) -> String {
    let at = html
        .find(&format!("-line-{line}\" data-line"))
        .unwrap_or_else(|| panic!("no row for line {line}"));
    let start = html[..at].rfind("<tr").expect("row start");
    let end = html[at..].find("</tr>").expect("row end") + at;
    html[start..end].to_string()
}

#[test]
fn program_mode_report_shows_launches_findings_and_the_conflicting_line() {
    let tmp = tempfile::tempdir().unwrap();
    let program = repo().join("tests/programs/transpose_bank.cu");
    let page = tmp.path().join("run.html");
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("check")
        .arg(&program)
        .arg("--report")
        .arg(&page)
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("Test PASSED"));
    let html = std::fs::read_to_string(&page).unwrap();
    // Two launches, each with its configuration, work and `<<<>>>` line.
    let launches: Vec<&str> = html
        .lines()
        .filter(|l| l.starts_with("<tr class=\"launch\">"))
        .collect();
    assert_eq!(launches.len(), 2, "{html}");
    for (i, row) in launches.iter().enumerate() {
        assert!(row.contains(&format!(
            "<td class=\"num\">{}</td><td class=\"mono\">transpose</td>",
            i + 1
        )));
        assert!(row.contains("<td class=\"mono\">(4,4,1)</td><td class=\"mono\">(32,32,1)</td>"));
        assert!(row.contains("<td class=\"num\">589824</td>"), "{row}");
        assert!(
            row.contains(&format!("transpose_bank.cu:{}</td>", 36 + i)),
            "{row}"
        );
    }
    // The finding, and the line it is on as the hottest bank-conflict cell.
    assert!(html.contains("<code>[bank-conflict]</code> shared load with 32-way bank conflict"));
    let hot = line_row(&html, 23);
    assert!(hot.starts_with("<tr class=\"hot\""), "{hot}");
    assert!(
        hot.contains("<td class=\"num bank heat-5\">31.00 (32-way)</td>"),
        "{hot}"
    );
    assert!(hot.contains("bank-conflict</a>"), "{hot}");
    // The tile's row-wise store: shared, no conflict, not shaded.
    let store = line_row(&html, 19);
    assert!(
        store.contains("<td class=\"num bank\">0.00 (1-way)</td>"),
        "{store}"
    );
    // Executions: 2 launches x 16 blocks x 32 warps reach the line at least once.
    assert!(hot.contains("<td class=\"num exec"), "{hot}");
}

#[test]
fn kernel_mode_report_counts_every_executed_instruction() {
    let tmp = tempfile::tempdir().unwrap();
    let kernel = repo().join("tests/kernels/boyer_fig2_bug_bank_conflicts_on.cu");
    let page = tmp.path().join("k.html");
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("check")
        .arg(&kernel)
        .args(["--from-header", "--report"])
        .arg(&page)
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    let launch = html
        .lines()
        .find(|l| l.starts_with("<tr class=\"launch\">"))
        .expect("the launch");
    // `# kernel grid block shared lane-instructions`: the sixth cell.
    let cell = launch.split("<td").nth(6).unwrap();
    let lanes: u64 = cell
        .split('>')
        .nth(1)
        .unwrap()
        .split('<')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(lanes > 20_000, "{launch}");
    // Every executed instruction of this kernel has a line: the thread executions of the
    // source view add up to the launch's lane-instructions.
    let mut threads = 0u64;
    for row in html.lines().filter(|l| l.contains("data-line=")) {
        let cells: Vec<&str> = row.split("<td class=\"num exec").skip(1).collect();
        if cells.len() == 2 {
            let value = cells[1]
                .split('>')
                .nth(1)
                .unwrap()
                .split('<')
                .next()
                .unwrap();
            threads += value.parse::<u64>().unwrap();
        }
    }
    assert_eq!(threads, lanes);
    for line in [31, 34, 36] {
        let row = line_row(&html, line);
        assert!(
            row.contains("<td class=\"num bank heat-5\">31.00 (32-way)</td>"),
            "{row}"
        );
    }
}

#[test]
fn run_mode_refuses_a_report() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("run")
        .arg(repo().join("tests/programs/vector_add.cu"))
        .args(["--report", "x.html"])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--report needs `warpcheck check`"));
    assert!(!tmp.path().join("x.html").exists());
}

/// `--report` follows the file's extension: `.json` and `.sarif` hold every finding, also
/// those `--print-limit` leaves out of the printed report, in kernel and program mode.
#[test]
fn report_format_follows_the_extension() {
    let tmp = tempfile::tempdir().unwrap();
    let kernel = repo().join("tests/kernels/histogram_bug_nonatomic.cu");
    let program = repo().join("tests/programs/transpose_bank.cu");
    // The kernel has two races (exit 1), the program one bank-conflict warning (exit 0).
    for (input, mode, least, exit) in [(&kernel, "--from-header", 2, 1), (&program, "--", 1, 0)] {
        let (json, sarif) = (tmp.path().join("r.json"), tmp.path().join("r.sarif"));
        for path in [&json, &sarif] {
            let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
                .arg("check")
                .arg(input)
                .args(["--print-limit", "1", "--report"])
                .arg(path)
                .arg(mode)
                .current_dir(tmp.path())
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(exit), "{out:?}");
        }
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        let findings = json["findings"].as_array().expect("findings").len();
        assert!(findings >= least, "{json:#}");
        let sarif: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&sarif).unwrap()).unwrap();
        let results = sarif["runs"][0]["results"].as_array().expect("results");
        assert_eq!(results.len(), findings, "{sarif:#}");
    }
}

/// A report path that is the input is refused (exit 2), and the input is left alone.
#[test]
fn report_never_overwrites_the_input() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("k.cu");
    std::fs::copy(
        repo().join("tests/kernels/histogram_bug_nonatomic.cu"),
        &input,
    )
    .unwrap();
    let before = std::fs::read(&input).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("check")
        .arg(&input)
        .args(["--from-header", "--report"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("it is the input"));
    assert_eq!(std::fs::read(&input).unwrap(), before);
}
