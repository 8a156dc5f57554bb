#!/usr/bin/env bash
# Builds what the jars carry from Rust, for `mvn` (generate-sources phase) and tests/run.sh:
#   1. in cargo builds (profile $IDMINT_CARGO_PROFILE, default release; in target/jvm, so they
#      share compiled dependencies): the cdylib bindings/jvm twice (docs/packages.md) and the
#      Java generators of bindings/jvm/bindgen: `idmint-jvm-bindgen` (uniffi-bindgen-java 0.3.1
#      on uniffi 0.31.0, the version bindings/jvm pins, built in the workspace instead of `cargo
#      install`ed: a fresh machine compiles only its own crates) and `idmint-jvm-errors`;
#   2. the slim library (--no-default-features: no store) -> target/native/linux-x86-64/
#      libidmint_jvm.so, where JNA finds it on the classpath by itself: the jar io.idmint:idmint;
#   3. the library with the stores -> target/native-stores/io/idmint/stores/linux-x86-64/, the
#      add-on jar io.idmint:idmint-stores (java/stores/pom.xml takes it from there), which the
#      loader (NativeLibrary) prefers when it is on the class path. Its features: the crate's
#      defaults (the stores and workspace-hack, so a checkout's and tests/run.sh's build shares
#      the one compiled core of the other sections), or with IDMINT_JVM_RELEASE=1
#      (tests/packages.sh) the stores alone, as a user gets them;
#   4. the generated Java (package io.idmint.ffi, internal) -> target/generated-sources/uniffi
#      (with one fix: see UniffiCleanAction below), from the add-on's library: both libraries
#      export the same API (bindings/jvm/src/stores.rs), so one Java layer serves both;
#   5. the exception classes, one per error kind of idmint-core's table (package io.idmint,
#      public) -> target/generated-sources/errors (rewritten only where their text changed).
#   (tests/packages.sh puts the other platforms' libraries, cross-built, in target/native/<os-arch>/
#   and target/native-stores/io/idmint/stores/<os-arch>/ first: each jar carries every library
#   under its folder, and the Java is the same for all.)
# The slim library costs a checkout's build a second compile of the core (without
# workspace-hack and the stores); the JVM tests load the add-on's, as a user with both jars does,
# and SlimTest alone loads the slim one, in a JVM of its own (java/pom.xml).
# Idempotent and quick when warm: cargo does nothing, and the Java is regenerated only when the
# library or the generator changed. Generated code is not committed.
#
# The generator build can have a target directory of its own, IDMINT_JVM_BINDGEN_TARGET_DIR
# (tests/run.sh keeps it outside the repository, as it keeps wasm-bindgen-cli: uniffi-bindgen-java
# takes minutes of one core to compile and changes only with its pinned version), and
# `build-native.sh --generator` builds only the generator (tests/run.sh starts it in the
# background, so it overlaps the other builds).
set -euo pipefail
JAVA_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$JAVA_DIR/.." && pwd)

case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) platform=linux-x86-64 lib=libidmint_jvm.so ;;
    Linux-aarch64) platform=linux-aarch64 lib=libidmint_jvm.so ;;
    Darwin-arm64) platform=darwin-aarch64 lib=libidmint_jvm.dylib ;;
    Darwin-x86_64) platform=darwin-x86-64 lib=libidmint_jvm.dylib ;;
    *) echo "idmint: no build recipe for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac
# musl (Alpine): JNA names it as glibc Linux; the jar's loader (NativeLibrary) looks for
# <platform>-musl/ there.
if [ "$(uname -s)" = Linux ] && ldd --version 2>&1 | grep -qi musl; then platform=$platform-musl; fi

target_dir=${IDMINT_JVM_TARGET_DIR:-$ROOT/target/jvm}
# The cargo profile: release for users; tests/run.sh sets IDMINT_CARGO_PROFILE=ci, the profile all
# its sections build in.
profile=${IDMINT_CARGO_PROFILE:-release}
out="$target_dir/$profile"
[ "$profile" = dev ] && out="$target_dir/debug"
# Two builds, not one: the generator's `generate` feature turns on features of dependencies it
# shares with the library (serde, ...), and in one build those would reach the core and its
# database drivers, compiling them a second time beside the copy the other packages use.
# `idmint-jvm-errors` needs only the core, so it is built with the library (same core build).
bindgen_target_dir=${IDMINT_JVM_BINDGEN_TARGET_DIR:-$target_dir}
bindgen_out="$bindgen_target_dir/$profile"
[ "$profile" = dev ] && bindgen_out="$bindgen_target_dir/debug"
bindgen="$bindgen_out/idmint-jvm-bindgen"
[ -x "$bindgen" ] || echo "idmint: building the Java generator (first build: minutes)" >&2
# The generator runs here and never ships: it links with the system's tools even where the
# release build links with zig (tests/lib.sh zig_env), which keeps its cache outside the
# repository valid for every clone; and in its own directory, not tests/run.sh's shared build
# directory, whose lock it would hold while the main build waits.
(cd "$ROOT" && CARGO_TARGET_DIR="$bindgen_target_dir" env -u CC_x86_64_unknown_linux_gnu \
    -u CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER -u CARGO_BUILD_BUILD_DIR cargo build --quiet --profile "$profile" \
    -p idmint-jvm-bindgen --no-default-features --features idmint-jvm-bindgen/generate)
