#!/usr/bin/env bash
# GPU mode on the GPU machine: `warpcheck check --gpu` (the instrumented PTX on the GPU,
# JIT-compiled by the driver) against the native kernel, compute-sanitizer's racecheck, the
# CPU race checker and (corpus files) the same instrumented PTX on the emulator, with times.
#
#   cargo build --release -p warpcheck                          (here)
#   tools/gpu/rodinia_files.sh /tmp/rodinia target/gpu-rodinia  (here; optional)
#   tools/gpu/gpu_mode.sh OUT [corpus|big|all]                  (there)
#
# `corpus` (default `all` = both): the race-carrying corpus kernels, clean corpus kernels,
# tests/gpu-mode/*.cu, then the determinism, memory-round and sampling checks below. `big`: the
# benchmark kernels (benches/kernels) and the Rodinia copies under target/gpu-rodinia
# (RODINIA_COPIES overrides), at their full launch sizes.
#
# The GPU machine has no network: carry target/release/warpcheck (WARPCHECK overrides the
# path) and target/gpu-rodinia with the working tree. Needs nvcc, compute-sanitizer and a
# CUDA driver there; warpcheck itself needs only the driver (and a compiler for .cu input).
#
# Per file: native = tools/gpu/launcher.cu on `nvcc -cubin -O3 -lineinfo -arch=native`;
# racecheck = the same under `compute-sanitizer --tool racecheck`; gpu = `warpcheck check
# FILE --from-header --gpu`; gpu_emu = the same with `--gpu-executor emu` (corpus only);
# cpu = `warpcheck check FILE --from-header --tool race` (corpus only: the emulator takes
# minutes on the big launches). Commands run under `timeout` ($TIMEOUT, default 120;
# racecheck of big files $BIG_TIMEOUT, default 30: a time of `>30` is a lower bound). OUT/<stem>/ keeps every output; OUT/gpu_mode.tsv has one row
# per file: whole-process wall seconds, the launches' own time in the launcher
# (`native_launch_ms`: launch to synchronisation, no copies), GPU mode's checking time
# (`gpu_check_s`: every run, copy and comparison, no start-up or compilation), exit codes
# and the race line pairs each warpcheck run reported (`pairs()` below), `b:` between blocks, `w:`
# between warps of a block. OUT/gpu_phases.tsv: per launch of each `--gpu` run, where
# GPU mode's checking time went (`WARPCHECK_GPU_PROFILE=1`: upload, copies, pass 1, merge,
# pass 2, bisect, atomic reads, attribution, write-back, in seconds) and the launches and
# bytes between host and device.
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT=${1:?usage: gpu_mode.sh OUT [corpus|big|all]}
WHICH=${2:-all}
WC=${WARPCHECK:-$ROOT/target/release/warpcheck}
TIMEOUT=${TIMEOUT:-120}
BIG_TIMEOUT=${BIG_TIMEOUT:-30}
RODINIA_COPIES=${RODINIA_COPIES:-$ROOT/target/gpu-rodinia}
[ -x "$WC" ] || { echo "no warpcheck binary at $WC (build it with cargo build --release -p warpcheck and carry it)" >&2; exit 2; }

