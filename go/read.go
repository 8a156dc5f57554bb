package idmint

/*
#include <stdlib.h>
#include <idmint.h>
*/
import "C"

import "unsafe"

// ParseAs is Parse in the format named ("snowflake", "integer", "objectid", "uuid", "ulid",
// "ksuid", "xid", "tsid" or "typeid"), skipping the choice by length and alphabet: a TypeID
// without a prefix, or a TSID of digits alone, is read as one. layout is a preset name or spec
// for a snowflake ("" for the other formats). An unknown format is kind "invalid_argument";
// text the format refuses, that format's kind.
func ParseAs(id, format, layout string) (*Decoded, error) {
	var out *Decoded
	err := withLayout(layout, func(l *C.IdmintLayout) error {
		p, n := text(id)
		fp, fn := text(format)
		var d *C.IdmintDecoded
		var cerr *C.IdmintError
		if err := status(C.idmint_parse_as(p, n, fp, fn, l, &d, &cerr), cerr); err != nil {
			return err
		}
		defer C.idmint_decoded_free(d)
		out = decodedOf(d)
		return nil
	})
	return out, err
}

// decodedOf copies a decoded ID out of C memory.
func decodedOf(d *C.IdmintDecoded) *Decoded {
	str := func(s *C.char, n C.size_t) string {
		if s == nil {
			return ""
		}
		return C.GoStringN(s, C.int(n))
	}
	var n C.size_t
	out := &Decoded{}
	out.Format = str(C.idmint_decoded_format(d, &n), n)
	out.ID = str(C.idmint_decoded_id(d, &n), n)
	out.Time = str(C.idmint_decoded_time(d, &n), n)
	out.Layout = str(C.idmint_decoded_layout(d, &n), n)
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
	return out
}

// Part returns the part named name, and false when the ID has none.
func (d *Decoded) Part(name string) (Part, bool) {
	for _, p := range d.Parts {
		if p.Name == name {
			return p, true
		}
	}
	return Part{}, false
}

// ParseUUIDv7 reads a UUIDv7's text: 36 characters with hyphens or 32 hex digits, either case.
// Anything else, or a UUID of another version or variant, is kind "invalid_uuid".
func ParseUUIDv7(s string) (UUID, error) { return parseUUID7(s, false) }

// ParseULID reads the 26-character ULID text of a UUIDv7 (Crockford base32, either case). A
// ULID from another generator (random bits where the version goes) is kind "invalid_uuid".
func ParseULID(s string) (UUID, error) { return parseUUID7(s, true) }

func parseUUID7(s string, ulid bool) (UUID, error) {
	var u UUID
	var cerr *C.IdmintError
	p, n := text(s)
	err := status(C.idmint_uuid7_parse(p, n, C.bool(ulid), (*C.uint8_t)(unsafe.Pointer(&u[0])), &cerr), cerr)
	return u, err
}

// Time is the UUIDv7's time in RFC 3339 with milliseconds, capped at
// 9999-12-31T23:59:59.999Z (its 48 bits of ms reach the year 10889); "" for 16 bytes that are
// not a version-7 UUID.
func (u UUID) Time() string {
	var s *C.char
	var n C.size_t
	var cerr *C.IdmintError
	if status(C.idmint_uuid7_time((*C.uint8_t)(unsafe.Pointer(&u[0])), &s, &n, &cerr), cerr) != nil {
		return ""
	}
	return owned(s, n)
}

// EncodeTypeID is the TypeID of prefix (0 to 63 of a-z and _, not starting or ending with _;
// "" gives the suffix alone) and the 16 bytes of a UUID of any version. A bad prefix is kind
// "invalid_argument".
func EncodeTypeID(prefix string, uuid [16]byte) (string, error) {
	p, n := text(prefix)
	var s *C.char
	var sn C.size_t
	var cerr *C.IdmintError
	if err := status(C.idmint_typeid_encode(p, n, (*C.uint8_t)(unsafe.Pointer(&uuid[0])), &s, &sn, &cerr), cerr); err != nil {
		return "", err
	}
	return owned(s, sn), nil
}
