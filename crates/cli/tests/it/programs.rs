//! Program mode: `warpcheck check` on every program of `tests/programs/` must report
//! exactly the `//~ CODE` markers (code and host or kernel line), name the `//~ launch`
//! line as the launch of every kernel finding, give the exit code of the header's
//! `warpcheck-exit:`, and leave the program's stdout (`warpcheck-stdout:` lines), stdin,
//! arguments and files as in a native run. See `tests/programs/README.md`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

fn programs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs")
}

/// What a program's header and markers expect.
#[derive(Default, Debug)]
struct Expect {
    args: Vec<String>,
    stdin: String,
    flags: Vec<String>,
    exit: i32,
    stdout: Vec<String>,
    /// (code, line)
    findings: Vec<(String, u32)>,
    launch_lines: Vec<u32>,
}

fn header(text: &str, tmp: &Path) -> Expect {
    let mut e = Expect::default();
    for (i, line) in text.lines().enumerate() {
        let value = |key: &str| line.strip_prefix(key).map(|v| v.trim().to_string());
        if let Some(v) = value("// warpcheck-args:") {
            let v = v.replace("{tmp}", &tmp.display().to_string());
            e.args = v.split_whitespace().map(str::to_string).collect();
        } else if let Some(v) = value("// warpcheck-stdin:") {
            e.stdin = v + "\n";
        } else if let Some(v) = value("// warpcheck-flags:") {
            e.flags = v.split_whitespace().map(str::to_string).collect();
        } else if let Some(v) = value("// warpcheck-exit:") {
            e.exit = v.parse().expect("exit code");
        } else if let Some(v) = value("// warpcheck-stdout:") {
            e.stdout.push(v);
        }
        if let Some((_, marker)) = line.rsplit_once("//~") {
            let marker = marker.trim();
            if marker == "launch" {
                e.launch_lines.push(i as u32 + 1);
            } else {
                e.findings.push((marker.to_string(), i as u32 + 1));
            }
        }
    }
    e
}

struct Ran {
    code: i32,
    stdout: String,
    report: Value,
}

fn check(program: &Path, e: &Expect, tmp: &Path) -> Ran {
    check_with(program, e, tmp, "clang")
}

/// [`check`] with `--compiler COMPILER`.
fn check_with(program: &Path, e: &Expect, tmp: &Path, compiler: &str) -> Ran {
    let report_path = tmp.join("report.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("check")
        .arg(program)
        .args(["--compiler", compiler])
        .args(&e.flags)
        .args(["--format", "json", "--output"])
        .arg(&report_path)
        .arg("--")
        .args(&e.args)
        .current_dir(tmp)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("warpcheck runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(e.stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let report = std::fs::read_to_string(&report_path)
        .unwrap_or_else(|_| panic!("{}: no report; stderr:\n{stderr}", program.display()));
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).to_string(),
        report: serde_json::from_str(&report).unwrap(),
    }
}

/// Checks one program built with `--compiler COMPILER`; returns its problems.
fn check_program(name: &str, compiler: &str) -> Vec<String> {
    let path = programs_dir().join(name);
    let tmp = tempfile::tempdir().unwrap();
    let e = header(&std::fs::read_to_string(&path).unwrap(), tmp.path());
    let ran = check_with(&path, &e, tmp.path(), compiler);
    let mut problems = Vec::new();
    if ran.code != e.exit {
        problems.push(format!("exit code {} instead of {}", ran.code, e.exit));
    }
    for want in &e.stdout {
        if !ran.stdout.contains(want.as_str()) {
            problems.push(format!("stdout lacks `{want}`:\n{}", ran.stdout));
        }
    }
    let findings = ran.report["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut got: Vec<(String, u32)> = Vec::new();
    for f in &findings {
        let code = f["code"].as_str().unwrap_or_default().to_string();
        let file = f["primary"]["location"]["file"]
            .as_str()
            .unwrap_or_default();
        let line = f["primary"]["location"]["line"].as_u64().unwrap_or(0) as u32;
        if !file.ends_with(name) {
            problems.push(format!("{code} located in {file}, not in {name}"));
        }
        for l in f["related"].as_array().into_iter().flatten() {
            let message = l["message"].as_str().unwrap_or_default();
            if message.starts_with("(") {
                // The other access of a race: a marked line too.
                got.push((
                    code.clone(),
                    l["location"]["line"].as_u64().unwrap_or(0) as u32,
                ));
            }
        }
        if f["kernel"].is_string() && code != "launch-error" {
            let launch = f["related"].as_array().into_iter().flatten().find(|l| {
                l["message"]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with("kernel launched here")
            });
            match launch {
                Some(l) => {
                    let line = l["location"]["line"].as_u64().unwrap_or(0) as u32;
                    if !e.launch_lines.contains(&line) {
                        problems.push(format!(
                            "{code}: launch at line {line}, expected one of {:?}",
                            e.launch_lines
                        ));
                    }
                }
                None => problems.push(format!("{code}: no launch named")),
            }
        }
        got.push((code, line));
    }
    got.sort();
    got.dedup();
    let mut want = e.findings.clone();
    want.sort();
    if got != want {
        problems.push(format!("findings {got:?}, expected {want:?}"));
    }
    problems
}

fn program_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(programs_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".cu"))
        .collect();
    names.sort();
    assert!(names.len() >= 11, "programs: {names:?}");
    names
}

