#!/usr/bin/env bash
# Installs what warpcheck needs on a Debian/Ubuntu machine and builds it.
#   - clang (any version >= 14) to compile CUDA, OpenCL and C to PTX without the CUDA toolkit
#   - a Rust toolchain (cargo >= 1.85) to build warpcheck
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

cargo build --release --locked -q -p warpcheck
echo "setup: built $(pwd)/target/release/warpcheck" >&2
