package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/server"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/wire"
)

// TestRecallRows: "rows": true adds the Shape's rows and facts to the
// answer (the embedded Shape's, each value of its kind); without it the
// answer has none of their keys. The MCP recall tool neither takes the
// option nor states the rows in its output schema.
func TestRecallRows(t *testing.T) {
	db, srv, ts := newServer(t, server.Options{})
	ctx := context.Background()
	if status, body := call(t, ts, "POST", "/v1/sessions/main/commit", "",
		`{"text": "INSERT (t:TSK {nick: 't1', n: 1, f: 2.0, d: $d})-[:touches]->(:MOD {loc: 'a.go'})", "params": {"d": {"date": "2026-01-31"}}}`); status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	status, plain := call(t, ts, "POST", "/v1/sessions/main/recall", "", `{"q": "MATCH (t:TSK)"}`)
	if status != 200 {
		t.Fatalf("%d %s", status, plain)
	}
	for _, key := range []string{"session", "k", "M", "clamps", "outline", "nodes", "edges"} {
		if _, ok := decodeMap(t, plain)[key]; ok {
			t.Errorf("the answer without rows has %q: %s", key, plain)
		}
	}
	status, body := call(t, ts, "POST", "/v1/sessions/main/recall", "", `{"q": "MATCH (t:TSK)", "options": {"rows": true}}`)
	if status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	if !strings.HasPrefix(body, strings.TrimSuffix(plain, "}\n")+`,"session":"main","k":2,"M":50,"clamps":[],"nodes":[`) {
		t.Errorf("with rows:\n%s\nwithout:\n%s", body, plain)
	}
	var sh wire.Shape
	if err := json.Unmarshal([]byte(body), &sh); err != nil || sh.Detail == nil {
		t.Fatalf("%v %s", err, body)
	}
	sess, _ := db.Session(ctx, "main")
	want, err := sess.Recall(ctx, "MATCH (t:TSK)", goldfish.RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := sh.Value()
	if got.Text != want.Text || len(got.Nodes()) != 2 || len(got.Edges()) != 1 || !got.Nodes()[0].Props.Equal(want.Nodes()[0].Props) || got.K != want.K {
		t.Errorf("the rows read back:\n%+v\nwant\n%+v", got, want)
	}
	for key, kind := range map[string]values.ValueKind{"n": values.KindInt, "f": values.KindFloat, "d": values.KindDate} {
		if v, _ := got.Nodes()[0].Props.Get(key); v.Kind() != kind {
			t.Errorf("%s is %v, want %v", key, v.Kind(), kind)
		}
	}

	cs := connect(t, srv)
	tools := listTools(t, cs)
	in, _ := json.Marshal(tools["recall"].InputSchema)
	out, _ := json.Marshal(tools["recall"].OutputSchema)
	if strings.Contains(string(in), `"rows"`) || strings.Contains(string(out), `"nodes"`) || strings.Contains(string(out), `"session"`) {
		t.Errorf("the recall tool's schemas speak of rows:\n%s\n%s", in, out)
	}
	if text, _ := callTool(t, cs, "recall", map[string]any{"session": "main", "q": "MATCH (t:TSK)", "options": map[string]any{"rows": true}}, true); !strings.Contains(text, "rows") {
		t.Errorf("the recall tool took rows: %s", text)
	}
}

// TestRecallRowsOverFrame: rows that would take the answer over the 4 MiB
// frame are left out, and the Shape is answered as without them; the
// same Recall without rows answers the same bytes.
func TestRecallRowsOverFrame(t *testing.T) {
	_, _, ts := newServer(t, server.Options{})
	big := strings.Repeat("x", 100<<10)
	if status, body := call(t, ts, "POST", "/v1/sessions/big/commit", "", `{"text": "INSERT (:S {nick: 's'})"}`); status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	for i := 0; i < 48; i++ {
		text := fmt.Sprintf(`MATCH (s:S {nick: 's'}) INSERT (s)-[:has]->(:N {nick: 'n%d', body: $b})`, i)
		req, _ := json.Marshal(wire.CommitRequest{Text: text, Params: wire.Params{"b": big}})
		if status, body := call(t, ts, "POST", "/v1/sessions/big/commit", "", string(req)); status != 200 {
			t.Fatalf("%d %s", status, body)
		}
	}
	q := `{"q": "MATCH (s:S)", "options": {"F": 64, "M": 100%s}}`
	_, plain := call(t, ts, "POST", "/v1/sessions/big/recall", "", fmt.Sprintf(q, ""))
	status, body := call(t, ts, "POST", "/v1/sessions/big/recall", "", fmt.Sprintf(q, `, "rows": true`))
	if status != 200 || body != plain || !strings.Contains(body, "rows=97/100") {
		t.Errorf("%d: with rows over the frame\n%.300s\nwithout\n%.300s", status, body, plain)
	}
	if status, body := call(t, ts, "POST", "/v1/sessions/big/recall", "", `{"q": "MATCH (s:S)", "options": {"M": 5, "rows": true}}`); status != 200 || !strings.Contains(body, `"nodes":[`) {
		t.Errorf("%d: rows within the frame: %.300s", status, body)
	}
}

// TestTemporalParamsOverHTTP: a DATE or DATETIME parameter is stored as
// the Go value would be (a DATETIME parameter in UTC); one that is no
// date, or out of range, is refused with its code, and nothing applies.
func TestTemporalParamsOverHTTP(t *testing.T) {
	_, _, ts := newServer(t, server.Options{})
	status, body := call(t, ts, "POST", "/v1/sessions/p/commit", "",
		`{"text": "INSERT (:A {nick: 'a', d: $d, t: $t, l: $l})", "params": {"d": {"date": "2026-01-31"}, "t": {"datetime": "2026-01-31t10:00:00+02:00"}, "l": [{"date": "2000-02-29"}]}}`)
	if status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	_, dump := call(t, ts, "GET", "/v1/sessions/p/dump", "", "")
	if !strings.Contains(dump, `d: DATE '2026-01-31', l: [DATE '2000-02-29'], nick: \"a\", t: DATETIME '2026-01-31T08:00:00Z'`) {
		t.Errorf("the dump: %s", dump)
	}
	for params, code := range map[string]string{
		`{"d": {"date": "2026-02-30"}}`:                    "22007",
		`{"d": {"datetime": "yesterday"}}`:                 "22007",
		`{"d": {"datetime": "9999-12-31T23:00:00-02:00"}}`: "22008",
		`{"d": {"date": "2026'01"}}`:                       "22G03",
		`{"d": {"when": "2026-01-31"}}`:                    "22G03",
	} {
		status, body := call(t, ts, "POST", "/v1/sessions/p/commit", "", `{"text": "INSERT (:A {d: $d})", "params": `+params+`}`)
		if m := decodeMap(t, body); status != 400 || m["gqlstatus"] != code || m["hint"] == "" {
			t.Errorf("%s: %d %s, want 400 %s", params, status, body, code)
		}
	}
	if _, info := call(t, ts, "GET", "/v1/sessions/p", "", ""); decodeMap(t, info)["version"] != 1.0 {
		t.Errorf("a refused parameter applied: %s", info)
	}
}
