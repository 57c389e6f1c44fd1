package server_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish/server"
)

// memoryRead calls a memory read and returns its text and its structured
// content in the original's schema.
func memoryRead(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, server.MemoryGraph) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s %v: %v %v", tool, args, err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var g server.MemoryGraph
	if err := json.Unmarshal(b, &g); err != nil || g.Entities == nil || g.Relations == nil {
		t.Fatalf("%s: structured content %s: %v", tool, b, err)
	}
	return res.Content[0].(*mcp.TextContent).Text, g
}

// TestMemoryReadsStructured: the reads' structured content is the
// original's {entities, relations} of the rows the text shows, on an
// empty memory, for names that are not identifiers or hold quotes,
// newlines and unicode, and for an observation far over the token
// target, which open_nodes still shows whole.
func TestMemoryReadsStructured(t *testing.T) {
	_, srv := mcpServer(t, server.Options{})
	cs := connect(t, srv)
	for _, c := range []struct {
		tool string
		args map[string]any
		text string
	}{
		{"read_graph", nil, "the memory is empty"},
		{"search_nodes", map[string]any{"query": "x"}, "no entity matches"},
		{"search_nodes", map[string]any{"query": ""}, "the memory is empty"},
		{"open_nodes", map[string]any{"names": []any{"x"}}, "no entity has these names; search_nodes finds names"},
	} {
		if text, g := memoryRead(t, cs, c.tool, c.args); text != c.text || len(g.Entities)+len(g.Relations) != 0 {
			t.Errorf("%s of an empty memory: %q %v", c.tool, text, g)
		}
	}

	odd := "O'Brien \"the\"\nsecond line, {braces} [and] `ticks` 城市 🐟"
	huge := strings.Repeat("a long observation that goes on; ", 3000)
	ents := []server.Entity{
		{Name: odd, EntityType: "type, with: odd } chars", Observations: []string{"say \"hi\"", "tab\there", "]),\n  (x)"}},
		{Name: "big", EntityType: "note", Observations: []string{"short", huge}},
		{Name: "plain", EntityType: "person", Observations: []string{}},
	}
	rels := []server.Relation{{From: odd, To: "big", RelationType: "rel with spaces"}, {From: "plain", To: odd, RelationType: "knows"}}
	callTool(t, cs, "create_entities", map[string]any{"entities": asJSON(t, ents)}, false)
	callTool(t, cs, "create_relations", map[string]any{"relations": asJSON(t, rels)}, false)

	text, g := memoryRead(t, cs, "open_nodes", map[string]any{"names": []any{odd, "big", "plain", "nobody"}})
	byName := func(a, b server.Entity) int { return strings.Compare(a.Name, b.Name) }
	slices.SortFunc(g.Entities, byName)
	slices.SortFunc(ents, byName)
	if !reflect.DeepEqual(g.Entities, ents) {
		t.Errorf("open_nodes' entities:\n%v\nwant\n%v", g.Entities, ents)
	}
	if len(g.Relations) != 2 || !strings.HasPrefix(text, `// not found: ["nobody"]`+"\n") || strings.Contains(text, "$elided") {
		t.Errorf("open_nodes: %v\n%.600s", g.Relations, text)
	}
	text, g = memoryRead(t, cs, "open_nodes", map[string]any{"names": []any{"plain"}})
	if len(g.Entities) != 1 || g.Entities[0].Name != "plain" || len(g.Relations) != 1 || g.Relations[0] != rels[1] {
		t.Errorf("open_nodes plain: %v\n%s", g, text)
	}
	// A search shows the long observation's entity, and says how to read
	// what it left out.
	text, g = memoryRead(t, cs, "search_nodes", map[string]any{"query": "LONG OBSERVATION"})
	if len(g.Entities) != 1 || g.Entities[0].Name != "big" {
		t.Errorf("search_nodes of the long observation: %v\n%.600s", g.Entities, text)
	}
	if strings.Contains(text, "$elided") && !strings.Contains(text, `open_nodes ["big"] reads them whole`) {
		t.Errorf("search_nodes elides without saying how to read it:\n%.600s", text)
	}
	for _, hint := range []string{"view=", "narrow q", "T="} {
		if strings.Contains(text, hint) {
			t.Errorf("search_nodes advises %q, which it cannot do:\n%.600s", hint, text)
		}
	}
	// A long string the target would leave out as $elidedN: open_nodes
	// reads again, whole.
	callTool(t, cs, "commit", map[string]any{"text": "INSERT (:note {nick: 'long', text: $t, observations: []})",
		"params": map[string]any{"t": huge}}, false)
	if text, _ = memoryRead(t, cs, "open_nodes", map[string]any{"names": []any{"long"}}); strings.Contains(text, "$elided") || !strings.Contains(text, huge) {
		t.Errorf("open_nodes of a long string:\n%.600s", text)
	}
	if text, _ = memoryRead(t, cs, "search_nodes", map[string]any{"query": "long"}); !strings.Contains(text, "$elided") ||
		!strings.Contains(text, `: open_nodes ["long"] reads them whole`) {
		t.Errorf("search_nodes of a long string:\n%.600s", text)
	}
	callTool(t, cs, "delete_entities", map[string]any{"entityNames": []any{"long"}}, false)
	_, g = memoryRead(t, cs, "read_graph", nil)
	if len(g.Entities) != 3 || len(g.Relations) != 2 {
		t.Errorf("read_graph of a small memory: %v", g)
	}
}
