package idmint

/*
#include <idmint.h>
*/
import "C"

import (
	"sync"
	"unsafe"
)

// ObjectID is a 12-byte MongoDB ObjectId: 4 bytes of seconds, 5 random bytes, a 3-byte counter.
type ObjectID [12]byte

// NewObjectID returns a new ObjectId of the process-wide generator: never repeated within the
// process (at most 2^24 a second). They come from a block of ObjectIds the core makes in one
// cgo call (idmint_objectid_block_len of them), handed out in the order of the calls, and the
// rest of a block is dropped once the system clock's second has passed since it was taken (a
// goroutine watches the clock), so an ObjectId carries the second of the call, give or take
// how late that goroutine wakes; the ones dropped are never issued.
func NewObjectID() ObjectID {
	b := &objectIDs
	b.mu.Lock()
	if b.next == len(b.buf) || ticker.seconds.Load() != b.second {
		b.refill()
	}
	var o ObjectID
	copy(o[:], b.buf[b.next:])
	b.next += len(o)
	b.mu.Unlock()
	return o
}

// objectIDs is the block NewObjectID hands out, shared by every goroutine.
var objectIDs = newObjectIDBlock(int(C.idmint_objectid_block_len()))

func newObjectIDBlock(n int) objectIDBlock {
	return objectIDBlock{buf: make([]byte, 12*n), next: 12 * n}
}

type objectIDBlock struct {
	mu     sync.Mutex
	buf    []byte
	next   int
	second int64
}

func (b *objectIDBlock) refill() {
	// Read before the call: a block taken across a second's end is dropped at the next call.
	b.second = ticker.seconds.Load()
	// Cannot fail with a valid buffer; it waits for the next second when this one's 2^24 are
	// used up (the core's rule).
	C.idmint_objectid_fill(nil, (*C.uint8_t)(unsafe.Pointer(&b.buf[0])), C.size_t(len(b.buf)/12), nil)
	tickerUsed()
	b.next = 0
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
