#!/usr/bin/env bash
# llm.c's dev/cuda programs natively on the GPU machine, built as llm.c's Makefile builds
# them (nvcc -O3 --use_fast_math -lcublas -lcublasLt -std=c++17, -arch=native): the ground
# truth for tools/realworld_llmc_programs.sh's rows. Per version: the program's own
# comparison with its CPU reference, and with SANITIZE=1 compute-sanitizer's memcheck and
# racecheck findings (their summary lines).
#
#   tools/gpu/llmc_native.sh LLMC_DIR OUT FILE.cu:N[,N...]...
#
# OUT/native.tsv: file, version, own check, memcheck, racecheck; OUT/<file>_<N>.* the logs.
set -u
llmc=$(cd "${1:?usage: llmc_native.sh LLMC_DIR OUT FILE.cu:N...}" && pwd)/dev/cuda
out=${2:?OUT}; shift 2
mkdir -p "$out"; out=$(cd "$out" && pwd)
TIMEOUT=${TIMEOUT:-120}
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/# /'
  nvcc --version | tail -1 | sed 's/^/# /'
} > "$out/native.tsv"
for arg in "$@"; do
  f=${arg%%:*}; stem=${f%.cu}
  extra=""; [ "$stem" = matmul_forward ] && extra="-Xcompiler -fopenmp"
  (cd "$llmc" && nvcc -O3 --use_fast_math -arch=native -lcublas -lcublasLt -std=c++17 $extra "$f" -o "$out/$stem") \
    > "$out/$stem.build.log" 2>&1 &
done
wait
verdict() {
  if grep -q "All results match" "$1"; then echo match
  else grep -m1 -i "mismatch\|error\|invalid" "$1" | cut -c1-100 || echo "exit $2"; fi
}
for arg in "$@"; do
  f=${arg%%:*}; stem=${f%.cu}
  for k in $(echo "${arg#*:}" | tr ',' ' '); do
    log="$out/${stem}_$k"
    (cd "$llmc" && timeout "$TIMEOUT" "$out/$stem" "$k") > "$log.out" 2>&1
    own=$(verdict "$log.out" $?)
    mem="-"; race="-"
    if [ "${SANITIZE:-0}" = 1 ]; then
      (cd "$llmc" && timeout "$TIMEOUT" compute-sanitizer --tool memcheck --print-limit 5 "$out/$stem" "$k") > "$log.memcheck" 2>&1
      mem=$(grep -m1 "ERROR SUMMARY" "$log.memcheck" || echo "timed out or failed")
      (cd "$llmc" && timeout "$TIMEOUT" compute-sanitizer --tool racecheck --print-limit 5 "$out/$stem" "$k") > "$log.racecheck" 2>&1
      race=$(grep -m1 "RACECHECK SUMMARY\|ERROR SUMMARY" "$log.racecheck" || echo "timed out or failed")
    fi
    printf '%s\t%s\t%s\t%s\t%s\n' "$f" "$k" "$own" "$mem" "$race" >> "$out/native.tsv"
  done
done
cat "$out/native.tsv"