/// Every program, its host side compiled by clang with warpcheck's shim headers.
#[test]
fn every_program_reports_its_markers() {
    let mut failures = Vec::new();
    for name in &program_names() {
        for p in check_program(name, "clang") {
            failures.push(format!("{name}: {p}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every program, both sides compiled by nvcc with NVIDIA's headers (skipped without an
/// nvcc). A program whose header says `// warpcheck-nvcc: skip (REASON)` is left out,
/// with the reason printed (what nvcc itself cannot compile); one that says
/// `// warpcheck-nvcc: fails (REASON)` must still fail (FIXME: the reason).
#[test]
fn every_program_reports_its_markers_with_nvcc() {
    let probe = programs_dir().join("vector_add.cu");
    if let Err(e) = warpcheck_front::Compiler::discover(
        warpcheck_front::CompilerChoice::Nvcc,
        warpcheck_front::Language::Cuda,
        &probe,
    ) {
        println!("skipped: no nvcc ({e})");
        return;
    }
    let mut failures = Vec::new();
    for name in &program_names() {
        let text = std::fs::read_to_string(programs_dir().join(name)).unwrap();
        if let Some(reason) = text
            .lines()
            .find_map(|l| l.strip_prefix("// warpcheck-nvcc: skip"))
        {
            println!("{name}: skipped with nvcc:{reason}");
            continue;
        }
        let problems = check_program(name, "nvcc");
        if let Some(reason) = text
            .lines()
            .find_map(|l| l.strip_prefix("// warpcheck-nvcc: fails"))
        {
            println!("{name}: fails with nvcc as expected:{reason}");
            if problems.is_empty() {
                failures.push(format!(
                    "{name}: passes with nvcc now; remove its `warpcheck-nvcc: fails` line"
                ));
            }
            continue;
        }
        for p in problems {
            failures.push(format!("{name}: {p}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn program_files_are_written_where_the_program_says() {
    let tmp = tempfile::tempdir().unwrap();
    let path = programs_dir().join("io_args.cu");
    let e = header(&std::fs::read_to_string(&path).unwrap(), tmp.path());
    let ran = check(&path, &e, tmp.path());
    assert_eq!(ran.code, 3);
    let written = std::fs::read_to_string(tmp.path().join("scaled.txt")).unwrap();
    assert_eq!(written, "15\n20\n-40\n");
    // Nothing but the program's file, warpcheck's requested report and nothing else.
    let mut entries: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    entries.sort();
    assert_eq!(entries, ["report.json", "scaled.txt"]);
}

#[test]
fn error_exitcode_and_run_mode() {
    let tmp = tempfile::tempdir().unwrap();
    let program = programs_dir().join("double_free.cu");
    let st = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(["check", "--error-exitcode", "42"])
        .arg(&program)
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(42));
    let text = String::from_utf8_lossy(&st.stderr);
    assert!(text.contains("error[double-free]"), "{text}");
    // `run` does not check the API: the program's own exit code.
    let st = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("run")
        .arg(&program)
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(0));
}

/// `--build-only` builds the program and stops: exit 0 without the program's output,
/// and the PTX is still parsed and lowered (a kernel with an instruction warpcheck does
/// not know fails the build, exit 2, naming it).
#[test]
fn build_only_builds_and_does_not_run() {
    let tmp = tempfile::tempdir().unwrap();
    let program = programs_dir().join("vector_add.cu");
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(["check", "--build-only"])
        .arg(&program)
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(stderr.contains("not run (--build-only)"), "{stderr}");
    let bad = tmp.path().join("bad.cu");
    std::fs::write(
        &bad,
        "__global__ void k(int *o) { asm volatile(\"frobnicate.b32 %0, %0;\" : \"+r\"(*o)); }\n\
         int main() { k<<<1, 1>>>(0); return 0; }\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(["run", "--build-only"])
        .arg(&bad)
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("frobnicate"), "{stderr}");
}

/// Kernel mode's compile options reach both compilations of a program: `-D` and `-X`
/// macros seen by host and device code, `-std=c++17` (`if constexpr`), `--compiler clang`
/// and `--no-cache`.
#[test]
fn program_mode_takes_the_compile_options() {
    let tmp = tempfile::tempdir().unwrap();
    let program = tmp.path().join("opts.cu");
    std::fs::write(
        &program,
        r#"#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(int *out) {
  if constexpr (SCALE > 1) *out = SCALE * OFFSET; else *out = -1;
}
int main() {
  int *d, h = 0;
  cudaMalloc(&d, sizeof(int));
  k<<<1, 1>>>(d);
  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
  printf("device %d host %d\n", h, SCALE + OFFSET);
  cudaFree(d);
  return 0;
}
"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("check")
        .arg(&program)
        .args(["-DSCALE=3", "-X", "-DOFFSET=5", "-std=c++17"])
        .args(["--compiler", "clang", "--no-cache"])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("device 15 host 8"), "{stdout}\n{stderr}");
}

/// A program outlives no warpcheck: SIGTERM to warpcheck reaches the program (which
/// ends, and warpcheck reports it and exits with 128 + 15), and a warpcheck killed
/// outright takes the program with it.
#[cfg(target_os = "linux")]
#[test]
fn the_program_dies_with_warpcheck() {
    let tmp = tempfile::tempdir().unwrap();
    let program = tmp.path().join("sleeper.cu");
    std::fs::write(
        &program,
        r#"#include <cstdio>
#include <unistd.h>
#include <cuda_runtime.h>
int main(int argc, char **argv) {
  FILE *f = fopen(argv[1], "w");
  fprintf(f, "%d\n", (int)getpid());
  fclose(f);
  sleep(600);
  return 0;
}
"#,
    )
    .unwrap();
    // A zombie (dead, not yet reaped by init) counts as dead.
    let alive = |pid: i32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
            s.rsplit_once(") ")
                .is_some_and(|(_, rest)| !rest.starts_with('Z'))
        })
    };
    for (signal, code) in [("TERM", Some(128 + 15)), ("KILL", None)] {
        let pid_file = tmp.path().join(format!("pid-{signal}"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
            .arg("run")
            .arg(&program)
            .arg("--")
            .arg(&pid_file)
            .current_dir(tmp.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        let pid: i32 = loop {
            if let Ok(text) = std::fs::read_to_string(&pid_file)
                && let Ok(pid) = text.trim().parse()
            {
                break pid;
            }
            assert!(start.elapsed().as_secs() < 120, "the program did not start");
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        assert!(alive(pid));
        let sent = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(child.id().to_string())
            .status()
            .unwrap();
        assert!(sent.success());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), code, "SIG{signal}");
        let start = std::time::Instant::now();
        while alive(pid) && start.elapsed().as_secs() < 10 {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert!(
            !alive(pid),
            "SIG{signal}: the program {pid} outlived warpcheck"
        );
    }
}

#[test]
fn kernel_mode_refuses_a_kernel_that_reads_textures() {
    // Kernel mode has no runtime to bind the texture: a made-up handle would only give
    // made-up faults, so it refuses and points to program mode.
    let tmp = tempfile::tempdir().unwrap();
    let st = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(["check", "--kernel", "copy", "--grid", "2", "--block", "128"])
        .arg(programs_dir().join("texture_unbound.cu"))
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(2));
    let text = String::from_utf8_lossy(&st.stderr);
    assert!(
        text.contains("reads textures") && text.contains("warpcheck run PROGRAM.cu"),
        "{text}"
    );
}

#[test]
fn host_only_cpp_files_use_the_runtime_api() {
    // A .cpp file of the program that calls the runtime API through <cuda_runtime.h> (as
    // code compiled by a host compiler against the toolkit's headers does), and a .cu file
    // whose launches are written `<< <` … `>> >`, which nvcc accepts.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("host.cpp"),
        "#include <cuda_runtime.h>\n#include <cmath>\nfloat *alloc(int n) { float *p = 0; cudaMalloc(&p, n * sizeof(float)); return p; }\nvoid release(float *p) { cudaFree(p); }\ndouble root(double x) { return std::sqrt(x); }\n",
    )
    .unwrap();
    std::fs::write(
        tmp.path().join("main.cu"),
        "#include <cstdio>\nfloat *alloc(int n);\nvoid release(float *p);\ndouble root(double x);\n__global__ void fill(float *a) { a[threadIdx.x] = threadIdx.x; }\nint main() {\n  float *a = alloc(32);\n  fill << < 1, 32 >> > (a);\n  float h[32];\n  cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost);\n  release(a);\n  printf(\"%g %g\\n\", h[31], root(h[4]));\n  return 0;\n}\n",
    )
    .unwrap();
    let st = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(["check", "main.cu", "host.cpp"])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&st.stdout),
        String::from_utf8_lossy(&st.stderr),
    );
    assert_eq!(st.status.code(), Some(0), "{out}{err}");
    assert_eq!(out.trim(), "31 2", "{err}");
}

/// `--timings`: the JSON output's `timings` count the program's launches and API calls,
/// and its parts add up: the launches' time and module loading fit in the program's,
/// the rest is what remains, divided by the calls per call. The text output has them too.
#[test]
fn timings_account_for_the_program() {
    let tmp = tempfile::tempdir().unwrap();
    let program = programs_dir().join("vector_add.cu");
    let report = tmp.path().join("report.json");
    let st = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(["run", "--timings", "--format", "json", "--output"])
        .arg(&report)
        .arg(&program)
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(0));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let t = &v["timings"];
    let f = |k: &str| t[k].as_f64().unwrap_or_else(|| panic!("no {k} in {t}"));
    assert_eq!(t["launches"], 1, "{t}");
    assert_eq!(v["launches"].as_array().map(Vec::len), Some(1));
    // cudaMalloc x3, cudaMemcpy x3, the launch, cudaGetLastError, cudaFree x3.
    let calls = t["api_calls"].as_u64().unwrap();
    assert_eq!(calls, 11, "{t}");
    assert!(f("build_seconds") > 0.0, "{t}");
    let wall = f("program_wall_seconds");
    assert!(f("launch_seconds") + f("load_seconds") <= wall, "{t}");
    let rest = wall - f("launch_seconds") - f("load_seconds");
    assert!((f("rest_wall_seconds") - rest).abs() < 1e-9, "{t}");
    assert!(
        (f("rest_wall_seconds_per_call") * calls as f64 - rest).abs() < 1e-9,
        "{t}"
    );
    assert!(f("launch_cpu_seconds") <= f("program_cpu_seconds"), "{t}");
    assert!(v["launches"][0]["cpu_seconds"].as_f64().is_some(), "{v}");
    let st = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(["run", "--timings"])
        .arg(&program)
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&st.stderr);
    assert!(text.contains("warpcheck: timings"), "{text}");
    assert!(text.contains("1 launches in the emulator"), "{text}");
    assert!(
        text.contains(&format!("the rest per API call ({calls})")),
        "{text}"
    );
}

