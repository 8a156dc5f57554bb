//go:build idmint_stores

package idmint

// The library with the stores (bindings/c built with its feature `stores`): segment clients and
// leased node values on every store, what the other languages' stores add-ons carry. Chosen by
// the build tag idmint_stores; without it the slim library links (cgo_slim.go).
//
// One static library per platform under lib/ (a release ships them; go/test.sh builds the
// host's), then what Rust's standard library needs from the system: rustc's
// `--print native-static-libs` for each target, which tests/packages.sh checks these lines
// against. Go's GOOS=linux cannot tell glibc from musl, hence the build tag musl.
//
// The unwinder: -lgcc_s (-lgcc_eh on Windows) as rustc names it, which gcc (glibc, Alpine's musl,
// MinGW-w64) provides and zig cc answers with its own libunwind, linked statically.
// macOS: libSystem and libiconv (Rust's standard library names it), no framework: the release's
// libraries are built to link none.

/*
#cgo linux,amd64,!musl LDFLAGS: ${SRCDIR}/lib/linux_amd64/libidmint_stores.a -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc
#cgo linux,arm64,!musl LDFLAGS: ${SRCDIR}/lib/linux_arm64/libidmint_stores.a -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc
#cgo linux,amd64,musl LDFLAGS: ${SRCDIR}/lib/linux_amd64_musl/libidmint_stores.a -lgcc_s -lc
#cgo linux,arm64,musl LDFLAGS: ${SRCDIR}/lib/linux_arm64_musl/libidmint_stores.a -lgcc_s -lc
#cgo windows,amd64 LDFLAGS: ${SRCDIR}/lib/windows_amd64/libidmint_stores.a -lsecur32 -ladvapi32 -lkernel32 -lbcrypt -lntdll -luserenv -lws2_32 -ldbghelp -lgcc_eh
#cgo darwin,amd64 LDFLAGS: ${SRCDIR}/lib/darwin_amd64/libidmint_stores.a -liconv -lSystem -lc -lm
#cgo darwin,arm64 LDFLAGS: ${SRCDIR}/lib/darwin_arm64/libidmint_stores.a -liconv -lSystem -lc -lm
*/
import "C"
