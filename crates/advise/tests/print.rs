//! Prints the advice for one corpus file (development aid): `F=conv2d_rgb.c cargo test -p
//! warpcheck-advise --test print -- --nocapture`. Without `F` it does nothing.

use std::collections::BTreeMap;
use std::path::Path;
use warpcheck_front::{CompileOptions, CompilerChoice};

#[test]
fn print_advice() {
    let Ok(file) = std::env::var("F") else { return };
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/kernels")
        .join(&file);
    let text = std::fs::read_to_string(&path).unwrap();
    let args = text
        .lines()
        .find_map(|l| l.strip_prefix("// warpcheck-advise:"))
        .unwrap();
    let words: Vec<&str> = args.split_whitespace().collect();
    let func = words[words.iter().position(|w| *w == "--function").unwrap() + 1];
    let mut values = BTreeMap::new();
    if let Some(p) = words.iter().position(|w| *w == "--values") {
        for kv in words[p + 1].split(',') {
            let (k, v) = kv.split_once('=').unwrap();
            values.insert(k.to_string(), v.parse().unwrap());
        }
    }
    if std::env::var("NOVALUES").is_ok() {
        values.clear();
    }
    let options = CompileOptions {
        opt_level: 0,
        compiler: CompilerChoice::Clang,
        ..CompileOptions::default()
    };
    let compiled = warpcheck_front::compile(&path, &options).unwrap();
    let parsed = warpcheck_ptx::parse(&compiled.ptx);
    let program = warpcheck_ir::lower(&parsed.module).unwrap();
    let id = program.functions_named(func)[0];
    let sig = compiled.signatures.iter().find(|s| s.name == func).unwrap();
    let opts = warpcheck_advise::AdviseOptions {
        param_names: sig.params.iter().map(|p| p.name.clone()).collect(),
        param_types: sig.params.iter().map(|p| p.c_type.clone()).collect(),
        source: Some(text.clone()),
        values,
    };
    let advice = warpcheck_advise::advise(&program, id, &opts).unwrap();
    println!("{}", warpcheck_advise::render::text(&advice, &file));
}
