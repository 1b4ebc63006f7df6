#!/usr/bin/env bash
# Per-checker cost: for each benchmark kernel, the user CPU time of `warpcheck
# run` and of `warpcheck check --tool T` for each tool alone and all together, on one
# host thread, the fastest of N repeats. Where the overhead goes, tool by tool.
#
#   tools/bench_tools.sh DIR [--repeat N] [--jobs J] [--only KERNEL] [--bin PATH]
#
# DIR is prepared by `tools/bench_pairs.sh prepare DIR`. --jobs runs that many
# measurements at once (on a machine with idle cores; each is single-threaded). --bin
# measures another binary on the same PTX (an A/B comparison). Nothing here asserts a time.
set -euo pipefail
dir="${1:-}"
[ -z "$dir" ] && { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
shift
repeat=3; jobs=1; only=""; bin="$dir/warpcheck"
while [ $# -gt 0 ]; do
    case "$1" in
        --repeat) repeat="$2"; shift ;;
        --jobs) jobs="$2"; shift ;;
        --only) only="$2"; shift ;;
        --bin) bin="$2"; shift ;;
        *) echo "bench_tools.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift
done
tools="run race sync mem init bank coalesce all"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
echo "$(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), $bin, fastest of $repeat, $jobs at once"
# One line per measurement: kernel tool repeat; run through xargs -P.
while IFS='|' read -r k launch; do
    [ -n "$only" ] && [ "$only" != "$k" ] && continue
    echo "$launch" > "$work/$k.launch"
    for t in $tools; do for r in $(seq "$repeat"); do echo "$k $t $r"; done; done
done < "$dir/launches.txt" > "$work/jobs"
measure() {
    local k="$1" t="$2" r="$3" launch
    launch="$(cat "$work/$k.launch")"
    if [ "$t" = run ]; then set -- run; else set -- check --tool "$t"; fi
    # shellcheck disable=SC2086
    /usr/bin/time -o "$work/$k.$t.$r" -f %U "$bin" "$1" "$dir/$k.ptx" ${@:2} $launch --threads 1 >/dev/null 2>&1 || true
}
export -f measure; export work bin dir
xargs -P "$jobs" -L 1 bash -c 'measure $0 $1 $2' < "$work/jobs"
printf "%-18s" kernel; for t in $tools; do printf " %8s" "$t"; done; echo "   all/run"
for k in $(cut -d' ' -f1 "$work/jobs" | uniq); do
    printf "%-18s" "$k"
    for t in $tools; do
        printf " %8s" "$(for r in $(seq "$repeat"); do tail -1 "$work/$k.$t.$r"; done | sort -g | head -1)"
    done
    python3 -c "import sys; print('   %.2f' % (float(sys.argv[2]) / float(sys.argv[1])))" \
        "$(for r in $(seq "$repeat"); do tail -1 "$work/$k.run.$r"; done | sort -g | head -1)" \
        "$(for r in $(seq "$repeat"); do tail -1 "$work/$k.all.$r"; done | sort -g | head -1)"
done