/// Identical launches: `scale`'s 18 repeats and the 8 repeats of the memset + accumulate
/// rounds are reused (the JSON launches say which, and the note counts them), the program's
/// output is the same as when `--rerun-identical` runs all 50 launches, printf lines
/// included, and the accumulating launches, whose memory differs each time, all run.
#[test]
fn identical_launches_are_reused_unless_asked_to_rerun() {
    let path = programs_dir().join("identical_launches.cu");
    let tmp = tempfile::tempdir().unwrap();
    let mut e = header(&std::fs::read_to_string(&path).unwrap(), tmp.path());
    let reused = check(&path, &e, tmp.path());
    e.flags.push("--rerun-identical".into());
    let rerun = check(&path, &e, tmp.path());
    assert_eq!(reused.stdout, rerun.stdout);
    assert_eq!(reused.stdout.matches("scale launch").count(), 20);
    let flags = |r: &Ran| -> Vec<(String, bool)> {
        let launches = r.report["launches"].as_array().expect("launches");
        launches
            .iter()
            .map(|l| {
                let kernel = l["kernel"].as_str().unwrap_or_default().to_string();
                (kernel, l["reused"].as_bool().unwrap_or(false))
            })
            .collect()
    };
    let (a, b) = (flags(&reused), flags(&rerun));
    assert_eq!(a.len(), 50);
    assert!(
        b.iter().all(|(_, r)| !r),
        "--rerun-identical reuses nothing"
    );
    let count = |k: &str| a.iter().filter(|(n, r)| n == k && *r).count();
    assert_eq!((count("scale"), count("accumulate")), (18, 8), "{a:?}");
    assert!(
        a[20..40].iter().all(|(_, r)| !r),
        "accumulating launches all run"
    );
    let notes: Vec<&str> = reused.report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "identical-launches")
        .filter_map(|f| f["message"].as_str())
        .collect();
    assert!(
        notes
            .iter()
            .any(|m| m.starts_with("18 of 20 launches of `scale`")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|m| m.starts_with("8 of 30 launches of `accumulate`")),
        "{notes:?}"
    );
    assert!(
        !rerun.report["findings"]
            .to_string()
            .contains("identical-launches")
    );
}

