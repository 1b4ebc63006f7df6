#!/usr/bin/env bash
# Rodinia 3.1's CUDA applications as whole programs under warpcheck.
#
#   tools/rodinia_programs.sh RODINIA_DIR [APP ...] > table.md
#
# For each application whose inputs are in the repository or made by its own tools, the
# script copies the benchmark into a scratch directory, builds its inputs (nn's
# hurricane_gen; the others make their data from their arguments), runs it with
# `warpcheck run` and `warpcheck check` (program mode: the Makefile's sources, `-D`/`-I`
# flags, and the arguments of its `run` file, smaller where the full size takes minutes in
# the emulator), builds the OpenMP version from `openmp/` with `gcc -fopenmp` and runs it on
# the same inputs, and compares the outputs both print or write (numbers within a relative
# 1e-4, see compare() below). It prints a Markdown table: application, whether it ran,
# whether the output equals the OpenMP version's, the findings of `check`, the times, and
# the reason when an application is not run or not compared.
#
# Applications seeded by the clock (`srand(time(NULL))`) run with `time()` fixed by an
# LD_PRELOAD library built here, so that both versions draw the same numbers.
#
# Environment: WARPCHECK (default: target/release/warpcheck next to this script),
# WORK (scratch directory, default: a fresh mktemp -d), CHECK_TIMEOUT (seconds, default 900).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
ROD=${1:?usage: rodinia_programs.sh RODINIA_DIR [APP ...]}
ROD=$(cd "$ROD" && pwd)
shift
W=${WARPCHECK:-$here/target/release/warpcheck}
WORK=${WORK:-$(mktemp -d /tmp/rodinia-programs.XXXXXX)}
TMO=${CHECK_TIMEOUT:-900}
mkdir -p "$WORK"

# time() fixed at 1: for programs seeded by the clock.
cat > "$WORK/fixtime.c" <<'EOF'
#include <time.h>
time_t time(time_t *t) { if (t) *t = 1; return 1; }
EOF
gcc -shared -fPIC -O2 -o "$WORK/fixtime.so" "$WORK/fixtime.c"

# Compares two outputs token by token: equal words, or numbers within a relative 1e-4
# (absolute 1e-6 near zero). Prints "yes", "yes (±REL)" or "no: FIRST DIFFERENCE".
compare() {
    python3 - "$1" "$2" <<'EOF'
import sys, re
a = open(sys.argv[1], errors="replace").read().split()
b = open(sys.argv[2], errors="replace").read().split()
if len(a) != len(b):
    print(f"no: {len(a)} against {len(b)} words"); sys.exit()
num = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?,?$")
worst = 0.0
for i, (x, y) in enumerate(zip(a, b)):
    if x == y:
        continue
    if num.match(x) and num.match(y):
        fx, fy = float(x.rstrip(",")), float(y.rstrip(","))
        d = abs(fx - fy)
        rel = d / max(abs(fx), abs(fy), 1e-30)
        if d <= 1e-6 or rel <= 1e-4:
            worst = max(worst, rel)
            continue
    print(f"no: word {i}: `{x}` against `{y}`"); sys.exit()
print("yes" if worst == 0 else f"yes (rel. diff. ≤ {worst:.1e})")
EOF
}

# Counts of a JSON report's findings by severity: "2 errors, 1 warning" or "none".
findings() {
    python3 - "$1" <<'EOF'
import sys, json, collections
try:
    doc = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"no report ({e.__class__.__name__})"); sys.exit()
items = doc.get("findings", doc) if isinstance(doc, dict) else doc
c = collections.Counter()
codes = collections.Counter()
for f in items:
    c[f.get("severity", "?")] += 1
    codes[f.get("code", "?")] += 1
if not c:
    print("none"); sys.exit()
parts = [f"{n} {s}" for s, n in sorted(c.items())]
print(", ".join(parts) + " (" + ", ".join(f"{k} ×{n}" for k, n in sorted(codes.items())) + ")")
EOF
}

