#!/usr/bin/env bash
# Runs on a machine with an NVIDIA GPU and the CUDA toolkit, from the repository root:
# compares the results of shim_semantics.cu compiled by nvcc (real CUDA headers) with the
# same source compiled by clang with warpcheck's shims (the PTX files given as arguments,
# made beforehand with `cargo run --release -p warpcheck-front --example front -- --ptx`),
# word by word. Then it compiles a fixture through the front end with nvcc (when FRONT is
# set to the `front` example binary) to check the nvcc path.
#   crates/front/gpu/check_shims.sh CLANG_PTX...
set -u
here=$(dirname "$0")
out=${OUT:-/tmp/check_shims}
mkdir -p "$out"
nvcc --version | tail -2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc -O2 -o /tmp/run_ptx "$here/run_ptx.cu" -lcuda || exit 1
nvcc -ptx -arch=sm_80 -O3 -o /tmp/nvcc.ptx "$here/shim_semantics.cu" || exit 1
/tmp/run_ptx /tmp/nvcc.ptx > "$out/nvcc.txt" || exit 1
status=0
for ptx in "$@"; do
  name=$(basename "$ptx" .ptx)
  if ! /tmp/run_ptx "$ptx" > "$out/$name.txt"; then echo "$name: did not run"; status=1; continue; fi
  python3 - "$here/shim_semantics.cu" "$out/nvcc.txt" "$out/$name.txt" "$name" <<'PY' || status=1
import re, sys
source, reference, candidate, name = sys.argv[1:]
labels = [m.group(1).strip() for m in re.finditer(r"o\[k\+\+\] = (.*);", open(source).read())]
ref = [l.split() for l in open(reference)]
got = [l.split() for l in open(candidate)]
bad = {}
for r, g in zip(ref, got):
    for i, (a, b) in enumerate(zip(r[1:], g[1:])):
        if a != b:
            bad.setdefault(i, []).append((r[0], a, b))
if len(ref) != len(got):
    print(f"{name}: {len(got)} lines, nvcc {len(ref)}"); sys.exit(1)
for i, cases in sorted(bad.items()):
    label = labels[i] if i < len(labels) else ("atomic counters" if r[0] == "fsum" else f"word {i}")
    print(f"{name}: result {i} ({label}) differs in {len(cases)} thread(s), e.g. {cases[0]}")
print(f"{name}: {sum(len(c) for c in bad.values())} differing words of {sum(len(l) - 1 for l in ref)}")
sys.exit(1 if bad else 0)
PY
done
if [ -n "${FRONT:-}" ]; then
  echo "--- the front end with nvcc ($(command -v clang || echo no clang) for the AST)"
  "$FRONT" "$here/../tests/fixtures/signatures.cu" | head -40
  "$FRONT" --summary "$here/../tests/fixtures/warp.cu"
  "$FRONT" --summary -O0 "$here/../tests/fixtures/runtime.cu"
fi
exit $status
