#!/usr/bin/env bash
# Runs `warpcheck lint --format json` over every Rodinia benchmark of GPUDrano's Table 1
# (Alur et al., CAV 2017) and collects the uncoalesced-access findings per benchmark, file,
# kernel and line, with the time it took. With tests/rodinia/lint-classification.tsv (our
# inspection of each access: real or coalesced) it also counts found / real / false / missed
# per benchmark and fails when a finding is unclassified or the counts differ from that file.
#
#   tools/rodinia_lint.sh RODINIA_DIR [OUT_DIR] > tests/rodinia/lint-comparison.md
#
# (then `python3 tools/comparison.py > docs/COMPARISON.md` puts that section after its table).
# RODINIA_DIR is a checkout of gpu-rodinia (the directory that contains cuda/). OUT_DIR
# (default: a temporary directory) receives, per translation unit, its PTX and the lint's
# JSON, and findings.tsv (benchmark, file, kernel, line, kind, sectors or `-` for an
# `uncoalesced-data-dependent` finding, message). Set
# WARPCHECK to a built binary to skip building it; GRANULARITY=sectors to count 32-byte sectors
# instead of GPUDrano's 128-byte lines. stdout gets the Markdown comparison section
# (tools/rodinia_lint_table.py); the exit status is 1 when the findings disagree with the
# classification.
#
# Each unit is compiled the way its Makefile compiles it (tools/rodinia_flags.sh), from its
# directory. Each is linted twice: from the .cu (clang + lint, what a user runs; its findings
# are the ones counted) and from the saved PTX (the analysis alone), and both are timed.
# The lint runs with `--data-dependent`: GPUDrano reports every access whose address varies
# across a warp through values read from memory (gathers, scatters, per-thread ranges), so
# the comparison counts them too (`uncoalesced-data-dependent`).
# Kernels listed in tests/rodinia/launches.tsv are linted with the block dimensions that
# Rodinia's host code launches them with (`--block`), the others symbolically.
set -euo pipefail

