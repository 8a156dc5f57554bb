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

// batch is how many IDs a generator takes from the core per cgo call: one call costs tens of
// nanoseconds, so NextID hands IDs out of a buffer refilled in one call.
const batch = 64

// Snowflake is a snowflake ID generator for one node. Safe for concurrent use: every ID is
// greater than every ID it handed out before. Close it (or let the garbage collector) to
// release its lease.
type Snowflake struct {
	mu  sync.Mutex
	h   *C.IdmintSnowflake
	buf [batch]uint64
	pos int
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
	s := &Snowflake{h: h, pos: batch}
	runtime.SetFinalizer(s, (*Snowflake).Close)
	return s, nil
}

// NextID returns the next ID.
func (s *Snowflake) NextID() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pos == batch {
		if s.h == nil {
			return 0, closed("snowflake generator")
		}
		var cerr *C.IdmintError
		if err := status(C.idmint_snowflake_next_ids(s.h, (*C.uint64_t)(&s.buf[0]), batch, &cerr), cerr); err != nil {
			return 0, err
		}
		s.pos = 0
	}
	id := s.buf[s.pos]
	s.pos++
	return id, nil
}

// NextIDs fills ids with increasing IDs in one call into the core.
func (s *Snowflake) NextIDs(ids []uint64) error {
	if len(ids) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.h == nil {
		return closed("snowflake generator")
	}
	// IDs still in the buffer are dropped: the batch must be greater than every ID handed out.
	s.pos = batch
	var cerr *C.IdmintError
	return status(C.idmint_snowflake_next_ids(s.h, (*C.uint64_t)(&ids[0]), C.size_t(len(ids)), &cerr), cerr)
}

// Close frees the generator and releases its lease; later calls fail with kind "closed".
func (s *Snowflake) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.h != nil {
		C.idmint_snowflake_free(s.h)
		s.h = nil
	}
	return nil
}
