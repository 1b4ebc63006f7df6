#!/usr/bin/env bash
# Records what a real GPU computes for the bf16/FP8 conversions and the bf16 arithmetic
# (tools/gpu/new_instructions.cu) into tests/gpu-truth/new-instructions.tsv, which
# crates/emu/tests/it/bf16_truth.rs compares the emulator with. Run on a machine with nvcc
# (CUDA 12.x or 13) and an sm_90 GPU (H100/H200), from the repository root:
#
#   bash tools/gpu/new_instructions.sh [OUT.tsv]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/tests/gpu-truth/new-instructions.tsv}
BIN=$(mktemp -d)/new_instructions
nvcc -O2 -arch=sm_90 -o "$BIN" "$ROOT/tools/gpu/new_instructions.cu"
{
  echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | head -1)"
  echo "# nvcc: $(nvcc --version | grep release)"
  "$BIN"
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "wrote $OUT ($(grep -vc '^#' "$OUT") rows)"
