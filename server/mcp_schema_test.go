package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish/server"
)

// strictViolations walks a JSON schema as a client receives it and lists
// what the strict function-calling modes of the common model APIs refuse:
// a "type" that is not one string, an object that is not closed with
// additionalProperties: false, an object without its properties listed,
// a property that is not in required.
func strictViolations(path string, v any) []string {
	s, ok := v.(map[string]any)
	if !ok {
		return []string{path + ": not a schema object"}
	}
	var out []string
	typ, hasType := s["type"]
	if _, isString := typ.(string); hasType && !isString {
		out = append(out, fmt.Sprintf("%s: type %v is not one JSON type", path, typ))
	}
	if !hasType {
		out = append(out, path+": no type")
	}
	if typ == "object" {
		if ap, ok := s["additionalProperties"]; !ok || ap != false {
			out = append(out, fmt.Sprintf("%s: additionalProperties is %v, not false", path, ap))
		}
		props, ok := s["properties"].(map[string]any)
		if !ok {
			out = append(out, path+": an object without properties")
		}
		var required []string
		if list, ok := s["required"].([]any); ok {
			for _, r := range list {
				required = append(required, fmt.Sprint(r))
			}
		}
		var names []string
		for name := range props {
			names = append(names, name)
		}
		sort.Strings(names)
		sort.Strings(required)
		if !slices.Equal(names, required) {
			out = append(out, fmt.Sprintf("%s: properties %v, required %v", path, names, required))
		}
		for _, name := range names {
			out = append(out, strictViolations(path+"."+name, props[name])...)
		}
	}
	if typ == "array" {
		items, ok := s["items"]
		if !ok {
			out = append(out, path+": an array without items")
		} else {
			out = append(out, strictViolations(path+"[]", items)...)
		}
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "not", "$ref", "patternProperties"} {
		if _, ok := s[k]; ok {
			out = append(out, fmt.Sprintf("%s: uses %s", path, k))
		}
	}
	return out
}

// listTools lists a session's tools, by name.
func listTools(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		out[tl.Name] = tl
	}
	return out
}

func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	json.Unmarshal(b, &out)
	return out
}

// TestMCPStrictSchemas: every tool's input schema is one that strict
// function calling takes: one JSON type per property, every object closed
// and its properties all listed and required.
func TestMCPStrictSchemas(t *testing.T) {
	_, srv := mcpServer(t, server.Options{})
	tools := listTools(t, connect(t, srv))
	if len(tools) != 12 {
		t.Fatalf("%d tools", len(tools))
	}
	for name, tl := range tools {
		for _, v := range strictViolations(name, asJSON(t, tl.InputSchema)) {
			t.Error(v)
		}
	}
}

// TestMCPStrictArguments: a call as a strict client makes it (every
// property given, the optional ones empty) does what the short call does;
// params as a list of names and JSON values keep their types, and the
// object form of the HTTP API is still taken.
func TestMCPStrictArguments(t *testing.T) {
	_, srv := mcpServer(t, server.Options{})
	cs := connect(t, srv)
	empty := map[string]any{"M": 0, "k": 0, "L": 0, "F": 0, "T": 0, "view": "", "depth": "", "only": []any{}, "pinned": []any{}, "nopeaks": false, "exact": false}
	callTool(t, cs, "commit", map[string]any{"session": "p", "text": `INSERT (:A {nick: $n, i: $i, f: $f, l: $l, b: $b, s: $s})`, "agent": "", "params": []any{
		map[string]any{"name": "n", "value": `"a1"`}, map[string]any{"name": "i", "value": "3"}, map[string]any{"name": "$f", "value": "2.5"},
		map[string]any{"name": "l", "value": `[1, "x"]`}, map[string]any{"name": "b", "value": "true"}, map[string]any{"name": "s", "value": "not JSON: a string"}}}, false)
	text, _ := callTool(t, cs, "recall", map[string]any{"session": "p", "q": "MATCH (a:A {nick: $n})", "agent": "", "options": empty,
		"params": []any{map[string]any{"name": "n", "value": `"a1"`}}}, false)
	if !strings.Contains(text, `{b: true, f: 2.5, i: 3, l: [1, "x"], nick: "a1", s: "not JSON: a string"}`) {
		t.Errorf("params as a list:\n%s", text)
	}
	if text, _ = callTool(t, cs, "recall", map[string]any{"session": "p", "q": "MATCH (a:A {nick: $n})", "params": map[string]any{"n": "a1"}}, false); !strings.Contains(text, "seeds=1") {
		t.Errorf("params as an object:\n%s", text)
	}
	// A value sent as JSON itself, not in a string, and "only" as one
	// string, as the HTTP API takes it.
	if text, _ = callTool(t, cs, "recall", map[string]any{"session": "p", "q": "MATCH (a:A {i: $i})", "params": []any{map[string]any{"name": "i", "value": 3}},
		"options": map[string]any{"only": "shape"}}, false); !strings.Contains(text, "seeds=1") {
		t.Errorf("a JSON value in the list:\n%s", text)
	}
	if text, _ = callTool(t, cs, "recall", map[string]any{"session": "p", "q": "MATCH (a:A)", "params": []any{
		map[string]any{"name": "n", "value": "1"}, map[string]any{"name": "$n", "value": "2"}}}, true); !strings.Contains(text, "twice") {
		t.Errorf("a parameter named twice: %s", text)
	}
	// read_graph and sessions take an empty object, as strict clients send.
	callTool(t, cs, "read_graph", map[string]any{}, false)
	callTool(t, cs, "sessions", map[string]any{}, false)
}

