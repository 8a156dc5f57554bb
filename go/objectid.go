package idmint

/*
#include <idmint.h>
*/
import "C"

import "unsafe"

// ObjectID is a 12-byte MongoDB ObjectId: 4 bytes of seconds, 5 random bytes, a 3-byte counter.
type ObjectID [12]byte

// NewObjectID returns a new ObjectId of the process-wide generator: never repeated within the
// process (at most 2^24 a second), nor after fork() in a child.
func NewObjectID() ObjectID {
	var o ObjectID
	// Cannot fail with a valid buffer.
	C.idmint_objectid_new((*C.uint8_t)(unsafe.Pointer(&o[0])), nil)
	return o
}

// ParseObjectID reads 24 hex digits (either case).
func ParseObjectID(hex string) (ObjectID, error) {
	var o ObjectID
	var cerr *C.IdmintError
	p, n := text(hex)
	err := status(C.idmint_objectid_parse(p, n, (*C.uint8_t)(unsafe.Pointer(&o[0])), &cerr), cerr)
	return o, err
}

// Hex returns the 24 lowercase hex digits.
func (o ObjectID) Hex() string {
	var buf [24]byte
	C.idmint_objectid_to_hex((*C.uint8_t)(unsafe.Pointer(&o[0])), (*C.char)(unsafe.Pointer(&buf[0])), 24, nil)
	return string(buf[:])
}

// String returns Hex.
func (o ObjectID) String() string { return o.Hex() }
