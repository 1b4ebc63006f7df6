#!/usr/bin/env bash
# Differential testing, GPU side: runs generated race-free CUDA programs on the GPU and
# records one hash of the outputs per kernel. Run on the GPU machine (nvcc in PATH).
#
#   tools/gpu/difftest.sh OUT [COUNT]
#
# COUNT kernels (default 10000) in programs of 100 kernels, seeds 1, 2, …: the generator
# (`warpcheck-difftest`, carried as a prebuilt binary: $WARPCHECK_DIFFTEST, else
# target/release/warpcheck-difftest of this tree) writes OUT/src/prog_SEED.cu; each is
# compiled with `nvcc -O3 -arch=sm_90` ($JOBS in parallel, default 16) and run once.
# Writes OUT/gpu_hashes.tsv (seed, kernel, hash; a first comment line names the generator
# version), OUT/VERSIONS.txt (GPU, driver, nvcc), OUT/failures.txt (programs that did not
# compile or run), and each program's output under OUT/stdout/.
set -u
OUT=${1:?usage: difftest.sh OUT [COUNT]}
COUNT=${2:-10000}
PER=100
JOBS=${JOBS:-16}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
GEN=${WARPCHECK_DIFFTEST:-$ROOT/target/release/warpcheck-difftest}
[ -x "$GEN" ] || { echo "no generator at $GEN (set WARPCHECK_DIFFTEST)" >&2; exit 2; }
command -v nvcc > /dev/null || { echo "nvcc is not in PATH" >&2; exit 2; }
PROGRAMS=$(( (COUNT + PER - 1) / PER ))
mkdir -p "$OUT/src" "$OUT/bin" "$OUT/stdout"
OUT=$(cd "$OUT" && pwd)
"$GEN" gen --seeds "1-$PROGRAMS" --count "$PER" --out "$OUT/src" || exit 2
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "generator: $("$GEN" version)"
  echo "nvcc: $(nvcc --version | grep release)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader)"
  echo "programs: $PROGRAMS of $PER kernels (seeds 1-$PROGRAMS)"
  echo "command: nvcc -O3 -arch=sm_90 -o prog prog_SEED.cu; ./prog"
} > "$OUT/VERSIONS.txt"
: > "$OUT/failures.txt"
export OUT
seq 1 "$PROGRAMS" | xargs -P "$JOBS" -I{} sh -c \
  'nvcc -O3 -arch=sm_90 -o "$OUT/bin/prog_{}" "$OUT/src/prog_{}.cu" 2> "$OUT/bin/prog_{}.log" || echo "{} nvcc failed" >> "$OUT/failures.txt"'
echo "# $("$GEN" version)" > "$OUT/gpu_hashes.tsv"
for s in $(seq 1 "$PROGRAMS"); do
  [ -x "$OUT/bin/prog_$s" ] || continue
  if ! timeout 300 "$OUT/bin/prog_$s" > "$OUT/stdout/prog_$s.txt" 2>&1; then
    echo "$s exit $?: $(tail -1 "$OUT/stdout/prog_$s.txt")" >> "$OUT/failures.txt"
  fi
  "$GEN" hashes --seed "$s" "$OUT/stdout/prog_$s.txt" >> "$OUT/gpu_hashes.tsv"
done
echo "$(($(wc -l < "$OUT/gpu_hashes.tsv") - 1)) kernel hashes in $OUT/gpu_hashes.tsv; failures: $(wc -l < "$OUT/failures.txt")"
cat "$OUT/failures.txt"
