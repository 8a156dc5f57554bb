// Command idmint-conformance answers the conformance protocol of docs/spec.md ("The
// conformance protocol") through the Go package's exported API alone: one JSON request a line
// on stdin, one answer a line on stdout, {"ok": RESULT} or {"error": KIND, "message": TEXT}.
// Every value comes from a call of package idmint (which converts the C library's answers);
// this command only converts JSON to arguments and results to JSON, so what
// tests/conformance/run.py checks through it is the Go package.
//
//	go build -o idmint-conformance ./internal/conformance/cmd/idmint-conformance
//	python3 ../tests/conformance/run.py --only snowflake.json ... -- ./idmint-conformance
//
// It answers the ops the package offers (layout, decompose, compose, decode, objectid, uuid7,
// typeid_parse, typeid_encode, time_range, and ops); any other op of the protocol is
// {"error": "invalid_argument", "message": "op NAME is not in the C API"}: the package has
// what the C library has (go/README.md, "Conformance", lists the files that leaves out).
package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	idmint "github.com/idmint/idmint/go"
)

// ops are the ops answered here, in the order of docs/spec.md's table ("ops" lists them).
var ops = []string{"ops", "layout", "decompose", "compose", "decode", "objectid", "uuid7",
	"typeid_parse", "typeid_encode", "time_range"}

// notInC are the protocol's other ops: known, but not in the C API the package wraps.
var notInC = []string{"shortid_encode", "shortid_decode", "plan", "health", "layout_remaining",
	"start_above", "obfuscate_key", "obfuscate", "reveal", "reveal_tagged", "template",
	"template_format", "template_parse", "template_daily"}

// badRequest is a request this command cannot read: kind invalid_argument, as the protocol says.
func badRequest(field, what string) error {
	return &idmint.Error{Kind: "invalid_argument", Message: fmt.Sprintf("request field `%s`: %s", field, what)}
}

type request map[string]json.RawMessage

func (r request) raw(name string) (json.RawMessage, error) {
	v, ok := r[name]
	if !ok {
		return nil, badRequest(name, "missing")
	}
	return v, nil
}

func isNull(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }

func (r request) str(name string) (string, error) {
	v, err := r.raw(name)
	if err != nil {
		return "", err
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", badRequest(name, "not a string")
	}
	return s, nil
}

// optStr is a string field that may be absent or null (false then).
func (r request) optStr(name string) (string, bool, error) {
	if v, ok := r[name]; !ok || isNull(v) {
		return "", false, nil
	}
	s, err := r.str(name)
	return s, err == nil, err
}

// intOf is a whole JSON number within int64 (every number the package's API takes is).
func intOf(name string, v json.RawMessage) (int64, error) {
	n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
	if err != nil {
		return 0, badRequest(name, "not a whole number within int64")
	}
	return n, nil
}

func (r request) int(name string) (int64, error) {
	v, err := r.raw(name)
	if err != nil {
		return 0, err
	}
	return intOf(name, v)
}

// nodes are the request's `fields` in the order the request gives them (a Go map would lose
// it, and the core checks them in order: the first bad one is the error).
func (r request) nodes(name string) ([]idmint.NodeValue, error) {
	v, err := r.raw(name)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, badRequest(name, "not an object")
	}
	var out []idmint.NodeValue
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, badRequest(name, "not an object")
		}
		key := t.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, badRequest(key, "unreadable")
		}
		n, err := intOf(key, value)
		if err != nil {
			return nil, err
		}
		out = append(out, idmint.NodeValue{Name: key, Value: n})
	}
	return out, nil
}

// part is a named part of a decoded ID as JSON: its number or its text.
func part(d *idmint.Decoded, name string) (any, error) {
	p, ok := d.Part(name)
	if !ok {
		return nil, &idmint.Error{Kind: "internal", Message: "the decoded ID has no part " + name}
	}
	if p.IsText {
		return p.Text, nil
	}
	return p.Number, nil
}

func orNull(s string, has bool) any {
	if !has {
		return nil
	}
	return s
}

func layoutOf(r request) (*idmint.Layout, error) {
	spec, err := r.str("layout")
	if err != nil {
		return nil, err
	}
	return idmint.ParseLayout(spec)
}

