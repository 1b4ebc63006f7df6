//! Measures the stack `parse` needs for maximally nested input of each kind.
//! Usage: `cargo run -p warpcheck-ptx --example stack_probe [--release]`.

fn case_text(name: &str) -> String {
    let depth = 100_000;
    let kernel = |b: String| format!(".entry k()\n{{\n{b}\n}}\n");
    match name {
        "parens" => kernel(format!(
            "\tmov.u32 %r1, {}1{};",
            "(".repeat(depth),
            ")".repeat(depth)
        )),
        "neg" => kernel(format!("\tmov.u32 %r1, {}1;", "-".repeat(depth))),
        "not" => kernel(format!("\tselp.u32 %r1, 1, 0, {}%p1;", "!".repeat(depth))),
        "vec" => kernel(format!(
            "\tmov.b64 {}%r1{}, %rd1;",
            "{".repeat(depth),
            "}".repeat(depth)
        )),
        "block" => kernel(format!("{}ret;{}", "{".repeat(depth), "}".repeat(depth))),
        _ => format!(
            ".global .u32 x = {}1{};",
            "{".repeat(depth),
            "}".repeat(depth)
        ),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 3 {
        let text = case_text(&args[1]);
        let stack: usize = args[2].parse().expect("stack size");
        let handle = std::thread::Builder::new()
            .stack_size(stack)
            .spawn(move || warpcheck_ptx::parse(&text).errors.len());
        let ok = handle.expect("spawn").join().is_ok();
        std::process::exit(if ok { 0 } else { 1 });
    }
    for name in ["parens", "neg", "not", "vec", "block", "init"] {
        let (mut lo, mut hi) = (1usize << 14, 1usize << 26);
        while hi - lo > 8192 {
            let mid = (lo + hi) / 2;
            let ok = std::process::Command::new(&args[0])
                .args([name, &mid.to_string()])
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if ok { hi = mid } else { lo = mid }
        }
        println!("{name}: needs about {} KiB", hi / 1024);
    }
}
