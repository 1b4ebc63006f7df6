//! The header and marker parser on small inputs and on the whole corpus.

use std::path::Path;

use warpcheck_corpus::{Dim3, Expect, KernelFile, Marker, MarkerKind};

const SAMPLE: &str = "\
// Sample kernel
// prose that mentions warpcheck-variant lines is not an entry.
//
// warpcheck-launch: --kernel k --grid 4 --block 64,2 --arg n=8 --arg a=f32[n]:rand
// warpcheck-launch: --kernel=j --shared 128 --seed 3
// warpcheck-expect: findings
// warpcheck-variant: -DREMOVE_BARRIER=2 shared-race@7,9 benign-race@10
// warpcheck-gpu: skip (hangs)
__global__ void k(int n, float *a) {
  a[n] = 0; //~ out-of-bounds uncoalesced(32)
}
// warpcheck-launch: --kernel ignored
";

#[test]
fn a_header_parses_into_its_parts() {
    let f = KernelFile::parse("sample.cu", SAMPLE).unwrap();
    assert_eq!(f.title, "Sample kernel");
    assert_eq!(
        f.launches.len(),
        2,
        "lines after the header are not entries"
    );
    let l = &f.launches[0];
    assert_eq!((l.line, l.kernel_name()), (4, "k"));
    assert_eq!((l.grid, l.block), (Dim3([4, 1, 1]), Dim3([64, 2, 1])));
    assert_eq!(l.args, ["n=8", "a=f32[n]:rand"]);
    assert_eq!(l.int_scalars().get("n"), Some(&8));
    assert!(!l.int_scalars().contains_key("a"));
    let j = &f.launches[1];
    assert_eq!((j.kernel_name(), j.shared, j.seed), ("j", 128, 3));
    assert_eq!(f.expect, Some(Expect::Findings));
    assert_eq!(f.gpu_skip.as_deref(), Some("hangs"));
    let v = &f.variants[0];
    assert_eq!(v.name(), "REMOVE_BARRIER_2");
    assert_eq!(
        v.kinds,
        [
            (MarkerKind::SharedRace, vec![7, 9]),
            (MarkerKind::BenignRace, vec![10])
        ]
    );
    assert_eq!(
        f.markers,
        [
            Marker {
                line: 10,
                kind: MarkerKind::OutOfBounds,
                degree: None
            },
            Marker {
                line: 10,
                kind: MarkerKind::Uncoalesced,
                degree: Some(32)
            },
        ]
    );
    assert_eq!(f.markers_for(Some(v)).len(), 5);
    assert_eq!(MarkerKind::Uncoalesced.code(), "uncoalesced-access");
}

/// Each mistake is reported with the file and line.
#[test]
fn mistakes_name_file_and_line() {
    let cases = [
        (
            "// t\n// warpcheck-launch: --bogus 1\n",
            2,
            "unknown option `--bogus`",
        ),
        ("// t\n// warpcheck-launch: --grid 0\n", 2, "at least 1"),
        ("// t\n// warpcheck-launch: --kernel\n", 2, "needs a value"),
        ("// t\n// warpcheck-launch: --arg n\n", 2, "NAME=SPEC"),
        (
            "// t\n// warpcheck-expect: maybe\n",
            2,
            "`clean` or `findings`",
        ),
        (
            "// t\n// warpcheck-lanch: --kernel k\n",
            2,
            "unknown header key",
        ),
        (
            "// t\n// warpcheck-variant: -DX=1 race@3\n",
            2,
            "unknown marker kind",
        ),
        ("// t\n// warpcheck-variant: -DX=1\n", 2, "two words"),
        ("// t\n// warpcheck-gpu: run\n", 2, "skip (reason)"),
        ("// t\nint x; //~ races\n", 2, "unknown marker `races`"),
        ("// t\nint x; //~ uncoalesced\n", 2, "needs its degree"),
        ("// t\nint x; //~ shared-race(2)\n", 2, "takes no degree"),
        ("// t\nint x; //~ bank-conflict(x)\n", 2, "KIND(N)"),
        (
            "// t\n// warpcheck-expect: clean\nint x;\n\nint y; //~ deadlock\n",
            5,
            "clean",
        ),
    ];
    for (text, line, needle) in cases {
        let e = KernelFile::parse("bad.cu", text).unwrap_err();
        assert_eq!(e.line, line, "{text:?}: {e}");
        let shown = e.to_string();
        assert!(shown.starts_with(&format!("bad.cu:{line}: ")), "{shown}");
        assert!(shown.contains(needle), "{text:?}: {shown}");
    }
}

/// Every file of the corpus parses, and the header agrees with the markers.
#[test]
fn every_corpus_file_parses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut n = 0;
    for dir in warpcheck_corpus::CORPUS_DIRS {
        for path in warpcheck_corpus::kernel_files(&root.join(dir)).unwrap() {
            let f = KernelFile::read(&path).unwrap_or_else(|e| panic!("{e}"));
            let expect = f
                .expect
                .unwrap_or_else(|| panic!("{}: no expect", path.display()));
            assert_eq!(
                expect == Expect::Findings,
                !f.markers.is_empty(),
                "{}",
                path.display()
            );
            n += 1;
        }
    }
    assert!(n >= 86, "{n} files");
    let scan = KernelFile::read(root.join("tests/kernels/scan_blelloch.cu")).unwrap();
    assert_eq!(scan.variants.len(), 3);
    assert_eq!(scan.variants[0].define, "-DREMOVE_BARRIER=1");
    let spin = KernelFile::read(root.join("tests/kernels/spin_wait_bug_deadlock.cu")).unwrap();
    assert!(spin.gpu_skip.is_some());
}
