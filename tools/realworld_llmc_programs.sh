#!/usr/bin/env bash
# karpathy/llm.c's dev/cuda programs as whole programs: every kernel version of each file
# (the file's own `main`, its default sizes, the kernel number as its argument) under
# `warpcheck check --compiler nvcc`, with the result of the file's own comparison with its
# CPU reference ("All results match"), the error findings and the time. Prints the Markdown
# table of docs/REALWORLD.md.
#
#   tools/realworld_llmc_programs.sh LLMC_DIR [FILE.cu...]
#
# TIMEOUT (seconds, default 1800) bounds each run, JOBS (default 1) runs that many at once,
# each with THREADS host threads (default: warpcheck's, one per core). Kernel numbers are
# the `case N:` labels of the file's dispatch `switch`; KERNELS (e.g. "6" or "1 3") runs
# only those. WORK keeps each run's output there.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
llmc="$(cd "${1:?usage: tools/realworld_llmc_programs.sh LLMC_DIR [FILE.cu...]}" && pwd)"
shift
warpcheck="${WARPCHECK:-$root/target/release/warpcheck}"
export warpcheck llmc TIMEOUT="${TIMEOUT:-1800}" THREADS="${THREADS:-0}"
if [ -n "${WORK:-}" ]; then work=$WORK; mkdir -p "$work"; else
  work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT; fi
export work
files=("$@")
[ ${#files[@]} -gt 0 ] || files=($(cd "$llmc/dev/cuda" && ls ./*.cu | sed 's|^\./||'))

one() {
  f=$1; k=$2; out="$work/${f%.cu}_$k"; mkdir -p "$out"
  start=$(date +%s)
  (cd "$llmc/dev/cuda" && timeout "$TIMEOUT" "$warpcheck" check "$f" --compiler nvcc -O3 \
    -lcublas -lcublasLt --threads "$THREADS" --format json --output "$out/report.json" \
    -- "$k" > "$out/stdout" 2> "$out/stderr")
  code=$?
  secs=$(( $(date +%s) - start ))
  if [ $code -eq 124 ]; then result="timed out"
  elif grep -q "All results match" "$out/stdout"; then result="match"
  elif grep -qi "mismatch\|error" "$out/stdout"; then result="differs: $(grep -m1 -i "mismatch\|error" "$out/stdout" | cut -c1-80)"
  else result="exit $code: $(tail -1 "$out/stderr" | cut -c1-100)"; fi
  errors=$(python3 - "$out/report.json" <<'PY' 2>/dev/null
import json, sys, collections
try:
    findings = json.load(open(sys.argv[1]))["findings"]
except Exception:
    print("no report"); sys.exit()
c = collections.Counter(f["code"] for f in findings if f.get("severity") == "error")
print(", ".join(f"{n} {k}" for k, n in sorted(c.items())) or "none")
PY
)
  echo "| \`$f\` | $k | $result | $errors | $secs s |" > "$out/row"
}
export -f one
for f in "${files[@]}"; do
  ks=$(grep -oE "case [0-9]+:" "$llmc/dev/cuda/$f" | grep -oE "[0-9]+" | sort -n -u)
  [ -n "$ks" ] || ks=1
  if [ -n "${KERNELS:-}" ]; then
    ks=$(for k in $ks; do for want in $KERNELS; do [ "$k" = "$want" ] && echo "$k"; done; done)
  fi
  for k in $ks; do echo "$f $k"; done
done > "$work/jobs"
xargs -P "${JOBS:-1}" -L 1 bash -c 'one "$@"' _ < "$work/jobs"
echo "| file | kernel | own check against its CPU reference | error findings | time |"
echo "|---|---|---|---|---|"
while read -r f k; do cat "$work/${f%.cu}_$k/row"; done < "$work/jobs"