// respond is the result of one request, or its error.
func respond(r request) (any, error) {
	op, err := r.str("op")
	if err != nil {
		return nil, err
	}
	switch op {
	case "ops":
		return ops, nil
	case "layout":
		l, err := layoutOf(r)
		if err != nil {
			return nil, err
		}
		defer l.Close()
		spec, err := l.Spec()
		if err != nil {
			return nil, err
		}
		preset, isPreset, err := l.Preset()
		if err != nil {
			return nil, err
		}
		bits, err := l.TotalBits()
		if err != nil {
			return nil, err
		}
		unsigned, err := l.Unsigned()
		if err != nil {
			return nil, err
		}
		endMs, err := l.ExhaustsAtMs()
		if err != nil {
			return nil, err
		}
		end, err := l.ExhaustsAt()
		if err != nil {
			return nil, err
		}
		return map[string]any{"spec": spec, "preset": orNull(preset, isPreset), "total_bits": bits,
			"unsigned": unsigned, "exhausts_at_ms": endMs, "exhausts_at": end}, nil
	case "decompose":
		l, err := layoutOf(r)
		if err != nil {
			return nil, err
		}
		defer l.Close()
		text, err := r.str("id")
		if err != nil {
			return nil, err
		}
		id, err := l.ParseID(text)
		if err != nil {
			return nil, err
		}
		p, err := l.Decompose(id)
		if err != nil {
			return nil, err
		}
		// The time as text: the same ID read by the parser as a snowflake of this layout.
		spec, _ := r.str("layout")
		d, err := idmint.ParseAs(text, "snowflake", spec)
		if err != nil {
			return nil, err
		}
		fields := map[string]any{}
		for _, n := range p.Nodes {
			fields[n.Name] = n.Value
		}
		return map[string]any{"time_ms": p.TimeMs, "time": orNull(d.Time, d.Time != ""),
			"fields": fields, "sequence": p.Sequence}, nil
	case "compose":
		nodes, err := r.nodes("fields")
		if err != nil {
			return nil, err
		}
		timeMs, err := r.int("time_ms")
		if err != nil {
			return nil, err
		}
		sequence, err := r.int("sequence")
		if err != nil {
			return nil, err
		}
		l, err := layoutOf(r)
		if err != nil {
			return nil, err
		}
		defer l.Close()
		id, err := l.Compose(timeMs, nodes, sequence)
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": strconv.FormatUint(id, 10)}, nil
	case "decode":
		text, err := r.str("text")
		if err != nil {
			return nil, err
		}
		spec, hasLayout, err := r.optStr("layout")
		if err != nil {
			return nil, err
		}
		if hasLayout && spec == "" {
			// The package reads "" as "no layout"; the protocol's "" is a layout text, which
			// the core refuses.
			if _, err := idmint.ParseLayout(spec); err != nil {
				return nil, err
			}
		}
		format, hasFormat, err := r.optStr("format")
		if err != nil {
			return nil, err
		}
		var d *idmint.Decoded
		if hasFormat {
			d, err = idmint.ParseAs(text, format, spec)
		} else {
			d, err = idmint.Parse(text, spec)
		}
		if err != nil {
			return nil, err
		}
		parts := map[string]any{}
		for _, p := range d.Parts {
			if p.IsText {
				parts[p.Name] = p.Text
			} else {
				parts[p.Name] = p.Number
			}
		}
		var timeMs any
		if d.HasTime {
			timeMs = d.TimeMs
		}
		return map[string]any{"format": d.Format, "id": d.ID,
			"value": orNull(strconv.FormatUint(d.Value, 10), d.HasValue), "time_ms": timeMs,
			"time": orNull(d.Time, d.Time != ""), "layout": orNull(d.Layout, d.Layout != ""),
			"parts": parts}, nil
	case "objectid":
		text, err := r.str("text")
		if err != nil {
			return nil, err
		}
		o, err := idmint.ParseObjectID(text)
		if err != nil {
			return nil, err
		}
		// Its time and parts: the canonical hex read by the parser as an ObjectId.
		d, err := idmint.ParseAs(o.Hex(), "objectid", "")
		if err != nil {
			return nil, err
		}
		out := map[string]any{"hex": o.Hex(), "time": orNull(d.Time, d.Time != "")}
		for _, name := range []string{"time_s", "random", "counter"} {
			if out[name], err = part(d, name); err != nil {
				return nil, err
			}
		}
		return out, nil
	case "uuid7":
		text, err := r.str("text")
		if err != nil {
			return nil, err
		}
		ulid := false
		if v, ok := r["ulid"]; ok && !isNull(v) {
			if err := json.Unmarshal(v, &ulid); err != nil {
				return nil, badRequest("ulid", "not a boolean")
			}
		}
		var u idmint.UUID
		if ulid {
			u, err = idmint.ParseULID(text)
		} else {
			u, err = idmint.ParseUUIDv7(text)
		}
		if err != nil {
			return nil, err
		}
		// Its fields: the canonical text read by the parser as a UUID.
		d, err := idmint.ParseAs(u.String(), "uuid", "")
		if err != nil {
			return nil, err
		}
		out := map[string]any{"uuid": u.String(), "time": u.Time(), "ulid": u.ULID()}
		for key, name := range map[string]string{"time_ms": "unix_ts_ms", "rand_a": "rand_a", "rand_b": "rand_b"} {
			if out[key], err = part(d, name); err != nil {
				return nil, err
			}
		}
		return out, nil
	case "typeid_parse":
		text, err := r.str("text")
		if err != nil {
			return nil, err
		}
		d, err := idmint.ParseAs(text, "typeid", "")
		if err != nil {
			return nil, err
		}
		out := map[string]any{"typeid": d.ID}
		for _, name := range []string{"prefix", "uuid"} {
			if out[name], err = part(d, name); err != nil {
				return nil, err
			}
		}
		return out, nil
	case "typeid_encode":
		prefix, err := r.str("prefix")
		if err != nil {
			return nil, err
		}
		text, err := r.str("uuid")
		if err != nil {
			return nil, err
		}
		// The protocol gives the UUID as text (any version, hyphens or not); the package takes
		// its 16 bytes, so the text is read here, as the CLI's adapter reads it.
		var u [16]byte
		digits := strings.ReplaceAll(text, "-", "")
		if n, err := hex.Decode(u[:], []byte(digits)); len(digits) != 32 || err != nil || n != 16 {
			return nil, badRequest("uuid", "not 32 hex digits (hyphens allowed)")
		}
		t, err := idmint.EncodeTypeID(prefix, u)
		if err != nil {
			return nil, err
		}
		return map[string]any{"typeid": t}, nil
	case "time_range":
		timeMs, err := r.int("time_ms")
		if err != nil {
			return nil, err
		}
		l, err := layoutOf(r)
		if err != nil {
			return nil, err
		}
		defer l.Close()
		lo, err := l.MinIDAt(timeMs)
		if err != nil {
			return nil, err
		}
		hi, err := l.MaxIDAt(timeMs)
		if err != nil {
			return nil, err
		}
		return map[string]any{"min_id": strconv.FormatUint(lo, 10), "max_id": strconv.FormatUint(hi, 10)}, nil
	}
	for _, o := range notInC {
		if o == op {
			return nil, &idmint.Error{Kind: "invalid_argument", Message: "op " + op + " is not in the C API"}
		}
	}
	return nil, &idmint.Error{Kind: "invalid_argument", Message: "op " + op + " is not an op of the protocol (docs/spec.md 15)"}
}

func answer(line []byte) any {
	var r request
	if err := json.Unmarshal(line, &r); err != nil {
		return map[string]any{"error": "invalid_argument", "message": "request: one JSON object a line (" + err.Error() + ")"}
	}
	result, err := respond(r)
	if err != nil {
		var e *idmint.Error
		if errors.As(err, &e) {
			return map[string]any{"error": e.Kind, "message": e.Message}
		}
		return map[string]any{"error": "invalid_argument", "message": err.Error()}
	}
	return map[string]any{"ok": result}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<16), 1<<24)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for in.Scan() {
		line := bytes.TrimSpace(in.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := enc.Encode(answer(line)); err != nil {
			fmt.Fprintln(os.Stderr, "idmint-conformance:", err)
			os.Exit(1)
		}
		// The runner waits for each answer before it sends the next request.
		if err := out.Flush(); err != nil {
			fmt.Fprintln(os.Stderr, "idmint-conformance:", err)
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "idmint-conformance:", err)
		os.Exit(1)
	}
}
