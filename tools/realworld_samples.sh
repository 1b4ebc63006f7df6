#!/usr/bin/env bash
# NVIDIA's cuda-samples as whole programs: each listed sample is built and run, unmodified,
# under `warpcheck run` (does the program print its own pass line and exit 0?) and under
# `warpcheck check` (which findings?), with the wall time of each. Prints the Markdown
# table of docs/REALWORLD.md.
#
#   tools/realworld_samples.sh SAMPLES_DIR [SAMPLE...]
#
# SAMPLES_DIR is a checkout (or `git archive` export) of github.com/NVIDIA/cuda-samples:
# its Common/ goes on the include path, as the samples' own build does. With SAMPLE names
# only those run. TIMEOUT (seconds, default 3600) bounds each command; a sample that
# exceeds it is reported as such. Every finding of `check` is listed under the table with
# its code and line, to be explained as a real bug or fixed as a false one.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
samples="${1:?usage: tools/realworld_samples.sh SAMPLES_DIR [SAMPLE...]}"
shift
samples="$(cd "$samples" && pwd)"
warpcheck="${WARPCHECK:-$root/target/release/warpcheck}"
timeout_s="${TIMEOUT:-3600}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# name | directory under Samples/ | source files | the sample's own pass line (an extended
# regular expression). A sample passes when it exits 0, prints that line and prints no
# failure ("FAIL", "DON'T Match", "Test failed"). Samples that print no verdict of their
# own and report it through the exit code have their last line of a successful run here;
# clock checks nothing (its line is its one result).
list=(
  "vectorAdd|0_Introduction/vectorAdd|vectorAdd.cu|^Test PASSED"
  "matrixMul|0_Introduction/matrixMul|matrixMul.cu|Result = PASS"
  "simpleAtomicIntrinsics|0_Introduction/simpleAtomicIntrinsics|simpleAtomicIntrinsics.cu simpleAtomicIntrinsics_cpu.cpp|returned OK"
  "simpleCooperativeGroups|0_Introduction/simpleCooperativeGroups|simpleCooperativeGroups.cu|^\\.\\.\\.Done\\.$"
  "transpose|6_Performance/transpose|transpose.cu|^Test passed"
  "reduction|2_Concepts_and_Techniques/reduction|reduction.cpp reduction_kernel.cu|^Test passed"
  "scan|2_Concepts_and_Techniques/scan|main.cpp scan.cu scan_gold.cpp|^Shutting down"
  "histogram|2_Concepts_and_Techniques/histogram|main.cpp histogram64.cu histogram256.cu histogram_gold.cpp|^Test passed"
  "sortingNetworks|2_Concepts_and_Techniques/sortingNetworks|main.cpp bitonicSort.cu oddEvenMergeSort.cu sortingNetworks_validate.cpp|^Shutting down"
  "clock|0_Introduction/clock|clock.cu|^Average clocks/block"
  "simpleTemplates|0_Introduction/simpleTemplates|simpleTemplates.cu|Test Results: 0 Failures"
  "simpleVoteIntrinsics|0_Introduction/simpleVoteIntrinsics|simpleVoteIntrinsics.cu|Shutting down"
  "simpleOccupancy|0_Introduction/simpleOccupancy|simpleOccupancy.cu|^Test PASSED"
  "asyncAPI|0_Introduction/asyncAPI|asyncAPI.cu|^CPU executed [0-9]+ iterations"
  "simpleStreams|0_Introduction/simpleStreams|simpleStreams.cu|^-+$"
  "shfl_scan|2_Concepts_and_Techniques/shfl_scan|shfl_scan.cu|^CheckSum: "
  "threadFenceReduction|2_Concepts_and_Techniques/threadFenceReduction|threadFenceReduction.cu|^CPU result = "
)

# Whether sample $1 is among the names that follow (all when none follow).
wanted() {
  [ $# -le 1 ] && return 0
  local n
  for n in "${@:2}"; do [ "$n" = "$1" ] && return 0; done
  return 1
}

# Runs one command with the timeout; prints its wall seconds; exit status as the command's.
timed() {
  local start end rc
  start=$(date +%s.%N)
  timeout --signal=TERM "$timeout_s" "$@"
  rc=$?
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.0f", e - s }' >"$work/seconds"
  return $rc
}

echo "| sample | \`run\`: own pass line | \`run\` time | \`check\` findings | \`check\` time |"
echo "|---|---|---|---|---|"
notes=""
for entry in "${list[@]}"; do
  IFS='|' read -r name dir files pass <<<"$entry"
  wanted "$name" "$@" || continue
  src="$samples/Samples/$dir"
  if [ ! -d "$src" ]; then
    echo "| $name | not in the checkout | | | |"
    continue
  fi
  out="$work/$name"
  mkdir -p "$out"
  # shellcheck disable=SC2086 # the file list splits on spaces
  (cd "$src" && timed "$warpcheck" run $files -I "$samples/Common" >"$out/run.out" 2>"$out/run.err")
  rc=$?
  run_time="$(cat "$work/seconds") s"
  if [ $rc -eq 124 ]; then
    run="timed out"
  elif [ $rc -eq 0 ] && grep -Eq "$pass" "$out/run.out" &&
    ! grep -Eq "FAIL|DON'T Match|Test failed" "$out/run.out"; then
    run="PASS (\"$(grep -Em1 "$pass" "$out/run.out" | cut -c1-40)\")"
  else
    run="no (exit $rc: $(grep -Ev '^\s*$' "$out/run.err" | head -1 | cut -c1-80))"
  fi
  # shellcheck disable=SC2086
  (cd "$src" && timed "$warpcheck" check $files -I "$samples/Common" --format json \
    --output "$out/check.json" >"$out/check.out" 2>"$out/check.err")
  rc=$?
  check_time="$(cat "$work/seconds") s"
  if [ $rc -eq 124 ]; then
    check="timed out"
  elif [ -s "$out/check.json" ]; then
    check=$(python3 - "$out/check.json" <<'PY'
import json, sys
findings = json.load(open(sys.argv[1])).get("findings", [])
counts = {}
for f in findings:
    counts[f["code"]] = counts.get(f["code"], 0) + 1
print(", ".join(f"{n} {c}" for c, n in sorted(counts.items())) or "none")
PY
)
    notes+=$(python3 - "$name" "$out/check.json" <<'PY'
import json, sys
for f in json.load(open(sys.argv[2])).get("findings", []):
    loc = f.get("primary", {}).get("location", {})
    file = loc.get("file", "?").rsplit("/", 1)[-1]
    print(f"\n- {sys.argv[1]}: `{f['code']}` at {file}:{loc.get('line', '?')}: {f['message'][:160]}")
PY
)
  else
    check="no report (exit $rc)"
  fi
  echo "| $name | $run | $run_time | $check | $check_time |"
done
if [ -n "$notes" ]; then
  printf '\nFindings of `check`:\n%s\n' "$notes"
fi
