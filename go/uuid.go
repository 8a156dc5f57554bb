package idmint

/*
#include <stdlib.h>
#include <idmint.h>
*/
import "C"

import (
	"sync"
	"unsafe"
)

// UUID is a version-7 UUID's 16 bytes (RFC 9562): 48 bits of unix ms, then a counter and
// random bits, so UUIDs made in one process increase.
type UUID [16]byte

var (
	uuidOnce sync.Once
	uuidGen  *C.IdmintUuid7Generator
)

// NewUUIDv7 returns the next UUIDv7 of the process-wide generator: increasing within the process.
func NewUUIDv7() (UUID, error) {
	uuidOnce.Do(func() { C.idmint_uuid7_generator_new(&uuidGen, nil) })
	var u UUID
	var cerr *C.IdmintError
	err := status(C.idmint_uuid7_next(uuidGen, (*C.uint8_t)(unsafe.Pointer(&u[0])), &cerr), cerr)
	return u, err
}

// String returns the 36 lowercase characters with hyphens.
func (u UUID) String() string { return u.text(false, 36) }

// ULID returns the UUID's 26-character ULID text (the same 128 bits).
func (u UUID) ULID() string { return u.text(true, 26) }

func (u UUID) text(ulid bool, n int) string {
	buf := make([]byte, n)
	var cerr *C.IdmintError
	if status(C.idmint_uuid7_text((*C.uint8_t)(unsafe.Pointer(&u[0])), C.bool(ulid), (*C.char)(unsafe.Pointer(&buf[0])), C.size_t(n), &cerr), cerr) != nil {
		return "" // not a version-7 UUID: only a UUID made by hand can be one
	}
	return string(buf)
}

// TypeIDs mints TypeIDs (spec v0.3: "user_01h455vb4pex5vsknk084sn02q") of one prefix. Safe
// for concurrent use; Close frees it (or the garbage collector does).
type TypeIDs struct {
	mu sync.Mutex
	h  *C.IdmintTypeIdGenerator
}

// NewTypeIDs makes a TypeID generator of prefix (0 to 63 of a-z and _).
func NewTypeIDs(prefix string) (*TypeIDs, error) {
	p, n := text(prefix)
	var h *C.IdmintTypeIdGenerator
	var cerr *C.IdmintError
	if err := status(C.idmint_typeid_generator_new(p, n, &h, &cerr), cerr); err != nil {
		return nil, err
	}
	t := &TypeIDs{h: h}
	setFinalizer(t, (*TypeIDs).Close)
	return t, nil
}

// Next returns the next TypeID.
func (t *TypeIDs) Next() (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var s *C.char
	var n C.size_t
	var cerr *C.IdmintError
	// A closed generator is NULL here: the core's invalid_argument naming it.
	if err := status(C.idmint_typeid_next(t.h, &s, &n, &cerr), cerr); err != nil {
		return "", err
	}
	defer C.idmint_string_free(s)
	return C.GoStringN(s, C.int(n)), nil
}

// Close frees the generator.
func (t *TypeIDs) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	C.idmint_typeid_generator_free(t.h)
	t.h = nil
	return nil
}
