package idmint

/*
#include <stdlib.h>
#include <idmint.h>
*/
import "C"

import "unsafe"

// Part is one named part of a decoded ID: a number, or text (hex bytes, a name).
type Part struct {
	// Name is the part's name ("worker", "sequence", "random", ...).
	Name string
	// Number is its value when IsText is false.
	Number uint64
	// Text is its value when IsText is true.
	Text string
	// IsText tells which of the two it is.
	IsText bool
}

// Decoded is an ID taken apart by Parse, in the one shape every idmint package returns.
type Decoded struct {
	// Format is "snowflake", "integer", "objectid", "uuid", "ulid", "ksuid", "xid", "tsid" or "typeid".
	Format string
	// ID is the canonical text.
	ID string
	// Value is the ID as a 64-bit integer, for the formats that are one; HasValue says whether.
	Value    uint64
	HasValue bool
	// TimeMs is the time the ID carries, unix ms; HasTime says whether it carries one.
	TimeMs  int64
	HasTime bool
	// Time is that time in RFC 3339 at the format's precision ("" without one).
	Time string
	// Layout is the layout a snowflake was read with ("" for other formats).
	Layout string
	// Parts are the named parts, most significant first.
	Parts []Part
}

// Parse recognises and takes apart an ID given as text: a decimal snowflake of layout (a
// preset name or a spec; "" reads decimal text as a plain 64-bit integer), an ObjectId, a UUID,
// a ULID, a KSUID, an xid, a TSID or a TypeID.
func Parse(id string, layout string) (*Decoded, error) {
	var l *C.IdmintLayout
	var cerr *C.IdmintError
	if layout != "" {
		p, n := text(layout)
		if err := status(C.idmint_layout_new(p, n, nil, 0, &l, &cerr), cerr); err != nil {
			return nil, err
		}
		defer C.idmint_layout_free(l)
	}
	p, n := text(id)
	var d *C.IdmintDecoded
	cerr = nil
	if err := status(C.idmint_parse(p, n, l, &d, &cerr), cerr); err != nil {
		return nil, err
	}
	defer C.idmint_decoded_free(d)
	str := func(f func(*C.size_t) *C.char) string {
		var n C.size_t
		s := f(&n)
		if s == nil {
			return ""
		}
		return C.GoStringN(s, C.int(n))
	}
	out := &Decoded{
		Format: str(func(n *C.size_t) *C.char { return C.idmint_decoded_format(d, n) }),
		ID:     str(func(n *C.size_t) *C.char { return C.idmint_decoded_id(d, n) }),
		Time:   str(func(n *C.size_t) *C.char { return C.idmint_decoded_time(d, n) }),
		Layout: str(func(n *C.size_t) *C.char { return C.idmint_decoded_layout(d, n) }),
	}
	var v C.uint64_t
	out.HasValue = bool(C.idmint_decoded_value(d, &v))
	out.Value = uint64(v)
	var t C.int64_t
	out.HasTime = bool(C.idmint_decoded_time_ms(d, &t))
	out.TimeMs = int64(t)
	count := int(C.idmint_decoded_part_count(d))
	for i := 0; i < count; i++ {
		var name, txt *C.char
		var nameLen, txtLen C.size_t
		var num C.uint64_t
		C.idmint_decoded_part(d, C.size_t(i), &name, &nameLen, &num, &txt, &txtLen, nil)
		part := Part{Name: C.GoStringN(name, C.int(nameLen)), Number: uint64(num)}
		if txt != nil {
			part.Text, part.IsText = C.GoStringN(txt, C.int(txtLen)), true
		}
		out.Parts = append(out.Parts, part)
	}
	return out, nil
}

// Compose puts a snowflake ID of layout together from a time (unix ms), node values by name
// and a sequence; each is checked as the core checks it.
func Compose(layout string, timeMs int64, nodes map[string]int64, sequence int64) (uint64, error) {
	var l *C.IdmintLayout
	var cerr *C.IdmintError
	p, n := text(layout)
	if err := status(C.idmint_layout_new(p, n, nil, 0, &l, &cerr), cerr); err != nil {
		return 0, err
	}
	defer C.idmint_layout_free(l)
	size := C.size_t(unsafe.Sizeof(C.IdmintNode{})) * C.size_t(len(nodes)+1)
	arr := C.malloc(size)
	defer C.free(arr)
	cn := unsafe.Slice((*C.IdmintNode)(arr), len(nodes)+1)
	i := 0
	for name, v := range nodes {
		cs := C.CString(name)
		defer C.free(unsafe.Pointer(cs))
		cn[i] = C.IdmintNode{name: cs, name_len: C.size_t(len(name)), value: C.int64_t(v)}
		i++
	}
	var id C.uint64_t
	cerr = nil
	err := status(C.idmint_layout_compose(l, C.int64_t(timeMs), (*C.IdmintNode)(arr), C.size_t(len(nodes)), C.int64_t(sequence), &id, &cerr), cerr)
	return uint64(id), err
}

