#!/usr/bin/env bash
# Runs every idmint test: `tests/run.sh` for all, or name sections (`tests/run.sh rust`).
# It installs what a bare machine lacks, and does nothing when it is already there, so it is
# both the README's test command and what CI (.ci/run) calls on a fresh clone.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

step() { printf '\n==> %s\n' "$*"; }

ensure_rust_components() {
    local have
    have=$(rustup component list --installed 2>/dev/null || true)
    for c in rustfmt clippy; do
        grep -q "^$c" <<<"$have" || rustup component add "$c"
    done
}

section_rust() {
    ensure_rust_components
    step "vectors match their independent oracle"
    python3 tests/vectors/generate.py --check
    step "cargo fmt"
    cargo fmt --all -- --check
    step "cargo clippy"
    cargo clippy --workspace --all-targets -- -D warnings
    step "cargo doc (every public item documented, links resolve)"
    RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
    step "cargo test (release: the uniqueness tests mint tens of millions of IDs)"
    cargo test --workspace --release
}

ALL=(rust)
SECTIONS=("$@")
[ ${#SECTIONS[@]} -eq 0 ] && SECTIONS=("${ALL[@]}")
for s in "${SECTIONS[@]}"; do
    declare -F "section_$s" >/dev/null || { echo "unknown section '$s'; sections: ${ALL[*]}" >&2; exit 2; }
    step "section $s"
    "section_$s"
done
step "all passed: ${SECTIONS[*]}"