# --- Recipes -------------------------------------------------------------------------
# Each sets: CU (directory under cuda/), SRC (its sources), OPTS (warpcheck compile
# options), ARGS (program arguments), OUT (what to compare: "stdout" or a file name),
# FILTER (grep -E pattern of output lines to keep: the results, not timings), PRE (a
# command run in the CUDA copy first), OMP (directory under openmp/, empty: none), OMPBUILD
# (build command there, making ./omp_prog), OMPARGS, OMPPRE, OMPSTREAM (err: the OpenMP
# version prints its results on stderr), NORM (a sed expression applied to both outputs:
# the same result spelt differently), TAIL (compare the last N lines only), SORT (1:
# compare the lines as a set, for results printed in no particular order), FIXTIME (1:
# clock fixed), and
# NOTE (what the table says about sizes and comparison).

recipe() {
    CU=; SRC=; OPTS=; ARGS=; OUT=stdout; FILTER='.'; PRE=; OMP=; OMPBUILD=; OMPARGS=; OMPPRE=
    FIXTIME=0; NOTE=; SKIP=; OMPSTREAM=out; NORM=; TAIL=; SORT=
    case $1 in
    backprop)
        CU=backprop; SRC="backprop_cuda.cu backprop.c facetrain.c imagenet.c"; ARGS="65536"
        OMP=backprop; OMPBUILD="gcc -fopenmp -O2 backprop.c facetrain.c imagenet.c backprop_kernel.c -o omp_prog -lm"
        OMPARGS=65536; FILTER='^x'
        NOTE="65,536 input units (the run file: 2,097,152); prints no results, so nothing to compare" ;;
    gaussian)
        CU=gaussian; SRC=gaussian.cu; ARGS="-s 64"; FILTER='^[-0-9. ]+$'
        NOTE="64×64 system made by the program (-s); Rodinia has no OpenMP gaussian" ;;
    lavaMD)
        CU=lavaMD; SRC="kernel/kernel_gpu_cuda_wrapper.cu main.c util/num/num.c util/timer/timer.c util/device/device.cu"
        OPTS="-DOUTPUT"; ARGS="-boxes1d 4"; OUT=result.txt; FIXTIME=1
        OMP=lavaMD; OMPBUILD="gcc -fopenmp -O2 -DOUTPUT main.c kernel/kernel_cpu.c util/num/num.c util/timer/timer.c -o omp_prog -lm"
        OMPARGS="-cores 2 -boxes1d 4"
        NOTE="4×4×4 boxes (the run file: 10); inputs drawn with srand(time(NULL)), clock fixed" ;;
    lud)
        CU=lud; SRC="cuda/lud.cu cuda/lud_kernel.cu common/common.c"; OPTS="-Icommon -DGPU_TIMER"; ARGS="-s 256 -v"
        FILTER='^>>>|[Vv]erif|error|mismatch|Failed|PASS'
        OMP=lud; OMPBUILD="gcc -fopenmp -O2 -Icommon omp/lud.c omp/lud_omp.c common/common.c -o omp_prog -lm"
        OMPARGS="-n 2 -s 256 -v"
        NOTE="256×256 matrix made by the program; both check their own LU product (-v), compared are those lines" ;;
    nn)
        CU=nn; SRC=nn_cuda.cu; ARGS="filelist -r 5 -lat 30 -lng 90"
        PRE="gcc -O2 -o hurricane_gen hurricane_gen.c -lm && mkdir -p data && ./hurricane_gen 10240 4 >/dev/null && ls data/*.db > filelist"
        FILTER='^[0-9]{4} '; NORM='s/Distance=//'; SORT=1; OMP=nn; OMPBUILD="gcc -fopenmp -O2 nn_openmp.c -o omp_prog -lm"; OMPSTREAM=err
        OMPPRE="cp -r ../cuda/data ../cuda/filelist ."; OMPARGS="filelist 5 30 90"
        NOTE="4 files of 2,560 hurricanes from hurricane_gen; the 5 nearest compared as a set (the OpenMP version prints them unsorted)" ;;
    nw)
        CU=nw; SRC=needle.cu; OPTS="-DTRACEBACK"; ARGS="512 10"; OUT=result.txt
        OMP=nw; OMPBUILD="g++ -fopenmp -O2 needle.cpp -o omp_prog"; OMPARGS="512 10 2"
        NOTE="512×512 (the run file: 2048); traceback written by both (-DTRACEBACK)" ;;
    particlefilter)
        CU=particlefilter; SRC=ex_particle_CUDA_float_seq.cu; ARGS="-x 128 -y 128 -z 10 -np 1000"; FIXTIME=1
        FILTER='^XE|^YE'; TAIL=2
        OMP=particlefilter; OMPBUILD="gcc -fopenmp -O2 ex_particle_OPENMP_seq.c -o omp_prog -lm"
        OMPARGS="-x 128 -y 128 -z 10 -np 1000"
        NOTE="the run file's size; seeded by the clock, fixed; the final estimate (the OpenMP version prints one per frame)" ;;
    pathfinder)
        CU=pathfinder; SRC=pathfinder.cu; OPTS="-DBENCH_PRINT"; ARGS="10000 100 20"; FILTER='^[-0-9 ]+$'
        OMP=pathfinder; OMPBUILD="g++ -fopenmp -O2 pathfinder.cpp -o omp_prog"; OMPARGS="10000 100"
        NOTE="10,000 columns (the run file: 100,000); data and result rows printed (-DBENCH_PRINT)" ;;
    srad_v2)
        CU=srad/srad_v2; SRC=srad.cu; OPTS="-DOUTPUT"; ARGS="128 128 0 31 0 31 0.5 2"; FILTER='^[-0-9.eE+ ]+$'
        OMP=srad/srad_v2; OMPBUILD="g++ -fopenmp -O2 -DOUTPUT srad.cpp -o omp_prog -lm"; OMPARGS="128 128 0 31 0 31 2 0.5 2"
        NOTE="128×128, 2 iterations; the image is printed (-DOUTPUT)" ;;
    streamcluster)
        CU=streamcluster; SRC="streamcluster_cuda_cpu.cpp streamcluster_cuda.cu streamcluster_header.cu"
        ARGS="10 20 16 1024 1024 100 none output.txt 1"; OUT=output.txt
        OMP=streamcluster; OMPBUILD="g++ -fopenmp -O2 streamcluster_omp.cpp -o omp_prog -lpthread"
        OMPARGS="10 20 16 1024 1024 100 none output.txt 1"
        NOTE="1,024 points of 16 dimensions drawn by the program (the run file: 65,536 of 256)" ;;
    b+tree) SKIP="its inputs (data/b+tree/mil.txt, command.txt) are not in the repository and no tool there makes them" ;;
    bfs) SKIP="its input graphs (data/bfs) are not in the repository; the generator (data/bfs/inputGen) is not either" ;;
    cfd) SKIP="its meshes (data/cfd/*.domn.*) are not in the repository" ;;
    dwt2d) SKIP="its input image (data/dwt2d/*.bmp) is not in the repository" ;;
    heartwall) SKIP="its input video (data/heartwall/test.avi) is not in the repository" ;;
    hotspot) SKIP="its temperature and power files (data/hotspot) are not in the repository; the generator (data/hotspot/inputGen) is not either" ;;
    hotspot3D) SKIP="its temperature and power files (data/hotspot3D) are not in the repository" ;;
    huffman) SKIP="its input (data/huffman/*.in) is not in the repository" ;;
    hybridsort) SKIP="needs OpenGL headers (GL/glew.h, GL/glut.h) for its host code" ;;
    kmeans) SKIP="its inputs (data/kmeans/kdd_cup, …) are not in the repository; the generator (data/kmeans/inpuGen) is not either" ;;
    leukocyte) SKIP="its input video (data/leukocyte/testfile.avi) is not in the repository" ;;
    mummergpu) SKIP="its genomes (data/mummergpu/*.fna) are not in the repository" ;;
    myocyte) SKIP="its parameter files (data/myocyte/*.txt) are not in the repository" ;;
    srad_v1) SKIP="its input image (data/srad/image.pgm) is not in the repository" ;;
    *) echo "unknown application $1" >&2; return 1 ;;
    esac
}

