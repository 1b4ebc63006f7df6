#!/usr/bin/env bash
# What a whole program's time under `warpcheck run` goes to, and what one CUDA API call
# costs.
#
#   tools/program_overhead.sh [--check] [--threads T] [FILE... [-I DIR]... [-- ARGS]]
#
# With program files: builds and runs them under `warpcheck run --timings` (`check` with
# --check), the program's output to a temporary file, and prints the timings: the build,
# the program's wall-clock and CPU time (user + system, all threads), module loading, the
# sum of the launches' time in the emulator (wall and CPU), and the rest (host code, the
# runtime's API calls, the report at exit) in total and per API call. Then, always, the
# micro-benchmark benches/programs/api_calls.cu: N cudaMemcpy of 4 bytes each way, N
# cudaMalloc/cudaFree pairs, N/10 launches of an empty one-thread kernel and of a
# one-thread kernel that stores a word, and 8 copies of 64 MiB each way, each with its
# wall and CPU time per call (N: $N, default 100000).
#
# WARPCHECK=path uses that binary (default target/release/warpcheck, with
# libwarpcheck_cudart.so beside it). Nothing here asserts a time: it prints figures.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
warpcheck="${WARPCHECK:-$root/target/release/warpcheck}"
calls="${N:-100000}"
mode=run
threads=0
while [ $# -gt 0 ]; do
    case "$1" in
        --check) mode=check; shift ;;
        --threads) threads="$2"; shift 2 ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) break ;;
    esac
done
echo "$(nproc) cores, $(cut -d' ' -f1-3 /proc/loadavg) load, $("$warpcheck" --version 2>/dev/null || echo warpcheck)"
if [ $# -gt 0 ]; then
    out="$(mktemp)"
    trap 'rm -f "$out"' EXIT
    echo "== warpcheck $mode --timings --threads $threads $*"
    set +e
    "$warpcheck" "$mode" --timings --threads "$threads" "$@" >"$out" 2>"$out.err"
    rc=$?
    set -e
    grep -A7 '^warpcheck: timings' "$out.err" || cat "$out.err"
    echo "program exit code $rc; its last output line: $(tail -n 1 "$out")"
    rm -f "$out.err"
fi
echo "== micro-benchmark: warpcheck run --threads $threads benches/programs/api_calls.cu -- $calls"
"$warpcheck" run --threads "$threads" "$root/benches/programs/api_calls.cu" -- "$calls"
