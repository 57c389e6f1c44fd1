package wire_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/wire"
)

// TestCheckKeys: what encoding/json would take and change is refused
// with 22Q06 at its line and column (a key twice, a key in another case
// than its field's, an unknown key, null for a field without
// omitempty); what it reads as written passes, and text that is not JSON
// is left to the decoder.
func TestCheckKeys(t *testing.T) {
	recall := reflect.TypeFor[wire.RecallRequest]()
	commit := reflect.TypeFor[*wire.CommitRequest]()
	cases := []struct {
		name string
		t    reflect.Type
		body string
		want string // "" passes
		line int
		col  int
	}{
		{"plain", commit, `{"text": "INSERT (:A)", "agent": "a", "mint": "ingest"}`, "", 0, 0},
		{"null for an optional field", commit, `{"text": "x", "agent": null, "params": null}`, "", 0, 0},
		{"a parameter named in any case", commit, `{"text": "x", "params": {"n": 1, "N": 2}}`, "", 0, 0},
		{"the same key in two objects", commit, `{"text": "x", "params": {"l": [{"date": "2026-01-01"}, {"date": "2026-01-02"}]}}`, "", 0, 0},
		{"rows", recall, `{"q": "MATCH (n)", "options": {"rows": true, "k": null}}`, "", 0, 0},
		{"not JSON", commit, `{"text": `, "", 0, 0},
		{"twice", commit, `{"text": "a",` + "\n" + ` "text": "b"}`, `"text" appears twice in the request body (byte 15)`, 2, 2},
		{"twice, escaped", commit, `{"text": "a", "t\u0065xt": "b"}`, `"text" appears twice`, 1, 15},
		{"another case", commit, `{"Text": "a"}`, `field "Text" is spelled "text"`, 1, 2},
		{"another case, nested", recall, `{"q": "x", "options": {"f": 1}}`, `field "options.f" is spelled "F"`, 1, 24},
		{"unknown", commit, `{"text": "a", "texts": "b"}`, `field "texts" is not one the endpoint takes`, 1, 15},
		{"null required", commit, `{"text": null}`, `field "text" is null`, 1, 10},
		{"twice in a parameter's list", commit, `{"text": "x", "params": {"l": [{"date": "a", "date": "b"}]}}`, `"params.l[0].date" appears twice`, 1, 46},
		{"twice after a multibyte rune", commit, `{"text": "é", "text": "b"}`, `"text" appears twice`, 1, 15},
	}
	for _, c := range cases {
		err := wire.CheckKeys([]byte(c.body), c.t)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		var ge *gqlstatus.Error
		if !errors.As(err, &ge) || ge.Code != gqlstatus.InvalidOption || !strings.Contains(ge.Msg, c.want) || ge.Hint == "" ||
			ge.Pos.Line != c.line || ge.Pos.Col != c.col {
			t.Errorf("%s: %v (at %s), want %q at line %d, column %d", c.name, err, ge.Pos, c.want, c.line, c.col)
		}
	}
	if err := wire.DuplicateKeys("message", []byte(`{"a": {"b": 1, "b": 2}}`)); err == nil || !strings.Contains(err.Error(), `"a.b" appears twice in the message`) {
		t.Errorf("DuplicateKeys: %v", err)
	}
	// What is not JSON, or nested deeper than a decoder takes, is left
	// to the decoder.
	for _, bad := range []string{`{"a"`, `{"a":}`, `{"a":1,}`, `[1,`, `{"a":"\`, `{"a" 1}`, `{1:2}`, `"`, ``,
		strings.Repeat("[", 20000), strings.Repeat(`{"a":`, 20000)} {
		if err := wire.DuplicateKeys("message", []byte(bad)); err != nil {
			t.Errorf("%.40q: %v", bad, err)
		}
	}
}

// FuzzDuplicateKeys: DuplicateKeys refuses a JSON text exactly when one
// of its objects gives a key twice, as a decoder reads the keys (escapes
// undone).
func FuzzDuplicateKeys(f *testing.F) {
	for _, seed := range []string{`{"a": 1, "b": [{"a": 2}, {"a": 3}]}`, `{"a": 1, "\u0061": 2}`, `{"a": {"b": 1, "b": 2}}`,
		`[{"x": "}"}, {"x": "\"", "y": null}]`, `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"a":10}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			wire.DuplicateKeys("message", data) // no panic
			return
		}
		got := wire.DuplicateKeys("message", data) != nil
		if want := hasDuplicate(json.NewDecoder(bytes.NewReader(data))); got != want {
			t.Fatalf("%q: refused %v, want %v", data, got, want)
		}
	})
}

// hasDuplicate reads the next value of dec token by token and reports
// whether an object in it gives a key twice.
func hasDuplicate(dec *json.Decoder) bool {
	tok, _ := dec.Token()
	switch tok {
	case json.Delim('{'):
		seen, dup := map[string]bool{}, false
		for dec.More() {
			k, _ := dec.Token()
			dup = dup || seen[k.(string)]
			seen[k.(string)] = true
			dup = hasDuplicate(dec) || dup
		}
		dec.Token()
		return dup
	case json.Delim('['):
		dup := false
		for dec.More() {
			dup = hasDuplicate(dec) || dup
		}
		dec.Token()
		return dup
	}
	return false
}

// BenchmarkCheckKeys is the cost of the check on bodies near the 4 MiB
// frame: one long text, and a list of 200,000 parameter values.
func BenchmarkCheckKeys(b *testing.B) {
	commit := reflect.TypeFor[*wire.CommitRequest]()
	long := []byte(`{"text": "INSERT (:A {s: '` + strings.Repeat("x", 4<<20-64) + `'})"}`)
	list := []byte(`{"text": "x", "params": {"l": [` + strings.Repeat(`{"date": "2026-01-01"},`, 200000) + `1]}}`)
	for _, c := range []struct {
		name string
		body []byte
	}{{"text", long}, {"params", list}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.body)))
			for b.Loop() {
				if err := wire.CheckKeys(c.body, commit); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
