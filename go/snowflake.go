package idmint

/*
#include <stdlib.h>
#include <idmint.h>
*/
import "C"

import (
	"context"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// Option configures NewSnowflake.
type Option func(*options)

type options struct {
	nodes  []node
	random bool
	epoch  string
	lease  string
	// The lease's options (zero: the core's defaults); refused by the core without Lease.
	leaseRange  bool
	leaseFirst  uint64
	leaseLast   uint64
	leaseTTL    time.Duration
	leaseFreeze time.Duration
	leaseHolder string
}

type node struct {
	name  string
	value int64
}

// Node gives node field name the value v (every node field of the layout needs a value: given,
// random or leased).
func Node(name string, v int64) Option {
	return func(o *options) { o.nodes = append(o.nodes, node{name, v}) }
}

// RandomNodes draws the node fields not given from the OS's random source: for places without
// a stable identity; two busy generators collide with probability 2^-bits.
func RandomNodes() Option { return func(o *options) { o.random = true } }

// Epoch replaces the layout's epoch (unix ms or RFC 3339).
func Epoch(epoch string) Option { return func(o *options) { o.epoch = epoch } }

// Lease leases every node field's value from the store at url (needs HasStores): a value no
// other live generator holds, renewed in the background and fenced so that a reuse never
// repeats an ID (docs/leases.md). NewSnowflake then waits for the store, bounded by the core's
// timeouts; NewSnowflakeContext bounds it by a context too.
func Lease(url string) Option { return func(o *options) { o.lease = url } }

// Snowflake is a snowflake ID generator for one node. Safe for concurrent use: every ID is
// greater than every ID it handed out before. Close it (or let the garbage collector) to
// release its lease.
//
// A cgo call costs tens of nanoseconds, so NextID hands IDs out of a block that the core fills
// in one call, as large as the core allows for this generator (1, a call for each ID, with a
// lease or a high-water mark, whose IDs the core admits as they are issued). A block is
// dropped once the clock's millisecond has passed since it was taken (the core's rule,
// idmint_snowflake_block_len; a goroutine watches the clock): an ID is never handed out more
// than about a millisecond after the core made it (give or take how late that goroutine runs),
// so it carries the time of the call, and the IDs dropped are never issued.
type Snowflake struct {
	mu    sync.Mutex
	h     *C.IdmintSnowflake
	block []uint64
	pos   int
	// ms is the ticker's count of milliseconds read before the block was taken.
	ms int64
}

// NewSnowflake makes a generator of layout (a preset name such as "twitter" or a spec such as
// "time:41,worker:10,sequence:12"; "" is twitter).
func NewSnowflake(layout string, opts ...Option) (*Snowflake, error) {
	return NewSnowflakeContext(context.Background(), layout, opts...)
}

// newSnowflake builds the generator; within > 0 bounds the wait for a lease (the core's
// acquire limit, from a context's deadline).
func newSnowflake(layout string, o options, within time.Duration) (*Snowflake, error) {
	// The options struct is Go memory, so everything it points to is C memory (cgo's rule).
	var c C.IdmintSnowflakeOptions
	var frees []unsafe.Pointer
	cstr := func(s string) (*C.char, C.size_t) {
		p := C.CString(s)
		frees = append(frees, unsafe.Pointer(p))
		return p, C.size_t(len(s))
	}
	defer func() {
		for _, p := range frees {
			C.free(p)
		}
	}()
	if layout != "" {
		c.layout, c.layout_len = cstr(layout)
	}
	if o.epoch != "" {
		c.epoch, c.epoch_len = cstr(o.epoch)
	}
	if o.lease != "" {
		c.lease_url, c.lease_url_len = cstr(o.lease)
		if o.leaseHolder != "" {
			c.lease_holder, c.lease_holder_len = cstr(o.leaseHolder)
		}
		if within > 0 {
			c.lease_acquire_within_ms = millis(within)
		}
	}
	if len(o.nodes) > 0 {
		size := C.size_t(unsafe.Sizeof(C.IdmintNode{})) * C.size_t(len(o.nodes))
		arr := C.malloc(size)
		frees = append(frees, arr)
		nodes := unsafe.Slice((*C.IdmintNode)(arr), len(o.nodes))
		for i, n := range o.nodes {
			nodes[i].name, nodes[i].name_len = cstr(n.name)
			nodes[i].value = C.int64_t(n.value)
		}
		c.nodes, c.nodes_len = (*C.IdmintNode)(arr), C.size_t(len(o.nodes))
	}
	c.random_nodes = C.bool(o.random)
	c.lease_range = C.bool(o.leaseRange)
	c.lease_first, c.lease_last = C.uint64_t(o.leaseFirst), C.uint64_t(o.leaseLast)
	c.lease_ttl_ms, c.lease_freeze_ms = millis(o.leaseTTL), millis(o.leaseFreeze)
	var h *C.IdmintSnowflake
	var cerr *C.IdmintError
	if err := status(C.idmint_snowflake_new(&c, &h, &cerr), cerr); err != nil {
		return nil, err
	}
	var n C.size_t
	cerr = nil
	if err := status(C.idmint_snowflake_block_len(h, &n, &cerr), cerr); err != nil {
		C.idmint_snowflake_free(h)
		return nil, err
	}
	s := &Snowflake{h: h, block: make([]uint64, int(n))}
	s.pos = len(s.block)
	runtime.SetFinalizer(s, (*Snowflake).Close)
	return s, nil
}

// NextID returns the next ID.
func (s *Snowflake) NextID() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pos < len(s.block) {
		if ticker.millis.Load() == s.ms {
			id := s.block[s.pos]
			s.pos++
			return id, nil
		}
		s.pos = len(s.block)
	}
	if s.h == nil {
		return 0, closed("snowflake generator")
	}
	var cerr *C.IdmintError
	if len(s.block) <= 1 {
		var id C.uint64_t
		err := status(C.idmint_snowflake_next_id(s.h, &id, &cerr), cerr)
		return uint64(id), err
	}
	// Read before the call: a block taken across a millisecond's end is dropped at the next
	// call, never kept into the one after.
	ms := ticker.millis.Load()
	if err := status(C.idmint_snowflake_next_ids(s.h, (*C.uint64_t)(&s.block[0]), C.size_t(len(s.block)), &cerr), cerr); err != nil {
		return 0, err
	}
	tickerUsed()
	s.ms, s.pos = ms, 1
	return s.block[0], nil
}

