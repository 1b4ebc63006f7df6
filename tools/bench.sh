#!/usr/bin/env bash
# Emulator benchmarks, through the release CLI.
#
#   tools/bench.sh [emu] [--check] [--threads "1 2"] [--only NAME] [--repeat N] [--wait-idle]
#   tools/bench.sh oclgrind [--threads "1 2"] [--repeat N] [--wait-idle]
#   tools/bench.sh all ...            (both)
#
# emu: runs every benches/kernels/*.cu with `warpcheck run FILE --from-header --threads T`
#   (the launch of the file's `// warpcheck-launch:` line) for each T of --threads (default:
#   1 and every core) and prints one table row per run: lane-instructions, the emulator's
#   time and lane-instructions/s as the CLI prints them, the process's wall time (compile,
#   argument set-up and the output summary included), its peak resident memory ("Maximum
#   resident set size" of GNU time; the clang compile alone takes about 100 MB, so that is
#   the floor), the bytes of the launch's buffers and the load average before the run.
#   --check adds `warpcheck check FILE --from-header` (same options): the emulator's time
#   under the checkers, its ratio to `run`'s and the command's wall time, if the binary
#   has a `check` command; otherwise it says so and leaves those columns out.
# oclgrind: runs benches/opencl/{matmul_tiled,vector_add} with oclgrind-kernel (the .sim
#   files) and with `warpcheck run FILE.cl --from-header` on the same sizes and inputs and
#   prints both times and their ratio. Oclgrind is installed with apt if missing.
#
# --repeat N keeps the fastest of N runs (the machine is shared; the fastest is the least
# disturbed). --wait-idle waits before each run (up to two minutes) until 90% of the
# machine is idle; every row shows the load average and idle share seen before its run.
# --no-build uses the release binary as it is; WARPCHECK=path uses that binary instead of
# building one. The build goes to $CARGO_TARGET_DIR (default target/). Nothing here asserts
# a time: it prints figures.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

mode=emu
want_check=0
threads_list=""
only=""
repeat=1
build=1
wait_idle=0
while [ $# -gt 0 ]; do
    case "$1" in
        emu | oclgrind | all) mode="$1" ;;
        --check) want_check=1 ;;
        --threads) threads_list="$2"; shift ;;
        --only) only="$2"; shift ;;
        --repeat) repeat="$2"; shift ;;
        --no-build) build=0 ;;
        --wait-idle) wait_idle=1 ;;
        -h | --help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench.sh: unknown argument '$1' (see tools/bench.sh --help)" >&2; exit 2 ;;
    esac
    shift
done
cores="$(nproc)"
if [ -z "$threads_list" ]; then
    threads_list="1"
    [ "$cores" -gt 1 ] && threads_list="1 $cores"
fi

# Runs apt-get as root, or through sudo.
apt_install() {
    if [ "$(id -u)" = 0 ]; then
        apt-get install -y "$@"
    else
        sudo apt-get install -y "$@"
    fi
}

if [ ! -x /usr/bin/time ]; then
    echo "bench.sh: GNU time (/usr/bin/time) is missing; installing it: apt-get install -y time" >&2
    apt_install time >&2
fi

TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
binary_label="commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
[ -n "${WARPCHECK:-}" ] && binary_label="binary $WARPCHECK"
if [ -z "${WARPCHECK:-}" ]; then
    WARPCHECK="$TARGET/release/warpcheck"
    if [ "$build" = 1 ]; then
        echo "bench.sh: building the release CLI (cargo build --release -p warpcheck)" >&2
        cargo build --release --quiet -p warpcheck
    fi
fi
if [ ! -x "$WARPCHECK" ]; then
    echo "bench.sh: no warpcheck binary at $WARPCHECK" >&2
    exit 2
fi

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# The one-minute load average.
load() { cut -d' ' -f1 /proc/loadavg; }

