package server_test

import (
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/server"
)

// TestRecallKZero: over HTTP "k": 0 walks no hop (the seeds alone) and
// k left out (or null) takes the default; the same for an export and
// for the MCP recall tool.
func TestRecallKZero(t *testing.T) {
	_, srv, ts := newServer(t, server.Options{})
	if status, body := call(t, ts, "POST", "/v1/sessions/main/commit", "",
		`{"text": "INSERT (:A {nick: 'a'})-[:r]->(:B {nick: 'b'})-[:r]->(:C {nick: 'c'})"}`); status != 200 {
		t.Fatalf("commit: %d %s", status, body)
	}
	recall := func(options string) (int, map[string]any) {
		t.Helper()
		status, body := call(t, ts, "POST", "/v1/sessions/main/recall", "", `{"q": "MATCH (a:A)", "options": `+options+`}`)
		return status, decodeMap(t, body)
	}
	for _, c := range []struct {
		options string
		k       string
		rows    float64
	}{
		{`{}`, "k=2", 5},
		{`{"k": null}`, "k=2", 5},
		{`{"M": 0, "L": 0, "F": 0, "T": 0}`, "k=2", 5},
		{`{"k": 0}`, "k=0", 1},
		{`{"k": 1}`, "k=1", 3},
	} {
		status, m := recall(c.options)
		if status != 200 {
			t.Fatalf("%s: %d %v", c.options, status, m)
		}
		gql, _ := m["gql"].(string)
		if !strings.Contains(gql, " "+c.k+" ") || m["rows"] != c.rows {
			t.Errorf("%s: want %s and %v rows:\n%s", c.options, c.k, c.rows, gql)
		}
	}
	if status, m := recall(`{"k": -1}`); status != 400 || m["gqlstatus"] != "22Q01" || !strings.Contains(m["message"].(string)+m["hint"].(string), "0 walks no hop") {
		t.Errorf(`"k": -1: %d %v`, status, m)
	}

	// An export's anchors alone with "k": 0.
	status, body := call(t, ts, "POST", "/v1/sessions/main/export", "", `{"nicks": ["a"], "options": {"k": 0}}`)
	if m := decodeMap(t, body); status != 200 || m["nodes"] != 1.0 {
		t.Errorf(`export "k": 0: %d %s`, status, body)
	}
	status, body = call(t, ts, "POST", "/v1/sessions/main/export", "", `{"nicks": ["a"]}`)
	if m := decodeMap(t, body); status != 200 || m["nodes"] != 3.0 {
		t.Errorf("export, k left out: %d %s", status, body)
	}

	// The MCP recall tool, as a short call and as a strict client's.
	cs := connect(t, srv)
	text, _ := callTool(t, cs, "recall", map[string]any{"session": "main", "q": "MATCH (a:A)"}, false)
	if !strings.Contains(text, " k=2 rows=5/50") {
		t.Errorf("MCP, k left out:\n%s", text)
	}
	strict := map[string]any{"M": 0, "k": 0, "L": 0, "F": 0, "T": 0, "view": "", "depth": "", "only": []any{}, "pinned": []any{}, "nopeaks": false, "exact": false}
	text, _ = callTool(t, cs, "recall", map[string]any{"session": "main", "q": "MATCH (a:A)", "agent": "", "params": []any{}, "options": strict}, false)
	if !strings.Contains(text, " k=0 rows=1/50") {
		t.Errorf("MCP, k 0:\n%s", text)
	}
}

// TestStrictSchemaBudgetsAtLeastZero: the strict schema tools/list shows
// says every budget is at least 0, and k's description says 0 reads the
// starting nodes alone.
func TestStrictSchemaBudgetsAtLeastZero(t *testing.T) {
	_, srv := mcpServer(t, server.Options{})
	tools := listTools(t, connect(t, srv))
	sc := asJSON(t, tools["recall"].InputSchema).(map[string]any)
	opts := sc["properties"].(map[string]any)["options"].(map[string]any)["properties"].(map[string]any)
	for _, name := range []string{"M", "k", "L", "F", "T"} {
		p := opts[name].(map[string]any)
		if p["type"] != "integer" || p["minimum"] != 0.0 {
			t.Errorf("%s: %v", name, p)
		}
	}
	if d, _ := opts["k"].(map[string]any)["description"].(string); !strings.Contains(d, "0 the starting nodes alone") {
		t.Errorf("k's description: %q", d)
	}
}
