#!/usr/bin/env bash
# GPU mode on the GPU machine: `warpcheck check --gpu` (the instrumented PTX on the GPU,
# JIT-compiled by the driver) against the same command on the emulator executor, the CPU
# race checker, the native kernel and compute-sanitizer's racecheck, with wall times.
#
#   cargo build --release -p warpcheck       (here)
#   tools/gpu/gpu_mode.sh OUT                (there)
#
# The GPU machine has no network: carry target/release/warpcheck (WARPCHECK overrides
# the path) with the working tree. The script packs the launches there (`warpcheck
# gpu-pack`, into OUT/pack: the benchmarks' inputs are hundreds of MB). Needs nvcc,
# compute-sanitizer and a CUDA driver there; warpcheck itself needs only the driver.
#
# For each packed file: native = tools/gpu/launcher.cu on `nvcc -cubin -O3 -lineinfo
# -arch=native` (as run_truth.sh); racecheck = the same under `compute-sanitizer --tool
# racecheck`; gpu = `warpcheck check FILE --from-header --gpu`; gpu-emu = the same with
# `--gpu-executor emu`; cpu = `warpcheck check FILE --from-header --tool race`. Every
# command runs under `timeout $TIMEOUT` (default 300). OUT/<stem>/ keeps every output;
# OUT/gpu_mode.tsv has one row per file: times in seconds, exit codes, and the
# inter-block global-race line pairs each warpcheck run reported (gpu and gpu-emu must
# agree; both must equal cpu's inter-block pairs except where a note explains).
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"

files() {
  grep -l "global-race" "$ROOT"/tests/kernels/*.cu
  # Clean kernels with several blocks, and the benchmarks.
  for f in vector_add saxpy reduce_two_level stencil_1d_shared matmul_tiled transpose_tiled histogram_global_atomics histogram_bug_nonatomic; do
    [ -f "$ROOT/tests/kernels/$f.cu" ] && echo "$ROOT/tests/kernels/$f.cu"
  done
  ls "$ROOT"/benches/kernels/*.cu
}
if [ "${1:-}" = "--files" ]; then files | sed "s|^$ROOT/||"; exit 0; fi

OUT=${1:?usage: gpu_mode.sh OUT}
WC=${WARPCHECK:-$ROOT/target/release/warpcheck}
TIMEOUT=${TIMEOUT:-300}
[ -x "$WC" ] || { echo "no warpcheck binary at $WC (build it with cargo build --release -p warpcheck and carry it)" >&2; exit 2; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
PACK="$OUT/pack"
(cd "$ROOT" && "$WC" gpu-pack $(files | sed "s|^$ROOT/||") --out "$PACK") > "$OUT/pack.txt" 2>&1 || { cat "$OUT/pack.txt" >&2; exit 2; }
nvcc -O2 -o /tmp/wc-launcher "$ROOT/tools/gpu/launcher.cu" -lcuda || { echo "cannot build the launcher" >&2; exit 2; }
{
  echo "date: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "nvcc: $(nvcc --version | grep release)"
  echo "compute-sanitizer: $(compute-sanitizer --version | tail -1)"
  echo "warpcheck: $("$WC" --version)"
} > "$OUT/VERSIONS.txt"

# Seconds a command took; its exit code in $RC.
timed() {
  local start end
  start=$(date +%s%N)
  timeout "$TIMEOUT" "$@"
  RC=$?
  end=$(date +%s%N)
  T=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", (e - s) / 1e9 }')
}

# Inter-block global-race line pairs of a warpcheck JSON report, "L1-L2,..." (sorted).
pairs() {
  python3 - "$1" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("-"); sys.exit()
out = set()
for f in d.get("findings", []):
    if f.get("code") != "global-race" or "between blocks" not in f.get("message", ""):
        continue
    ls = [f["primary"]["location"]["line"]] + [r["location"]["line"] for r in f.get("related", [])]
    out.add("-".join(str(x) for x in sorted(ls)))
print(",".join(sorted(out)) or "none")
PY
}

printf "file\tnative_s\tracecheck_s\tgpu_s\tgpu_emu_s\tcpu_s\tnative_rc\tracecheck_rc\tgpu_rc\tgpu_emu_rc\tcpu_rc\tgpu_pairs\tgpu_emu_pairs\tcpu_pairs\n" > "$OUT/gpu_mode.tsv"
for d in "$PACK"/*/; do
  stem=$(basename "$d")
  src="$ROOT/tests/kernels/$stem.cu"
  [ -f "$src" ] || src="$ROOT/benches/kernels/$stem.cu"
  [ -f "$src" ] || continue
  o="$OUT/$stem"; mkdir -p "$o/native"
  if nvcc -cubin -O3 -lineinfo -arch=native -o "$d/kernel.cubin" "$src" 2> "$o/nvcc.log"; then
    timed bash -c "cd '$d' && /tmp/wc-launcher manifest.txt '$o/native'" > "$o/native.txt" 2>&1; nt=$T; nrc=$RC
    timed bash -c "cd '$d' && compute-sanitizer --tool racecheck /tmp/wc-launcher manifest.txt '$o/native'" > "$o/racecheck.txt" 2>&1; rt=$T; rrc=$RC
  else
    nt=-; nrc=nvcc; rt=-; rrc=nvcc
  fi
  timed "$WC" check "$src" --from-header --gpu --format json --print-limit 0 > "$o/gpu.json" 2> "$o/gpu.err"; gt=$T; grc=$RC
  timed "$WC" check "$src" --from-header --gpu --gpu-executor emu --format json --print-limit 0 > "$o/gpu-emu.json" 2> "$o/gpu-emu.err"; et=$T; erc=$RC
  timed "$WC" check "$src" --from-header --tool race --format json --print-limit 0 > "$o/cpu.json" 2> "$o/cpu.err"; ct=$T; crc=$RC
  printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$stem" "$nt" "$rt" "$gt" "$et" "$ct" \
    "$nrc" "$rrc" "$grc" "$erc" "$crc" "$(pairs "$o/gpu.json")" "$(pairs "$o/gpu-emu.json")" "$(pairs "$o/cpu.json")" >> "$OUT/gpu_mode.tsv"
done
cat "$OUT/gpu_mode.tsv"
