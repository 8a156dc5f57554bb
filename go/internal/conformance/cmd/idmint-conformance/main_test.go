package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// The answers the runner's vector files never ask for: ops outside the package, requests that
// are not JSON objects, a missing field. Each is kind invalid_argument, as docs/spec.md says.
func TestRequestsItCannotAnswerAreInvalidArgument(t *testing.T) {
	for line, message := range map[string]string{
		`{"op":"plan","need":{}}`:               "op plan is not in the C API",
		`{"op":"mint_everything"}`:              "not an op of the protocol",
		`not json`:                              "one JSON object a line",
		`[1,2]`:                                 "one JSON object a line",
		`{"op":"decompose","layout":"twitter"}`: "request field `id`: missing",
		`{"op":"compose","layout":"twitter","time_ms":1.5,"fields":{},"sequence":0}`: "`time_ms`: not a whole number",
	} {
		got, _ := json.Marshal(answer([]byte(line)))
		var a struct{ Error, Message string }
		if err := json.Unmarshal(got, &a); err != nil || a.Error != "invalid_argument" || !strings.Contains(a.Message, message) {
			t.Errorf("%s: got %s, want invalid_argument with %q", line, got, message)
		}
	}
}

func TestOpsListsWhatItAnswers(t *testing.T) {
	got, _ := json.Marshal(answer([]byte(`{"op":"ops"}`)))
	var a struct{ Ok []string }
	if err := json.Unmarshal(got, &a); err != nil || len(a.Ok) != len(ops) {
		t.Fatalf("%s", got)
	}
	for _, op := range a.Ok[1:] {
		got, _ := json.Marshal(answer([]byte(`{"op":"` + op + `"}`)))
		// A known op without its fields: a missing field, never "not in the C API".
		if !strings.Contains(string(got), "missing") {
			t.Errorf("%s: %s", op, got)
		}
	}
}
