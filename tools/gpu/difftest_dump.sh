#!/usr/bin/env bash
# Differential testing, triage: for each kernel of LIST (lines `SEED KERNEL`, e.g. `1 k29`, as
# `tools/difftest.sh` prints them after DISAGREE), writes a program with that kernel alone
# (`warpcheck-difftest gen --first`), adds a dump of every output word after its hash line,
# and runs it natively and under `warpcheck run --compiler nvcc`, on the GPU machine. Writes
# OUT/SEED_KERNEL/{prog.cu,prog.ptx,hashes.txt,diff.txt}: the program, nvcc's PTX, the two
# hash lines (GPU, then warpcheck) and the output words whose values differ, as
# `buffer index gpu emu` (buffer `u`, `f` or `a`: out_u, out_f as bits, acc).
#
#   WARPCHECK=... WARPCHECK_DIFFTEST=... tools/gpu/difftest_dump.sh LIST OUT
set -u
LIST=${1:?usage: difftest_dump.sh LIST OUT}
OUT=${2:?usage: difftest_dump.sh LIST OUT}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
GEN=${WARPCHECK_DIFFTEST:-$ROOT/target/release/warpcheck-difftest}
WC=${WARPCHECK:-$ROOT/target/release/warpcheck}
JOBS=${JOBS:-16}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export GEN WC OUT
one() {
  s=$1; k=${2#k}; d="$OUT/${s}_k$k"; mkdir -p "$d/gen"
  "$GEN" gen --seed "$s" --first "$k" --count 1 --out "$d/gen" > /dev/null || return
  # After the hash line: every output word, one per line.
  sed 's|^    printf("k%u %016llx\\n", k, h);$|&\n    for (unsigned i = 0; i < threads * 6u; ++i) printf("u %u %08x\\n", i, h_out_u[i]);\n    for (unsigned i = 0; i < threads * 3u; ++i) printf("f %u %08x\\n", i, *(unsigned *)\&h_out_f[i]);\n    for (unsigned i = 0; i < 128u; ++i) printf("a %u %08x\\n", i, h_acc[i]);|' \
    "$d/gen/prog_$s.cu" > "$d/prog.cu"
  nvcc -O3 -arch=sm_90 -ptx -o "$d/prog.ptx" "$d/prog.cu" 2> "$d/nvcc.log"
  nvcc -O3 -arch=sm_90 -o "$d/prog" "$d/prog.cu" 2>> "$d/nvcc.log" && timeout 60 "$d/prog" > "$d/gpu.txt" 2>&1
  timeout 300 "$WC" run --compiler nvcc "$d/prog.cu" > "$d/emu.txt" 2> "$d/emu.err"
  paste -d' ' "$d/gpu.txt" "$d/emu.txt" | awk 'NF == 6 && $3 != $6 { print $1, $2, $3, $6 }' > "$d/diff.txt"
  head -1 "$d/gpu.txt" > "$d/hashes.txt"; head -1 "$d/emu.txt" >> "$d/hashes.txt"
  rm -rf "$d/gen" "$d/prog" "$d/gpu.txt" "$d/emu.txt"
}
export -f one
xargs -P "$JOBS" -L 1 bash -c 'one "$@"' _ < "$LIST"
for d in "$OUT"/*/; do echo "$(basename "$d") $(wc -l < "$d/diff.txt") words differ"; done > "$OUT/summary.txt"
