#!/usr/bin/env bash
# Hardware anchors for warpcheck's dynamic checkers: what Nsight Compute counts (shared-memory
# wavefronts and bank conflicts, global requests and sectors) and what compute-sanitizer
# reports (racecheck, memcheck, synccheck, initcheck) for every packed corpus launch. Run on
# the GPU machine; the results are committed as tests/gpu-anchors/ (see its README.md).
#
#   warpcheck gpu-pack $(grep -L "warpcheck-gpu: skip" tests/kernels/*.cu) --out PACK   (here)
#   tools/gpu/anchors.sh PACK OUT                                                      (there)
#   tools/gpu/anchors.sh --summarise OUT      (anywhere: rebuild the tables from OUT/raw/)
#
# A unit is one PACK/<stem>/ directory, plus one unit "<stem>.<MACRO>_<VALUE>" for each
# "warpcheck-variant: -DMACRO=VALUE" line of tests/kernels/<stem>.cu (same manifest). For each
# unit it
#   1. assembles the committed PTX tests/nvcc-ptx/<unit>.ptx with `ptxas -arch=sm_XY -O3
#      -lineinfo` and again with `-O0` (sm_XY: the GPU's compute capability), and runs the
#      launcher (tools/gpu/launcher.cu) on each cubin under
#      `ncu --csv --print-units base --print-kernel-base mangled --metrics ...`;
#   2. compiles tests/kernels/<stem>.cu as run_truth.sh does (`nvcc -cubin -O3 -lineinfo
#      -arch=sm_XY`, plus the variant's -D) and runs the launcher under compute-sanitizer
#      with each tool: racecheck twice, once with the default `--racecheck-report analysis`
#      (one record per racing instruction, listing the instructions it races with and their
#      hazard counts; complete) and once with
#      `--racecheck-report hazard` (one record per byte and thread pair; the first 1000
#      only), then memcheck, synccheck and initcheck (the first 10000 records each). For
#      initcheck, buffers declared `:uninit` in the launch lines are left uninitialised
#      (manifest file "-") instead of receiving the packed bytes;
#   3. counts the memory instructions of each cubin's SASS (cuobjdump -sass).
# Every command runs under `timeout 60`; a launch that faults or hangs is recorded in
# OUT/status.tsv and never stops the others. Sanitizer runs go JOBS (default 8) at a time;
# ncu runs one at a time (profiling needs the GPU to itself).
#
# OUT/raw/<unit>/ keeps every log; the summary step turns them into OUT/ncu-ptxas-O3.tsv,
# OUT/ncu-ptxas-O0.tsv, OUT/sanitizer.tsv, OUT/sass-counts.tsv (formats in
# tests/gpu-anchors/README.md). OUT/VERSIONS.txt records the GPU, driver, tool versions and
# commands. Environment: ARCH (default from nvidia-smi), JOBS, UNITS (space-separated unit
# names to restrict the run), STEPS (default "ncu sanitizer sass"), TIMEOUT (default 60).
set -u

# The eight metrics every row has, in column order, then optional ones kept only when this
# GPU's `ncu --query-metrics` lists them.
NCU_METRICS="l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
NCU_EXTRA_METRICS="l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum
l1tex__t_requests_pipe_lsu_mem_global_op_red.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum
smsp__inst_executed_op_shared_ld.sum
smsp__inst_executed_op_shared_st.sum
smsp__inst_executed_op_shared_atom.sum
smsp__inst_executed_op_global_ld.sum
smsp__inst_executed_op_global_st.sum
smsp__inst_executed_op_global_atom.sum
smsp__inst_executed_op_global_red.sum"
SANITIZER_TOOLS="racecheck racecheck-hazard memcheck synccheck initcheck"

# ---------------------------------------------------------------------------------------
# Summaries (pure text processing: bash + awk, so they also run here, without a GPU).

