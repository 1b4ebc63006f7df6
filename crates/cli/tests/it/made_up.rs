//! Made-up buffers never give error findings, as a user sees it: a kernel that reaches
//! past the most a made-up buffer grows to, or past one an earlier launch made up, stops
//! its block with a `block-stopped` note naming the `--arg` that sizes the buffer (exit
//! 0); a made-up buffer beside an earlier launch's buffer grows as it would alone.

use std::path::Path;
use std::process::{Command, Output};

/// `strided(out, stride)`: thread t stores a float at `out[t * stride]`; `pair(in, out,
/// stride)`: `out[t * stride] = in[t]`.
const PTX: &str = ".version 7.0
.target sm_80
.address_size 64
.visible .entry strided(.param .u64 out, .param .u32 stride)
{
    .reg .b32 %r<4>;
    .reg .f32 %f<2>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [stride];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r2, %tid.x;
    mul.wide.u32 %rd3, %r2, %r1;
    shl.b64 %rd4, %rd3, 2;
    add.s64 %rd4, %rd2, %rd4;
    mov.f32 %f1, 0f3F800000;
    st.global.f32 [%rd4], %f1;
    ret;
}
.visible .entry pair(.param .u64 in, .param .u64 out, .param .u32 stride)
{
    .reg .b32 %r<4>;
    .reg .f32 %f<2>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd5, [out];
    ld.param.u32 %r1, [stride];
    mov.u32 %r2, %tid.x;
    mul.wide.u32 %rd6, %r2, 4;
    add.s64 %rd6, %rd1, %rd6;
    ld.global.f32 %f1, [%rd6];
    mul.wide.u32 %rd3, %r2, %r1;
    shl.b64 %rd4, %rd3, 2;
    add.s64 %rd4, %rd5, %rd4;
    st.global.f32 [%rd4], %f1;
    ret;
}
";

/// Runs warpcheck in `dir`: its exit status, its standard output, and its findings (on
/// standard output when it is not a terminal, else on standard error).
fn warpcheck(dir: &Path, args: &[&str]) -> (Output, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("warpcheck runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned() + &stdout;
    (out, stdout, stderr)
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("warpcheck-made-up-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    std::fs::write(dir.join("k.ptx"), PTX).expect("write PTX");
    dir
}

fn launch(kernel: &str, args: &[&str]) -> String {
    let args: Vec<String> = args.iter().map(|a| format!("{a:?}")).collect();
    format!(
        "[[launch]]\nkernel = \"{kernel}\"\ngrid = [1, 1, 1]\nblock = [32, 1, 1]\nargs = [{}]\n",
        args.join(", ")
    )
}

#[test]
fn a_kernel_reaching_past_the_bound_stops_with_a_note_not_an_error() {
    let dir = scratch("bound");
    let launch = [
        "--kernel",
        "strided",
        "--grid",
        "1",
        "--block",
        "32",
        "--arg",
        "arg1=1000000",
    ];
    for command in ["check", "run"] {
        let mut args = vec![command, "k.ptx"];
        args.extend(launch);
        let (out, stdout, stderr) = warpcheck(&dir, &args);
        assert_eq!(out.status.code(), Some(0), "{command}: {stdout}{stderr}");
        assert!(!stderr.contains("error["), "{command}: {stderr}");
        assert!(
            stderr.contains("note[block-stopped]"),
            "{command}: {stderr}"
        );
        assert!(
            stderr.contains(
                "made-up buffer `arg0` (67108864 bytes, the most a made-up buffer grows to)"
            ),
            "{command}: {stderr}"
        );
        // Thread 31 stores at byte 124,000,000: the buffer needs 124,000,004 bytes. Only
        // thread 17's fault is seen (a faulting thread stops its block), so the size
        // named is what it reached.
        assert!(
            stderr.contains("`--arg arg0=u8[68000004]`"),
            "{command}: {stderr}"
        );
        assert!(stdout.contains("still too small"), "{command}: {stdout}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_earlier_launchs_made_up_buffer_overrun_later_is_a_note() {
    let dir = scratch("earlier");
    let file = launch("strided", &["arg1=1"]) + &launch("strided", &["arg1=1000"]);
    std::fs::write(dir.join("l.toml"), file).expect("write launches");
    let (out, stdout, stderr) = warpcheck(&dir, &["check", "k.ptx", "--launches", "l.toml"]);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(!stderr.contains("error["), "{stderr}");
    assert!(
        stderr.contains("made up by an earlier launch, whose size it keeps"),
        "{stderr}"
    );
    assert!(
        stdout
            .contains("arg0 = u8[128]  (synthesised by an earlier launch, too small for this one"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_made_up_buffer_beside_an_earlier_launchs_buffer_grows() {
    let dir = scratch("beside");
    let file = launch("strided", &["arg0=u8[4096]", "arg1=1"]) + &launch("pair", &["arg2=4"]);
    std::fs::write(dir.join("l.toml"), file).expect("write launches");
    let (out, stdout, stderr) = warpcheck(&dir, &["check", "k.ptx", "--launches", "l.toml"]);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        !stderr.contains("error[") && !stderr.contains("note["),
        "{stderr}"
    );
    // Thread 31 stores at bytes 496..500 of `out`.
    assert!(stdout.contains("arg1 = u8[512]:"), "{stdout}");
    assert!(stdout.contains("grown from 32 elements"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A struct passed by value is given field by field (`--arg p.n=4`, nested records,
/// arrays and vector lanes by their paths); the fields left out are zero; a field that
/// does not exist is a clear error naming the fields there are (exit 2).
#[test]
fn struct_fields_are_given_one_by_one() {
    const SOURCE: &str = "struct Inner { float x; int k[2]; };
struct Params { int n; float scale; Inner in; float4 v; };
__global__ void apply(float* out, Params p)
{
    int i = threadIdx.x;
    if (i < p.n) out[i] = p.scale * i + p.in.x + p.in.k[1] + p.v.w;
}
";
    let dir = scratch("fields");
    std::fs::write(dir.join("s.cu"), SOURCE).expect("write source");
    let launch = [
        "run",
        "s.cu",
        "--kernel",
        "apply",
        "--grid",
        "1",
        "--block",
        "8",
        "--arg",
        "out=f32[8]",
    ];
    let mut args = launch.to_vec();
    args.extend([
        "--arg",
        "p.n=4",
        "--arg",
        "p.scale=2",
        "--arg",
        "p.in.k[1]=10",
        "--arg",
        "p.v.w=0.5",
        "--dump",
        "out",
    ]);
    let (out, stdout, stderr) = warpcheck(&dir, &args);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("p = Params { n=4, scale=2, in.k[1]=10, v.w=0.5 }  (other fields zero)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("[10.5, 12.5, 14.5, 16.5, 0, 0, 0, 0]"),
        "{stdout}"
    );
    let mut args = launch.to_vec();
    args.extend(["--arg", "p.q=1"]);
    let (out, stdout, stderr) = warpcheck(&dir, &args);
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains("has no field `q` that can be given: its fields are n, scale, in.x, in.k[0], in.k[1], v.x, v.y, v.z, v.w"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
