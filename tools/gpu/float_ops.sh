#!/usr/bin/env bash
# The GPU's results of tools/gpu/float_ops.cu, per op: `OP HASH` with HASH the 64-bit
# FNV-1a of the op's 4096 result words as printed (eight hex digits and a newline each),
# written to tests/gpu-truth/float-ops.tsv with the GPU, driver and nvcc named first.
#   tools/gpu/float_ops.sh OUT      (on the GPU machine: nvcc in PATH)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT=${1:?usage: float_ops.sh OUT}
mkdir -p "$OUT"
nvcc -O3 -arch=sm_90 -o "$OUT/float_ops" "$ROOT/tools/gpu/float_ops.cu"
"$OUT/float_ops" > "$OUT/float_ops.txt"
{
  echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); $(nvcc --version | grep release); nvcc -O3 -arch=sm_90"
  python3 "$ROOT/tools/gpu/op_hashes.py" < "$OUT/float_ops.txt"
} > "$OUT/float-ops.tsv"
