#!/usr/bin/env bash
# Runs packed kernel launches on a real GPU and saves every buffer afterwards: the truth the
# emulator's outputs are compared with. Run on the GPU machine.
#
#   warpcheck gpu-pack tests/kernels/*.cu --out PACK     (here: binds the header launch lines)
#   tools/gpu/run_truth.sh PACK OUT                       (there: nvcc + tools/gpu/launcher.cu)
#
# For each PACK/<stem>/ it compiles tests/kernels/<stem>.cu with `nvcc -cubin -O3 -lineinfo
# -arch=native`, runs the launcher on PACK/<stem>/manifest.txt, and writes OUT/<stem>/:
# buffer<I>.bin (contents after the last launch), buffers.txt (index, name, type, count),
# status.txt ("ok" or the CUDA error, e.g. for kernels with planted faults). OUT/VERSIONS.txt
# records the toolkit, GPU and driver; OUT/results.txt one line per file.
set -u
PACK=${1:?usage: run_truth.sh PACK_DIR OUT_DIR}
OUT=${2:?usage: run_truth.sh PACK_DIR OUT_DIR}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
nvcc -O2 -o /tmp/wc-launcher "$ROOT/tools/gpu/launcher.cu" -lcuda || { echo "cannot build the launcher" >&2; exit 2; }
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "nvcc: $(nvcc --version | grep release)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader)"
  echo "command: nvcc -cubin -O3 -lineinfo -arch=native; tools/gpu/launcher.cu"
} > "$OUT/VERSIONS.txt"
: > "$OUT/results.txt"
for d in "$PACK"/*/; do
  stem=$(basename "$d")
  src="$ROOT/tests/kernels/$stem.cu"
  mkdir -p "$OUT/$stem"
  cp "$d/buffers.txt" "$OUT/$stem/"
  if ! nvcc -cubin -O3 -lineinfo -arch=native -o "$d/kernel.cubin" "$src" 2> "$OUT/$stem/nvcc.log"; then
    echo "$stem: nvcc failed" >> "$OUT/results.txt"
    continue
  fi
  rm -f "$OUT/$stem/nvcc.log"
  (cd "$d" && timeout 60 /tmp/wc-launcher manifest.txt "$OUT/$stem") > "$OUT/$stem/status.txt" 2>&1
  echo "$stem: $(head -1 "$OUT/$stem/status.txt")" >> "$OUT/results.txt"
done
cat "$OUT/results.txt"
