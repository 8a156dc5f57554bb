package idmint

/*
#include <idmint.h>
*/
import "C"

import "sync"

// SegmentClient hands out segment IDs (numbers that only grow) for any number of tags from a
// store (sqlite:PATH, postgres://..., redis://..., an idmint serve), double-buffered in the
// core so a refill is never on the caller's path. Safe for concurrent use. Needs HasStores.
type SegmentClient struct {
	mu   sync.RWMutex
	h    *C.IdmintSegmentClient
	tags sync.Map // tag name -> *C.IdmintTag
}

// ConnectSegments opens the store at url (blocking, bounded by the core's timeouts).
func ConnectSegments(url string) (*SegmentClient, error) {
	p, n := text(url)
	var h *C.IdmintSegmentClient
	var cerr *C.IdmintError
	if err := status(C.idmint_segment_client_connect(p, n, &h, &cerr), cerr); err != nil {
		return nil, err
	}
	c := &SegmentClient{h: h}
	setFinalizer(c, (*SegmentClient).Close)
	return c, nil
}

// NextID returns the next ID of tag: one cgo call, one atomic step in the core while IDs are
// in memory.
func (c *SegmentClient) NextID(tag string) (uint64, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	t, err := c.tag(tag)
	if err != nil {
		return 0, err
	}
	var id C.uint64_t
	var cerr *C.IdmintError
	err = status(C.idmint_tag_next_id(t, &id, &cerr), cerr)
	return uint64(id), err
}

// tag is the cached handle of a tag (under the read lock).
func (c *SegmentClient) tag(tag string) (*C.IdmintTag, error) {
	if c.h == nil {
		return nil, closed("segment client")
	}
	if t, ok := c.tags.Load(tag); ok {
		return t.(*C.IdmintTag), nil
	}
	p, n := text(tag)
	var t *C.IdmintTag
	var cerr *C.IdmintError
	if err := status(C.idmint_segment_client_tag(c.h, p, n, &t, &cerr), cerr); err != nil {
		return nil, err
	}
	if prev, loaded := c.tags.LoadOrStore(tag, t); loaded {
		C.idmint_tag_free(t)
		return prev.(*C.IdmintTag), nil
	}
	return t, nil
}

// Close gives the unused tails of the buffered ranges back to the store and frees the client;
// later calls fail with ErrClosed.
func (c *SegmentClient) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h == nil {
		return nil
	}
	c.tags.Range(func(k, v any) bool {
		C.idmint_tag_free(v.(*C.IdmintTag))
		c.tags.Delete(k)
		return true
	})
	C.idmint_segment_client_free(c.h)
	c.h = nil
	return nil
}