# ncu_table OUT OPT: one row per launch of every unit, from raw/<unit>/ncu-ptxas-OPT.log
# and the unit's manifest copy raw/<unit>/manifest.txt.
ncu_table() {
    local out=$1 opt=$2 metrics
    metrics=$(cat "$out/raw/ncu-metrics.txt" 2>/dev/null || echo "$NCU_METRICS")
    printf 'stem\tlaunch\tkernel'
    printf '\t%s' $metrics
    printf '\tstatus\n'
    local dir unit status
    for dir in "$out"/raw/*/; do
        unit=$(basename "$dir")
        [ -f "$dir/manifest.txt" ] || continue
        status=$(awk -F'\t' -v u="$unit" -v s="ncu-ptxas-$opt" '$1 == u && $2 == s { print ($3 == 0 ? "ok" : "exit " $3 ": " $4) }' "$out/status.tsv" 2>/dev/null | tail -1)
        awk -v unit="$unit" -v metrics="$metrics" -v status="${status:-not run}" '
            # CSV lines of ncu look like "a","b","1,024": split on the quote-comma-quote.
            function fields(line, out,   n) {
                sub(/^"/, "", line); sub(/"\r?$/, "", line)
                n = split(line, out, /","/)
                return n
            }
            FNR == 1 { file++ }
            file == 1 && $1 == "launch" { kernels[nlaunch++] = $2; next }
            file == 2 && /^"/ {
                n = fields($0, f)
                if (!have_header) {
                    for (i = 1; i <= n; i++) col[f[i]] = i
                    have_header = ("ID" in col) && ("Metric Name" in col) && ("Metric Value" in col)
                    next
                }
                if (f[col["ID"]] == "ID") next
                id = f[col["ID"]]; v = f[col["Metric Value"]]; gsub(/,/, "", v)
                if (v !~ /^-?[0-9.]+$/) { v = "NA"; failed[id] = 1 }
                value[id, f[col["Metric Name"]]] = v
                if ("Kernel Name" in col) name[id] = f[col["Kernel Name"]]
                seen[id] = 1
                next
            }
            END {
                m = split(metrics, names, /[ \n]+/)
                for (id = 0; id < nlaunch; id++) {
                    k = (id in name) ? name[id] : kernels[id]
                    row = unit "\t" id "\t" k
                    for (j = 1; j <= m; j++) {
                        if (names[j] == "") continue
                        row = row "\t" (((id, names[j]) in value) ? value[id, names[j]] : "NA")
                    }
                    st = !(id in seen) ? "not profiled (" status ")" : (id in failed) ? "failed (" status ")" : "ok"
                    print row "\t" st
                }
            }' "$dir/manifest.txt" "$dir/ncu-ptxas-$opt.log" 2>/dev/null
    done
}

# sanitizer_table OUT: one row per distinct (stem, tool, kind, detail, location, other
# location) with its count, from raw/<unit>/<tool>.log.
sanitizer_table() {
    local out=$1 dir unit tool
    printf 'stem\ttool\tkind\tdetail\tlocation\tother_location\tcount\n'
    for dir in "$out"/raw/*/; do
        unit=$(basename "$dir")
        for tool in $SANITIZER_TOOLS; do
            [ -f "$dir/$tool.log" ] || continue
            awk -v unit="$unit" -v tool="$tool" '
                BEGIN { weight = 1 }
                # "... in /any/path/file.cu:LINE" (newer) or "... in file.cu:LINE:kernel(...)"
                # (older): the basename and line of a reported location.
                function location(line,   s, parts, n, file) {
                    if (!match(line, / in [^ ]+:[0-9]+/)) return ""
                    s = substr(line, RSTART + 4, RLENGTH - 4)
                    n = split(s, parts, ":")
                    file = parts[1]; sub(/.*\//, "", file)
                    return file ":" parts[2]
                }
                function emit(k, d, l1, l2, w,   key) {
                    key = k "\t" (d == "" ? "-" : d) "\t" (l1 == "" ? "-" : l1) "\t" (l2 == "" ? "-" : l2)
                    if (!(key in count)) order[nkeys++] = key
                    count[key] += w
                }
                # Ends the current record. "Race reported" records (racecheck analysis) emit
                # one row per "and" line as they are read, so they add nothing here.
                function flush() {
                    if (kind != "" && kind != "Race reported") emit(kind, detail, loc1, loc2, weight)
                    kind = ""; detail = ""; accesses = ""; loc1 = ""; loc2 = ""; weight = 1
                }
                /^========= / {
                    body = substr($0, 11)
                    if (body ~ /^[^ ]/) {
                        # A new record or a summary line.
                        flush()
                        if (body ~ /^(ERROR SUMMARY|RACECHECK SUMMARY): /) {
                            # "ERROR SUMMARY: 2 errors", "RACECHECK SUMMARY: 129 hazards displayed
                            # (129 errors, 0 warnings)": kept as a row with the number.
                            kind = substr(body, 1, index(body, ":") - 1)
                            detail = substr(body, index(body, ":") + 2)
                            weight = detail + 0
                            flush()
                            next
                        }
                        if (body ~ /^(COMPUTE-SANITIZER|Target application returned|LEAK SUMMARY)/) next
                        if (body ~ /^(Saved host backtrace|Host Frame|Device Frame)/) next
                        severity = ""
                        if (body ~ /^(Error|ERROR|Warning|WARNING|Info|INFO): /) {
                            severity = tolower(substr(body, 1, index(body, ":") - 1))
                            body = substr(body, index(body, ":") + 2)
                        }
                        # e.g. "Warning: (Warp Level Programming) Potential RAW hazard ..."
                        if (body ~ /^\([^)]*\) /) {
                            severity = severity (severity == "" ? "" : " ") substr(body, 1, index(body, ")"))
                            body = substr(body, index(body, ")") + 2)
                        }
                        if (body ~ /Potential [A-Z]+ hazard detected/) {
                            match(body, /Potential [A-Z]+ hazard/)
                            kind = substr(body, RSTART + 10, RLENGTH - 10)
                            match(body, /at __[a-z]+__/)
                            if (RSTART) kind = kind " at " substr(body, RSTART + 3, RLENGTH - 3)
                            detail = severity
                        } else if (body ~ /^Race reported between/) {
                            # "Race reported between Write access at f+0x310 in x.cu:25", then
                            # one "and Read access at f+0x330 in x.cu:29 [3072 hazards]" line
                            # per conflicting instruction.
                            kind = "Race reported"
                            first = body; sub(/^Race reported between /, "", first); sub(/ access.*/, "", first)
                            loc1 = location(body)
                        } else {
                            kind = body
                            gsub(/0x[0-9a-fA-F]+/, "ADDR", kind)
                            sub(/[ .:]+$/, "", kind)
                            detail = severity
                        }
                        next
                    }
                    # A continuation line of the current record.
                    if (kind == "") next
                    sub(/^ +/, "", body)
                    if (body ~ /^(Saved host backtrace|Host Frame|Device Frame)/) next
                    if (kind == "Race reported") {
                        if (body ~ /^and /) {
                            a = body; sub(/^and /, "", a); sub(/ access.*/, "", a)
                            w = 1
                            if (match(body, /\[[0-9]+ hazards?\]/)) w = substr(body, RSTART + 1, RLENGTH - 1) + 0
                            emit(kind, (severity == "" ? "" : severity " ") first "/" a, loc1, location(body), w)
                        }
                        next
                    }
                    l = location(body)
                    if (l != "" && body ~ /^(at |[A-Za-z]+ [Tt]hread|[A-Za-z]+ access)/) {
                        if (kind ~ /hazard/ && body ~ /[Tt]hread/) {
                            a = body; sub(/ .*/, "", a)
                            accesses = accesses (accesses == "" ? "" : "/") a
                            detail = (severity == "" ? "" : severity " ") accesses
                        }
                        if (loc1 == "") loc1 = l
                        else if (loc2 == "") loc2 = l
                    } else if (body ~ /^(Address|Access at|Access to) [^ ]+ is /) {
                        # "Access to 0x7fd554800fa0 is out of bounds", "Address 0x... is misaligned"
                        a = body; sub(/^(Address|Access at|Access to) [^ ]+ is /, "", a); sub(/[ .]+$/, "", a)
                        gsub(/0x[0-9a-fA-F]+/, "ADDR", a)
                        detail = (detail == "" ? "" : detail ", ") a
                    } else if (body ~ /^and is / && kind !~ /hazard/) {
                        # "and is 1 bytes after the nearest allocation at 0x... of size 4,000 bytes"
                        a = body; sub(/^and is /, "", a); sub(/ at 0x[0-9a-fA-F]+/, "", a); sub(/[ .]+$/, "", a)
                        detail = (detail == "" ? "" : detail ", ") a
                    }
                    next
                }
                END {
                    flush()
                    for (i = 0; i < nkeys; i++) print unit "\t" tool "\t" order[i] "\t" count[order[i]]
                }' "$dir/$tool.log"
        done
    done
}

