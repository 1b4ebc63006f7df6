#!/usr/bin/env bash
# Rodinia kernels for GPU mode's measurements: copies each benchmark directory of
# RODINIA_DIR/cuda named in tests/gpu-mode/rodinia-launches.tsv into OUT and writes, next to each
# kernel file, one copy per kernel, `<file>.<kernel>.cu`, whose first line is a
# `// warpcheck-launch:` line with the launch written there (block, grid, scalars and
# buffer sizes from the benchmark's host code and run script).
# Every later line is the original file's, one line down.
# Prints the paths of the copies. Rodinia itself is not part of this repository.
#
#   tools/gpu/rodinia_files.sh RODINIA_DIR OUT [KERNEL...]
set -eu
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
RODINIA=${1:?usage: rodinia_files.sh RODINIA_DIR OUT [KERNEL...]}
OUT=${2:?usage: rodinia_files.sh RODINIA_DIR OUT [KERNEL...]}
shift 2
mkdir -p "$OUT"
grep -v '^#' "$ROOT/tests/gpu-mode/rodinia-launches.tsv" | while IFS=$'\t' read -r file kernel opts; do
  if [ $# -gt 0 ]; then
    case " $* " in *" $kernel "*) ;; *) continue ;; esac
  fi
  bench_dir=$(dirname "$file")
  mkdir -p "$OUT/$bench_dir"
  cp -rn "$RODINIA/$bench_dir/." "$OUT/$bench_dir/" 2>/dev/null || true
  base=$(basename "$file" .cu)
  copy="$OUT/$bench_dir/$base.$kernel.cu"
  { echo "// warpcheck-launch: --kernel $kernel $opts"; cat "$RODINIA/$file"; } > "$copy"
  echo "$copy"
done