if [[ $# -lt 1 || ! -d "$1/cuda" ]]; then
  echo "usage: $0 RODINIA_DIR [OUT_DIR]   (RODINIA_DIR must contain cuda/)" >&2
  exit 2
fi
RODINIA=$(cd "$1" && pwd)
OUT=${2:-$(mktemp -d)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
REPO=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$REPO/target}
if [[ -z ${WARPCHECK:-} ]]; then
  cargo build --quiet --release --manifest-path "$REPO/Cargo.toml" -p warpcheck
  WARPCHECK="$TARGET/release/warpcheck"
fi
# GPUDrano's definition (§3.2): 128-byte lines, uncoalesced above the ideal.
GRANULARITY=${GRANULARITY:-lines}
LAUNCHES=$REPO/tests/rodinia/launches.tsv
CLASSIFICATION=$REPO/tests/rodinia/lint-classification.tsv

# shellcheck source=tools/rodinia_flags.sh
source "$REPO/tools/rodinia_flags.sh"

# GPUDrano's benchmarks and the translation units that hold their kernels: the programs
# their Makefiles build (cfd: all four; particlefilter: both; dwt2d: every kernel file).
UNITS=(
  "backprop cuda/backprop/backprop_cuda.cu"
  "bfs cuda/bfs/bfs.cu"
  "b+tree cuda/b+tree/kernel/kernel_gpu_cuda_wrapper.cu"
  "b+tree cuda/b+tree/kernel/kernel_gpu_cuda_wrapper_2.cu"
  "cfd cuda/cfd/euler3d.cu"
  "cfd cuda/cfd/euler3d_double.cu"
  "cfd cuda/cfd/pre_euler3d.cu"
  "cfd cuda/cfd/pre_euler3d_double.cu"
  "dwt2d cuda/dwt2d/components.cu"
  "dwt2d cuda/dwt2d/dwt_cuda/fdwt53.cu"
  "dwt2d cuda/dwt2d/dwt_cuda/fdwt97.cu"
  "dwt2d cuda/dwt2d/dwt_cuda/rdwt53.cu"
  "dwt2d cuda/dwt2d/dwt_cuda/rdwt97.cu"
  "gaussian cuda/gaussian/gaussian.cu"
  "heartwall cuda/heartwall/main.cu"
  "hotspot cuda/hotspot/hotspot.cu"
  "hotspot3D cuda/hotspot3D/3D.cu"
  "huffman cuda/huffman/main_test_cu.cu"
  "lavaMD cuda/lavaMD/kernel/kernel_gpu_cuda_wrapper.cu"
  "lud cuda/lud/cuda/lud_kernel.cu"
  "myocyte cuda/myocyte/main.cu"
  "nn cuda/nn/nn_cuda.cu"
  "nw cuda/nw/needle.cu"
  "particlefilter cuda/particlefilter/ex_particle_CUDA_naive_seq.cu"
  "particlefilter cuda/particlefilter/ex_particle_CUDA_float_seq.cu"
  "pathfinder cuda/pathfinder/pathfinder.cu"
  "srad_v1 cuda/srad/srad_v1/main.cu"
  "srad_v2 cuda/srad/srad_v2/srad.cu"
  "streamcluster cuda/streamcluster/streamcluster_cuda.cu"
)

now() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc; }

# The lint options of each kernel of a unit: `KERNEL<TAB>--block X,Y,Z ...` lines.
launches_of() {
  local rel=$1
  [[ -f $LAUNCHES ]] || return 0
  awk -F'\t' -v f="$rel" '!/^#/ && $1 == f { print $2 "\t" $3 }' "$LAUNCHES"
}

# PTX has no parameter names: `--arg NAME=V` becomes `--arg argI=V`, with I the parameter's
# position in `warpcheck kernels` of the source ($KERNELS_LISTING).
positional() {
  local kernel=$1 options=$2
  awk -v k="$kernel" -v opts="$options" '
    /^[^ ]/ { inside = index($0, k "(") == 1; i = 0; next }
    inside { pos[$1] = "arg" i; i++ }
    END {
      n = split(opts, o, " ")
      out = ""
      for (j = 1; j <= n; j++) {
        w = o[j]
        if (o[j - 1] == "--arg") {
          split(w, kv, "=")
          if (kv[1] in pos) w = pos[kv[1]] "=" substr(w, length(kv[1]) + 2)
        }
        out = out (j > 1 ? " " : "") w
      }
      print out
    }' "$KERNELS_LISTING"
}

# Lints one input (the .cu or its PTX) into $2 (a JSON array of findings), kernel by kernel
# where launches are listed, then the remaining kernels together.
lint_unit() {
  local input=$1 json=$2 rel=$3 dir=$4
  shift 4
  local flags=("$@") parts=() listed=() kernel options
  while IFS=$'\t' read -r kernel options; do
    [[ -z $kernel ]] && continue
    listed+=("$kernel")
    [[ $input == *.ptx ]] && options=$(positional "$kernel" "$options")
    # shellcheck disable=SC2206
    local opts=($options)
    (cd "$dir" && "$WARPCHECK" lint "${flags[@]}" --compiler clang --granularity "$GRANULARITY" --data-dependent --format json --kernel "$kernel" "${opts[@]}" "$input") \
      >"$json.$kernel.part"
    parts+=("$json.$kernel.part")
  done < <(launches_of "$rel")
  (cd "$dir" && "$WARPCHECK" lint "${flags[@]}" --compiler clang --granularity "$GRANULARITY" --data-dependent --format json "$input") >"$json.all.part"
  # The whole-unit run covers the unlisted kernels; listed ones come from their own run.
  local skip
  skip=$(printf '%s\n' "${listed[@]+"${listed[@]}"}" | jq -R . | jq -s .)
  jq --argjson skip "$skip" '[.findings[] | select(.kernel as $k | $skip | index($k) | not)]' \
    "$json.all.part" >"$json.all"
  jq -s '[.[0][]] + [.[1:][] | .findings[]]' "$json.all" "${parts[@]+"${parts[@]}"}" >"$json"
  rm -f "$json".*.part "$json.all"
}

FINDINGS=$OUT/findings.tsv
: >"$FINDINGS"
total_cu=0 total_ptx=0
printf 'unit\tlint .cu (s)\tlint .ptx (s)\n' >"$OUT/times.tsv"
for unit in "${UNITS[@]}"; do
  read -r bench rel <<<"$unit"
  file=$RODINIA/$rel
  bench_dir="$RODINIA/cuda/$(echo "$rel" | cut -d/ -f2)"
  dir=$(makefile_dir "$(dirname "$file")" "$bench_dir")
  mapfile -t flags < <(makefile_flags "$bench_dir")
  # shellcheck disable=SC2206
  flags+=(${EXTRA_FLAGS[$(basename "$bench_dir")]:-})
  stem=$(echo "$rel" | tr '/' '_')
  (cd "$dir" && "$WARPCHECK" ptx "${flags[@]}" "$file") >"$OUT/$stem.ptx"
  KERNELS_LISTING=$OUT/$stem.kernels
  (cd "$dir" && "$WARPCHECK" kernels "${flags[@]}" "$file") >"$KERNELS_LISTING"
  start=$(now)
  lint_unit "$file" "$OUT/$stem.json" "$rel" "$dir" "${flags[@]}"
  mid=$(now)
  lint_unit "$OUT/$stem.ptx" "$OUT/$stem.ptx.json" "$rel" "$dir"
  end=$(now)
  t_cu=$(elapsed "$start" "$mid")
  t_ptx=$(elapsed "$mid" "$end")
  total_cu=$(echo "$total_cu + $t_cu" | bc)
  total_ptx=$(echo "$total_ptx + $t_ptx" | bc)
  printf '%s\t%s\t%s\n' "$rel" "$t_cu" "$t_ptx" >>"$OUT/times.tsv"
  # Paths in findings are relative to the directory lint ran in: make them relative to
  # the checkout.
  reldir=${dir#"$RODINIA/"}
  jq -r --arg bench "$bench" --arg reldir "$reldir" '
    .[] | select(.code == "uncoalesced-access" or .code == "uncoalesced-data-dependent")
    | [$bench,
       (.primary.location.file | if startswith("/") then . else ($reldir + "/" + .) end),
       .kernel, .primary.location.line,
       (if (.message | test("global store")) then "store"
        elif (.message | test("global atomic")) then "atomic" else "load" end),
       ((.message | capture("(?<n>[0-9]+) (sectors|128-byte lines)") | .n) // "-"),
       .message] | @tsv' "$OUT/$stem.json" |
    sed "s#\t$RODINIA/#\t#" >>"$FINDINGS"
done
printf 'total\t%s\t%s\n' "$total_cu" "$total_ptx" >>"$OUT/times.tsv"
sort -u -o "$FINDINGS" "$FINDINGS"
echo "findings: $FINDINGS ($(wc -l <"$FINDINGS") lines); times: $OUT/times.tsv" >&2
echo "lint of all units: ${total_cu}s from the .cu files (clang included), ${total_ptx}s from their PTX" >&2
python3 "$REPO/tools/rodinia_lint_table.py" "$FINDINGS" "$CLASSIFICATION" "$OUT/times.tsv"