# Percent of all cores idle over the next second (from /proc/stat: idle + iowait).
idle_percent() {
    local a b
    a="$(head -n1 /proc/stat)"
    sleep 1
    b="$(head -n1 /proc/stat)"
    echo "$a $b" | awk '{ for (i = 2; i <= 11; i++) { t0 += $i; t1 += $(i + 11) }
                          idle = ($(16) + $(17)) - ($5 + $6)
                          printf "%.0f\n", 100 * idle / ((t1 - t0) > 0 ? t1 - t0 : 1) }'
}

# With --wait-idle: waits (at most two minutes) until at least 90% of the machine is idle,
# so that other jobs disturb the figures less. Prints the idle percentage it saw last.
settle() {
    local idle waited=0
    idle="$(idle_percent)"
    while [ "$wait_idle" = 1 ] && [ "$idle" -lt 90 ] && [ "$waited" -lt 120 ]; do
        sleep 2
        waited=$((waited + 3))
        idle="$(idle_percent)"
    done
    echo "$idle"
}

# measure NAME COMMAND...: runs COMMAND (stdout to $scratch/NAME.out, stderr to
# $scratch/NAME.err) under GNU time, --repeat times, and leaves the fastest run's wall
# seconds, peak RSS in KiB and user and system CPU seconds in $scratch/NAME.time
# ("WALL RSS USER SYS"), its output in $scratch/NAME.out and the load before it in
# $scratch/NAME.load ("LOADAVG/IDLE%": the one-minute load average and the share of the
# machine idle in the second before). Returns the command's exit status.
measure() {
    local name="$1"
    shift
    local best="" i rc=0
    for ((i = 0; i < repeat; i++)); do
        local before idle
        idle="$(settle)"
        before="$(load)/$idle%"
        rc=0
        /usr/bin/time -f '%e %M %U %S' -o "$scratch/try.time" "$@" \
            >"$scratch/try.out" 2>"$scratch/try.err" || rc=$?
        if [ "$rc" != 0 ] && [[ " ${ok_status:-0} " != *" $rc "* ]]; then
            cp "$scratch/try.out" "$scratch/$name.out"
            cp "$scratch/try.err" "$scratch/$name.err"
            return "$rc"
        fi
        local wall
        wall="$(tail -n1 "$scratch/try.time" | cut -d' ' -f1)"
        if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN { exit !(a < b) }'; then
            best="$wall"
            tail -n1 "$scratch/try.time" >"$scratch/$name.time"
            cp "$scratch/try.out" "$scratch/$name.out"
            cp "$scratch/try.err" "$scratch/$name.err"
            echo "$before" >"$scratch/$name.load"
        fi
    done
}

# From a `warpcheck run` output: "LANE_INSTRUCTIONS EMULATOR_SECONDS" summed over the
# launches ("  ran N lane-instructions (M warp-instructions) in S s: R lane-instructions/s").
emu_figures() {
    awk '$1 == "ran" && $3 == "lane-instructions" { n += $2; s += $(NF - 3) }
         END { printf "%.0f %.3f\n", n, s }' "$1"
}

# From a `warpcheck check` output: the emulator's seconds under the checkers, summed over
# the kernels of the summary ("  KERNEL: 1 launch(es), B blocks, N lane-instructions in S s; …").
check_seconds() {
    grep -oE '[0-9]+ lane-instructions in [0-9.]+ s' "$1" |
        awk '{ s += $4 } END { printf "%.3f\n", s }'
}

# Bytes of the launch's buffers, from the argument lines "  NAME = TYPE[COUNT]:INIT".
buffer_bytes() {
    awk '$2 == "=" && match($3, /^[a-z]+[0-9]+\[[0-9]+\]/) {
             spec = substr($3, 1, RLENGTH); type = spec; sub(/\[.*/, "", type)
             count = spec; sub(/^[^[]*\[/, "", count); sub(/\]/, "", count)
             bits = type; gsub(/[a-z]/, "", bits)
             total += count * bits / 8
         }
         END { printf "%.0f\n", total }' "$1"
}

mib() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1048576 }'; }