# sass_table OUT: per cubin and kernel, the static count of each memory instruction
# (opcode with its modifiers) in cuobjdump's SASS listing raw/<unit>/sass-<build>.txt.
sass_table() {
    local out=$1 dir unit file build
    printf 'stem\tbuild\tkernel\tmemory_instructions\n'
    for dir in "$out"/raw/*/; do
        unit=$(basename "$dir")
        for file in "$dir"/sass-*.txt; do
            [ -f "$file" ] || continue
            build=$(basename "$file" .txt); build=${build#sass-}
            awk -v unit="$unit" -v build="$build" '
                function flush(   s, i, n) {
                    if (fn == "") return
                    s = ""
                    for (i = 0; i < nops; i++) s = s (i ? " " : "") ops[i] "=" cnt[ops[i]]
                    print unit "\t" build "\t" fn "\t" (s == "" ? "-" : s)
                    for (i = 0; i < nops; i++) delete cnt[ops[i]]
                    nops = 0
                }
                /Function : / { flush(); fn = $0; sub(/.*Function : /, "", fn); sub(/[ \t]+$/, "", fn); next }
                /\/\*[0-9a-f]+\*\// {
                    line = $0; sub(/^[ \t]*\/\*[0-9a-f]+\*\/[ \t]*/, "", line)
                    sub(/^@!?U?P[T0-9]+ +/, "", line)
                    op = line; sub(/[ ;].*/, "", op)
                    if (op ~ /^(LDS|STS|LDG|STG|LD|ST|ATOMS|ATOMG|ATOM|RED|REDG|LDSM|LDGSTS|LDL|STL)(\.|$)/) {
                        if (!(op in cnt)) ops[nops++] = op
                        cnt[op]++
                    }
                }
                END { flush() }' "$file"
        done
    done
}

