#!/usr/bin/env bash
# How karpathy/llm.c's dev/cuda kernels fare with NVIDIA's nvcc from the pip wheels
# (tools/setup.sh installs them): for each dev/cuda/*.cu, whether `warpcheck ptx FILE
# --compiler nvcc` compiles it, whether warpcheck's parser reads the PTX (`warpcheck ptx
# --check`), whether it lowers into the IR (`warpcheck ir`), and which PTX instructions the
# IR does not support yet, counted per instruction. Prints the Markdown of docs/REALWORLD.md.
#
#   tools/realworld_llmc.sh LLMC_CHECKOUT [WORK_DIR]
#
# LLMC_CHECKOUT is a checkout (or `git archive` export) of github.com/karpathy/llm.c. Every
# file includes dev/cuda/common.h, which includes <cublas_v2.h> and <cublasLt.h>: their
# headers come from NVIDIA's cuBLAS wheel, pinned below, installed into WORK_DIR (default
# a temporary directory) and passed with -I. Files are compiled as llm.c's Makefile does
# (-std=c++17, --use_fast_math) at -O3, for sm_80 or $ARCH.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
llmc="${1:?usage: tools/realworld_llmc.sh LLMC_CHECKOUT [WORK_DIR]}"
work="${2:-$(mktemp -d)}"
warpcheck="${WARPCHECK:-$root/target/release/warpcheck}"
arch="${ARCH:-sm_80}"
mkdir -p "$work/ptx" "$work/log"

cublas="$work/cublas"
if [ ! -f "$cublas/nvidia/cu13/include/cublas_v2.h" ]; then
  cat > "$work/cublas-requirements.txt" <<'REQ'
nvidia-cublas==13.10.0.20 \
    --hash=sha256:dcc6d63884c53d07e267ce7e6feac17b2538cebaafec5db865736c3e28e4dc84 \
    --hash=sha256:c5f3418c0a845232a8cabc58f6fa52cfae7d8bd3680d94c3907aca710fd48d70
REQ
  python3 -m pip install -q --disable-pip-version-check --no-deps --target "$cublas" \
    --require-hashes -r "$work/cublas-requirements.txt" >&2
fi
# Only the headers are needed: a directory of them keeps the shared libraries out of -I.
inc="$work/cublas-include"
mkdir -p "$inc"
cp "$cublas"/nvidia/cu13/include/cublas*.h "$inc/"

compiled=0; parsed=0; lowered=0; total=0
: > "$work/unsupported.txt"
rows=""
for file in "$llmc"/dev/cuda/*.cu; do
  name="$(basename "$file" .cu)"
  total=$((total + 1))
  ptx="$work/ptx/$name.ptx"
  status="compile error"; detail=""
  if "$warpcheck" ptx "$file" --compiler nvcc --arch "$arch" -I "$inc" -X --use_fast_math >"$ptx" 2>"$work/log/$name.compile"; then
    compiled=$((compiled + 1))
    if "$warpcheck" ptx "$ptx" --check >/dev/null 2>"$work/log/$name.parse"; then
      parsed=$((parsed + 1))
      if "$warpcheck" ir "$ptx" >/dev/null 2>"$work/log/$name.lower"; then
        lowered=$((lowered + 1)); status="lowers"
      else
        status="parses; unsupported instructions"
        ops="$(grep -o 'unsupported instruction `[^`]*`' "$work/log/$name.lower" \
          | sed -E 's/unsupported instruction `([^`]*)`/\1/' | sort | uniq -c | sort -rn \
          | awk '{printf "%s`%s` ×%d", (NR>1?", ":""), $2, $1}')"
        grep -o 'unsupported instruction `[^`]*`' "$work/log/$name.lower" \
          | sed -E 's/unsupported instruction `([^`]*)`/\1/' >> "$work/unsupported.txt" || true
        detail="$ops"
        [ -z "$ops" ] && detail="$(grep -m1 'error' "$work/log/$name.lower" | cut -c1-120)"
      fi
    else
      status="PTX syntax error"
      detail="$(grep -m1 'error' "$work/log/$name.parse" | cut -c1-120)"
    fi
  else
    detail="$(tail -n +3 "$work/log/$name.compile" | grep -m1 -E 'error' | sed -E 's#^.*/dev/cuda/##' | cut -c1-120)"
  fi
  rows+="| \`$name.cu\` | $status | ${detail//|/\\|} |"$'\n'
done

echo "| file | result | detail |"
echo "|---|---|---|"
printf '%s' "$rows"
echo
nvcc_version="$(sed -n 's/^.*Cuda compilation tools, release \([0-9.]*\),.*$/\1/p' "$work"/ptx/*.ptx | head -1)"
echo "**$total files ($arch): $compiled compile to PTX with nvcc ${nvcc_version:-?}, $parsed parse, $lowered lower completely into warpcheck's IR.**"
echo
echo "Unsupported instructions over all files (occurrences in the PTX, by opcode and by full form):"
echo
echo "| opcode | occurrences | forms |"
echo "|---|---|---|"
if [ -s "$work/unsupported.txt" ]; then
  awk -F. '{print $1}' "$work/unsupported.txt" | sort | uniq -c | sort -rn | while read -r count op; do
    forms="$(grep -E "^$op(\.|$)" "$work/unsupported.txt" | sort | uniq -c | sort -rn \
      | awk '{printf "%s`%s` ×%d", (NR>1?", ":""), $2, $1}')"
    echo "| \`$op\` | $count | $forms |"
  done
fi