run_emu() {
    local check_col=0
    if [ "$want_check" = 1 ]; then
        if "$WARPCHECK" check --help >/dev/null 2>&1; then
            check_col=1
        else
            echo "bench.sh: this warpcheck has no \`check\` command yet; skipping the checker-overhead column" >&2
        fi
    fi
    # Each benchmark and the buffer whose summary is printed (the result; summarising
    # every input too would add a copy of each to the peak memory).
    local benches=(
        "sgemm_tiled:c"
        "vector_add:out"
        "reduce_tree:partials"
        "scan_blelloch:output"
        "histogram_shared:histogram"
        "stencil_5point:next"
    )
    echo
    echo "Emulator benchmarks: $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'), $binary_label, repeat $repeat"
    local header="%-17s %3s %11s %7s %11s %7s %7s %7s %7s %9s"
    # shellcheck disable=SC2059
    printf "$header" kernel thr lane-inst emu-s lane-inst/s wall-s cpu-s rss-MiB buf-MiB load/idle
    [ "$check_col" = 1 ] && printf " %9s %7s %8s %7s %9s" chk-emu-s chk/run chk-wall chk-rss load/idle
    echo
    local entry name out file t
    for entry in "${benches[@]}"; do
        name="${entry%%:*}"
        out="${entry##*:}"
        [ -n "$only" ] && [ "$only" != "$name" ] && continue
        file="benches/kernels/$name.cu"
        for t in $threads_list; do
            if ! measure run "$WARPCHECK" run "$file" --from-header --threads "$t" --dump "$out"; then
                echo "$name: warpcheck run failed:" >&2
                cat "$scratch/run.err" >&2
                continue
            fi
            local figures lanes secs wall rss user sys
            figures="$(emu_figures "$scratch/run.out")"
            lanes="${figures%% *}"
            secs="${figures##* }"
            read -r wall rss user sys <"$scratch/run.time"
            # shellcheck disable=SC2059
            printf "$header" "$name" "$t" "$lanes" "$secs" \
                "$(awk -v n="$lanes" -v s="$secs" 'BEGIN { printf "%.2e", n / (s > 0 ? s : 1e-9) }')" \
                "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')" \
                "$((rss / 1024))" "$(mib "$(buffer_bytes "$scratch/run.out")")" \
                "$(cat "$scratch/run.load")"
            if [ "$check_col" = 1 ]; then
                # `check` exits with 1 when it reports findings: that is a result, not a failure.
                if ok_status="0 1" measure check "$WARPCHECK" check "$file" --from-header --threads "$t"; then
                    local cwall crss csecs
                    read -r cwall crss _ <"$scratch/check.time"
                    csecs="$(check_seconds "$scratch/check.out")"
                    printf " %9s %7s %8s %7s %9s" "$csecs" \
                        "$(awk -v c="$csecs" -v r="$secs" 'BEGIN { printf "%.1fx", c / (r > 0 ? r : 1e-9) }')" \
                        "$cwall" "$((crss / 1024))" "$(cat "$scratch/check.load")"
                else
                    printf " %9s %7s %8s %7s %9s" "failed" "-" "-" "-" "-"
                    sed 's/^/    check: /' "$scratch/check.err" | head -5 >&2
                fi
            fi
            echo
        done
    done
    echo "emu-s and lane-inst/s: the emulator alone, as \`warpcheck run\` prints them. wall-s and"
    echo "cpu-s (user + system): the whole command, clang compile, inputs and output summary included."
    echo "rss: peak resident memory of the largest process (clang alone: about 100 MiB). buf: the"
    echo "launch's buffers. load/idle: one-minute load average / % of the machine idle just before."
    if [ "$check_col" = 1 ]; then
        echo "chk-emu-s: the emulator's time under every checker (\`warpcheck check\`'s summary);"
        echo "chk/run = chk-emu-s / emu-s; chk-wall and chk-rss: the whole \`check\` command."
    fi
}