summarise() {
    local out=$1
    ncu_table "$out" O3 > "$out/ncu-ptxas-O3.tsv"
    ncu_table "$out" O0 > "$out/ncu-ptxas-O0.tsv"
    sanitizer_table "$out" > "$out/sanitizer.tsv"
    sass_table "$out" > "$out/sass-counts.tsv"
    if [ -f "$out/status.tsv" ]; then
        { printf 'unit\tstep\texit\tnote\tseconds\n'; grep -v '^unit	' "$out/status.tsv" | sort; } > "$out/status.tsv.new" &&
            mv "$out/status.tsv.new" "$out/status.tsv"
    fi
}

if [ "${1:-}" = "--summarise" ]; then
    OUT=${2:?usage: anchors.sh --summarise OUT_DIR}
    summarise "$OUT"
    exit 0
fi

# ---------------------------------------------------------------------------------------
# Collection (on the GPU machine).

PACK=${1:?usage: anchors.sh PACK_DIR OUT_DIR}
OUT=${2:?usage: anchors.sh PACK_DIR OUT_DIR}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PACK=$(cd "$PACK" && pwd) || exit 2
mkdir -p "$OUT/raw" || exit 2
OUT=$(cd "$OUT" && pwd)
TIMEOUT=${TIMEOUT:-60}
JOBS=${JOBS:-8}
STEPS=${STEPS:-ncu sanitizer sass}
if [ -z "${ARCH:-}" ]; then
    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
    ARCH=sm_${cc:-90}
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/wc-anchors.XXXXXX") || exit 2
LAUNCHER=$WORK/launcher
nvcc -O2 -o "$LAUNCHER" "$ROOT/tools/gpu/launcher.cu" -lcuda || { echo "cannot build the launcher" >&2; exit 2; }
: > "$OUT/status.tsv"

# record UNIT STEP EXIT NOTE [SECONDS]: one line of OUT/status.tsv (safe from parallel
# jobs: one short append each).
record() {
    printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$(printf '%s' "$4" | tr '\t\n' '  ' | cut -c1-300)" "${5:--}" >> "$OUT/status.tsv"
}

# The metrics this GPU's ncu knows: the eight always, the extra ones when listed.
metrics=$NCU_METRICS
known=$(ncu --query-metrics 2>/dev/null | awk '{ print $1 }')
for m in $NCU_EXTRA_METRICS; do
    if printf '%s\n' "$known" | grep -qx "${m%.sum}"; then metrics="$metrics