// NextIDs fills ids with increasing IDs in one call into the core, each greater than every ID
// handed out before.
func (s *Snowflake) NextIDs(ids []uint64) error {
	if len(ids) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.h == nil {
		return closed("snowflake generator")
	}
	// The rest of the block is dropped: these must be greater than every ID handed out.
	s.pos = len(s.block)
	var cerr *C.IdmintError
	return status(C.idmint_snowflake_next_ids(s.h, (*C.uint64_t)(&ids[0]), C.size_t(len(ids)), &cerr), cerr)
}

// BlockLen is how many IDs NextID takes from the core in one call for this generator (the
// core's choice: 4 for twitter, 1 with a lease or a high-water mark).
func (s *Snowflake) BlockLen() int { return len(s.block) }

// Layout returns the generator's layout, to take its IDs apart.
func (s *Snowflake) Layout() (*Layout, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.h == nil {
		return nil, closed("snowflake generator")
	}
	var l *C.IdmintLayout
	var cerr *C.IdmintError
	if err := status(C.idmint_snowflake_layout(s.h, &l, &cerr), cerr); err != nil {
		return nil, err
	}
	return layoutOf(l)
}

// Close frees the generator and releases its lease; later calls fail with kind "closed".
func (s *Snowflake) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pos = len(s.block)
	if s.h != nil {
		C.idmint_snowflake_free(s.h)
		s.h = nil
	}
	return nil
}