// TestMCPToolsForToken: a token's tools/list shows only the tools it may
// call: a read-only token no commit and no writes of the memory tools, a
// token without the memory session none of the memory tools.
func TestMCPToolsForToken(t *testing.T) {
	tokens, toks := tokenSet(t, map[string][2]string{
		"ro": {"memory,notes", ""}, "team": {"team-*", ""}, "teamw": {"", "team-*"}, "mem": {"", "memory"}, "all": {"", "*"}})
	_, _, ts := newServer(t, server.Options{Tokens: tokens})
	ctx := context.Background()
	reads := []string{"open_nodes", "read_graph", "recall", "search_nodes", "sessions"}
	everything := []string{"add_observations", "commit", "create_entities", "create_relations", "delete_entities", "delete_observations",
		"delete_relations", "open_nodes", "read_graph", "recall", "search_nodes", "sessions"}
	want := map[string][]string{"ro": reads, "team": {"recall", "sessions"}, "teamw": {"commit", "recall", "sessions"},
		"mem": everything, "all": everything}
	for name, tools := range want {
		tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{toks[name], http.DefaultTransport}}, MaxRetries: -1}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for n := range listTools(t, cs) {
			got = append(got, n)
		}
		sort.Strings(got)
		if !slices.Equal(got, tools) {
			t.Errorf("token %s lists %v, want %v", name, got, tools)
		}
		if name == "ro" {
			// A tool it is not shown is refused as before.
			if text, _ := callTool(t, cs, "create_entities", map[string]any{"entities": []any{}}, true); !strings.Contains(text, "42Q07") {
				t.Errorf("a read-only token's create_entities: %s", text)
			}
		}
		cs.Close()
	}
}

// TestMCPAnnotations: the reads say they change nothing, as the original
// memory server's do (readOnlyHint true, destructiveHint false), and the
// writes say what they change.
func TestMCPAnnotations(t *testing.T) {
	_, srv := mcpServer(t, server.Options{})
	type hints struct{ readOnly, destructive, idempotent, openWorld bool }
	want := map[string]hints{
		"read_graph": {true, false, true, false}, "search_nodes": {true, false, true, false}, "open_nodes": {true, false, true, false},
		"recall": {true, false, true, false}, "sessions": {true, false, true, false},
		"create_entities": {false, false, false, false}, "create_relations": {false, false, false, false}, "add_observations": {false, false, false, false},
		"delete_entities": {false, true, true, false}, "delete_observations": {false, true, true, false}, "delete_relations": {false, true, true, false},
		"commit": {false, true, false, false},
	}
	for name, tl := range listTools(t, connect(t, srv)) {
		a := tl.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: annotations %+v without destructiveHint or openWorldHint", name, a)
			continue
		}
		if got := (hints{a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint}); got != want[name] {
			t.Errorf("%s: hints %+v, want %+v", name, got, want[name])
		}
	}
}