/// cuBLAS from a C file: the shim headers are C as well as C++, and `-l` options link
/// (`-lcublas` needs nothing more than the runtime; `-L DIR -lm` reaches the linker).
#[test]
fn cublas_from_a_c_file_with_link_options() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("gemm.c"),
        "#include <cublas_v2.h>\n#include <cublasLt.h>\n#include <math.h>\nint gemm(float *a, float *b, float *c, int n) {\n  cublasHandle_t h;\n  const float one = 1, zero = 0;\n  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return -1;\n  cublasStatus_t s = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);\n  cublasDestroy(h);\n  return (int)s + (int)sqrt(0.0);\n}\n",
    )
    .unwrap();
    std::fs::write(
        tmp.path().join("main.cu"),
        "#include <cstdio>\nextern \"C\" int gemm(float *a, float *b, float *c, int n);\nint main() {\n  float h[4] = {1, 2, 3, 4}, *a, *c;\n  cudaMalloc(&a, sizeof h);\n  cudaMalloc(&c, sizeof h);\n  cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);\n  int s = gemm(a, a, c, 2);\n  cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost);\n  printf(\"%d %g %g %g %g\\n\", s, h[0], h[1], h[2], h[3]);\n  return 0;\n}\n",
    )
    .unwrap();
    let st = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(["check", "main.cu", "gemm.c", "-lcublas", "-lcublasLt", "-L"])
        .arg(tmp.path())
        .arg("-lm")
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&st.stdout),
        String::from_utf8_lossy(&st.stderr),
    );
    assert_eq!(st.status.code(), Some(0), "{out}{err}");
    // [1 3; 2 4] squared, column-major.
    assert_eq!(out.trim(), "0 7 10 15 22", "{err}");
}

