package wire

import (
	"encoding/json"
	"testing"

	"github.com/goldfish-gql/goldfish/values"
)

// FuzzShapeAnswer: whatever bytes a client is given as a Recall's answer,
// reading them either fails or gives a Shape its readers can follow:
// its rows render as GQL without a panic, and written again they read
// back as the same Shape.
func FuzzShapeAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"status":"00000","cue":"match","seeds":1,"rows":1,"tokens":42,"version":2,"notices":[],"gql":"x"}`,
		`{"status":"00000","cue":"match","seeds":1,"rows":3,"tokens":9,"version":2,"notices":[{"code":"01000","message":"m","line":1,"column":2,"offset":1}],"gql":"",` +
			`"session":"s","k":2,"M":50,"clamps":["clamp: a1 has 2 more neighbours"],"nodes":[{"var":"a1","labels":["A","B"],"props":{"nick":"a","n":1,"f":1.5,"d":{"date":"2026-01-31"},"l":[1,"x",null]},"hop":0,"seed":true,"more":2,"elided":[{"key":"t","param":"elided1"}]},` +
			`{"var":"b1","labels":[],"props":{},"hop":1,"trimmed":true}],"edges":[{"type":"r","from":0,"to":1,"props":{"w":{"datetime":"2026-01-31T10:00:00Z"}},"between_seeds":false}]}`,
		`{"nodes":[{"var":"a","labels":["A"],"props":{},"hop":0}],"edges":[{"type":"r","from":0,"to":7,"props":{}}]}`,
		`{"outline":{"kinds":[{"name":"A","count":1}],"types":[]},"nodes":[],"edges":[]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Shape
		if json.Unmarshal(data, &s) != nil {
			return
		}
		v := s.Value()
		_ = v.AppendInsert(nil)
		for _, n := range v.Nodes() {
			_ = n.Shown()
		}
		again, err := json.Marshal(ShapeOf(v, s.Detail != nil))
		if err != nil {
			t.Fatalf("%s read, then written: %v", data, err)
		}
		var back Shape
		if err := json.Unmarshal(again, &back); err != nil {
			t.Fatalf("%s written as %s, which does not read: %v", data, again, err)
		}
		if got, want := string(back.Value().AppendInsert(nil)), string(v.AppendInsert(nil)); got != want {
			t.Fatalf("rows render %q, read again %q", want, got)
		}
	})
}

// FuzzValueJSON: a value's JSON either fails to read or reads as a value
// whose JSON reads back as the same value.
func FuzzValueJSON(f *testing.F) {
	for _, seed := range []string{`1`, `1.0`, `-0.0`, `"x"`, `null`, `[1,[2,[3]]]`, `{"date":"2026-01-31"}`, `{"datetime":"2026-01-31 10:00"}`, `{"a":1}`, `1e400`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v values.Value
		if json.Unmarshal(data, &v) != nil {
			return
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s read as %s, which does not write: %v", data, v.Literal(), err)
		}
		var back values.Value
		if err := json.Unmarshal(b, &back); err != nil || !back.Equal(v) {
			t.Fatalf("%s → %s → %s (%v)", data, b, back.Literal(), err)
		}
	})
}
