package server_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/server"
)

// TestMemoryAnswersAsTheOriginal: the small cases where the drop-in used
// to answer otherwise than the original: open_nodes of no names is an
// empty graph, not an error; a query of white space is a substring like
// any other, not the whole graph.
func TestMemoryAnswersAsTheOriginal(t *testing.T) {
	_, srv := mcpServer(t, server.Options{})
	cs := connect(t, srv)
	callTool(t, cs, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "two  spaces", "entityType": "note", "observations": []any{"a"}},
		map[string]any{"name": "one space", "entityType": "note", "observations": []any{"b"}},
		map[string]any{"name": "plain", "entityType": "note", "observations": []any{"c"}}}}, false)

	_, sc := callTool(t, cs, "open_nodes", map[string]any{"names": []any{}}, false)
	if ents, ok := sc["entities"].([]any); !ok || len(ents) != 0 {
		t.Errorf("open_nodes of no names: %v", sc)
	}
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"  ", []string{"two  spaces"}},
		{" ", []string{"two  spaces", "one space"}},
		{"\n", nil},
	} {
		text, sc := callTool(t, cs, "search_nodes", map[string]any{"query": c.query}, false)
		ents, _ := sc["entities"].([]any)
		var got []string
		for _, e := range ents {
			got = append(got, e.(map[string]any)["name"].(string))
		}
		slices.Sort(got) // canonical order, not the original's insertion order
		slices.Sort(c.want)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("search_nodes %q: entities %q, want %q\n%s", c.query, got, c.want, text)
		}
	}
}