/// A program calling runtime functions warpcheck does not define fails to build with a
/// message naming them (exit 2), not the linker's dump: host side by clang (the program
/// declares them itself, as the shim headers do not) and, when installed, by nvcc.
#[test]
fn missing_api_functions_are_named_at_link_time() {
    let tmp = tempfile::tempdir().unwrap();
    let program = tmp.path().join("graph.cu");
    std::fs::write(
        &program,
        "#include <cuda_runtime.h>\n\
         #ifndef __NVCC__\n\
         extern \"C\" cudaError_t cudaGraphDebugDotPrint(void *, const char *, unsigned);\n\
         extern \"C\" cudaError_t cudaDeviceGraphMemTrim(int);\n\
         #endif\n\
         __global__ void k() {}\n\
         int main() {\n\
           k<<<1, 1>>>();\n\
           cudaDeviceGraphMemTrim(0);\n\
           return (int)cudaGraphDebugDotPrint(0, \"g.dot\", 0);\n\
         }\n",
    )
    .unwrap();
    let mut compilers = vec!["clang"];
    match warpcheck_front::Compiler::discover(
        warpcheck_front::CompilerChoice::Nvcc,
        warpcheck_front::Language::Cuda,
        &program,
    ) {
        Ok(_) => compilers.push("nvcc"),
        Err(e) => println!("nvcc part skipped: no nvcc ({e})"),
    }
    for compiler in compilers {
        let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
            .arg("run")
            .arg(&program)
            .args(["--compiler", compiler])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{compiler}: {stderr}");
        assert!(
            stderr.contains(
                "the program calls cudaDeviceGraphMemTrim, cudaGraphDebugDotPrint, \
                 which warpcheck's runtime does not implement"
            ) || stderr.contains(
                "the program calls cudaGraphDebugDotPrint, cudaDeviceGraphMemTrim, \
                 which warpcheck's runtime does not implement"
            ),
            "{compiler}: {stderr}"
        );
        assert!(
            !stderr.contains("undefined reference"),
            "{compiler}: {stderr}"
        );
    }
}

