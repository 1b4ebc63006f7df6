//! `warpcheck-difftest`: writes generated programs and judges results. A standalone binary
//! (no cargo, no warpcheck needed) so that it can be carried to a GPU machine.
//!
//! ```text
//! warpcheck-difftest gen --seed S [--seeds FIRST-LAST] --count N [--first K] --out DIR
//!     DIR/prog_S.cu (race-free), DIR/racy_S.cu and DIR/racy_S.plants.tsv for each seed
//! warpcheck-difftest hashes --seed S STDOUT_FILE
//!     the program's `kID HASH` lines as TSV `seed kernel hash`
//! warpcheck-difftest compare EXPECTED.tsv ACTUAL.tsv
//!     hash disagreements and a summary; exit 1 when any
//! warpcheck-difftest verdict --seed S --count N --variant race-free|racy REPORT.json
//!     per kernel: `seed kernel agree|DISAGREE detail` against the construction
//! warpcheck-difftest version
//!     the generator's version (recorded with hashes; a new version makes them stale)
//! ```

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

use warpcheck_difftest::verdict::{compare_hashes, judge, parse_hashes, parse_program_output};
use warpcheck_difftest::{Program, Variant, generate, generate_range};

const USAGE: &str =
    "usage: warpcheck-difftest gen --seed S [--seeds FIRST-LAST] --count N [--first K] --out DIR
       warpcheck-difftest hashes --seed S STDOUT_FILE
       warpcheck-difftest compare EXPECTED.tsv ACTUAL.tsv
       warpcheck-difftest verdict --seed S --count N --variant race-free|racy REPORT.json
       warpcheck-difftest version";

/// Options (`--name value`) and positional arguments.
struct Args {
    options: HashMap<String, String>,
    positional: Vec<String>,
}

impl Args {
    fn parse(args: &[String]) -> Result<Args, String> {
        let (mut options, mut positional) = (HashMap::new(), Vec::new());
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if let Some(name) = a.strip_prefix("--") {
                let value = it.next().ok_or(format!("--{name} needs a value"))?;
                options.insert(name.to_string(), value.clone());
            } else {
                positional.push(a.clone());
            }
        }
        Ok(Args {
            options,
            positional,
        })
    }

    fn get(&self, name: &str) -> Result<&str, String> {
        self.options
            .get(name)
            .map(String::as_str)
            .ok_or(format!("--{name} is required"))
    }

    fn number(&self, name: &str) -> Result<u64, String> {
        let v = self.get(name)?;
        v.parse()
            .map_err(|_| format!("--{name}: `{v}` is not a number"))
    }

    fn file(&self, index: usize) -> Result<String, String> {
        let path = self.positional.get(index).ok_or("missing file argument")?;
        std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))
    }
}

fn main() -> ExitCode {
    let all: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = all.split_first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let result = Args::parse(rest).and_then(|args| match command.as_str() {
        "gen" => generate_files(&args),
        "hashes" => hashes(&args),
        "compare" => compare(&args),
        "verdict" => verdict(&args),
        "version" => {
            println!("{}", warpcheck_difftest::version_line());
            Ok(ExitCode::SUCCESS)
        }
        _ => Err(format!("unknown command `{command}`")),
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("warpcheck-difftest: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn seeds(args: &Args) -> Result<Vec<u64>, String> {
    if let Ok(range) = args.get("seeds") {
        let (a, b) = range.split_once('-').ok_or("--seeds wants FIRST-LAST")?;
        let parse = |s: &str| {
            s.parse::<u64>()
                .map_err(|_| format!("--seeds: `{s}` is not a number"))
        };
        return Ok((parse(a)?..=parse(b)?).collect());
    }
    Ok(vec![args.number("seed")?])
}

fn generate_files(args: &Args) -> Result<ExitCode, String> {
    let count = args.number("count")? as u32;
    let out = PathBuf::from(args.get("out")?);
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let first = args.number("first").unwrap_or(0) as u32;
    for seed in seeds(args)? {
        for variant in [Variant::RaceFree, Variant::Racy] {
            let p = generate_range(seed, first..first + count, variant);
            let path = out.join(Program::file_name(seed, variant));
            std::fs::write(&path, &p.source).map_err(|e| format!("{}: {e}", path.display()))?;
            if variant == Variant::Racy {
                let tsv = out.join(format!("racy_{seed}.plants.tsv"));
                std::fs::write(&tsv, p.plants_tsv())
                    .map_err(|e| format!("{}: {e}", tsv.display()))?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn hashes(args: &Args) -> Result<ExitCode, String> {
    let seed = args.number("seed")?;
    for ((seed, kernel), hash) in parse_program_output(seed, &args.file(0)?) {
        println!("{seed}\t{kernel}\t{hash}");
    }
    Ok(ExitCode::SUCCESS)
}

fn compare(args: &Args) -> Result<ExitCode, String> {
    let expected = parse_hashes(&args.file(0)?);
    let actual = parse_hashes(&args.file(1)?);
    let diff = compare_hashes(&expected, &actual);
    for (seed, kernel, want, got) in &diff {
        println!("DISAGREE\tseed {seed}\t{kernel}\texpected {want}\tgot {got}");
    }
    let n = expected.len();
    println!(
        "hashes: {n} kernels compared, {} agree, {} disagree",
        n - diff.len(),
        diff.len()
    );
    Ok(if diff.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn verdict(args: &Args) -> Result<ExitCode, String> {
    let seed = args.number("seed")?;
    let count = args.number("count")? as u32;
    let variant = match args.get("variant")? {
        "race-free" => Variant::RaceFree,
        "racy" => Variant::Racy,
        v => return Err(format!("--variant: `{v}` is neither race-free nor racy")),
    };
    let text = args.file(0)?;
    let report = serde_json::from_str(&text).map_err(|e| format!("report: {e}"))?;
    for v in judge(&generate(seed, count, variant), &report) {
        let word = if v.agrees { "agree" } else { "DISAGREE" };
        println!("{seed}\t{}\t{word}\t{}", v.kernel, v.detail);
    }
    Ok(ExitCode::SUCCESS)
}
