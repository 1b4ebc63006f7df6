#!/usr/bin/env bash
# Compile every CUDA kernel of the test corpus (tests/kernels/*.cu) to PTX with nvcc.
#
# Usage:  tools/gpu/nvcc_ptx.sh OUT_DIR        (or: OUT_DIR=... tools/gpu/nvcc_ptx.sh)
#
# For each tests/kernels/NAME.cu it runs
#     nvcc -ptx -O3 -lineinfo -arch=sm_80 NAME.cu -o OUT_DIR/NAME.ptx
# (whole programs with a host main() are fine: -ptx keeps only the device code). For each
# "// warpcheck-variant: -DMACRO=VALUE ..." line in a kernel's header it also writes
# OUT_DIR/NAME.MACRO_VALUE.ptx compiled with that definition.
#
# OUT_DIR/VERSIONS.txt records the date, the host, the exact command, `nvcc --version`,
# the GPU name, driver and compute capability from nvidia-smi (when there is a GPU), and
# every failure with nvcc's message. A failure never stops the run: every file is tried.
# Each successful compilation that printed diagnostics is listed with them as well.
#
# Environment: NVCC (default nvcc), ARCH (default sm_80), KERNEL_DIR (default: the
# repository's tests/kernels), EXTRA_NVCC_FLAGS (appended, unquoted).
# Exit status: 0 all compiled, 1 some failed, 2 usage or setup error.
# Needs only bash and coreutils besides nvcc.

set -u

usage() {
    echo "usage: $0 OUT_DIR   (or set OUT_DIR in the environment)" >&2
    exit 2
}

OUT_DIR="${1:-${OUT_DIR:-}}"
[ -n "$OUT_DIR" ] || usage

SCRIPT_DIR="$(cd "$(dirname "$0")" && pwd)"
KERNEL_DIR="${KERNEL_DIR:-$SCRIPT_DIR/../../tests/kernels}"
NVCC="${NVCC:-nvcc}"
ARCH="${ARCH:-sm_80}"
EXTRA_NVCC_FLAGS="${EXTRA_NVCC_FLAGS:-}"

if ! command -v "$NVCC" >/dev/null 2>&1; then
    echo "error: '$NVCC' not found on PATH (set NVCC=/path/to/nvcc)" >&2
    exit 2
fi
if [ ! -d "$KERNEL_DIR" ]; then
    echo "error: kernel directory '$KERNEL_DIR' does not exist (set KERNEL_DIR)" >&2
    exit 2
fi
mkdir -p "$OUT_DIR" || exit 2
OUT_DIR="$(cd "$OUT_DIR" && pwd)"

VERSIONS="$OUT_DIR/VERSIONS.txt"
FAILURES="$(mktemp "${TMPDIR:-/tmp}/nvcc_ptx_failures.XXXXXX")" || exit 2
DIAGNOSTICS="$(mktemp "${TMPDIR:-/tmp}/nvcc_ptx_diagnostics.XXXXXX")" || exit 2
trap 'rm -f "$FAILURES" "$DIAGNOSTICS"' EXIT

{
    echo "# nvcc_ptx.sh"
    echo "date: $(date -u '+%Y-%m-%dT%H:%M:%SZ')"
    echo "host: $(uname -srm 2>/dev/null)"
    echo "kernels: $KERNEL_DIR"
    echo "command: $NVCC -ptx -O3 -lineinfo -arch=$ARCH $EXTRA_NVCC_FLAGS FILE.cu -o OUT_DIR/FILE.ptx"
    echo
    echo "## nvcc --version"
    "$NVCC" --version 2>&1
    echo
    echo "## GPU (nvidia-smi: name, driver_version, compute_cap)"
    if command -v nvidia-smi >/dev/null 2>&1; then
        nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null ||
            nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 ||
            echo "(nvidia-smi failed)"
    else
        echo "(nvidia-smi not found: no GPU on this machine)"
    fi
} >"$VERSIONS"

total=0
failed=0

# compile SOURCE OUTPUT [DEFINE]
compile() {
    local source="$1" output="$2" define="${3:-}"
    local log
    total=$((total + 1))
    # shellcheck disable=SC2086
    if log="$("$NVCC" -ptx -O3 -lineinfo -arch="$ARCH" $EXTRA_NVCC_FLAGS $define "$source" -o "$output" 2>&1)"; then
        if [ -n "$log" ]; then
            printf '### %s %s\n%s\n\n' "$(basename "$source")" "$define" "$log" >>"$DIAGNOSTICS"
        fi
        echo "ok      $(basename "$output")"
    else
        local status=$?
        failed=$((failed + 1))
        rm -f "$output"
        printf '### %s %s (exit status %s)\n%s\n\n' "$(basename "$source")" "$define" "$status" "$log" >>"$FAILURES"
        echo "FAILED  $(basename "$source") $define"
    fi
}

shopt -s nullglob
sources=("$KERNEL_DIR"/*.cu)
if [ ${#sources[@]} -eq 0 ]; then
    echo "error: no .cu files in '$KERNEL_DIR'" >&2
    exit 2
fi

for source in "${sources[@]}"; do
    name="$(basename "$source" .cu)"
    compile "$source" "$OUT_DIR/$name.ptx"

    # Variants declared in the header: "// warpcheck-variant: -DNAME=VALUE <expectations>".
    while IFS= read -r line; do
        define="${line#*warpcheck-variant:}"
        define="${define#"${define%%[![:space:]]*}"}"
        define="${define%%[[:space:]]*}"
        case "$define" in
            -D*) ;;
            *) continue ;;
        esac
        suffix="${define#-D}"
        suffix="${suffix//=/_}"
        suffix="${suffix//[^A-Za-z0-9_]/_}"
        compile "$source" "$OUT_DIR/$name.$suffix.ptx" "$define"
    done < <(grep -E '^//[[:space:]]*warpcheck-variant:' "$source")
done

{
    echo
    echo "## result"
    echo "compiled: $((total - failed)) of $total"
    echo
    echo "## failures ($failed)"
    if [ "$failed" -eq 0 ]; then
        echo "(none)"
    else
        cat "$FAILURES"
    fi
    echo
    echo "## diagnostics of successful compilations"
    if [ -s "$DIAGNOSTICS" ]; then
        cat "$DIAGNOSTICS"
    else
        echo "(none)"
    fi
} >>"$VERSIONS"

echo "compiled $((total - failed)) of $total; see $VERSIONS"
[ "$failed" -eq 0 ]