/// `--compiler nvcc` builds what the shim headers cannot: a program using NVIDIA's
/// `cuda_bf16.h` and `cooperative_groups/reduce.h` (skipped without an nvcc), with its
/// kernel findings on source lines and `cudaGetDeviceProperties` in the layout of the
/// headers it was compiled with.
#[test]
fn nvcc_compiles_the_host_side_with_nvidias_headers() {
    let tmp = tempfile::tempdir().unwrap();
    let program = tmp.path().join("bf16.cu");
    std::fs::write(
        &program,
        r#"#include <cstdio>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void sum(const __nv_bfloat16 *in, float *out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? __bfloat162float(in[i]) : 0.0f;
  float s = cg::reduce(warp, v, cg::plus<float>());
  if (warp.thread_rank() == 0) atomicAdd(out, s);
  if (threadIdx.x == 0) out[1 + blockIdx.x] = s; // planted: out has 2 floats
}

int main() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("sm_%d%d, %d SMs, warp %d\n", prop.major, prop.minor, prop.multiProcessorCount, prop.warpSize);
  const int n = 64;
  __nv_bfloat16 h[n];
  for (int i = 0; i < n; ++i) h[i] = __float2bfloat16(1.0f);
  __nv_bfloat16 *d;
  float *out;
  cudaMalloc(&d, sizeof h);
  cudaMalloc(&out, 2 * sizeof(float));
  cudaMemset(out, 0, 2 * sizeof(float));
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  sum<<<2, 32>>>(d, out, n);
  float r[2];
  cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
  printf("sum = %g\n", r[0]);
  return 0;
}
"#,
    )
    .unwrap();
    if let Err(e) = warpcheck_front::Compiler::discover(
        warpcheck_front::CompilerChoice::Nvcc,
        warpcheck_front::Language::Cuda,
        &program,
    ) {
        println!("skipped: no nvcc ({e})");
        return;
    }
    let report = tmp.path().join("report.json");
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("check")
        .arg(&program)
        .args(["--compiler", "nvcc", "--format", "json", "--output"])
        .arg(&report)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("sm_90, "), "{stdout}");
    assert!(stdout.contains("warp 32"), "{stdout}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let findings = report["findings"].as_array().unwrap();
    assert!(!findings.is_empty(), "{report}");
    for f in findings {
        let at = &f["primary"]["location"];
        assert!(
            at["file"].as_str().unwrap().ends_with("bf16.cu") && at["line"] == 14,
            "{f}"
        );
    }
}

/// Relocatable device code (`-rdc=true`) is refused by name (skipped without an nvcc).
#[test]
fn relocatable_device_code_is_refused_by_name() {
    let program = programs_dir().join("vector_add.cu");
    if let Err(e) = warpcheck_front::Compiler::discover(
        warpcheck_front::CompilerChoice::Nvcc,
        warpcheck_front::Language::Cuda,
        &program,
    ) {
        println!("skipped: no nvcc ({e})");
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("run")
        .arg(&program)
        .args(["--compiler", "nvcc", "-X", "-rdc=true"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("vector_add.cu: compiled as relocatable device code (-rdc=true)"),
        "{stderr}"
    );
}