[ "${1:-}" = --generator ] && exit 0
# The slim library first, copied out before the add-on's build replaces the file cargo leaves at
# $out/$lib (a release profile strips it already: nothing reads its symbols).
# `cargo rustc --crate-type cdylib`, not `cargo build`: the crate is also an rlib (the generator
# and the doc tests use it), and a library built as both keeps its dependencies' symbols visible
# to the rlib, so fat LTO cannot fold what is never set (tracing's and log's levels; node/scripts/
# build.js measured 2 MB of it).
(cd "$ROOT" && CARGO_TARGET_DIR="$target_dir" cargo rustc --quiet --profile "$profile" \
    -p idmint-jvm --lib --crate-type cdylib --no-default-features)
native="$JAVA_DIR/target/native/$platform"
mkdir -p "$native"
cmp -s "$out/$lib" "$native/$lib" || { cp "$out/$lib" "$native/$lib.tmp" && mv "$native/$lib.tmp" "$native/$lib"; }
stores_features=() stores_rustc=()
if [ "${IDMINT_JVM_RELEASE:-0}" = 1 ]; then
    stores_features=(--no-default-features --features idmint-jvm/stores,idmint-jvm-bindgen/errors)
    stores_rustc=(--no-default-features --features stores)
fi
# The errors table's program, with idmint-jvm selected beside it so the core it compiles has the
# library's features (one core build for both), though only the program is built.
(cd "$ROOT" && CARGO_TARGET_DIR="$target_dir" cargo build --quiet --profile "$profile" \
    -p idmint-jvm -p idmint-jvm-bindgen --bin idmint-jvm-errors "${stores_features[@]}")
(cd "$ROOT" && CARGO_TARGET_DIR="$target_dir" cargo rustc --quiet --profile "$profile" \
    -p idmint-jvm --lib --crate-type cdylib "${stores_rustc[@]}")
built="$out/$lib"
# The generator reads uniffi's metadata from the library's symbol table, which a profile with
# `strip = "symbols"` (release) removes: the Java would come out empty. Then the library is
# linked once more without stripping (`cargo rustc` changes only this crate's flags, so every
# dependency is reused), the Java is generated from it, and the copy the jar carries is stripped
# here as rustc would have.
strip_after=""
if ! readelf -S -W "$built" 2>/dev/null | grep -q '\.symtab' && [ "$(uname -s)" = Linux ]; then
    (cd "$ROOT" && CARGO_TARGET_DIR="$target_dir" cargo rustc --quiet --profile "$profile" \
        -p idmint-jvm --lib --crate-type cdylib "${stores_rustc[@]}" -- -C strip=none)
    strip_after=1
fi

stores="$JAVA_DIR/target/native-stores/io/idmint/stores/$platform"
generated="$JAVA_DIR/target/generated-sources/uniffi"
mkdir -p "$stores"
stamp="$generated/.bindgen"
if ! [ -f "$stores/$lib" ] || ! cmp -s "$built" "$stores/$lib" || ! [ -d "$generated/io" ] \
    || ! [ -f "$stamp" ] || [ "$bindgen" -nt "$stamp" ]; then
    rm -rf "$generated"
    (cd "$ROOT" && "$bindgen" generate --no-format --out-dir "$generated" "$built" >/dev/null)
    touch "$stamp"
    cp "$built" "$stores/$lib.tmp" && mv "$stores/$lib.tmp" "$stores/$lib"
fi
if [ -n "$strip_after" ]; then
    strip --strip-all "$stores/$lib"
fi
# uniffi-bindgen-java 0.3.1 writes each object's cleanup as an inner (non-static) class, which
# holds the object it is to clean up: the Cleaner never runs it, and an object dropped without
# close() keeps its native half (memory, a lease, a store connection) for good. The class uses
# only its own field and static helpers, so making it static is all the fix needs; only files
# still unpatched are rewritten, so Maven recompiles nothing on a warm build.
{ grep -rl 'private class UniffiCleanAction' "$generated" || true; } | while read -r f; do
    sed -i 's/private class UniffiCleanAction/private static class UniffiCleanAction/' "$f"
done
"$out/idmint-jvm-errors" --out-dir "$JAVA_DIR/target/generated-sources/errors"

