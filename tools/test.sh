#!/usr/bin/env bash
# Installs what is needed (tools/setup.sh) and runs every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
cargo test --release --locked --workspace
