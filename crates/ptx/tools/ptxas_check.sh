#!/bin/bash
# Checks the printer against NVIDIA's assembler: for every PTX file given, runs ptxas on the
# file and on its printed form (parse + print with examples/ptx_check.rs) and reports files
# whose printed form fails where the original assembles. Needs ptxas (CUDA toolkit), e.g. on
# the device machine, and a release build of the example carried there:
#
#   cargo build --release -p warpcheck-ptx --example ptx_check   # on the build machine
#   bash crates/ptx/tools/ptxas_check.sh PATH/TO/ptx_check crates/ptx/tests/data/*/*.ptx
#
# Last run (nvcc/ptxas 13.0, H200 machine): 335 files (all samples plus nvcc output for
# every kernel of tests/kernels at -O3, -lineinfo, -G and -rdc): 0 printer failures.
set -u
checker=$1; shift
work=$(mktemp -d)
"$checker" --out "$work" "$@"
regressions=0
for f in "$@"; do
  n=$(basename "$f")
  ptxas -arch=sm_90a "$f" -o /dev/null 2>"$work/$n.orig.err"; original=$?
  ptxas -arch=sm_90a "$work/$n" -o /dev/null 2>"$work/$n.printed.err"; printed=$?
  if [ $original -eq 0 ] && [ $printed -ne 0 ]; then
    echo "printed form of $f fails to assemble:"; head -5 "$work/$n.printed.err"
    regressions=$((regressions + 1))
  elif [ $original -ne 0 ]; then
    echo "note: $f itself does not assemble: $(head -1 "$work/$n.orig.err")"
  fi
done
echo "$# files, $regressions printer regressions"
rm -rf "$work"
[ $regressions -eq 0 ]
