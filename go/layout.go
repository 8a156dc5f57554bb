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

// Layout is a snowflake layout read once (a preset name or a spec): its derived values, and
// IDs of it read, taken apart and put together. Safe for concurrent use; Close frees it (or the
// garbage collector does).
type Layout struct {
	mu sync.RWMutex
	h  *C.IdmintLayout
}

// NodeValue is a node field's name and value, as Layout.Compose takes them.
type NodeValue struct {
	// Name is the field's name ("worker").
	Name string
	// Value is its value (signed, so a negative one is refused as out of range, not wrapped).
	Value int64
}

// SnowflakeParts is a snowflake ID taken apart by Layout.Decompose.
type SnowflakeParts struct {
	// TimeMs is the start of the ID's tick, unix ms.
	TimeMs uint64
	// Nodes are the node fields' values, most significant first.
	Nodes []NodeValue
	// Sequence is the sequence number within the tick.
	Sequence uint64
}

// ParseLayout reads a layout: a preset name ("twitter", "sonyflake", "discord", ...) or a
// spec ("time:41,worker:10,sequence:12,epoch=2020-01-01T00:00:00Z"). Text that is neither
// ("" too) is kind "invalid_layout".
func ParseLayout(spec string) (*Layout, error) {
	var h *C.IdmintLayout
	var cerr *C.IdmintError
	p, n := text(spec)
	if err := status(C.idmint_layout_new(p, n, nil, 0, &h, &cerr), cerr); err != nil {
		return nil, err
	}
	l := &Layout{h: h}
	setFinalizer(l, (*Layout).Close)
	return l, nil
}

// Close frees the layout; later calls fail with kind "invalid_argument" (a NULL handle).
func (l *Layout) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	C.idmint_layout_free(l.h)
	l.h = nil
	return nil
}

// call runs f on the handle, which Close cannot free meanwhile.
func (l *Layout) call(f func(h *C.IdmintLayout, cerr **C.IdmintError) C.IdmintStatus) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	var cerr *C.IdmintError
	return status(f(l.h, &cerr), cerr)
}

// owned is a string the library handed out, freed.
func owned(s *C.char, n C.size_t) string {
	if s == nil {
		return ""
	}
	defer C.idmint_string_free(s)
	return C.GoStringN(s, C.int(n))
}

// Spec is the canonical spec: "time:{bits}@{tick}ms", each field, ",unsigned" if set and
// ",epoch={unix ms}" (twitter is "time:41@1ms,datacenter:5,worker:5,sequence:12,epoch=1288834974657").
func (l *Layout) Spec() (string, error) {
	var s *C.char
	var n C.size_t
	err := l.call(func(h *C.IdmintLayout, cerr **C.IdmintError) C.IdmintStatus {
		return C.idmint_layout_canonical_spec(h, &s, &n, cerr)
	})
	return owned(s, n), err
}

// Preset is the name of the preset the layout is, and false for a layout that is none (or a
// preset given another epoch).
func (l *Layout) Preset() (string, bool, error) {
	var s *C.char
	var n C.size_t
	err := l.call(func(h *C.IdmintLayout, cerr **C.IdmintError) C.IdmintStatus {
		return C.idmint_layout_preset(h, &s, &n, cerr)
	})
	return owned(s, n), s != nil, err
}

// TotalBits is the layout's width: time bits plus every field's (63 or less, 64 for some
// unsigned layouts).
func (l *Layout) TotalBits() (int, error) {
	var bits C.uint32_t
	err := l.call(func(h *C.IdmintLayout, cerr **C.IdmintError) C.IdmintStatus {
		return C.idmint_layout_total_bits(h, &bits, cerr)
	})
	return int(bits), err
}

// Unsigned reports whether the layout is unsigned: its IDs may pass 2^63-1 (the 64-bit IDs of
// other systems).
func (l *Layout) Unsigned() (bool, error) {
	var u C.bool
	err := l.call(func(h *C.IdmintLayout, cerr **C.IdmintError) C.IdmintStatus {
		return C.idmint_layout_is_unsigned(h, &u, cerr)
	})
	return bool(u), err
}

// ExhaustsAtMs is the first instant, unix ms, the time field cannot hold: a generator refuses
// to mint from then on.
func (l *Layout) ExhaustsAtMs() (uint64, error) {
	var ms C.uint64_t
	err := l.call(func(h *C.IdmintLayout, cerr **C.IdmintError) C.IdmintStatus {
		return C.idmint_layout_exhausts_at_ms(h, &ms, cerr)
	})
	return uint64(ms), err
}

