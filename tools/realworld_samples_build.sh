#!/usr/bin/env bash
# Which of NVIDIA's cuda-samples build under warpcheck: every sample of
# Samples/0_Introduction, Samples/2_Concepts_and_Techniques and Samples/3_CUDA_Features is
# built, unmodified, as a whole program (`warpcheck run --build-only`: the device side to
# PTX that parses and lowers, the host side compiled and linked with warpcheck's CUDA
# runtime) with `--compiler nvcc`, and also with the clang route (CLANG=0 leaves that out).
# Nothing runs. Prints the Markdown table of docs/SAMPLES.md and the total time.
#
#   tools/realworld_samples_build.sh SAMPLES_DIR [SAMPLE...]
#
# SAMPLES_DIR is a checkout of github.com/NVIDIA/cuda-samples. Each sample's sources,
# include directories, libraries and packages are read from its own CMakeLists.txt
# (`add_executable`, `include_directories`, `target_include_directories`,
# `target_link_libraries`, `find_package`); the `--extended-lambda` of its CUDA options is
# passed to nvcc. Samples that need graphics (OpenGL, GLUT, EGL, Vulkan), MPI or two GPUs
# are listed with that reason and not built. With SAMPLE names only those are built.
# TIMEOUT (seconds, default 600) bounds each build.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
samples="${1:?usage: tools/realworld_samples_build.sh SAMPLES_DIR [SAMPLE...]}"
shift
samples="$(cd "$samples" && pwd)"
warpcheck="${WARPCHECK:-$root/target/release/warpcheck}"
timeout_s="${TIMEOUT:-600}"
clang_route="${CLANG:-1}"
[ -x "$warpcheck" ] || { echo "no warpcheck at $warpcheck (cargo build --release -p warpcheck)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Samples whose own code waives without two GPUs (peer-to-peer copies between devices).
two_gpus="simpleP2P streamOrderedAllocationP2P EGLStream_CUDA_CrossGPU"

# One line per sample: name|directory|sources|include dirs|libraries|packages|nvcc flags,
# from its CMakeLists.txt (the first add_executable; paths relative to the sample).
python3 - "$samples" >"$work/list" <<'PY'
import os, re, sys
root = sys.argv[1]
for group in ("0_Introduction", "2_Concepts_and_Techniques", "3_CUDA_Features"):
    base = os.path.join(root, "Samples", group)
    for name in sorted(os.listdir(base), key=str.lower):
        d = os.path.join(base, name)
        cmake = os.path.join(d, "CMakeLists.txt")
        if not os.path.isfile(cmake):
            continue
        text = re.sub(r"#[^\n]*", "", open(cmake).read())
        exe = re.search(r"add_executable\(\s*\S+\s+([^)]*)\)", text)
        sources = [s for s in (exe.group(1).split() if exe else [])
                   if s.endswith((".cu", ".cpp", ".cc", ".c"))]
        includes = []
        for m in re.finditer(r"(?:target_)?include_directories\(([^)]*)\)", text):
            for word in m.group(1).split():
                word = word.replace("${CMAKE_CURRENT_SOURCE_DIR}", d)
                if "$" in word or word in ("PUBLIC", "PRIVATE", "INTERFACE") or word == name:
                    continue
                path = os.path.normpath(os.path.join(d, word))
                if os.path.isdir(path) and path not in includes:
                    includes.append(path)
        libs = []
        for m in re.finditer(r"target_link_libraries\(([^)]*)\)", text):
            libs += [w for w in m.group(1).split() if w.startswith(("CUDA::", "OpenMP::"))]
        packages = sorted(set(re.findall(r"find_package\((\w+)", text)) - {"CUDAToolkit"})
        flags = "--extended-lambda" if "--extended-lambda" in text else ""
        print("|".join([name, f"{group}/{name}", " ".join(sources), " ".join(includes),
                        " ".join(dict.fromkeys(libs)), " ".join(packages), flags]))
PY

# Whether sample $1 is among the names that follow (all when none follow).
wanted() {
  [ $# -le 1 ] && return 0
  local n
  for n in "${@:2}"; do [ "$n" = "$1" ] && return 0; done
  return 1
}

# Why a sample is not built: its packages or GPUs ($1 name, $2 packages); empty to build it.
not_built() {
  local p need=""
  for p in $2; do
    case "$p" in
      OpenGL) need+="${need:+, }OpenGL" ;;
      GLUT) need+="${need:+, }GLUT" ;;
      EGL) need+="${need:+, }EGL" ;;
      Vulkan) need+="${need:+, }Vulkan" ;;
      MPI) need+="${need:+, }MPI" ;;
    esac
  done
  case " $two_gpus " in *" $1 "*) need+="${need:+, }2 GPUs" ;; esac
  [ -n "$need" ] && echo "needs $need"
}

