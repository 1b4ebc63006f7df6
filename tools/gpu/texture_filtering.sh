#!/usr/bin/env bash
# The weights of linear texture filtering on a GPU against warpcheck's emulator.
#   On the GPU machine: tools/gpu/texture_filtering.sh gpu OUT   (writes OUT/texture_filtering.gpu.txt)
#   Here:               tools/gpu/texture_filtering.sh emu OUT   (writes OUT/texture_filtering.emu.txt
#                       and compares it with OUT/texture_filtering.gpu.txt when present)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mode=${1:?gpu|emu}
out=${2:?OUT}
mkdir -p "$out"
case $mode in
gpu)
    nvcc -O3 -o "$out/tf" "$here/texture_filtering.cu"
    {
        nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/# /'
        nvcc --version | tail -1 | sed 's/^/# /'
        "$out/tf"
    } > "$out/texture_filtering.gpu.txt"
    ;;
emu)
    W=${WARPCHECK:-$here/../../target/release/warpcheck}
    "$W" run "$here/texture_filtering.cu" > "$out/texture_filtering.emu.txt"
    if [ -f "$out/texture_filtering.gpu.txt" ]; then
        if diff <(grep -v '^#' "$out/texture_filtering.gpu.txt") "$out/texture_filtering.emu.txt" > "$out/texture_filtering.diff"; then
            echo "equal: all 1024 x 2 samples"
        else
            echo "differ: $(grep -c '^<' "$out/texture_filtering.diff") lines (see $out/texture_filtering.diff)"
        fi
    fi
    ;;
esac