run_oclgrind() {
    if ! command -v oclgrind-kernel >/dev/null 2>&1; then
        echo "bench.sh: oclgrind-kernel is missing; installing it: apt-get install -y oclgrind" >&2
        apt_install oclgrind >&2
    fi
    echo
    echo "Oclgrind $(oclgrind-kernel --version 2>/dev/null | awk '/Oclgrind/ { print $2; exit }') vs warpcheck, same kernels and sizes: $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'), $binary_label, repeat $repeat"
    local header="%-13s %3s %10s %7s %9s %11s %11s %7s %9s %9s %10s %10s %9s"
    # shellcheck disable=SC2059
    printf "$header\n" kernel thr oclgrind-s cpu-s load/idle cold-wc-s warpcheck-s emu-s lane-inst load/idle cold-ratio wall-ratio emu-ratio
    local name t
    for name in matmul_tiled vector_add; do
        for t in $threads_list; do
            if ! (cd benches/opencl && measure ocl oclgrind-kernel --num-threads "$t" "$name.sim"); then
                echo "$name: oclgrind-kernel failed:" >&2
                cat "$scratch/ocl.err" >&2
                continue
            fi
            local out=c
            [ "$name" = vector_add ] && out=out
            # Cold: compiled afresh (--no-cache); then warm: a first run fills the cache.
            measure wcc "$WARPCHECK" run "benches/opencl/$name.cl" --from-header --threads "$t" --dump "$out" --no-cache || true
            "$WARPCHECK" run "benches/opencl/$name.cl" --from-header --threads "$t" >/dev/null 2>&1 || true
            if ! measure wc "$WARPCHECK" run "benches/opencl/$name.cl" --from-header --threads "$t" --dump "$out"; then
                echo "$name: warpcheck run failed:" >&2
                cat "$scratch/wc.err" >&2
                continue
            fi
            local owall orss ouser osys wwall wrss figures lanes secs
            read -r owall orss ouser osys <"$scratch/ocl.time"
            read -r wwall wrss _ <"$scratch/wc.time"
            local cwall
            read -r cwall _ <"$scratch/wcc.time"
            figures="$(emu_figures "$scratch/wc.out")"
            lanes="${figures%% *}"
            secs="${figures##* }"
            # shellcheck disable=SC2059
            printf "$header\n" "$name" "$t" "$owall" \
                "$(awk -v u="$ouser" -v s="$osys" 'BEGIN { printf "%.2f", u + s }')" \
                "$(cat "$scratch/ocl.load")" "$cwall" "$wwall" "$secs" \
                "$lanes" "$(cat "$scratch/wc.load")" \
                "$(awk -v o="$owall" -v w="$cwall" 'BEGIN { printf "%.0fx", o / w }')" \
                "$(awk -v o="$owall" -v w="$wwall" 'BEGIN { printf "%.0fx", o / w }')" \
                "$(awk -v o="$owall" -v w="$secs" 'BEGIN { printf "%.0fx", o / (w > 0 ? w : 1e-9) }')"
        done
    done
    echo "oclgrind-s: oclgrind-kernel --num-threads T FILE.sim, whole process (it compiles the .cl"
    echo "too; cpu-s: its user + system CPU seconds). warpcheck-s: warpcheck run FILE.cl"
    echo "--from-header --threads T, whole process, compile cache warm (cold-wc-s: the same"
    echo "with --no-cache, compiling afresh); emu-s: its emulator alone. cold-ratio ="
    echo "oclgrind-s / cold-wc-s; wall-ratio = oclgrind-s / warpcheck-s; emu-ratio = oclgrind-s / emu-s."
}

case "$mode" in
    emu) run_emu ;;
    oclgrind) run_oclgrind ;;
    all) run_emu; run_oclgrind ;;
esac