// ExhaustsAt is ExhaustsAtMs in RFC 3339 with milliseconds, capped at 9999-12-31T23:59:59.999Z.
func (l *Layout) ExhaustsAt() (string, error) {
	var s *C.char
	var n C.size_t
	err := l.call(func(h *C.IdmintLayout, cerr **C.IdmintError) C.IdmintStatus {
		return C.idmint_layout_exhausts_at(h, &s, &n, cerr)
	})
	return owned(s, n), err
}

// ParseID reads a decimal ID of the layout: at most 2^63-1 (2^64-1 if unsigned) and within the
// layout's bits.
func (l *Layout) ParseID(id string) (uint64, error) {
	var v C.uint64_t
	p, n := text(id)
	err := l.call(func(h *C.IdmintLayout, cerr **C.IdmintError) C.IdmintStatus {
		return C.idmint_layout_parse_id(h, p, n, &v, cerr)
	})
	return uint64(v), err
}

// Decompose takes an ID of the layout apart: its time, node values and sequence.
func (l *Layout) Decompose(id uint64) (SnowflakeParts, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	var count C.size_t
	var cerr *C.IdmintError
	if err := status(C.idmint_layout_node_count(l.h, &count, &cerr), cerr); err != nil {
		return SnowflakeParts{}, err
	}
	// Go memory holding no Go pointers, which C may write during the call (cgo's rule).
	values := make([]C.uint64_t, int(count)+1)
	var parts C.IdmintParts
	cerr = nil
	if err := status(C.idmint_layout_decompose(l.h, C.uint64_t(id), &parts, &values[0], count, &cerr), cerr); err != nil {
		return SnowflakeParts{}, err
	}
	values = values[:count]
	out := SnowflakeParts{TimeMs: uint64(parts.time_ms), Sequence: uint64(parts.sequence)}
	for i := range values {
		var name *C.char
		var n C.size_t
		cerr = nil
		if err := status(C.idmint_layout_node_name(l.h, C.size_t(i), &name, &n, &cerr), cerr); err != nil {
			return SnowflakeParts{}, err
		}
		out.Nodes = append(out.Nodes, NodeValue{Name: C.GoStringN(name, C.int(n)), Value: int64(values[i])})
	}
	return out, nil
}

// Compose puts an ID of the layout together from a time (unix ms, floored to its tick), a
// value for every node field (by name, any order) and a sequence. The checks, and which comes
// first when several fail, are the core's (docs/spec.md 4): nodes are checked in the order
// given.
func (l *Layout) Compose(timeMs int64, nodes []NodeValue, sequence int64) (uint64, error) {
	arr := (*C.IdmintNode)(C.malloc(C.size_t(unsafe.Sizeof(C.IdmintNode{})) * C.size_t(len(nodes)+1)))
	defer C.free(unsafe.Pointer(arr))
	cn := unsafe.Slice(arr, len(nodes)+1)
	for i, nv := range nodes {
		cs := C.CString(nv.Name)
		defer C.free(unsafe.Pointer(cs))
		cn[i] = C.IdmintNode{name: cs, name_len: C.size_t(len(nv.Name)), value: C.int64_t(nv.Value)}
	}
	var id C.uint64_t
	err := l.call(func(h *C.IdmintLayout, cerr **C.IdmintError) C.IdmintStatus {
		return C.idmint_layout_compose(h, C.int64_t(timeMs), arr, C.size_t(len(nodes)), C.int64_t(sequence), &id, cerr)
	})
	return uint64(id), err
}

// MinIDAt is the smallest ID of the tick holding timeMs (unix ms), and MaxIDAt the largest: the
// bounds of a time-range query on an ID column (WHERE id BETWEEN min AND max). A time outside
// the layout's is kind "time_out_of_range".
func (l *Layout) MinIDAt(timeMs int64) (uint64, error) { return l.idAt(timeMs, false) }

// MaxIDAt is the largest ID of the tick holding timeMs (see MinIDAt).
func (l *Layout) MaxIDAt(timeMs int64) (uint64, error) { return l.idAt(timeMs, true) }

func (l *Layout) idAt(timeMs int64, max bool) (uint64, error) {
	var id C.uint64_t
	err := l.call(func(h *C.IdmintLayout, cerr **C.IdmintError) C.IdmintStatus {
		return C.idmint_layout_id_at(h, C.int64_t(timeMs), C.bool(max), &id, cerr)
	})
	return uint64(id), err
}