// Layout is a snowflake layout whose IDs Decompose takes apart in Go, without a cgo call: it
// holds the core's bit table of the layout (where each field lies, the tick and the epoch, and
// the largest ID the core takes apart), read once through the C ABI. Applying a shift and a
// mask the core gave is conversion of bits, not a rule of Go's own: the core says which IDs the
// table splits as it would (0 to its max_id, checked against its decompose in bindings/c's
// tests), and an ID above goes to the core for its error. A cgo call costs more than the shifts
// (docs/bench/go.md). Immutable: safe for concurrent use; it holds no native resource.
type Layout struct {
	spec    string
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

// NewLayout reads a layout: a preset name ("twitter", "sonyflake", ...) or a spec
// ("time:41,worker:10,sequence:12,epoch=2020-01-01T00:00:00Z"); "" is twitter.
func NewLayout(spec string) (*Layout, error) {
	l, err := cLayout(spec)
	if err != nil {
		return nil, err
	}
	defer C.idmint_layout_free(l)
	return newLayout(l)
}

// cLayout is a native layout of spec ("" the default preset), freed by the caller.
func cLayout(spec string) (*C.IdmintLayout, error) {
	var l *C.IdmintLayout
	var cerr *C.IdmintError
	var p *C.char
	var n C.size_t
	if spec != "" {
		p, n = text(spec)
	}
	if err := status(C.idmint_layout_new(p, n, nil, 0, &l, &cerr), cerr); err != nil {
		return nil, err
	}
	return l, nil
}

// newLayout copies what Decompose needs out of a native layout (which the caller frees).
func newLayout(l *C.IdmintLayout) (*Layout, error) {
	var cerr *C.IdmintError
	var count C.size_t
	if err := status(C.idmint_layout_node_count(l, &count, &cerr), cerr); err != nil {
		return nil, err
	}
	out := &Layout{names: make([]string, int(count)), nodes: make([]bitField, int(count))}
	fields := make([]C.IdmintField, int(count)+1) // never empty: &fields[0] is valid
	var bits C.IdmintLayoutBits
	cerr = nil
	if err := status(C.idmint_layout_bits(l, &bits, &fields[0], count, &cerr), cerr); err != nil {
		return nil, err
	}
	for i := range out.names {
		var name *C.char
		var n C.size_t
		cerr = nil
		if err := status(C.idmint_layout_node_name(l, C.size_t(i), &name, &n, &cerr), cerr); err != nil {
			return nil, err
		}
		out.names[i] = C.GoStringN(name, C.int(n))
		out.nodes[i] = toBitField(fields[i])
	}
	var spec *C.char
	var n C.size_t
	cerr = nil
	if err := status(C.idmint_layout_spec(l, &spec, &n, &cerr), cerr); err != nil {
		return nil, err
	}
	out.spec = C.GoStringN(spec, C.int(n))
	C.idmint_string_free(spec)
	out.time, out.seq = toBitField(bits.time), toBitField(bits.sequence)
	out.tickMs, out.epochMs, out.maxID = uint64(bits.tick_ms), uint64(bits.epoch_ms), uint64(bits.max_id)
	return out, nil
}

// Spec is the layout's spec, or the preset's name for an unchanged preset.
func (l *Layout) Spec() string { return l.spec }

// NodeNames are the names of the node fields, most significant first: the order of the nodes
// DecomposeInto fills.
func (l *Layout) NodeNames() []string { return append([]string(nil), l.names...) }

// SnowflakeParts is a snowflake ID taken apart by Layout.Decompose.
type SnowflakeParts struct {
	// TimeMs is the start of the ID's tick, unix ms.
	TimeMs int64
	// Nodes are the node fields' values, in the order of Layout.NodeNames.
	Nodes []uint64
	// Sequence is the sequence number within the tick.
	Sequence uint64
}

// Decompose takes an ID of the layout apart; an ID that does not fit the layout is the core's
// invalid_id error.
func (l *Layout) Decompose(id uint64) (SnowflakeParts, error) {
	p := SnowflakeParts{Nodes: make([]uint64, len(l.nodes))}
	t, seq, err := l.DecomposeInto(id, p.Nodes)
	if err != nil {
		return SnowflakeParts{}, err
	}
	p.TimeMs, p.Sequence = t, seq
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
	c, err := cLayout(l.spec)
	if err != nil {
		return 0, 0, err
	}
	defer C.idmint_layout_free(c)
	var parts C.IdmintParts
	var cerr *C.IdmintError
	var p *C.uint64_t
	if len(nodes) > 0 {
		p = (*C.uint64_t)(&nodes[0])
	}
	err = status(C.idmint_layout_decompose(c, C.uint64_t(id), &parts, p, C.size_t(len(nodes)), &cerr), cerr)
	return int64(parts.time_ms), uint64(parts.sequence), err
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
