#!/usr/bin/env bash
# Differential testing, CPU side: the generated programs under warpcheck.
#
#   tools/difftest.sh GPU_RESULTS_DIR         programs of the seeds in GPU_RESULTS_DIR/gpu_hashes.tsv
#   tools/difftest.sh --seeds FIRST-LAST [--count N]      without GPU results (default N = 100)
#
# For every seed: `warpcheck run` of the race-free program with clang and, when warpcheck
# finds nvcc, with nvcc; hashes compared with the GPU's (or, without GPU results, clang's
# with nvcc's). Then `warpcheck check --format json` of the race-free and the racy program,
# each kernel's findings judged against the construction (race-free: no error; racy: the
# planted race at its two lines). Prints every disagreement with seed and kernel and a
# summary; the files are kept in $WORK (default: a new temporary directory).
# $JOBS programs at a time (default 1), each under `nice`; CLANG_ONLY=1 skips nvcc.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WC=${WARPCHECK:-$ROOT/target/release/warpcheck}
GEN=${WARPCHECK_DIFFTEST:-$ROOT/target/release/warpcheck-difftest}
JOBS=${JOBS:-1}
GPU=""; SEEDS=""; COUNT=100
case "${1:-}" in
  --seeds) SEEDS=${2:?--seeds FIRST-LAST}; [ "${3:-}" = --count ] && COUNT=${4:?--count N} ;;
  ""|-*) echo "usage: difftest.sh GPU_RESULTS_DIR | --seeds FIRST-LAST [--count N]" >&2; exit 2 ;;
  *) GPU=$(cd "$1" && pwd) ;;
esac
for bin in "$WC" "$GEN"; do
  [ -x "$bin" ] || { echo "missing $bin: cargo build --release -p warpcheck -p warpcheck-difftest" >&2; exit 2; }
done
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
if [ -n "$GPU" ]; then
  TSV=$GPU/gpu_hashes.tsv
  if [ "$(head -1 "$TSV")" != "# $("$GEN" version)" ]; then
    echo "$TSV was made by another generator version ($(head -1 "$TSV")); regenerate it" >&2
    exit 2
  fi
  SEED_LIST=$(grep -v '^#' "$TSV" | cut -f1 | sort -un)
  COUNT=$(grep -v '^#' "$TSV" | cut -f2 | sed 's/^k//' | sort -n | tail -1)
  COUNT=$((COUNT + 1))
else
  SEED_LIST=$(seq "${SEEDS%-*}" "${SEEDS#*-}")
fi
for s in $SEED_LIST; do "$GEN" gen --seed "$s" --count "$COUNT" --out "$WORK/src" || exit 2; done
COMPILERS=${COMPILERS:-clang}
if [ "$COMPILERS" = clang ] && [ -z "${CLANG_ONLY:-}" ] && "$WC" ptx "$WORK/src/prog_$(echo "$SEED_LIST" | head -1).cu" --compiler nvcc > /dev/null 2>&1; then
  COMPILERS="clang nvcc"
fi
echo "work: $WORK; seeds: $(echo $SEED_LIST | wc -w) of $COUNT kernels; compilers: $COMPILERS"

# One seed: runs, checks, verdicts (files under $WORK/SEED/).
one_seed() {
  s=$1; d=$WORK/$s; mkdir -p "$d"
  for c in $COMPILERS; do
    nice "$WC" run --compiler "$c" "$WORK/src/prog_$s.cu" > "$d/run_$c.txt" 2> "$d/run_$c.err"
    "$GEN" hashes --seed "$s" "$d/run_$c.txt" > "$d/hashes_$c.tsv"
  done
  for v in race-free racy; do
    f=prog_$s.cu; [ $v = racy ] && f=racy_$s.cu
    nice "$WC" check "$WORK/src/$f" --format json --print-limit 0 --output "$d/check_$v.json" > /dev/null 2> "$d/check_$v.err"
    "$GEN" verdict --seed "$s" --count "$COUNT" --variant $v "$d/check_$v.json" > "$d/verdict_$v.tsv" 2>&1
  done
}
export -f one_seed
export WORK WC GEN COMPILERS COUNT
echo "$SEED_LIST" | xargs -P "$JOBS" -I{} bash -c 'one_seed {}'

status=0
echo "== output hashes"
for c in $COMPILERS; do
  cat "$WORK"/*/hashes_$c.tsv > "$WORK/emu_$c.tsv"
  if [ -n "$GPU" ]; then
    echo "-- warpcheck run --compiler $c against the GPU"
    "$GEN" compare "$TSV" "$WORK/emu_$c.tsv" || status=1
  fi
done
if [ -z "$GPU" ] && [ "$COMPILERS" = "clang nvcc" ]; then
  echo "-- warpcheck run: clang against nvcc (no GPU results)"
  "$GEN" compare "$WORK/emu_nvcc.tsv" "$WORK/emu_clang.tsv" || status=1
fi
echo "== checker verdicts"
for v in race-free racy; do
  cat "$WORK"/*/verdict_$v.tsv > "$WORK/verdicts_$v.tsv"
  grep -P '\tDISAGREE\t' "$WORK/verdicts_$v.tsv" && status=1
  echo "$v: $(wc -l < "$WORK/verdicts_$v.tsv") kernels, $(grep -cP '\tagree\t' "$WORK/verdicts_$v.tsv") agree, $(grep -cP '\tDISAGREE\t' "$WORK/verdicts_$v.tsv") disagree"
done
exit $status
