#!/usr/bin/env bash
# The Go module's tests (`tests/run.sh go`), on both of its
# libraries: the C library built twice in the workspace's profile and target directory, its
# static library put where the module's cgo directives look (lib/GOOS_GOARCH/, lib/include/; a
# release ships them there prebuilt for every platform, tests/packages.sh go), then go vet and go
# test (tests/vectors, duplicates across goroutines, an Example per type) once per library:
#   slim     lib/GOOS_GOARCH/libidmint.a: `cargo build -p idmint-c --no-default-features`, as
#            the slim Python, Node and JVM packages are built (no workspace-hack: a user's build
#            of the slim library holds no store); the module's default
#   stores   lib/GOOS_GOARCH/libidmint_stores.a: `cargo build -p idmint-c`, whose default
#            features (stores, workspace-hack) are the rust section's: the core compiled there,
#            only the glue compiled here; `go test -tags idmint_stores`
# The tests that need a store skip only where HasStores() is false; TestBuildTagPicksTheLibrary
# fails when the tag linked the other library. Then go/README.md's first program, built by a Go
# module outside the repository, and the conformance runner.
#
#   go/test.sh            both
#   go/test.sh slim       one of them (or stores)
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
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(slim stores)
platform=$(go env GOOS)_$(go env GOARCH)
mkdir -p "go/lib/$platform" go/lib/include
cp bindings/c/include/idmint.h go/lib/include/
for v in "${variants[@]}"; do
    case $v in
        slim) features=(--no-default-features) lib=libidmint.a ;;
        stores) features=() lib=libidmint_stores.a ;;
        *) echo "usage: go/test.sh [slim] [stores]" >&2; exit 2 ;;
    esac
    # (cargo puts either build's library at the same path: copied out before the next build)
    cargo build -p idmint-c --profile "$PROFILE" "${features[@]}"
    cp "$CARGO_TARGET_DIR/$PROFILE/libidmint.a" "go/lib/$platform/$lib"
done
cd go
for v in "${variants[@]}"; do
    tags=()
    [ "$v" = slim ] || tags=(-tags idmint_stores)
    printf '\n==> go vet and go test, the %s library %s\n' "$v" "${tags[*]}"
    go vet "${tags[@]}" ./...
    go test -count=1 "${tags[@]}" ./...
done

# The README's first `package main`, as a user builds it: in a Go module outside the repository
# that requires this one through a `replace` to go/, with a plain `go build` (no CGO_* flags by
# hand: the cgo lines find lib/), then run; and check/, which must find the library the tag asks
# for (tests/lib.sh go_app, as the release matrix builds it on every platform).
app=$(mktemp -d)
trap 'rm -rf "$app"' EXIT
go_app "$app" "$PWD"
for v in "${variants[@]}"; do
    tags=()
    [ "$v" = slim ] || tags=(-tags idmint_stores)
    printf '\n==> go/README.md'"'"'s program outside the repository, the %s library\n' "$v"
    (cd "$app" && GOFLAGS=-mod=mod go build "${tags[@]}" -o example . && GOFLAGS=-mod=mod go build "${tags[@]}" -o variant ./check)
    "$app/example" | tail -1 | grep '^true ' || die "go/README.md's program did not end with errors.Is(…, ErrMissingField) true"
    "$app/variant" | grep "^$v " || die "check/ did not find the $v library"
done

# --- The conformance runner, a step of its own after go test ---
# tests/conformance/run.py (docs/spec.md, section 15) against the Go package through
# internal/conformance/cmd/idmint-conformance (exported API only), on the vector files whose
# ops the package has (go/README.md, "Conformance", lists the others and why); any mismatch
# fails this script.
CONFORMANCE=$CARGO_TARGET_DIR/go/idmint-conformance
go build -o "$CONFORMANCE" ./internal/conformance/cmd/idmint-conformance
"${IDMINT_PYTHON:-python3}" ../tests/conformance/run.py \
    --only snowflake.json --only formats.json --only objectid.json --only uuid7.json \
    --only typeid.json --only time_range.json -- "$CONFORMANCE"
