#!/usr/bin/env bash
# Emulator speed on llm.c's dev/cuda programs: each FILE.cu:N runs under
# `warpcheck check --compiler nvcc -O3` (every checker) at the file's default sizes, and the
# launches that ran (not reused as identical) are summed per kernel from the JSON report:
# launches, lane-instructions, seconds in the emulator and lane-instructions per second.
# Prints the Markdown table of docs/PERFORMANCE.md.
#
#   tools/llmc_rates.sh LLMC_DIR FILE.cu:N...      (THREADS: host threads, default all)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
llmc="$(cd "${1:?usage: tools/llmc_rates.sh LLMC_DIR FILE.cu:N...}" && pwd)/dev/cuda"
shift
warpcheck="${WARPCHECK:-$root/target/release/warpcheck}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
echo "| program | kernel | launches run | lane-instructions | seconds | lane-instructions/s |"
echo "|---|---|---|---|---|---|"
for arg in "$@"; do
  f=${arg%%:*}; k=${arg#*:}
  (cd "$llmc" && "$warpcheck" check "$f" --compiler nvcc -O3 -lcublas -lcublasLt \
    --threads "${THREADS:-0}" --format json --output "$tmp/r.json" -- "$k" > /dev/null 2>&1)
  python3 - "$tmp/r.json" "$f $k" <<'PY'
import json, sys, collections
try:
    launches = json.load(open(sys.argv[1]))["launches"]
except Exception as e:
    print(f"| `{sys.argv[2]}` | no report ({e}) | | | | |"); sys.exit()
per = collections.OrderedDict()
for l in launches:
    if l.get("reused"):
        continue
    n, li, s = per.get(l["kernel"], (0, 0, 0.0))
    per[l["kernel"]] = (n + 1, li + l["lane_instructions"], s + l["seconds"])
for kernel, (n, li, s) in per.items():
    print(f"| `{sys.argv[2]}` | `{kernel}` | {n} | {li:.3e} | {s:.2f} | {li / max(s, 1e-9):.2e} |")
PY
done
