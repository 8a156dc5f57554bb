#!/usr/bin/env bash
# The C library's tests (docs/c.md, "Tests"):
#
#   bindings/c/test.sh           # everything below; what `tests/run.sh c` runs
#   bindings/c/test.sh header    # rewrite include/idmint.h with cbindgen (after changing the API)
#
# 1. include/idmint.h is what cbindgen $CBINDGEN makes of src/ (fails when it is stale);
# 2. cargo test -p idmint-c (the conversion layer's unit tests, an example per export);
# 3. the library built in the workspace's profile (IDMINT_CARGO_PROFILE, default `ci`: the
#    compiled core the other sections share), installed under a prefix with idmint.pc;
# 4. docs/c.md's first ```c block compiled through `pkg-config --static` against libidmint.a
#    and run; tests/vectors.c (tests/vectors/*.json) and tests/threads.c (duplicates across
#    threads and a forked process, the fork rules) likewise.
#
# The C compiler is $CC (default cc); cbindgen ($CBINDGEN, tests/lib.sh) is installed once per
# machine under ~/.cache/idmint, as the other tools are.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
export IDMINT_CARGO_PROFILE=${IDMINT_CARGO_PROFILE:-ci}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
PROFILE=$IDMINT_CARGO_PROFILE
source tests/lib.sh
# The same compiler, linker and build directory as tests/run.sh, so the core is not compiled
# again (run.sh has set these already when it calls this script).
if [ -z "${IDMINT_MATURIN:-}" ]; then
    zig_env
    [ "${IDMINT_BUILD_DIR:-}" = none ] || export CARGO_BUILD_BUILD_DIR=${IDMINT_BUILD_DIR:-$IDMINT_CACHE/cargo-build}
fi

# The header as cbindgen makes it from the crate's source, on stdout.
header() {
    "$CBINDGEN_BIN" --quiet --config bindings/c/cbindgen.toml --crate idmint-c bindings/c
}


cbindgen_tool
if [ "${1:-}" = header ]; then
    header >bindings/c/include/idmint.h
    echo "wrote bindings/c/include/idmint.h"
    exit 0
fi

step "include/idmint.h is cbindgen $CBINDGEN's output of bindings/c/src"
if ! header | diff -u bindings/c/include/idmint.h - >"$CARGO_TARGET_DIR/idmint-h.diff"; then
    head -40 "$CARGO_TARGET_DIR/idmint-h.diff" >&2
    echo "bindings/c/include/idmint.h is stale: run bindings/c/test.sh header and commit it" >&2
    exit 1
fi

step "cargo test -p idmint-c --profile $PROFILE"
cargo test -p idmint-c --profile "$PROFILE"

step "libidmint.a and libidmint.so (cargo build -p idmint-c --profile $PROFILE)"
cargo build -p idmint-c --profile "$PROFILE"
OUT=$CARGO_TARGET_DIR/c
PREFIX=$OUT/prefix
rm -rf "$OUT" && mkdir -p "$PREFIX/lib/pkgconfig" "$PREFIX/include"
# Only the static library under the prefix: `-lidmint` then links it, and the programs run
# without LD_LIBRARY_PATH, as docs/c.md promises.
cp "$CARGO_TARGET_DIR/$PROFILE/libidmint.a" "$PREFIX/lib/"
cp bindings/c/include/idmint.h "$PREFIX/include/"
VERSION=$(manifest_version)
sed -e "s|@PREFIX@|$PREFIX|" -e "s|@VERSION@|$VERSION|" bindings/c/idmint.pc.in >"$PREFIX/lib/pkgconfig/idmint.pc"
export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
read -ra FLAGS <<<"$(pkg-config --cflags --libs --static idmint)"
CC=${CC:-cc}
# C99 and every warning: the header must compile cleanly in a strict C program.
CFLAGS=(-std=c99 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wno-unused-parameter)

step "docs/c.md's example against the static library (pkg-config --static idmint)"
awk '/^```c$/ { n++; on = (n == 1); next } /^```$/ { on = 0 } on' docs/c.md >"$OUT/example.c"
"$CC" "${CFLAGS[@]}" -o "$OUT/example" "$OUT/example.c" "${FLAGS[@]}"
"$OUT/example"

step "a C++ translation unit includes the header too"
printf '#include <idmint.h>\nint main() { return idmint_status_kind(IDMINT_STATUS_OK) ? 0 : 1; }\n' >"$OUT/cxx.cc"
if command -v c++ >/dev/null; then
    c++ -std=c++11 -Wall -Werror -o "$OUT/cxx" "$OUT/cxx.cc" "${FLAGS[@]}" && "$OUT/cxx"
fi

step "tests/vectors.c: tests/vectors/ through the C API"
"$CC" "${CFLAGS[@]}" -o "$OUT/vectors" bindings/c/tests/vectors.c "${FLAGS[@]}"
"$OUT/vectors" tests/vectors

step "tests/threads.c: duplicates across threads and a forked process, the fork rules, leases"
"$CC" "${CFLAGS[@]}" -pthread -o "$OUT/threads" bindings/c/tests/threads.c "${FLAGS[@]}"
DB=$(mktemp -d /tmp/idmint-c-test.XXXXXX)
trap 'rm -rf "$DB"' EXIT
"$OUT/threads" "$DB/segments.db" "$DB/leases.db"

step "tests/conformance.c: tests/conformance/run.py (docs/spec.md 15) through the C API"
# Only the vector files whose ops the C API offers (docs/c.md, "Conformance", says why the
# others are left out); the driver answers the rest "not in the C API", so they would fail.
"$CC" "${CFLAGS[@]}" -o "$OUT/conformance" bindings/c/tests/conformance.c "${FLAGS[@]}"
"${IDMINT_PYTHON:-python3}" tests/conformance/run.py \
    --only snowflake.json --only formats.json --only objectid.json --only uuid7.json \
    --only typeid.json --only time_range.json -- "$OUT/conformance"
# And the answers no vector asks for: an op outside the C API and a line that is not JSON are
# invalid_argument, as docs/spec.md says.
ANSWERS=$(printf '{"op":"plan","need":{}}\nnot json\n' | "$OUT/conformance")
printf '%s\n' "$ANSWERS"
if [ "$(grep -c '^{"error":"invalid_argument"' <<<"$ANSWERS")" != 2 ] ||
    ! grep -q 'op plan is not in the C API' <<<"$ANSWERS"; then
    echo "tests/conformance.c: wanted two invalid_argument answers, the first 'not in the C API'" >&2
    exit 1
fi
