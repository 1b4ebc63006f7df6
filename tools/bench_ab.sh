#!/usr/bin/env bash
# Two warpcheck binaries side by side on the benchmark kernels (a change's before/after).
#
#   tools/bench_ab.sh BASE_DIR NEW_DIR [--threads T] [--reps N] [--only KERNEL] [--mode "run check"]
#
# BASE_DIR and NEW_DIR are directories made by `tools/bench_pairs.sh prepare` (a stripped
# binary, the kernels' PTX and launches.txt); NEW_DIR may hold only its binary, the PTX and
# launches of BASE_DIR are used. For each kernel and mode (default: `run` and `check`), the
# two binaries run alternately N times (default 7) on the same launch, so that a host that
# slows down for a while slows both. Each row prints the medians of the emulator's elapsed
# and CPU time for each binary as the summary prints them, lane-instructions per CPU second
# of each, and the median of the pairs' ratios new/base of CPU time (below 1: the new
# binary is faster) with every pair's ratio. Nothing here asserts a time.
set -euo pipefail
base="${1:-}"; new="${2:-}"
if [ -z "$base" ] || [ -z "$new" ]; then
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2
fi
shift 2
threads=1; reps=7; only=""; modes="run check"
while [ $# -gt 0 ]; do
    case "$1" in
        --threads) threads="$2"; shift ;;
        --reps) reps="$2"; shift ;;
        --only) only="$2"; shift ;;
        --mode) modes="$2"; shift ;;
        *) echo "bench_ab.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift
done
# "LANES/SECONDS/CPU-SECONDS" of the summary's "N lane-instructions [(...)] in S s, C s CPU".
emu() {
    grep -oE "[0-9]+ lane-instructions[^,]* in [0-9.]+ s, [0-9.]+ s CPU" | head -1 |
        awk '{print $1 "/" $(NF-4) "/" $(NF-2)}'
}
echo "$(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), $reps pairs, $threads thread(s)"
printf "%-18s %-5s %8s %8s %8s %8s %9s %9s %8s  %s\n" kernel mode base-s new-s base-cpu new-cpu \
    base-li/s new-li/s new/base "CPU-time ratio of each pair"
while IFS='|' read -r k launch; do
    [ -n "$only" ] && [ "$only" != "$k" ] && continue
    for mode in $modes; do
        list=""
        for _ in $(seq "$reps"); do
            # shellcheck disable=SC2086
            a="$("$base/warpcheck" "$mode" "$base/$k.ptx" $launch --threads "$threads" 2>&1 | emu)"
            # shellcheck disable=SC2086
            b="$("$new/warpcheck" "$mode" "$base/$k.ptx" $launch --threads "$threads" 2>&1 | emu)"
            list="$list $a/$b"
        done
        python3 - "$k" "$mode" $list <<'PY'
import statistics as st, sys
k, mode = sys.argv[1], sys.argv[2]
ps = [list(map(float, p.split("/"))) for p in sys.argv[3:]]
med = lambda i: st.median(p[i] for p in ps)
ratios = [p[5] / p[2] for p in ps]
print(f"{k:<18} {mode:<5} {med(1):8.3f} {med(4):8.3f} {med(2):8.3f} {med(5):8.3f} "
      f"{ps[0][0] / med(2):9.2e} {ps[0][3] / med(5):9.2e} {st.median(ratios):8.3f}  "
      + " ".join(f"{x:.2f}" for x in ratios))
PY
    done
done < "$base/launches.txt"
