#!/usr/bin/env bash
# Runs compute-sanitizer's four tools on packed launches of kernel files from any directory
# (tests/kernels has the fuller tools/gpu/anchors.sh). Run on the GPU machine:
#
#   warpcheck gpu-pack tests/check-cases/*.cu --out PACK     (here)
#   tools/gpu/sanitize_dir.sh tests/check-cases PACK OUT      (there)
#
# For each PACK/<stem>/ it builds DIR/<stem>.cu with `nvcc -cubin -O3 -lineinfo
# -arch=native` and runs tools/gpu/launcher.cu on the manifest under `compute-sanitizer
# --tool racecheck|memcheck|synccheck|initcheck`, writing OUT/<stem>.<tool>.log and
# OUT/summary.txt (each tool's error summary and the source lines it names).
set -u
DIR=${1:?usage: sanitize_dir.sh DIR PACK OUT}
PACK=${2:?usage: sanitize_dir.sh DIR PACK OUT}
OUT=${3:?usage: sanitize_dir.sh DIR PACK OUT}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
DIR=$(cd "$DIR" && pwd)
nvcc -O2 -o /tmp/wc-launcher "$ROOT/tools/gpu/launcher.cu" -lcuda || { echo "cannot build the launcher" >&2; exit 2; }
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "nvcc: $(nvcc --version | grep release)"
  echo "compute-sanitizer: $(compute-sanitizer --version | grep -i version | head -1)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader)"
} > "$OUT/VERSIONS.txt"
: > "$OUT/summary.txt"
for d in "$PACK"/*/; do
  stem=$(basename "$d")
  if ! nvcc -cubin -O3 -lineinfo -arch=native -o "$d/kernel.cubin" "$DIR/$stem.cu" > "$OUT/$stem.nvcc.log" 2>&1; then
    echo "$stem: nvcc failed" >> "$OUT/summary.txt"
    continue
  fi
  for tool in racecheck memcheck synccheck initcheck; do
    extra=""
    [ "$tool" = racecheck ] && extra="--racecheck-report hazard --print-limit 100"
    (cd "$d" && timeout 60 compute-sanitizer --tool "$tool" $extra /tmp/wc-launcher manifest.txt /tmp/wc-out-$stem) \
      > "$OUT/$stem.$tool.log" 2>&1
    lines=$(grep -oE "$stem\.cu:[0-9]+" "$OUT/$stem.$tool.log" | sort -t: -k2 -n -u | tr '\n' ' ')
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/$stem.$tool.log" | tail -1 | sed 's/^========= //')
    echo "$stem $tool: $summary; lines: ${lines:-none}" >> "$OUT/summary.txt"
  done
done
cat "$OUT/summary.txt"
