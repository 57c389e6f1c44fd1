package server_test

import (
	"fmt"
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

	// A value that reads like an elided one is a value: no note says
	// long values were left out.
	callTool(t, cs, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "priced", "entityType": "note", "observations": []any{"costs $elided0 dollars"}}}}, false)
	if text, _ := callTool(t, cs, "open_nodes", map[string]any{"names": []any{"priced"}}, false); strings.Contains(text, "left out") {
		t.Errorf("a $elided0 in a value:\n%s", text)
	}

	_, sc := callTool(t, cs, "open_nodes", map[string]any{"names": []any{}}, false)
	if ents, ok := sc["entities"].([]any); !ok || len(ents) != 0 {
		t.Errorf("open_nodes of no names: %v", sc)
	}
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"  ", []string{"two  spaces"}},
		{" ", []string{"two  spaces", "one space", "priced"}},
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

// TestMemoryEntitiesAreTheMatches: structuredContent holds the entities
// the original returns (the matches of a search, the names opened) and
// every relation touching them; a neighbour shown for context is in the
// text alone.
func TestMemoryEntitiesAreTheMatches(t *testing.T) {
	_, srv := mcpServer(t, server.Options{})
	cs := connect(t, srv)
	callTool(t, cs, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "A", "entityType": "note", "observations": []any{"alpha"}},
		map[string]any{"name": "B", "entityType": "note", "observations": []any{"beta"}},
		map[string]any{"name": "C", "entityType": "note", "observations": []any{"gamma"}}}}, false)
	callTool(t, cs, "create_relations", map[string]any{"relations": []any{
		map[string]any{"from": "A", "to": "B", "relationType": "next"},
		map[string]any{"from": "B", "to": "C", "relationType": "next"}}}, false)
	for _, c := range []struct {
		tool      string
		args      map[string]any
		entities  string
		relations string
	}{
		{"search_nodes", map[string]any{"query": "alpha"}, "A", "A-next->B"},
		{"open_nodes", map[string]any{"names": []any{"A", "nobody"}}, "A", "A-next->B"},
		{"open_nodes", map[string]any{"names": []any{"B"}}, "B", "A-next->B B-next->C"},
	} {
		_, sc := callTool(t, cs, c.tool, c.args, false)
		var ents, rels []string
		for _, e := range sc["entities"].([]any) {
			ents = append(ents, e.(map[string]any)["name"].(string))
		}
		for _, r := range sc["relations"].([]any) {
			m := r.(map[string]any)
			rels = append(rels, m["from"].(string)+"-"+m["relationType"].(string)+"->"+m["to"].(string))
		}
		slices.Sort(rels)
		if strings.Join(ents, " ") != c.entities || strings.Join(rels, " ") != c.relations {
			t.Errorf("%s %v: entities %q relations %q, want %q and %q", c.tool, c.args, ents, rels, c.entities, c.relations)
		}
	}
}

// TestMemoryReadGraphWhole: read_graph of a small memory is the whole
// graph, as the original's, when it fits the token target; a memory
// past it is the outline.
func TestMemoryReadGraphWhole(t *testing.T) {
	_, srv := mcpServer(t, server.Options{})
	cs := connect(t, srv)
	var ents, rels []any
	for i := range 24 {
		ents = append(ents, map[string]any{"name": fmt.Sprintf("e%02d", i), "entityType": []string{"person", "project", "task"}[i%3],
			"observations": []any{fmt.Sprintf("fact %d", i), "shared"}})
		if i > 0 {
			rels = append(rels, map[string]any{"from": fmt.Sprintf("e%02d", i), "to": fmt.Sprintf("e%02d", i/2), "relationType": "links"})
		}
	}
	callTool(t, cs, "create_entities", map[string]any{"entities": ents}, false)
	callTool(t, cs, "create_relations", map[string]any{"relations": rels}, false)
	text, sc := callTool(t, cs, "read_graph", map[string]any{}, false)
	if n, m := len(sc["entities"].([]any)), len(sc["relations"].([]any)); n != 24 || m != 23 {
		t.Errorf("read_graph of 24 entities and 23 relations: %d and %d\n%s", n, m, text)
	}
	if !strings.Contains(text, `"fact 23"`) || strings.Contains(text, "a few of each type") {
		t.Errorf("read_graph of a small memory is not whole:\n%s", text)
	}
	// Past the token target: the outline, saying how to read the rest.
	var more []any
	for i := range 300 {
		more = append(more, map[string]any{"name": fmt.Sprintf("m%03d", i), "entityType": "note",
			"observations": []any{strings.Repeat("a long observation ", 3)}})
	}
	callTool(t, cs, "create_entities", map[string]any{"entities": more}, false)
	if text, _ = callTool(t, cs, "read_graph", map[string]any{}, false); !strings.Contains(text, "search_nodes or open_nodes read the rest") {
		t.Errorf("read_graph of a larger memory:\n%.500s", text)
	}
}