ALL="b+tree backprop bfs cfd dwt2d gaussian heartwall hotspot hotspot3D huffman hybridsort kmeans lavaMD leukocyte lud mummergpu myocyte nn nw particlefilter pathfinder srad_v1 srad_v2 streamcluster"
APPS=${*:-$ALL}

secs() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$2"; }

run_app() {
    local app=$1 d="$WORK/$1"
    recipe "$app" || return
    if [ -n "$SKIP" ]; then
        echo "| $app | not run | | | | $SKIP |"
        return
    fi
    rm -rf "$d"; mkdir -p "$d"
    cp -r "$ROD/cuda/$CU" "$d/cuda"
    local pre_env=()
    [ "$FIXTIME" = 1 ] && pre_env=(env LD_PRELOAD="$WORK/fixtime.so")
    (cd "$d/cuda" && eval "$PRE") > "$d/pre.log" 2>&1 || { echo "| $app | no | | | | input generation failed: $(tail -1 "$d/pre.log") |"; return; }
    # warpcheck run
    local t0 t1 t2 rc_run rc_check
    t0=$(date +%s.%N)
    (cd "$d/cuda" && timeout "$TMO" "${pre_env[@]}" "$W" run $SRC $OPTS -- $ARGS > ../run.out 2> ../run.err)
    rc_run=$?
    t1=$(date +%s.%N)
    [ "$OUT" != stdout ] && cp "$d/cuda/$OUT" "$d/run.file" 2>/dev/null
    (cd "$d/cuda" && timeout "$TMO" "${pre_env[@]}" "$W" check $SRC $OPTS --format json --output ../check.json -- $ARGS > ../check.out 2> ../check.err)
    rc_check=$?
    t2=$(date +%s.%N)
    local runs="yes"
    [ $rc_run -ne 0 ] && runs="exit $rc_run: $(grep -v '^\s*$' "$d/run.err" | tail -1 | cut -c1-120)"
    local found; found=$(findings "$d/check.json")
    [ $rc_check -eq 124 ] && found="timed out after ${TMO} s"
    # the OpenMP version
    local same="no OpenMP version"
    if [ -n "$OMP" ]; then
        cp -r "$ROD/openmp/$OMP" "$d/omp"
        rm -f "$d/omp/omp_prog"
        if (cd "$d/omp" && eval "$OMPPRE" && eval "$OMPBUILD") > "$d/omp_build.log" 2>&1; then
            (cd "$d/omp" && OMP_NUM_THREADS=2 "${pre_env[@]}" ./omp_prog $OMPARGS > ../omp.out 2> ../omp.err)
            if [ "$OUT" = stdout ]; then
                grep -E "$FILTER" "$d/run.out" > "$d/a.txt"; grep -E "$FILTER" "$d/omp.$OMPSTREAM" > "$d/b.txt"
            else
                cp "$d/run.file" "$d/a.txt" 2>/dev/null || : > "$d/a.txt"; cp "$d/omp/$OUT" "$d/b.txt" 2>/dev/null || : > "$d/b.txt"
            fi
            if [ -n "$NORM" ]; then
                sed -i -E "$NORM" "$d/a.txt" "$d/b.txt"
            fi
            if [ -n "$TAIL" ]; then
                tail -n "$TAIL" "$d/a.txt" > "$d/a.tail"; mv "$d/a.tail" "$d/a.txt"
                tail -n "$TAIL" "$d/b.txt" > "$d/b.tail"; mv "$d/b.tail" "$d/b.txt"
            fi
            if [ -n "$SORT" ]; then
                sort -o "$d/a.txt" "$d/a.txt"; sort -o "$d/b.txt" "$d/b.txt"
            fi
            if [ ! -s "$d/a.txt" ] && [ ! -s "$d/b.txt" ]; then
                same="nothing to compare"
            else
                same=$(compare "$d/a.txt" "$d/b.txt")
            fi
        else
            same="OpenMP build failed: $(tail -1 "$d/omp_build.log" | cut -c1-100)"
        fi
    fi
    echo "| $app | $runs | $same | $found | $(secs "$t0" "$t1") / $(secs "$t1" "$t2") | $NOTE |"
}

echo "| application | runs | output equals OpenMP's | \`check\` findings | time run / check (s) | notes |"
echo "|---|---|---|---|---|---|"
for app in $APPS; do
    run_app "$app"
done
