# Compilation flags of a Rodinia benchmark, read off its Makefiles; sourced by
# tools/rodinia_survey.sh and tools/rodinia_lint.sh, which set RODINIA (the checkout).

# Flags that the Makefiles pass through make variables.
declare -A EXTRA_FLAGS=(
  [leukocyte]="-I$RODINIA/cuda/leukocyte/meschach_lib"
)

# The -I and -D flags written in a benchmark's Makefiles; relative -I against their directory.
makefile_flags() {
  # A Makefile without any -I or -D makes grep fail; that is not an error here.
  local -
  set +e +o pipefail
  local bench_dir=$1
  find "$bench_dir" -maxdepth 3 -iname 'makefile*' -not -path '*meschach*' | while read -r makefile; do
    local dir
    dir=$(dirname "$makefile")
    grep -v '^[[:space:]]*#' "$makefile" | grep -oE '(^|[[:space:]])-(I|D)[^[:space:]]+' | sed -E 's/^[[:space:]]+//; s/\\$//' |
      grep -v '\$' | grep -vE '^-I(/usr|,)' | while read -r flag; do
        if [[ $flag == -I/* || $flag == -D* ]]; then
          echo "$flag"
        else
          echo "-I$(cd "$dir" && realpath -m "${flag#-I}")"
        fi
      done
  done | sort -u
}

# The directory nvcc runs in: the nearest directory with a Makefile, else the benchmark's.
makefile_dir() {
  local dir=$1 bench_dir=$2
  while [[ $dir != "$bench_dir" && $dir != / ]]; do
    if compgen -G "$dir/[Mm]akefile*" >/dev/null; then
      echo "$dir"
      return
    fi
    dir=$(dirname "$dir")
  done
  echo "$bench_dir"
}

