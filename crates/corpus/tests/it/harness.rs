//! The expectation-file harness: normalisation, comparison, diffs and blessing, on a
//! temporary directory.

use std::path::{Path, PathBuf};

use warpcheck_corpus::expectations::{Actual, Job, Mode, normalise, run_jobs, settle};

#[test]
fn normalising_removes_paths_times_and_thread_counts() {
    let root = Path::new("/home/u/warpcheck");
    let text = "  --> /home/u/warpcheck/tests/kernels/a.cu:3:1\r\n\
                k: 1 launch(es), 16 blocks, 372736 lane-instructions in 0.016 s, 0.003 s CPU; no findings  \n\
                lint took 12 ms on 16 host threads (--threads 16); 32 threads of warp 1, sm_80\n";
    assert_eq!(
        normalise(text, root),
        "  --> $DIR/tests/kernels/a.cu:3:1\n\
         k: 1 launch(es), 16 blocks, 372736 lane-instructions in $TIME s, $TIME s CPU; no findings\n\
         lint took $TIME ms on $THREADS host threads (--threads $THREADS); 32 threads of warp 1, sm_80\n"
    );
}

fn actuals(dir: &Path, texts: &[(&str, &str)]) -> Vec<Actual> {
    texts
        .iter()
        .map(|(name, text)| Actual {
            expected: dir.join(name),
            text: text.to_string(),
        })
        .collect()
}

/// Blessing writes the files; then changing one message gives exactly one diff, for that
/// file, showing the old and the new line; a kernel that is gone leaves a stale file that
/// the comparison names and blessing deletes.
#[test]
fn one_changed_message_gives_one_file_diff() {
    let dir = tempfile::tempdir().unwrap();
    let dirs = vec![dir.path().to_path_buf()];
    let files = [
        (
            "a.check.stderr",
            "warning[bank-conflict]: 32-way\n1 warning\n",
        ),
        ("a.lint.stderr", "warning[bank-conflict]: 32-way on load\n"),
        ("b.check.stderr", "no findings\n"),
    ];
    let blessed = settle(&actuals(dir.path(), &files), &dirs, Mode::Bless).unwrap();
    assert_eq!(blessed.blessed.len(), 3);
    let same = settle(&actuals(dir.path(), &files), &dirs, Mode::Compare).unwrap();
    assert!(same.is_ok(), "{}", same.report());

    let mut changed = files;
    changed[0].1 = "warning[bank-conflict]: 16-way\n1 warning\n";
    let outcome = settle(&actuals(dir.path(), &changed), &dirs, Mode::Compare).unwrap();
    assert_eq!(outcome.differ.len(), 1, "{}", outcome.report());
    let (path, diff) = &outcome.differ[0];
    assert_eq!(path, &dir.path().join("a.check.stderr"));
    assert!(diff.contains("-warning[bank-conflict]: 32-way\n"), "{diff}");
    assert!(diff.contains("+warning[bank-conflict]: 16-way\n"), "{diff}");
    assert!(diff.contains(" 1 warning\n"), "{diff}");
    let report = outcome.report();
    assert!(report.contains("1 expectation file(s) differ"), "{report}");
    assert!(report.contains("WARPCHECK_BLESS=1"), "{report}");
    // The comparison leaves the file alone.
    let kept = std::fs::read_to_string(dir.path().join("a.check.stderr")).unwrap();
    assert_eq!(kept, files[0].1);

    // b.cu removed: its file is stale.
    let without_b = actuals(dir.path(), &files[..2]);
    let stale = settle(&without_b, &dirs, Mode::Compare).unwrap();
    assert_eq!(stale.stale, [dir.path().join("b.check.stderr")]);
    assert!(!stale.is_ok());
    settle(&without_b, &dirs, Mode::Bless).unwrap();
    assert!(!dir.path().join("b.check.stderr").exists());
    // Other files in the directory are not expectation files.
    std::fs::write(dir.path().join("b.cu"), "// kernel\n").unwrap();
    assert!(settle(&without_b, &dirs, Mode::Compare).unwrap().is_ok());
}

#[test]
fn jobs_run_in_parallel_and_keep_their_order() {
    let jobs: Vec<Job> = (0..16)
        .map(|i| Job {
            expected: PathBuf::from(format!("{i}.check.stderr")),
            produce: Box::new(move || format!("{i}\n")),
        })
        .collect();
    let out = run_jobs(&jobs);
    for (i, a) in out.iter().enumerate() {
        assert_eq!(a.expected, PathBuf::from(format!("{i}.check.stderr")));
        assert_eq!(a.text, format!("{i}\n"));
    }
}
