#!/usr/bin/env bash
# The Go module's tests (the start of issue 50's `tests/run.sh go` section): the C library built
# in the workspace's profile (the compiled core the other sections share), its static library
# and header put where the module's cgo directives look (lib/GOOS_GOARCH/, lib/include/; a
# release ships them there prebuilt), then go vet and go test (tests/vectors, duplicates across
# goroutines, an Example per type).
#
#   go/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export IDMINT_CARGO_PROFILE=${IDMINT_CARGO_PROFILE:-ci}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
PROFILE=$IDMINT_CARGO_PROFILE
source tests/lib.sh
if [ -z "${IDMINT_MATURIN:-}" ]; then
    zig_env
    [ "${IDMINT_BUILD_DIR:-}" = none ] || export CARGO_BUILD_BUILD_DIR=${IDMINT_BUILD_DIR:-$IDMINT_CACHE/cargo-build}
fi
cargo build -p idmint-c --profile "$PROFILE"
platform=$(go env GOOS)_$(go env GOARCH)
mkdir -p "go/lib/$platform" go/lib/include
cp "$CARGO_TARGET_DIR/$PROFILE/libidmint.a" "go/lib/$platform/"
cp bindings/c/include/idmint.h go/lib/include/
cd go
go vet ./...
go test -count=1 ./...

# --- The conformance runner (issue 50, item 4), a step of its own after go test ---
# tests/conformance/run.py (docs/spec.md, section 15) against the Go package through
# internal/conformance/cmd/idmint-conformance (exported API only), on the vector files whose
# ops the package has (go/README.md, "Conformance", lists the others and why); any mismatch
# fails this script.
CONFORMANCE=$CARGO_TARGET_DIR/go/idmint-conformance
go build -o "$CONFORMANCE" ./internal/conformance/cmd/idmint-conformance
"${IDMINT_PYTHON:-python3}" ../tests/conformance/run.py \
    --only snowflake.json --only formats.json --only objectid.json --only uuid7.json \
    --only typeid.json --only time_range.json -- "$CONFORMANCE"
