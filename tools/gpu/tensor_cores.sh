#!/usr/bin/env bash
# Records what a real GPU computes for the tensor-core instructions (mma.sync, wmma.*,
# ldmatrix, stmatrix; tools/gpu/tensor_cores.cu) into tests/gpu-truth/tensor-cores.tsv,
# which crates/emu/tests/it/tensor_truth.rs compares the emulator with. Run on a machine with
# nvcc (CUDA 12.x or 13) and an sm_90 GPU (H100/H200), from the repository root:
#
#   bash tools/gpu/tensor_cores.sh [OUT.tsv] [SCALE]
#
# SCALE > 1 writes only mma rows, SCALE times as many (for measuring the accumulation,
# docs/ACCURACY.md).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/tests/gpu-truth/tensor-cores.tsv}
SCALE=${2:-1}
BIN=$(mktemp -d)/tensor_cores
nvcc -O2 -arch=sm_90 -std=c++17 -o "$BIN" "$ROOT/tools/gpu/tensor_cores.cu"
{
  echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | head -1)"
  echo "# nvcc: $(nvcc --version | grep release)"
  "$BIN" "$SCALE"
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "wrote $OUT ($(grep -vc '^#' "$OUT") rows)"
