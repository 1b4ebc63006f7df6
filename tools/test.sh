#!/usr/bin/env bash
# Installs what is needed (tools/setup.sh), checks formatting and clippy (warnings are
# errors, with the workspace lints of Cargo.toml), and runs every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
WARPCHECK_SETUP_NO_BUILD=1 bash tools/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
cargo fmt --all --check
cargo clippy --workspace --all-targets --release --locked -- -D warnings
cargo test --release --locked --workspace --no-fail-fast