// TestMemoryOpenHub: open_nodes of one entity answers every relation the
// original would, up to 99 (the read's 200 rows); past them the answer
// says how many are left and the recall that shows the next ones, which
// does.
func TestMemoryOpenHub(t *testing.T) {
	_, srv := mcpServer(t, server.Options{})
	cs := connect(t, srv)
	ents := []any{map[string]any{"name": "Atlas", "entityType": "project", "observations": []any{"the hub"}}}
	var rels []any
	for i := range 120 {
		ents = append(ents, map[string]any{"name": fmt.Sprintf("todo %03d", i), "entityType": "todo", "observations": []any{}})
		rels = append(rels, map[string]any{"from": fmt.Sprintf("todo %03d", i), "to": "Atlas", "relationType": "belongs_to"})
	}
	callTool(t, cs, "create_entities", map[string]any{"entities": ents[:34]}, false)
	callTool(t, cs, "create_relations", map[string]any{"relations": rels[:33]}, false)
	if _, sc := callTool(t, cs, "open_nodes", map[string]any{"names": []any{"Atlas"}}, false); len(sc["relations"].([]any)) != 33 {
		t.Errorf("open_nodes of a hub of 33 relations: %d", len(sc["relations"].([]any)))
	}
	callTool(t, cs, "create_entities", map[string]any{"entities": ents[34:]}, false)
	callTool(t, cs, "create_relations", map[string]any{"relations": rels[33:]}, false)
	text, sc := callTool(t, cs, "open_nodes", map[string]any{"names": []any{"Atlas"}}, false)
	want := `"Atlas" has 21 more relations: recall {"q": "MATCH (n {nick: 'Atlas'})", "options": {"k": 1, "after": 99}} shows the next ones`
	if len(sc["relations"].([]any)) != 99 || !strings.Contains(text, want) {
		t.Errorf("open_nodes of a hub of 120 relations: %d relations\n%.400s", len(sc["relations"].([]any)), text)
	}
	next, _ := callTool(t, cs, "recall", map[string]any{"session": "memory", "q": "MATCH (n {nick: 'Atlas'})", "options": map[string]any{"k": 1, "after": 99}}, false)
	if n := strings.Count(next, ")-[:belongs_to]->("); n != 21 || strings.Contains(next, "clamp:") {
		t.Errorf("the next page: %d relations\n%.600s", n, next)
	}
}

// TestMemoryEmptyType: an entity of an empty entityType is made, as the
// original makes it (a node without a kind), and read back with "".
func TestMemoryEmptyType(t *testing.T) {
	_, srv := mcpServer(t, server.Options{})
	cs := connect(t, srv)
	callTool(t, cs, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "typeless", "entityType": "", "observations": []any{"no kind"}},
		map[string]any{"name": "typed", "entityType": "note", "observations": []any{}}}}, false)
	for _, tool := range []string{"open_nodes", "read_graph"} {
		args := map[string]any{"names": []any{"typeless"}}
		if tool == "read_graph" {
			args = map[string]any{}
		}
		_, sc := callTool(t, cs, tool, args, false)
		found := false
		for _, e := range sc["entities"].([]any) {
			m := e.(map[string]any)
			found = found || m["name"] == "typeless" && m["entityType"] == ""
		}
		if !found {
			t.Errorf("%s: no typeless entity of entityType \"\": %v", tool, sc)
		}
	}
}

// TestMemoryEmptyName: a relation to an entity named "" is a relation in
// the structured answers, as the original returns it.
func TestMemoryEmptyName(t *testing.T) {
	_, srv := mcpServer(t, server.Options{})
	cs := connect(t, srv)
	callTool(t, cs, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "", "entityType": "note", "observations": []any{}},
		map[string]any{"name": "b", "entityType": "note", "observations": []any{}}}}, false)
	callTool(t, cs, "create_relations", map[string]any{"relations": []any{
		map[string]any{"from": "", "to": "b", "relationType": "knows"}}}, false)
	for _, tool := range []string{"read_graph", "open_nodes"} {
		args := map[string]any{"names": []any{"b"}}
		if tool == "read_graph" {
			args = map[string]any{}
		}
		if _, sc := callTool(t, cs, tool, args, false); len(sc["relations"].([]any)) != 1 {
			t.Errorf("%s: relations %v, want the one from \"\"", tool, sc["relations"])
		}
	}
}