$m"; fi
done
printf '%s\n' "$metrics" > "$OUT/raw/ncu-metrics.txt"
METRICS_CSV=$(printf '%s\n' "$metrics" | paste -sd, -)

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader)"
    echo "arch: $ARCH"
    echo "nvcc: $(nvcc --version | grep release)"
    echo "ptxas: $(ptxas --version | grep release)"
    echo "cuobjdump: $(cuobjdump --version | grep release)"
    echo "ncu: $(ncu --version | tail -1)"
    echo "compute-sanitizer: $(compute-sanitizer --version | grep -i version | tail -1)"
    echo "launcher: nvcc -O2 tools/gpu/launcher.cu -lcuda"
    echo "ptxas build: ptxas -arch=$ARCH -O3 -lineinfo tests/nvcc-ptx/UNIT.ptx -o kernel-ptxas-O3.cubin (and -O0)"
    echo "ncu: timeout $TIMEOUT ncu --csv --print-units base --print-kernel-base mangled --metrics $METRICS_CSV launcher manifest-ptxas-OPT.txt BUFFER_DIR"
    echo "nvcc build: nvcc -cubin -O3 -lineinfo -arch=$ARCH [VARIANT -D] tests/kernels/STEM.cu -o kernel-nvcc-O3.cubin"
    echo "racecheck: timeout $TIMEOUT compute-sanitizer --tool racecheck --racecheck-report analysis --print-limit 10000 launcher manifest-nvcc.txt BUFFER_DIR"
    echo "racecheck-hazard: timeout $TIMEOUT compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 1000 launcher manifest-nvcc.txt BUFFER_DIR"
    echo "memcheck: timeout $TIMEOUT compute-sanitizer --tool memcheck --print-limit 10000 launcher manifest-nvcc.txt BUFFER_DIR"
    echo "synccheck: timeout $TIMEOUT compute-sanitizer --tool synccheck --print-limit 10000 launcher manifest-nvcc.txt BUFFER_DIR"
    echo "initcheck: timeout $TIMEOUT compute-sanitizer --tool initcheck --print-limit 10000 launcher manifest-initcheck.txt BUFFER_DIR (':uninit' buffers not copied in)"
    echo "sass: cuobjdump -sass CUBIN"
} > "$OUT/VERSIONS.txt"

# Units: "unit<TAB>stem<TAB>define" lines.
units() {
    local d stem line define suffix
    for d in "$PACK"/*/; do
        stem=$(basename "$d")
        [ -f "$d/manifest.txt" ] || continue
        printf '%s\t%s\t%s\n' "$stem" "$stem" ""
        [ -f "$ROOT/tests/kernels/$stem.cu" ] || continue
        while IFS= read -r line; do
            define="${line#*warpcheck-variant:}"
            define="${define#"${define%%[![:space:]]*}"}"
            define="${define%%[[:space:]]*}"
            case "$define" in -D*) ;; *) continue ;; esac
            suffix="${define#-D}"; suffix="${suffix//=/_}"; suffix="${suffix//[^A-Za-z0-9_]/_}"
            printf '%s\t%s\t%s\n' "$stem.$suffix" "$stem" "$define"
        done < <(grep -E '^//[[:space:]]*warpcheck-variant:' "$ROOT/tests/kernels/$stem.cu")
    done
}

wanted() {
    [ -z "${UNITS:-}" ] && return 0
    case " $UNITS " in *" $1 "*) return 0 ;; esac
    return 1
}

# prepare UNIT STEM DEFINE: WORK/UNIT/ holds the pack's inputs, the cubins and one manifest
# per build; OUT/raw/UNIT/ the manifest as packed and the build logs.
prepare() {
    local unit=$1 stem=$2 define=$3 w=$WORK/$1 r=$OUT/raw/$1 opt uninit
    mkdir -p "$w" "$r"
    cp "$PACK/$stem"/* "$w/"
    cp "$PACK/$stem/manifest.txt" "$PACK/$stem/buffers.txt" "$r/"
    for opt in O3 O0; do
        if ptxas -arch="$ARCH" -"$opt" -lineinfo "$ROOT/tests/nvcc-ptx/$unit.ptx" -o "$w/kernel-ptxas-$opt.cubin" > "$r/ptxas-$opt.log" 2>&1; then
            rm -f "$r/ptxas-$opt.log"
            sed "s|^module .*|module kernel-ptxas-$opt.cubin|" "$w/manifest.txt" > "$w/manifest-ptxas-$opt.txt"
        else
            record "$unit" "ptxas-$opt" "$?" "$(head -3 "$r/ptxas-$opt.log")"
        fi
    done
    # shellcheck disable=SC2086
    if nvcc -cubin -O3 -lineinfo -arch="$ARCH" $define -o "$w/kernel-nvcc-O3.cubin" "$ROOT/tests/kernels/$stem.cu" > "$r/nvcc.log" 2>&1; then
        rm -f "$r/nvcc.log"
        sed "s|^module .*|module kernel-nvcc-O3.cubin|" "$w/manifest.txt" > "$w/manifest-nvcc.txt"
        # Buffers declared ':uninit' in the launch lines: their indices from buffers.txt.
        uninit=$(grep -hoE -- '--arg +[A-Za-z_][A-Za-z0-9_]*=[a-z0-9]+\[[^]]*\]:uninit' "$ROOT/tests/kernels/$stem.cu" |
            sed -E 's/--arg +([A-Za-z_][A-Za-z0-9_]*)=.*/\1/' | sort -u |
            while read -r name; do awk -v n="$name" '$2 == n { print $1 }' "$w/buffers.txt"; done | paste -sd' ' -)
        awk -v uninit=" $uninit " '$1 == "buffer" && index(uninit, " " $2 " ") { $4 = "-" } { print }' \
            "$w/manifest-nvcc.txt" > "$w/manifest-initcheck.txt"
    else
        record "$unit" nvcc "$?" "$(head -3 "$r/nvcc.log")"
    fi
}

