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
	var out *Decoded
	err := withLayout(layout, func(l *C.IdmintLayout) error {
		p, n := text(id)
		var d *C.IdmintDecoded
		var cerr *C.IdmintError
		if err := status(C.idmint_parse(p, n, l, &d, &cerr), cerr); err != nil {
			return err
		}
		defer C.idmint_decoded_free(d)
		out = decodedOf(d)
		return nil
	})
	return out, err
}

// withLayout runs f with the native layout of spec, or with NULL for "" (the parser's "no
// layout": decimal text is a plain integer), freed after.
func withLayout(spec string, f func(*C.IdmintLayout) error) error {
	if spec == "" {
		return f(nil)
	}
	var l *C.IdmintLayout
	var cerr *C.IdmintError
	p, n := text(spec)
	if err := status(C.idmint_layout_new(p, n, nil, 0, &l, &cerr), cerr); err != nil {
		return err
	}
	defer C.idmint_layout_free(l)
	return f(l)
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
