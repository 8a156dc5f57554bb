#!/usr/bin/env bash
# The release's publish steps, dry (issue 51): each registry's upload set made and checked as the
# registry would check it, nothing uploaded. The release matrix runs it after its build
# (`tests/packages.sh publish`); it reads the packages directory ($IDMINT_PACKAGES_DIR, default
# target/packages/) and writes what a release would upload to $OUT/publish/:
#
#   PyPI    `twine check --strict` of every wheel and sdist (metadata, the README renders);
#           the upload set per project (idmint, idmint-stores)
#   npm     `npm publish --dry-run` of every tarball in the order a release publishes them:
#           each package after every package it names (optionalDependencies, dependencies,
#           peerDependencies), so no published version points at one not yet there
#   Maven   each artifact (jar, pom, sources, javadoc) signed with a throwaway OpenPGP key and
#           deployed by maven-gpg-plugin's sign-and-deploy-file to a file repository, as the
#           Central Portal receives a bundle; every .asc verified with gpg against that key;
#           Central's rules checked (name, description, url, licenses, developers and scm in the
#           pom; sources and javadoc jars)
#   crates  `cargo package --workspace` of the published crates (the .crate files, their lists)
#   image   when tests/image.sh made one: its OCI index names linux/amd64 and linux/arm64
#   release the release page's files: the static binaries, the C libraries' archives, every SBOM
#           of sbom/ (tests/sbom.py; the wheels carry theirs, the jars deploy theirs), and
#           SHA256SUMS over them, checked
#
#   tests/publish.sh                the dry run (the release matrix's `publish` step), all of the above
#   tests/publish.sh upload KIND    a publish job of .github/workflows/release.yml, after the dry run
#                                   of the same files (its publish/ comes with the packages):
#     npm      `npm publish --provenance` of each tarball in the dry run's order (npm-order.txt;
#              NODE_AUTH_TOKEN, and the job's OIDC token for the provenance); a version the
#              registry already has is skipped, so a re-run finishes what a failed one began
#     maven    every artifact signed again with the release key (MAVEN_GPG_PRIVATE_KEY,
#              MAVEN_GPG_PASSPHRASE) and checked as above, the bundle uploaded to the Central
#              Portal (CENTRAL_TOKEN_USER, CENTRAL_TOKEN_PASSWORD: a Portal user token), which
#              publishes it once its checks pass (publishingType=AUTOMATIC)
#     crates   `cargo publish --workspace --no-verify` (CARGO_REGISTRY_TOKEN, from crates.io's
#              trusted publishing in the workflow): cargo orders the crates itself
#     image    `skopeo copy --all` of the OCI archive to $IDMINT_IMAGE:VERSION (ghcr.io/...),
#              both platforms (REGISTRY_AUTH_FILE, or the runner's login)
#     go       the Go module's tag go/vX.Y.Z: a commit of this tree with go/lib/ (the archives of
#              go/module/lib) on top of the release's commit, pushed as the tag only
#     release  the release page: `gh release create vX.Y.Z` with release-page/'s files, the
#              CHANGELOG's section of the version as its notes (GH_TOKEN)
#   PyPI has no upload here: the workflow's pypa/gh-action-pypi-publish uploads python/ with
#   trusted publishing and attestations.
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/lib.sh
OUT=${IDMINT_PACKAGES_DIR:-${CARGO_TARGET_DIR:-$IDMINT_ROOT/target}/packages}
PUB=$OUT/publish
SET=$PUB/upload-set.txt
VERSION=$(manifest_version)
if [ $# = 0 ]; then
    rm -rf "$PUB"
    mkdir -p "$PUB"
    : >"$SET"
fi
MAVEN_GPG_PLUGIN=org.apache.maven.plugins:maven-gpg-plugin:3.2.7

pypi() {
    step "PyPI: twine check --strict (every wheel and sdist)"
    local venv=$PUB/twine-venv files
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "twine>=6,<7"
    mapfile -t files < <(ls "$OUT"/python/*.whl "$OUT"/python/*.tar.gz 2>/dev/null)
    [ ${#files[@]} -gt 0 ] || die "no wheel or sdist in $OUT/python"
    "$venv/bin/twine" check --strict "${files[@]}"
    for f in "${files[@]}"; do echo "pypi $(basename "$f")"; done >>"$SET"
}

npm_order() {
    # The tarballs in publishing order: a topological sort on the idmint packages each names.
    python3 - "$@" <<'PY'
import json, os, sys, tarfile
pkgs = {}
for path in sys.argv[1:]:
    with tarfile.open(path) as t:
        meta = json.load(t.extractfile("package/package.json"))
    deps = set()
    for key in ("dependencies", "optionalDependencies", "peerDependencies"):
        deps |= set(meta.get(key) or {})
    pkgs[meta["name"]] = (path, deps)
order, done = [], set()
def visit(name, stack=()):
    if name in done or name not in pkgs:
        return
    if name in stack:
        sys.exit(f"npm packages depend on each other in a circle: {' -> '.join(stack + (name,))}")
    for d in sorted(pkgs[name][1]):
        visit(d, stack + (name,))
    done.add(name)
    order.append(pkgs[name][0])
for name in sorted(pkgs):
    visit(name)
missing = sorted(d for _, deps in pkgs.values() for d in deps
                 if d.startswith("idmint") and d not in pkgs)
if missing:
    # A release publishes every platform's package; CI's host build (IDMINT_PUBLISH_HOST=1)
    # has one, and the others are what the main package's optionalDependencies name.
    if os.environ.get("IDMINT_PUBLISH_HOST") != "1":
        sys.exit(f"named but not built: {', '.join(missing)}")
    print(f"host build: {len(missing)} platform packages named but not built here", file=sys.stderr)
print("\n".join(order))
PY
}

npm_publish() {
    step "npm: npm publish --dry-run of every tarball, each after the packages it names"
    local tarballs order t
    mapfile -t tarballs < <(ls "$OUT"/npm/*.tgz 2>/dev/null)
    [ ${#tarballs[@]} -gt 0 ] || die "no npm tarball in $OUT/npm"
    npm_order "${tarballs[@]}" >"$PUB/npm-order.txt" || die "the npm packages cannot be ordered"
    mapfile -t order <"$PUB/npm-order.txt"
    for t in "${order[@]}"; do
        echo "npm publish --dry-run $(basename "$t")"
        # --provenance is what the release workflow adds (it needs the forge's OIDC token).
        (cd "$PUB" && npm publish --dry-run --access public --tag latest "$t" >"$PUB/npm-$(basename "$t").log" 2>&1) || {
            cat "$PUB/npm-$(basename "$t").log" >&2
            die "npm publish --dry-run $t failed"
        }
        echo "npm $(basename "$t")" >>"$SET"
    done
}

# maven [release]: without `release` a throwaway key signs (the dry run); with it, the release key
# of MAVEN_GPG_PRIVATE_KEY (ASCII-armoured) and MAVEN_GPG_PASSPHRASE.
maven() {
    local gnupg=$PUB/gnupg repo=$PUB/maven-central key pom dir base v pass=
    rm -rf "$gnupg" "$repo"
    mkdir -m 700 "$gnupg"
    export GNUPGHOME=$gnupg
    if [ "${1:-}" = release ]; then
        step "Maven Central: signed with the release key, deployed to a file repository, signatures and checksums checked"
        [ -n "${MAVEN_GPG_PRIVATE_KEY:-}" ] || die "MAVEN_GPG_PRIVATE_KEY is not set"
        gpg --batch --quiet --import <<<"$MAVEN_GPG_PRIVATE_KEY"
        pass=${MAVEN_GPG_PASSPHRASE:-}
    else
        step "Maven Central: signed with a throwaway key, deployed to a file repository, signatures and checksums checked"
        gpg --batch --quiet --passphrase '' --quick-gen-key "idmint release dry run <dry-run@idmint.invalid>" ed25519 sign 1d
    fi
    key=$(gpg --batch --list-secret-keys --with-colons | awk -F: '$1 == "fpr" {print $10; exit}')
    local found=0
    while IFS= read -r pom; do
        dir=$(dirname "$pom")
        base=${pom%.pom}
        v=$(basename "$dir")
        found=1
        python3 tests/publish_pom.py "$pom"
        local args=(-DpomFile="$pom" -Dfile="$base.jar" -Durl="file://$repo" -DrepositoryId=dry-run
            -Dgpg.keyname="$key" -Dgpg.useagent=false -DgeneratePom=false)
        # The SBOM (tests/sbom.py) rides along as cyclonedx-maven-plugin attaches one: classifier
        # `cyclonedx`, type json, signed like the rest.
        [ -f "$base-cyclonedx.json" ] || die "$(basename "$base"): no SBOM ($base-cyclonedx.json; tests/packages.sh sbom)"
        args+=(-Dfiles="$base-cyclonedx.json" -Dclassifiers=cyclonedx -Dtypes=json)
        [ -f "$base-sources.jar" ] && args+=(-Dsources="$base-sources.jar")
        [ -f "$base-javadoc.jar" ] && args+=(-Djavadoc="$base-javadoc.jar")
        [ -f "$base.jar" ] || die "$base.jar: missing"
        [ -f "$base-sources.jar" ] && [ -f "$base-javadoc.jar" ] || die "$(basename "$base"): Central needs its -sources.jar and -javadoc.jar"
        # (a passphrase through the environment, where maven-gpg-plugin 3.2 reads it, never on a
        # command line; the throwaway key has none)
        env ${pass:+"MAVEN_GPG_PASSPHRASE=$pass"} mvn -q -B -Dstyle.color=never "$MAVEN_GPG_PLUGIN:sign-and-deploy-file" "${args[@]}" \
            >"$PUB/maven-$(basename "$base").log" 2>&1 || {
            cat "$PUB/maven-$(basename "$base").log" >&2
            die "sign-and-deploy-file $(basename "$base") failed"
        }
        echo "maven $(basename "$base") $v" >>"$SET"
    done < <(find "$OUT/maven-repo/io/idmint" -name "*.pom" | sort)
    [ $found = 1 ] || die "no io.idmint artifact in $OUT/maven-repo"
    local asc n=0
    while IFS= read -r asc; do
        gpg --batch --quiet --verify "$asc" "${asc%.asc}" 2>/dev/null || die "$asc does not verify"
        n=$((n + 1))
    done < <(find "$repo" -name "*.asc")
    # Every file Central receives has its signature, and its MD5 and SHA-1 (Central's rules).
    local f missing=0 sum
    while IFS= read -r f; do
        [ -f "$f.asc" ] || { echo "unsigned: $f" >&2; missing=1; }
        for sum in md5 sha1; do
            [ "$(cat "$f.$sum" 2>/dev/null)" = "$("${sum}sum" <"$f" | cut -d' ' -f1)" ] ||
                { echo "no or a wrong .$sum: $f" >&2; missing=1; }
        done
    done < <(find "$repo" -type f \( -name "*.jar" -o -name "*.pom" -o -name "*-cyclonedx.json" \))
    find "$repo" -name "*-cyclonedx.json" | grep -q . || die "no SBOM was deployed"
    [ $missing = 0 ] || die "Central refuses a file without its signature or checksums"
    # The Portal's deployment bundle: the repository layout, without the maven-metadata.xml files
    # a file repository keeps (Central makes its own).
    rm -f "$PUB/central-bundle.zip"
    (cd "$repo" && find io -type f ! -name 'maven-metadata.xml*' | sort | zip -q -X "$PUB/central-bundle.zip" -@)
    echo "maven: $n signatures verified in $repo; the bundle: $PUB/central-bundle.zip ($(unzip -Z1 "$PUB/central-bundle.zip" | wc -l) files)"
    unset GNUPGHOME
}

crates() {
    step "crates.io: cargo package --workspace (the published crates; nothing verified by a build)"
    # The crates whose manifest does not say `publish = false` (cargo metadata), packaged
    # together so each finds the others' new versions. --no-verify: the release's build is the
    # verification; a verify here would compile the whole dependency tree once more.
    local published
    mapfile -t published < <(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["publish"] is None:
        print("-p"); print(p["name"])')
    [ ${#published[@]} -gt 0 ] || die "no crate to publish"
    cargo package "${published[@]}" --no-verify --allow-dirty --quiet --target-dir "$PUB/crates" >/dev/null
    local c
    for c in "$PUB"/crates/package/*.crate; do
        echo "crates $(basename "$c")" >>"$SET"
        echo "$(basename "$c"): $(tar tzf "$c" | wc -l) files"
    done
}

image() {
    local archive
    archive=$(ls "$OUT"/image/*.tar 2>/dev/null | head -1 || true)
    if [ -z "$archive" ]; then
        echo "image: none in $OUT/image (tests/image.sh makes it in the release matrix)"
        return 0
    fi
    step "image: the OCI index of $(basename "$archive") names linux/amd64 and linux/arm64"
    skopeo inspect --raw "oci-archive:$archive" | python3 -c '
import json, sys
index = json.load(sys.stdin)
platforms = {m["platform"]["os"] + "/" + m["platform"]["architecture"] for m in index.get("manifests", [])}
need = {"linux/amd64", "linux/arm64"}
sys.exit(0 if need <= platforms else f"the index names {sorted(platforms)}, not {sorted(need)}")'
    echo "image $(basename "$archive")" >>"$SET"
}

release_page() {
    step "release page: the static binaries, the C libraries, every SBOM, and SHA256SUMS over them"
    local page=$PUB/release-page f
    mkdir -p "$page"
    for f in "$OUT"/bin/idmint-*-linux-musl "$OUT"/go/c/*.tar.gz "$OUT"/sbom/*.cdx.json; do
        [ -f "$f" ] && cp "$f" "$page/"
    done
    compgen -G "$page/*.cdx.json" >/dev/null || die "no SBOM for the release page in $OUT/sbom (tests/packages.sh sbom)"
    (cd "$page" && sha256sum -- * >SHA256SUMS && sha256sum --quiet -c SHA256SUMS)
    for f in "$page"/*; do echo "release $(basename "$f")" >>"$SET"; done
    echo "release page: $(($(ls "$page" | wc -l) - 1)) files and SHA256SUMS in $page"
}

# ---- upload: the publish jobs of release.yml (never run here: nothing may leave this machine) ----
upload_npm() {
    local t spec
    [ -s "$PUB/npm-order.txt" ] || die "no $PUB/npm-order.txt: run the dry run first"
    while IFS= read -r t; do
        spec=$(tar -xzOf "$t" package/package.json | node -p 'const p = JSON.parse(require("fs").readFileSync(0)); `${p.name}@${p.version}`')
        if npm view "$spec" version >/dev/null 2>&1; then
            echo "npm: $spec is published already"
            continue
        fi
        npm publish --provenance --access public "$t"
    done <"$PUB/npm-order.txt"
}

upload_maven() {
    maven release
    [ -n "${CENTRAL_TOKEN_USER:-}" ] && [ -n "${CENTRAL_TOKEN_PASSWORD:-}" ] || die "CENTRAL_TOKEN_USER and CENTRAL_TOKEN_PASSWORD are not set"
    local auth
    auth=$(printf '%s:%s' "$CENTRAL_TOKEN_USER" "$CENTRAL_TOKEN_PASSWORD" | base64 -w0)
    # (the header from a file, so the token is on no command line)
    curl --fail-with-body -sS -H @<(printf 'Authorization: Bearer %s\n' "$auth") \
        -F "bundle=@$PUB/central-bundle.zip" \
        "https://central.sonatype.com/api/v1/publisher/upload?publishingType=AUTOMATIC&name=idmint-$VERSION"
    echo
}

upload_crates() { cargo publish --workspace --no-verify --locked; }

upload_image() {
    local archive
    archive=$(ls "$OUT"/image/*.oci.tar) || die "no OCI archive in $OUT/image"
    [ -n "${IDMINT_IMAGE:-}" ] || die "IDMINT_IMAGE (the repository, e.g. ghcr.io/OWNER/idmint-serve) is not set"
    skopeo copy --all "oci-archive:$archive" "docker://$IDMINT_IMAGE:$VERSION"
    skopeo copy --all "oci-archive:$archive" "docker://$IDMINT_IMAGE:latest"
}

upload_go() {
    local tag=go/v$VERSION
    [ -d "$OUT/go/module/lib" ] || die "no $OUT/go/module/lib (tests/packages.sh go)"
    git diff --quiet HEAD || die "the checkout has changes: the Go module's commit must be the release's tree"
    cp -r "$OUT"/go/module/lib/. go/lib/
    git add -f go/lib
    git -c user.name="idmint release" -c user.email=release@idmint.invalid commit -q -m "Go module $tag: the C libraries of every platform"
    git tag "$tag"
    git push origin "refs/tags/$tag"
}

upload_release() {
    local notes=$PUB/release-notes.md
    # CHANGELOG.md's section of this version, up to the next one
    awk -v v="[$VERSION]" 'index($0, "## " v) == 1 { on = 1; next } on && /^## \[/ { exit } on' CHANGELOG.md >"$notes"
    [ -s "$notes" ] || die "CHANGELOG.md has no section [$VERSION]"
    gh release create "v$VERSION" --verify-tag --title "idmint $VERSION" --notes-file "$notes" "$PUB"/release-page/*
}

case "${1:-} ${2:-}" in
    " ")
        pypi
        npm_publish
        maven
        crates
        image
        release_page
        echo "the upload set ($SET):"
        sort "$SET" | awk '{print $1}' | uniq -c
        ;;
    "upload npm" | "upload maven" | "upload crates" | "upload image" | "upload go" | "upload release") "upload_$2" ;;
    *) die "usage: tests/publish.sh [upload npm|maven|crates|image|go|release]" ;;
esac
