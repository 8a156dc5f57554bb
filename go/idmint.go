// Package idmint is idmint for Go: snowflake IDs of any layout, ObjectIds, and the parser of
// every ID format, from the one Rust core that every idmint package wraps, through its C ABI
// (bindings/c) and cgo. The rules, defaults and error messages are the core's; this package
// converts.
//
// Every error the package returns is an *Error whose Kind is one of the core's kinds, so it
// works with errors.Is against the sentinels (ErrInvalidLayout, ErrClockMovedBackwards, ...)
// and errors.As to read its Kind and Message.
//
// The native library: the module links a static library of bindings/c from lib/<platform>/ and
// its header from lib/include/ (cgo_slim.go, cgo_stores.go). By default the slim one,
// libidmint.a, without the stores (HasStores is false; segment clients and leases fail with
// ErrStoresNotInstalled); with the build tag idmint_stores, libidmint_stores.a, with every store.
// Linux with musl takes the build tag musl as well. go/test.sh builds the host's libraries from
// the workspace; a release ships them prebuilt for every platform (README.md, "The native
// library").
package idmint

//go:generate go run ./internal/genkinds ../bindings/c/include/idmint.h kinds.go

/*
#cgo CFLAGS: -I${SRCDIR}/lib/include
#include <stdlib.h>
#include <idmint.h>
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Error is an error of idmint: its Kind (the core's stable name, "invalid_layout") and its
// Message (the core's words, naming the bad value and the valid range).
type Error struct {
	// Kind is the core's kind string, the same in every idmint package and tests/vectors.
	Kind string
	// Message is the core's message; empty in the sentinels.
	Message string
	// Fields are the values the message names, by the core's field names ("behind_ms" of
	// ErrClockMovedBackwards, "tag" of ErrUnknownTag), numbers in decimal: for a program to
	// read instead of the message.
	Fields map[string]string
	// cause is what ended the call besides the core's error: a context's error when its
	// deadline came first (NewSnowflakeContext), for errors.Is(err, context.DeadlineExceeded).
	cause error
}

// Unwrap returns the context error that ended the call with this error, if any.
func (e *Error) Unwrap() error { return e.cause }

// Error returns the message, or the kind for a sentinel.
func (e *Error) Error() string {
	if e.Message == "" {
		return "idmint: " + e.Kind
	}
	return e.Message
}

// Is reports whether target is the sentinel (or any *Error) of the same kind, for errors.Is.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Kind == e.Kind
}

// status turns a C status and error into a Go error (nil for IDMINT_STATUS_OK), freeing it.
func status(s C.IdmintStatus, cerr *C.IdmintError) error {
	if s == C.IDMINT_STATUS_OK {
		return nil
	}
	kind := "internal"
	if sentinel, ok := byStatus[int(s)]; ok {
		kind = sentinel.Kind
	}
	e := &Error{Kind: kind}
	if cerr != nil {
		var n C.size_t
		m := C.idmint_error_message(cerr, &n)
		e.Message = C.GoStringN(m, C.int(n))
		count := int(C.idmint_error_field_count(cerr))
		if count > 0 {
			e.Fields = make(map[string]string, count)
		}
		for i := 0; i < count; i++ {
			var name, value *C.char
			var nl, vl C.size_t
			if C.idmint_error_field(cerr, C.size_t(i), &name, &nl, &value, &vl) {
				e.Fields[C.GoStringN(name, C.int(nl))] = C.GoStringN(value, C.int(vl))
			}
		}
		C.idmint_error_free(cerr)
	}
	if e.Message == "" {
		e.Message = fmt.Sprintf("idmint: status %d (%s)", int(s), kind)
	}
	return e
}

func init() {
	// The core words its errors for the package linked in: "build with -tags idmint_stores".
	C.idmint_register_package(C.IDMINT_PACKAGE_GO)
}

// closed is the core's error for a call on an object already closed (what: "segment client").
func closed(what string) error {
	p, n := text(what)
	var cerr *C.IdmintError
	return status(C.idmint_closed_error(p, n, &cerr), cerr)
}

// empty is "" in C memory, for the empty strings passed to C (never freed).
var empty = C.CString("")

// text is s as C text for the duration of a call: the string's own bytes (Go memory that C
// reads and does not keep), and a static empty string for "" so that "" is never NULL (NULL
// means "not given").
func text(s string) (*C.char, C.size_t) {
	if len(s) == 0 {
		return empty, 0
	}
	return (*C.char)(unsafe.Pointer(unsafe.StringData(s))), C.size_t(len(s))
}

// HasStores reports whether the linked library has the stores (segment clients, leased node
// values): built with the cargo feature `stores`.
func HasStores() bool { return bool(C.idmint_has_stores()) }

// Version is the native library's version.
func Version() string { return C.GoString(C.idmint_version()) }
