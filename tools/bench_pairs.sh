#!/usr/bin/env bash
# Checker overhead as the median of alternating run/check pairs.
#
#   tools/bench_pairs.sh prepare DIR
#   tools/bench_pairs.sh run DIR [--threads "1 2"] [--pairs N] [--only KERNEL] [--pin]
#
# prepare: builds the release binary (stripped, into DIR/warpcheck) and compiles every
#   benches/kernels/*.cu to PTX (DIR/NAME.ptx), with its `// warpcheck-launch:` line
#   rewritten to the PTX's positional parameter names (DIR/launches.txt). DIR then runs
#   on any x86-64 Linux machine without clang or Rust (we carry it to the GPU machine,
#   whose 16 CPU cores are otherwise idle).
# run: for each kernel and thread count, N times (default 5) `warpcheck run` then
#   `warpcheck check` on the same launch, and prints the fastest of each (the emulator's
#   time as the summary prints it), the median of the N check/run ratios and the ratio
#   of the fastest check to the fastest run. Each pair
#   runs back to back, so a host that slows down for a while slows both; on shared
#   machines the ratio of a pair varies far less than either time does, but it still
#   varies: the row lists every pair's ratio. cpu-ratio is the median of the pairs'
#   ratios of CPU time (the process's, all threads, as the summary prints it): time the
#   host gives to other processes is not in it (on a virtual machine whose stolen time
#   the guest counts as its own, it varies as much as elapsed time); with several
#   threads it is total work, not elapsed time. Nothing here asserts a time.
#   --pin: each command runs under `taskset` on the same cores every time (from core 2
#   up, away from the cores interrupts favour): one per thread plus one for the calling
#   thread, which merges the checkers' results while the pool runs the next blocks, so
#   that the scheduler does not move the emulator's threads between cores mid-run.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
mode="${1:-}"; dir="${2:-}"
if [ -z "$mode" ] || [ -z "$dir" ]; then
    sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 2
fi
shift 2
case "$mode" in
prepare)
    mkdir -p "$dir"
    (cd "$ROOT" && cargo build --release -p warpcheck >&2)
    bin="${CARGO_TARGET_DIR:-$ROOT/target}/release/warpcheck"
    strip -o "$dir/warpcheck" "$bin"
    : > "$dir/launches.txt"
    for f in "$ROOT"/benches/kernels/*.cu; do
        k="$(basename "$f" .cu)"
        "$bin" ptx "$f" > "$dir/$k.ptx"
        python3 - "$bin" "$f" "$k" >> "$dir/launches.txt" <<'PY'
import re, subprocess, sys
binary, path, name = sys.argv[1:]
launch = re.search(r"warpcheck-launch:(.*)", open(path).read()).group(1)
listing = subprocess.run([binary, "kernels", path], capture_output=True, text=True).stdout
params = [l.split()[0] for l in listing.splitlines() if l.startswith("    ")]
for i, p in enumerate(params):
    launch = re.sub(r"\b%s\b" % re.escape(p), f"arg{i}", launch)
print(f"{name}|{launch}")
PY
    done
    echo "prepared $dir: $(ls "$dir" | wc -l) files" >&2
    ;;
run)
    threads="1 $(nproc)"; pairs=5; only=""; pin=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --threads) threads="$2"; shift ;;
            --pairs) pairs="$2"; shift ;;
            --only) only="$2"; shift ;;
            --pin) pin=1 ;;
            *) echo "bench_pairs.sh: unknown argument '$1'" >&2; exit 2 ;;
        esac
        shift
    done
    # "SECONDS/CPU-SECONDS" of the summary's "in 0.130 s, 0.250 s CPU".
    emu() { grep -o "in [0-9.]* s, [0-9.]* s CPU" | head -1 | awk '{print $2 "/" $4}'; }
    echo "$(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), $pairs pairs${pin:+, pinned}"
    printf "%-18s %3s %8s %8s %9s %9s %9s  %s\n" kernel thr run-s chk-s chk/run fast/fast cpu-ratio "ratio of each pair"
    while IFS='|' read -r k launch; do
        [ -n "$only" ] && [ "$only" != "$k" ] && continue
        for t in $threads; do
            list=""
            on=()
            if [ -n "$pin" ]; then on=(taskset -c "2-$((t + 2))"); fi
            for _ in $(seq "$pairs"); do
                # shellcheck disable=SC2086
                r="$("${on[@]}" "$dir/warpcheck" run "$dir/$k.ptx" $launch --threads "$t" 2>&1 | emu)"
                # shellcheck disable=SC2086
                c="$("${on[@]}" "$dir/warpcheck" check "$dir/$k.ptx" $launch --threads "$t" 2>&1 | emu)"
                list="$list $r/$c"
            done
            python3 - "$k" "$t" $list <<'PY'
import statistics, sys
k, t = sys.argv[1], sys.argv[2]
ps = [tuple(map(float, p.split("/"))) for p in sys.argv[3:]]
ratios = [c / r for r, _, c, _ in ps]
cpu = [cc / rc for _, rc, _, cc in ps]
run, check = min(p[0] for p in ps), min(p[2] for p in ps)
print(f"{k:<18} {t:>3} {run:8.3f} {check:8.3f} "
      f"{statistics.median(ratios):9.2f} {check / run:9.2f} {statistics.median(cpu):9.2f}  "
      + " ".join(f"{x:.2f}" for x in ratios))
PY
        done
    done < "$dir/launches.txt"
    ;;
*) echo "bench_pairs.sh: unknown mode '$mode' (prepare or run)" >&2; exit 2 ;;
esac