# run_step UNIT STEP LOG COMMAND...: runs COMMAND in WORK/UNIT under the timeout, output to
# LOG, and records the exit status with the launcher's last line.
run_step() {
    local unit=$1 step=$2 log=$3 status note start=$SECONDS
    shift 3
    mkdir -p "$WORK/$unit/out-$step"
    (cd "$WORK/$unit" && timeout -k 5 "$TIMEOUT" "$@") > "$log" 2>&1
    status=$?
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        note="timeout after ${TIMEOUT}s"
    else
        note=$(grep -E '^(ok$|error: )' "$log" | tail -1)
        [ -n "$note" ] || note=$(grep -E '^==ERROR==' "$log" | head -1)
        [ -n "$note" ] || note=$(grep -v '^\(==\|"\)' "$log" | tail -1)
    fi
    record "$unit" "$step" "$status" "$note" "$((SECONDS - start))"
    rm -rf "$WORK/$unit/out-$step"
}

mapfile -t ALL < <(units)
for entry in "${ALL[@]}"; do
    IFS=$'\t' read -r unit stem define <<< "$entry"
    wanted "$unit" || continue
    prepare "$unit" "$stem" "$define" &
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
done
wait
echo "builds done: $(date -u +%T)"

case " $STEPS " in *" ncu "*)
    for entry in "${ALL[@]}"; do
        IFS=$'\t' read -r unit stem define <<< "$entry"
        wanted "$unit" || continue
        for opt in O3 O0; do
            [ -f "$WORK/$unit/manifest-ptxas-$opt.txt" ] || continue
            run_step "$unit" "ncu-ptxas-$opt" "$OUT/raw/$unit/ncu-ptxas-$opt.log" \
                ncu --csv --print-units base --print-kernel-base mangled --metrics "$METRICS_CSV" \
                "$LAUNCHER" "manifest-ptxas-$opt.txt" "out-ncu-ptxas-$opt"
        done
    done
    echo "ncu done: $(date -u +%T)"
;; esac

case " $STEPS " in *" sanitizer "*)
    running=0
    for entry in "${ALL[@]}"; do
        IFS=$'\t' read -r unit stem define <<< "$entry"
        wanted "$unit" || continue
        [ -f "$WORK/$unit/manifest-nvcc.txt" ] || continue
        for tool in $SANITIZER_TOOLS; do
            manifest=manifest-nvcc.txt
            options=(--tool "$tool" --print-limit 10000)
            case $tool in
                racecheck) options=(--tool racecheck --racecheck-report analysis --print-limit 10000) ;;
                racecheck-hazard) options=(--tool racecheck --racecheck-report hazard --print-limit 1000) ;;
                initcheck) manifest=manifest-initcheck.txt ;;
            esac
            run_step "$unit" "$tool" "$OUT/raw/$unit/$tool.log" \
                compute-sanitizer "${options[@]}" "$LAUNCHER" "$manifest" "out-$tool" &
            running=$((running + 1))
            if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
        done
    done
    wait
    echo "sanitizer done: $(date -u +%T)"
;; esac

case " $STEPS " in *" sass "*)
    for entry in "${ALL[@]}"; do
        IFS=$'\t' read -r unit stem define <<< "$entry"
        wanted "$unit" || continue
        for build in ptxas-O3 ptxas-O0 nvcc-O3; do
            [ -f "$WORK/$unit/kernel-$build.cubin" ] || continue
            cuobjdump -sass "$WORK/$unit/kernel-$build.cubin" > "$OUT/raw/$unit/sass-$build.txt" 2>&1
        done
    done
;; esac

summarise "$OUT"
rm -rf "$WORK"
awk -F'\t' 'NR > 1 && $3 != 0 { bad++ } END { printf "%d steps, %d with a non-zero exit status (see status.tsv)\n", NR - 1, bad }' "$OUT/status.tsv"
