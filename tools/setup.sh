#!/usr/bin/env bash
# Installs what warpcheck needs on a Debian/Ubuntu machine and builds it
# (WARPCHECK_SETUP_NO_BUILD=1: installs only).
#   - clang (any version >= 14) to compile CUDA, OpenCL and C to PTX without the CUDA toolkit
#   - a Rust toolchain (cargo >= 1.85) to build warpcheck
#   - NVIDIA's compiler (nvcc, cicc, ptxas, libdevice, NVRTC) and CUDA headers (bf16/fp8,
#     cooperative groups, cuda::barrier, CUB, Thrust) from NVIDIA's pip wheels, pinned with
#     hashes in tools/nvidia-requirements.txt, into a private directory:
#     $WARPCHECK_NVIDIA_DIR, default ${XDG_DATA_HOME:-~/.local/share}/warpcheck/nvidia.
#     No system changes; x86-64 and aarch64 Linux only; without pip or the network it warns
#     and warpcheck uses clang. WARPCHECK_NO_NVIDIA=1 skips it.
# Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi

have_clang() {
  for c in clang clang-20 clang-19 clang-18 clang-17 clang-16 clang-15 clang-14; do
    command -v "$c" >/dev/null 2>&1 && return 0
  done
  return 1
}

if ! have_clang; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing clang with apt-get" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang >/dev/null
  else
    echo "setup: no clang found and no apt-get; install clang >= 14 with your package manager" >&2
    exit 2
  fi
fi

if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  elif command -v curl >/dev/null 2>&1; then
    echo "setup: installing Rust with rustup" >&2
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "setup: cargo not found; install Rust >= 1.85 (https://rustup.rs)" >&2
    exit 2
  fi
fi

# NVIDIA's wheels: installed when the private directory lacks nvcc; never fatal.
install_nvidia() {
  local dir="${WARPCHECK_NVIDIA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/warpcheck/nvidia}"
  local requirements="tools/nvidia-requirements.txt"
  if [ "${WARPCHECK_NO_NVIDIA:-0}" = 1 ]; then return 0; fi
  case "$(uname -s)/$(uname -m)" in
    Linux/x86_64 | Linux/aarch64) ;;
    *) echo "setup: NVIDIA's pip wheels exist for x86-64 and aarch64 Linux only; using clang" >&2; return 0 ;;
  esac
  if [ -x "$dir/nvidia/cu13/bin/nvcc" ] && [ -f "$dir/.requirements" ] \
    && cmp -s "$dir/.requirements" "$requirements"; then
    return 0
  fi
  local python=""
  for p in python3 python; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -m pip --version >/dev/null 2>&1; then python="$p"; break; fi
  done
  if [ -z "$python" ]; then
    echo "setup: warning: no pip (python3 -m pip) to install NVIDIA's nvcc into $dir; warpcheck will use clang" >&2
    return 0
  fi
  echo "setup: installing NVIDIA's nvcc and CUDA headers (pip wheels, about 190 MB) into $dir" >&2
  local staging="$dir.partial"
  rm -rf "$staging"
  if "$python" -m pip install -q --disable-pip-version-check --no-deps --no-input --target "$staging" \
    --require-hashes -r "$requirements" >&2; then
    cp "$requirements" "$staging/.requirements"
    rm -rf "$dir"
    mkdir -p "$(dirname "$dir")"
    mv "$staging" "$dir"
    echo "setup: NVIDIA's nvcc is $dir/nvidia/cu13/bin/nvcc" >&2
  else
    rm -rf "$staging"
    echo "setup: warning: could not install NVIDIA's wheels (no network?); warpcheck will use clang" >&2
  fi
}
install_nvidia

# tools/test.sh skips this build: `cargo test` builds the same binary with the features
# that the tests' dev-dependencies unify in, so a build here would compile the workspace
# twice.
if [ "${WARPCHECK_SETUP_NO_BUILD:-0}" != 1 ]; then
  cargo build --release --locked -q -p warpcheck
  echo "setup: built $(pwd)/target/release/warpcheck" >&2
fi
