//! Made-up arguments never produce out-of-bounds artefacts: a pointer the user did not
//! give starts as one element per thread and grows when the kernel reaches past its end
//! (here a naive SGEMM indexing `A[row * n + k]` with `n` given), and its line says how
//! far the kernel reached and which `--arg` makes the size explicit.

use warpcheck_emu::args::Limits;
use warpcheck_front::{CompileOptions, CompilerChoice};
use warpcheck_launch::{Dim3, EmuOptions, LaunchSpec, Session};

const KERNEL: &str = r#"
__global__ void sgemmNaive(const float* A, const float* B, float* C, int n)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        float acc = 0.0f;
        for (int k = 0; k < n; k++) acc += A[row * n + k] * B[k * n + col];
        C[row * n + col] = acc;
    }
}
"#;

fn compile(name: &str) -> (warpcheck_ir::Program, Vec<warpcheck_front::KernelSignature>) {
    let dir = std::env::temp_dir().join(format!("warpcheck-made-up-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.cu"));
    std::fs::write(&path, KERNEL).unwrap();
    let options = CompileOptions {
        opt_level: 3,
        compiler: CompilerChoice::Clang,
        ..CompileOptions::default()
    };
    let module = warpcheck_front::compile(&path, &options).unwrap();
    let parsed = warpcheck_ptx::parse(&module.ptx);
    let program = warpcheck_ir::lower(&parsed.module).unwrap();
    (program, module.signatures)
}

fn spec(args: &[&str]) -> LaunchSpec {
    LaunchSpec {
        kernel: Some("sgemmNaive".into()),
        grid: Dim3([4, 4, 1]),
        block: Dim3([16, 16, 1]),
        shared: 0,
        args: args.iter().map(|a| a.to_string()).collect(),
        seed: 0,
    }
}

const OPTS: EmuOptions = EmuOptions {
    threads: 1,
    budget: 1 << 40,
    launch_budget: None,
    timeout: None,
    independent_scheduling: false,
    limits: Limits {
        max_total_bytes: 8 << 30,
    },
    malloc_heap: None,
};

#[test]
fn made_up_buffers_grow_to_what_the_kernel_reaches() {
    let (program, signatures) = compile("grow");
    let mut session = Session::new(&program, &signatures);
    // 64×64 threads, n = 256: A needs 63·256 + 256 = 16384 elements, B 255·256 + 64 =
    // 65344, C 63·256 + 64 = 16192; made up as 4096 (one per thread) they are too small.
    let report = session.launch(&spec(&["n=256"]), OPTS, None).unwrap();
    assert!(
        report.outcome.faults.is_empty(),
        "{:#?}",
        report.outcome.faults
    );
    // Each made-up buffer is at least what the kernel reaches and at most twice that.
    let len = |line: &str| -> usize {
        let open = line.find('[').unwrap();
        line[open + 1..line.find(']').unwrap()].parse().unwrap()
    };
    for (i, name, reached) in [(0, "A", 16384), (1, "B", 65344), (2, "C", 16192)] {
        let line = &report.described[i];
        assert!(line.starts_with(&format!("{name} = f32[")), "{line}");
        assert!(
            line.contains("(synthesised; grown from 4096 elements"),
            "{line}"
        );
        assert!(line.contains(&format!("`--arg {name}=f32[N]`")), "{line}");
        let n = len(line);
        assert!((reached..=2 * reached).contains(&n), "{line}");
    }
    assert_eq!(report.described[3], "n = 256");
}

/// A launch that gives an earlier launch's buffer another size is an error, not ignored.
#[test]
fn a_later_launch_cannot_resize_a_buffer() {
    let (program, signatures) = compile("resize");
    let mut session = Session::new(&program, &signatures);
    let full = ["n=256", "A=f32[65536]", "B=f32[65536]", "C=f32[65536]"];
    session.launch(&spec(&full), OPTS, None).unwrap();
    session.launch(&spec(&full), OPTS, None).unwrap();
    let resized = ["n=256", "A=f32[100]", "B=f32[65536]", "C=f32[65536]"];
    let e = match session.launch(&spec(&resized), OPTS, None) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("a re-sized buffer was accepted"),
    };
    assert!(
        e.contains("buffer `A` is f32[65536] from an earlier launch"),
        "{e}"
    );
    assert!(e.contains("f32[100]"), "{e}");
}
