//! Times reading a saved clang JSON AST dump: `ast_bench FILE`.
fn main() {
    let Some(path) = std::env::args().nth(1) else {
        return;
    };
    let started = std::time::Instant::now();
    let file = std::fs::File::open(&path).expect("dump file");
    let facts = warpcheck_front::__bench_read_ast(file);
    println!("{facts} in {:?}", started.elapsed());
}
