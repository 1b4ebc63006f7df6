#!/bin/sh
# Regenerates the clang PTX samples in crates/ptx/tests/data/clang/ from the CUDA snippets in
# crates/ptx/tests/data/cuda/. Usage: sh gen.sh OUTDIR
set -e
out=${1:-.}
dir=$(dirname "$0")
for src in "$dir"/*.cu; do
  base=$(basename "$src" .cu)
  for cc in clang-14 clang-19; do
    ccbin=$cc; [ "$cc" = clang-14 ] && ccbin=clang
    for opt in O0 O3; do
      for dbg in gline-tables-only g; do
        tag=$dbg; [ "$dbg" = gline-tables-only ] && tag=lines
        ptx=ptx70; [ "$cc" = clang-19 ] && ptx=ptx83
        extra="-Xclang -target-feature -Xclang +$ptx"
        "$ccbin" $extra -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 \
          -$opt -$dbg -S -o "$out/$base.$cc.$opt.$tag.ptx" "$src"
      done
    done
  done
done
