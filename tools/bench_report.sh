#!/usr/bin/env bash
# The cost of `check --report` (a per-instruction profile of every launch, and the page):
# for each kernel, N alternating runs (default 5) of `warpcheck check` and
# `warpcheck check --report`, one host thread, and prints the fastest emulator time of
# each as the process CPU time the summary prints (steadier than wall time on a loaded
# machine), the ratio of the fastest, and the page's size.
#
#   tools/bench_report.sh [N]
#
# Kernels: benches/kernels' tiled SGEMM at 256³ and its 5-point stencil at 512², smaller
# than their benchmark launches so that a run takes seconds under the checkers.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
n="${1:-5}"
bin="${WARPCHECK:-$ROOT/target/release/warpcheck}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
launches=(
  "sgemm_tiled.cu|--kernel sgemmTiled --grid 16,16 --block 16,16 --arg a=f32[size*size]:rand --arg b=f32[size*size]:rand --arg c=f32[size*size] --arg size=256"
  "stencil_5point.cu|--kernel stencil5Point --grid 32,32 --block 16,16 --arg current=f32[width*height]:rand --arg next=f32[width*height] --arg width=512 --arg height=512"
)
seconds() { sed -n 's/.* lane-instructions in [0-9.]* s, \([0-9.]*\) s CPU.*/\1/p' "$1" | head -1; }
printf "%-18s %14s %18s %7s %10s\n" kernel "check (CPU s)" "--report (CPU s)" ratio "page (KB)"
for entry in "${launches[@]}"; do
  file="${entry%%|*}"; launch="${entry#*|}"
  best_plain=""; best_report=""
  for _ in $(seq "$n"); do
    # shellcheck disable=SC2086
    "$bin" check "$ROOT/benches/kernels/$file" $launch --threads 1 > "$work/plain.txt" 2>&1 || true
    # shellcheck disable=SC2086
    "$bin" check "$ROOT/benches/kernels/$file" $launch --threads 1 --report "$work/page.html" > "$work/report.txt" 2>&1 || true
    p=$(seconds "$work/plain.txt"); r=$(seconds "$work/report.txt")
    best_plain=$(python3 -c "print(min(x for x in [$p, ${best_plain:-$p}]))")
    best_report=$(python3 -c "print(min(x for x in [$r, ${best_report:-$r}]))")
  done
  kb=$(( $(stat -c %s "$work/page.html") / 1024 ))
  printf "%-18s %14s %18s %7s %10s\n" "${file%.cu}" "$best_plain" "$best_report" \
    "$(python3 -c "print(f'{$best_report / $best_plain:.2f}')")" "$kb"
done
