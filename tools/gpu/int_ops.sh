#!/usr/bin/env bash
# The GPU's results of tools/gpu/int_ops.cu (the integer, bit, conversion, f64, warp and
# atomic operations the differential generator emits beyond tools/gpu/float_ops.cu), per
# op: `OP HASH` with HASH the 64-bit FNV-1a of the op's result fields as printed
# (tools/gpu/op_hashes.py), written to OUT/int-ops.tsv with the GPU, driver and nvcc named
# first; the whole output stays in OUT/int_ops.txt for comparing line by line.
#   bash tools/gpu/int_ops.sh OUT      (on the GPU machine, from anywhere: nvcc in PATH)
# Then copy OUT/int-ops.tsv to tests/gpu-truth/int-ops.tsv. To see which lines differ, here:
#   target/release/warpcheck run --compiler clang tools/gpu/int_ops.cu > EMU.txt
#   python3 tools/gpu/op_diff.py OUT/int_ops.txt EMU.txt
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT=${1:?usage: int_ops.sh OUT}
mkdir -p "$OUT"
nvcc -O3 -arch=sm_90 -o "$OUT/int_ops" "$ROOT/tools/gpu/int_ops.cu"
"$OUT/int_ops" > "$OUT/int_ops.txt"
{
  echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); $(nvcc --version | grep release); nvcc -O3 -arch=sm_90"
  python3 "$ROOT/tools/gpu/op_hashes.py" < "$OUT/int_ops.txt"
} > "$OUT/int-ops.tsv"
echo "wrote $OUT/int-ops.tsv ($(grep -vc '^#' "$OUT/int-ops.tsv") ops) and $OUT/int_ops.txt ($(wc -l < "$OUT/int_ops.txt") lines)"
