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
//
// Decompose, DecomposeInto and ID take IDs apart in Go, without a cgo call: the layout holds the
// core's bit table (where each field lies, the tick and the epoch, and the largest ID the core
// takes apart), read once through the C ABI. Applying a shift and a mask the core gave is
// conversion of bits, not a rule of Go's own: the core says which IDs the table splits as it
// would (0 to its max_id, checked against its decompose in bindings/c's tests), and an ID above
// goes to the core for its error. A cgo call costs more than the shifts (docs/bench/go.md).
type Layout struct {
	mu sync.RWMutex
	h  *C.IdmintLayout
	// The bit table: immutable once read, so the Go paths take no lock.
	names   []string
	time    bitField
	tickMs  uint64
	epochMs uint64
	seq     bitField
	nodes   []bitField
	maxID   uint64
}

type bitField struct {
	mask  uint64
	shift uint8
}

// of is the field's value in id. A shift is below 64 (a field has bits above it or is the
// time field, whose shift leaves it at least one bit): & 63 says so to the compiler, which
// then emits a bare shift.
func (f bitField) of(id uint64) uint64 { return id >> (f.shift & 63) & f.mask }

func toBitField(f C.IdmintField) bitField {
	return bitField{shift: uint8(f.shift), mask: ^uint64(0) >> (64 - uint(f.bits))}
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
	TimeMs int64
	// Nodes are the node fields' values, most significant first (the order of
	// Layout.NodeNames), as Layout.Compose takes them back.
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
	return layoutOf(h)
}

// layoutOf takes over a native layout: its bit table read, freed by Close or the collector.
func layoutOf(h *C.IdmintLayout) (*Layout, error) {
	l := &Layout{h: h}
	if err := l.readTable(); err != nil {
		C.idmint_layout_free(h)
		return nil, err
	}
	setFinalizer(l, (*Layout).Close)
	return l, nil
}

// readTable copies the core's bit table and node names out of the native layout.
func (l *Layout) readTable() error {
	var cerr *C.IdmintError
	var count C.size_t
	if err := status(C.idmint_layout_node_count(l.h, &count, &cerr), cerr); err != nil {
		return err
	}
	l.names, l.nodes = make([]string, int(count)), make([]bitField, int(count))
	fields := make([]C.IdmintField, int(count)+1) // never empty: &fields[0] is valid
	var bits C.IdmintLayoutBits
	cerr = nil
	if err := status(C.idmint_layout_bits(l.h, &bits, &fields[0], count, &cerr), cerr); err != nil {
		return err
	}
	for i := range l.names {
		var name *C.char
		var n C.size_t
		cerr = nil
		if err := status(C.idmint_layout_node_name(l.h, C.size_t(i), &name, &n, &cerr), cerr); err != nil {
			return err
		}
		l.names[i] = C.GoStringN(name, C.int(n))
		l.nodes[i] = toBitField(fields[i])
	}
	l.time, l.seq = toBitField(bits.time), toBitField(bits.sequence)
	l.tickMs, l.epochMs, l.maxID = uint64(bits.tick_ms), uint64(bits.epoch_ms), uint64(bits.max_id)
	return nil
}

// NodeNames are the names of the node fields, most significant first: the order of
// SnowflakeParts.Nodes and of the values DecomposeInto fills.
func (l *Layout) NodeNames() []string { return append([]string(nil), l.names...) }

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

// Decompose takes an ID of the layout apart: its time, node values and sequence. An ID that
// does not fit the layout is the core's invalid_id error.
func (l *Layout) Decompose(id uint64) (SnowflakeParts, error) {
	values := make([]uint64, len(l.nodes))
	t, seq, err := l.DecomposeInto(id, values)
	if err != nil {
		return SnowflakeParts{}, err
	}
	p := SnowflakeParts{TimeMs: t, Sequence: seq, Nodes: make([]NodeValue, len(values))}
	for i, v := range values {
		p.Nodes[i] = NodeValue{Name: l.names[i], Value: int64(v)}
	}
	return p, nil
}

// DecomposeInto is Decompose without allocating: the node values go into nodes (one per node
// field, len(l.NodeNames())), and it returns the time (unix ms) and the sequence. Errors are
// the core's: invalid_id for an ID that does not fit, invalid_argument for nodes of another
// length.
func (l *Layout) DecomposeInto(id uint64, nodes []uint64) (timeMs int64, sequence uint64, err error) {
	if id > l.maxID || len(nodes) != len(l.nodes) {
		return l.slow(id, nodes)
	}
	for i, f := range l.nodes {
		nodes[i] = f.of(id)
	}
	return int64(l.time.of(id)*l.tickMs + l.epochMs), l.seq.of(id), nil
}

// slow takes id apart in the core: the IDs outside the table's range (the core refuses them:
// its error) and buffers of another length (its invalid_argument).
func (l *Layout) slow(id uint64, nodes []uint64) (int64, uint64, error) {
	var parts C.IdmintParts
	var p *C.uint64_t
	if len(nodes) > 0 {
		p = (*C.uint64_t)(&nodes[0])
	}
	err := l.call(func(h *C.IdmintLayout, cerr **C.IdmintError) C.IdmintStatus {
		return C.idmint_layout_decompose(h, C.uint64_t(id), &parts, p, C.size_t(len(nodes)), cerr)
	})
	return int64(parts.time_ms), uint64(parts.sequence), err
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

// SnowflakeID is an ID checked against its layout by Layout.ID, read field by field: each
// method is a shift and a mask of the core's bit table, small enough for the compiler to
// inline, so reading one field costs about a nanosecond.
type SnowflakeID struct {
	layout *Layout
	value  uint64
}

// ID checks that id fits the layout (the core's invalid_id error if not) and returns it for
// reading its fields.
func (l *Layout) ID(id uint64) (SnowflakeID, error) {
	if id > l.maxID {
		return SnowflakeID{}, l.refuse(id)
	}
	return SnowflakeID{l, id}, nil
}

// refuse is the core's error for an ID above the table's range (out of ID's body, so that ID
// stays small enough to inline).
//
//go:noinline
func (l *Layout) refuse(id uint64) error {
	_, _, err := l.slow(id, make([]uint64, len(l.nodes)))
	return err
}

// Value is the ID.
func (s SnowflakeID) Value() uint64 { return s.value }

// TimeMs is the start of the ID's tick, unix ms.
func (s SnowflakeID) TimeMs() int64 {
	l := s.layout
	// The time field is the top one, and Layout.ID let through no ID with bits above the
	// table's: the shift alone is its value.
	return int64((s.value>>(l.time.shift&63))*l.tickMs + l.epochMs)
}

// Node is the value of node field i, in the order of Layout.NodeNames; it panics for an i
// outside them, as a slice index does.
func (s SnowflakeID) Node(i int) uint64 { return s.layout.nodes[i].of(s.value) }

// Sequence is the sequence number within the tick.
func (s SnowflakeID) Sequence() uint64 { return s.layout.seq.of(s.value) }