# The reason a build failed, from warpcheck's stderr ($1): the missing API functions,
# headers or libraries, else the first error line.
reason() {
  python3 - "$1" <<'PY'
import re, sys
err = open(sys.argv[1], errors="replace").read()
m = re.search(r"the program calls (.*?), which warpcheck's runtime does not implement", err)
if m:
    names = m.group(1).split(", ")
    kinds = []
    for prefix, what in (("nvrtc", "NVRTC"), ("curand", "cuRAND"), ("cufft", "cuFFT"),
                         ("cusolver", "cuSOLVER"), ("cusparse", "cuSPARSE"), ("nvjpeg", "nvJPEG")):
        if any(n.startswith(prefix) for n in names):
            kinds.append(what)
    if any(re.match(r"cu[A-Z]", n) for n in names):
        kinds.append("driver API")
    shown = ", ".join(f"`{n}`" for n in names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
    label = f" ({', '.join(kinds)})" if kinds else ""
    print(f"calls {shown}{label}, which warpcheck's runtime does not implement")
    sys.exit()
m = re.search(r"fatal error: ([\w/.]+): No such file", err)
if m:
    print(f"includes `{m.group(1)}`, which neither the NVIDIA wheels nor warpcheck provide")
    sys.exit()
if "relocatable device code" in err:
    print("needs relocatable device code (-rdc=true: dynamic parallelism or separate compilation), which warpcheck does not support")
    sys.exit()
if "requires separate compilation mode" in err or "in __global__ function" in err and "reference to __global__ function" in err:
    print("launches kernels from device code (dynamic parallelism), which needs relocatable device code; warpcheck does not support it")
    sys.exit()
lines = [l for l in err.splitlines()
         if not re.match(r"error: .*(failed:|failed to compile .*)$", l) and not l.startswith("command: ")]
for pattern in (r"error(?:\[[\w-]+\])?: .*", r"\berror\b.*", r"\S.*"):
    m = next((re.search(pattern, l) for l in lines if re.search(pattern, l)), None)
    if m:
        line = re.sub(r"/\S*/", "", m.group(0))
        line = re.sub(r"\s+", " ", line).strip().replace("|", "\\|")
        print(f"`{line[:150]}`")
        sys.exit()
print("no message")
PY
}

# Builds sample $1 with --compiler $2 ($3 sources, $4 includes, $5 libraries, $6 flags,
# $7 its directory); prints "yes" or "no: REASON" and leaves the seconds in $work/seconds.
build() {
  local opts=() w lib start end rc
  for w in $4; do opts+=(-I "$w"); done
  for lib in $5; do
    case "$lib" in
      # The libraries warpcheck lacks (the driver, NVRTC, cuRAND …) are left off the link
      # line, so that the link names the functions the sample calls in them.
      OpenMP::*) opts+=(-l gomp -X "$([ "$2" = nvcc ] && echo -Xcompiler=-fopenmp || echo -fopenmp=libgomp)") ;;
    esac
  done
  [ "$2" = nvcc ] && [ -n "$6" ] && opts+=(-X "$6")
  start=$(date +%s.%N)
  # shellcheck disable=SC2086 # the source list splits on spaces
  (cd "$7" && timeout --signal=TERM "$timeout_s" "$warpcheck" run --build-only \
    --compile-timeout "$timeout_s" --compiler "$2" $3 -I "$samples/Common" "${opts[@]}" >"$work/out" 2>"$work/err")
  rc=$?
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.0f", e - s }' >"$work/seconds"
  if [ $rc -eq 0 ]; then
    echo "yes"
  elif [ $rc -eq 124 ]; then
    echo "no: the build took over $timeout_s s"
  else
    echo "no: $(reason "$work/err")"
  fi
}

echo "| sample | directory | builds (\`--compiler nvcc\`) | reason | nvcc build | clang route |"
echo "|---|---|---|---|---|---|"
total_start=$(date +%s)
count=0
built=0
listed=0
while IFS='|' read -r name dir sources includes libs packages flags; do
  wanted "$name" "$@" || continue
  count=$((count + 1))
  why="$(not_built "$name" "$packages")"
  if [ -n "$why" ]; then
    listed=$((listed + 1))
    echo "| $name | $dir | no | $why | | |"
    continue
  fi
  nvcc="$(build "$name" nvcc "$sources" "$includes" "$libs" "$flags" "$samples/Samples/$dir")"
  nvcc_time="$(cat "$work/seconds") s"
  clang="not built (CLANG=0)"
  if [ "$clang_route" = 1 ]; then
    clang="$(build "$name" clang "$sources" "$includes" "$libs" "$flags" "$samples/Samples/$dir")"
  fi
  if [ "$nvcc" = yes ]; then
    built=$((built + 1))
    echo "| $name | $dir | yes | | $nvcc_time | $clang |"
  else
    echo "| $name | $dir | no | ${nvcc#no: } | $nvcc_time | $clang |"
  fi
done <"$work/list"
total=$(($(date +%s) - total_start))
printf '\n%d samples: %d build with `--compiler nvcc`, %d not built (graphics, MPI, 2 GPUs), %d fail; %d s in all.\n' \
  "$count" "$built" "$listed" "$((count - built - listed))" "$total"