corpus_files() {
  grep -l "global-race\|shared-race" "$ROOT"/tests/kernels/*.cu
  for f in vector_add saxpy reduce_two_level stencil_1d_shared matmul_tiled transpose_tiled histogram_global_atomics histogram_bug_nonatomic; do
    [ -f "$ROOT/tests/kernels/$f.cu" ] && echo "$ROOT/tests/kernels/$f.cu"
  done
  ls "$ROOT"/tests/gpu-mode/*.cu
}
big_files() {
  ls "$ROOT"/benches/kernels/*.cu
  [ -d "$RODINIA_COPIES" ] && find "$RODINIA_COPIES" -name '*.*.cu' | sort
}

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
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
  local limit=$1 start end
  shift
  start=$(date +%s%N)
  timeout "$limit" "$@"
  RC=$?
  end=$(date +%s%N)
  T=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", (e - s) / 1e9 }')
  if [ "$RC" = 124 ]; then T=">$limit"; fi
}

# Race line pairs of a warpcheck JSON report, "b:L1-L2,w:...,sw:..." (sorted): global
# races between blocks (b) and warps (w); shared races between warps (sw) and between
# lanes of one warp (sl, which GPU mode does not see).
pairs() {
  python3 - "$1" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("-"); sys.exit()
out = set()
for f in d.get("findings", []):
    m = f.get("message", "")
    code = f.get("code")
    if code == "global-race":
        scope = "b" if "between blocks" in m else "w" if "between warps" in m else None
    elif code == "shared-race":
        scope = "sw" if "between warps" in m else "sl"
    else:
        continue
    if scope is None:
        continue
    ls = [f["primary"]["location"]["line"]] + [r["location"]["line"] for r in f.get("related", [])]
    out.add(scope + ":" + "-".join(str(x) for x in sorted(ls)))
print(",".join(sorted(out)) or "none")
PY
}

TSV="$OUT/gpu_mode.tsv"
[ -f "$TSV" ] || printf "file\tnative_s\tracecheck_s\tgpu_s\tgpu_emu_s\tcpu_s\tnative_launch_ms\tgpu_check_s\tnative_rc\tracecheck_rc\tgpu_rc\tgpu_emu_rc\tcpu_rc\tgpu_pairs\tgpu_emu_pairs\tcpu_pairs\n" > "$TSV"

# One row for one file; $2 is "corpus" or "big".
measure() {
  local src=$1 kind=$2 stem d o limit
  stem=$(basename "$src" .cu)
  d="$OUT/pack/$stem"; o="$OUT/$stem"; mkdir -p "$o/native"
  limit=$TIMEOUT; [ "$kind" = big ] && limit=$BIG_TIMEOUT
  local nt=- nrc=nvcc rt=- rrc=nvcc lms=-
  if "$WC" gpu-pack "$src" --out "$OUT/pack" > "$o/pack.txt" 2>&1 && [ -d "$d" ] \
     && (cd "$(dirname "$src")" && nvcc -cubin -O3 -lineinfo -arch=native -o "$d/kernel.cubin" "$src") 2> "$o/nvcc.log"; then
    timed "$TIMEOUT" bash -c "cd '$d' && /tmp/wc-launcher manifest.txt '$o/native'" > "$o/native.txt" 2>&1; nt=$T; nrc=$RC
    lms=$(awk '/^launch_ms/ { print $2 }' "$o/native.txt"); lms=${lms:--}
    timed "$limit" bash -c "cd '$d' && compute-sanitizer --tool racecheck /tmp/wc-launcher manifest.txt '$o/native'" > "$o/racecheck.txt" 2>&1; rt=$T; rrc=$RC
  fi
  timed "$TIMEOUT" env WARPCHECK_GPU_PROFILE=1 "$WC" check "$src" --from-header --gpu --format json --print-limit 0 > "$o/gpu.json" 2> "$o/gpu.err"; local gt=$T grc=$RC
  sed -n "s/^ *phases (s): /$stem\t/p" "$o/gpu.err" >> "$OUT/gpu_phases.tsv"
  local gcs; gcs=$(sed -n 's/.* in \([0-9.]*\) s$/\1/p' "$o/gpu.err" | awk '{ s += $1 } END { if (NR) printf "%.3f", s; else print "-" }')
  local et=- erc=- ep=-
  if [ "$kind" = corpus ]; then
    timed "$TIMEOUT" "$WC" check "$src" --from-header --gpu --gpu-executor emu --format json --print-limit 0 > "$o/gpu-emu.json" 2> "$o/gpu-emu.err"; et=$T; erc=$RC; ep=$(pairs "$o/gpu-emu.json")
  fi
  local ct=- crc=-
  if [ "$kind" = corpus ]; then
    timed "$TIMEOUT" "$WC" check "$src" --from-header --tool race --format json --print-limit 0 > "$o/cpu.json" 2> "$o/cpu.err"; ct=$T; crc=$RC
  fi
  printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$stem" "$nt" "$rt" "$gt" "$et" "$ct" "$lms" "$gcs" \
    "$nrc" "$rrc" "$grc" "$erc" "$crc" "$(pairs "$o/gpu.json")" "$ep" "$(pairs "$o/cpu.json")" >> "$TSV"
}

if [ "$WHICH" != big ]; then
  for f in $(corpus_files); do measure "$f" corpus; done
  # Determinism: the racy lost-updates kernel 20 times natively and 20 times with
  # `run --gpu --deterministic`; one row per run with a hash of `out`.
  src="$ROOT/tests/gpu-mode/lost_updates.cu"; d="$OUT/pack/lost_updates"
  printf "run\tnative_out_md5\tdeterministic_out\n" > "$OUT/determinism.tsv"
  for i in $(seq 1 20); do
    mkdir -p "$OUT/det/$i"
    (cd "$d" && /tmp/wc-launcher manifest.txt "$OUT/det/$i" > /dev/null 2>&1)
    n=$(md5sum < "$OUT/det/$i/buffer0.bin" | cut -c1-12)
    w=$("$WC" run "$src" --from-header --gpu --deterministic 2>&1 | grep -o 'out u32\[4\].*')
    printf "%s\t%s\t%s\n" "$i" "$n" "$w" >> "$OUT/determinism.tsv"
  done
  # Memory-adaptive rounds on the GPU: two private copies, the race in round 4 of 4.
  "$WC" check "$ROOT/tests/gpu-mode/pair_race.cu" --from-header --gpu --gpu-memory 3K > "$OUT/rounds.txt" 2>&1
  echo "exit $?" >> "$OUT/rounds.txt"
  # Sampling of units on the GPU: 1,024 warps in two copies would take 10 rounds, over
  # --gpu-rounds 4; a sample of 16 blocks (6 rounds) finds the race of blocks 0 and 1 and
  # says so in a race-check-sampled note.
  "$WC" check "$ROOT/tests/gpu-mode/neighbour_race.cu" --from-header --gpu --gpu-memory 5K --race-blocks 16 > "$OUT/sampled.txt" 2>&1
  echo "exit $?" >> "$OUT/sampled.txt"
fi
if [ "$WHICH" != corpus ]; then
  for f in $(big_files); do measure "$f" big; done
fi
cat "$TSV"
echo
cat "$OUT/gpu_phases.tsv" 2>/dev/null
