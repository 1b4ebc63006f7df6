#!/usr/bin/env bash
# Compiles every CUDA file of the Rodinia benchmark suite (yuhc/gpu-rodinia, cuda/) through
# warpcheck's front end with clang and prints a Markdown table: file, whether it compiles,
# and why not. docs/RODINIA.md holds the result.
#
#   tools/rodinia_survey.sh RODINIA_DIR [CLANG] > survey.md
#
# RODINIA_DIR is a checkout of gpu-rodinia (the directory that contains cuda/). CLANG is the
# clang to use (default: the first clang >= 14 on PATH). Set
# FRONT to a built `front` example binary to skip building it.
#
# Each benchmark is compiled the way its Makefile compiles it: from the Makefile's directory,
# with the -I and -D flags written in its Makefiles (relative -I resolved there) plus the few
# that come from make variables (see EXTRA_FLAGS). A .cu file that another file #includes
# (e.g. kernels pulled into main.cu) is not a translation unit of its own: it is reported as
# compiled as part of its includer.
#
# hybridsort's bucketsort.cu includes OpenGL's headers (<GL/glew.h>, <GL/glut.h>), as its own
# build does: install them first (Debian/Ubuntu: apt-get install libglew-dev freeglut3-dev).
set -euo pipefail

if [[ $# -lt 1 || ! -d "$1/cuda" ]]; then
  echo "usage: $0 RODINIA_DIR [CLANG]   (RODINIA_DIR must contain cuda/)" >&2
  exit 2
fi
RODINIA=$(cd "$1" && pwd)
CLANG=${2:-}
if [[ -z $CLANG ]]; then
  # The clang route, as documented (the front end's own default prefers nvcc when present).
  for c in clang clang-20 clang-19 clang-18 clang-17 clang-16 clang-15 clang-14; do
    if command -v "$c" >/dev/null 2>&1; then CLANG=$(command -v "$c"); break; fi
  done
fi
REPO=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$REPO/target}
if [[ -z ${FRONT:-} ]]; then
  cargo build --quiet --release --manifest-path "$REPO/Cargo.toml" -p warpcheck-front --example front
  FRONT="$TARGET/release/examples/front"
fi

# shellcheck source=tools/rodinia_flags.sh
source "$REPO/tools/rodinia_flags.sh"

# The file that #includes $1 (a .cu file), if any.
includer_of() {
  local file=$1 bench_dir=$2 name
  name=$(basename "$file")
  grep -rlE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<]([^\">]*/)?${name//+/\\+}[\">]" "$bench_dir" \
    --include='*.cu' --include='*.cuh' --include='*.c' --include='*.cpp' --include='*.h' 2>/dev/null |
    grep -vx "$file" | head -1 || true
}

declare -A RESULT REASON
compile_one() {
  local file=$1 rel bench bench_dir dir flags output first
  rel=${file#"$RODINIA/"}
  [[ -n ${RESULT[$rel]:-} ]] && return
  bench=$(echo "$rel" | cut -d/ -f2)
  bench_dir="$RODINIA/cuda/$bench"
  dir=$(makefile_dir "$(dirname "$file")" "$bench_dir")
  mapfile -t flags < <(makefile_flags "$bench_dir")
  # shellcheck disable=SC2206
  flags+=(${EXTRA_FLAGS[$bench]:-})
  local clang_args=()
  [[ -n $CLANG ]] && clang_args=(--clang "$CLANG")
  output=$(cd "$dir" && "$FRONT" --summary "${clang_args[@]}" "${flags[@]}" "$file" 2>&1 || true)
  first=${output%%$'\n'*}
  if [[ $first == ok:* ]]; then
    RESULT[$rel]=yes
    REASON[$rel]=$(echo "$first" | sed -E 's/^ok: [^ ]+ [^ ]+ compiled ([0-9]+) kernel\(s\).*/\1 kernel(s)/')
  else
    RESULT[$rel]=no
    local why
    why=$(printf '%s\n' "$output" | grep -E '(fatal )?error: ' | grep -vE '^error: |clang: error' |
      sed -n '1{s#'"$RODINIA"'/##g; s#^[^ ]*: (fatal )?error: ##; p}' -E || true)
    [[ -z $why ]] && why=$(echo "$first" | sed 's/^error: //')
    REASON[$rel]=$why
  fi
}

if [[ ! -f /usr/include/GL/glew.h || ! -f /usr/include/GL/glut.h ]]; then
  echo "$0: warning: OpenGL headers missing (apt-get install libglew-dev freeglut3-dev): hybridsort's bucketsort.cu will not compile" >&2
fi
mapfile -t FILES < <(find "$RODINIA/cuda" -name '*.cu' | sort)
echo "| file | compiles | notes |"
echo "|---|---|---|"
yes=0 no=0
for file in "${FILES[@]}"; do
  rel=${file#"$RODINIA/"}
  bench_dir="$RODINIA/cuda/$(echo "$rel" | cut -d/ -f2)"
  includer=$(includer_of "$file" "$bench_dir")
  if [[ -n $includer && $includer == *.cu ]]; then
    # Follow the include chain up to a file nothing includes.
    top=$includer
    while next=$(includer_of "$top" "$bench_dir") && [[ -n $next && $next == *.cu && $next != "$file" ]]; do top=$next; done
    compile_one "$top"
    top_rel=${top#"$RODINIA/"}
    status=${RESULT[$top_rel]}
    note="#included by \`${includer#"$RODINIA/"}\`; compiled as part of \`$top_rel\`"
    [[ $status == no ]] && note="$note, which fails: ${REASON[$top_rel]}"
  else
    compile_one "$file"
    status=${RESULT[$rel]}
    note=${REASON[$rel]}
  fi
  [[ $status == yes ]] && yes=$((yes + 1)) || no=$((no + 1))
  echo "| \`$rel\` | $status | ${note//|/\\|} |"
done
echo
echo "$yes of $((yes + no)) files compile."
