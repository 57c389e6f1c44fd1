package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/server"
)

// TestMemoryWritesAllOrNothing: one memory-tool call is one change. A
// call with an invalid item after valid ones, or one too large for one
// Commit, answers an error and writes nothing, so a retry never meets
// "already there"; a call of many items within the budget is written
// whole.
func TestMemoryWritesAllOrNothing(t *testing.T) {
	db, srv := mcpServer(t, server.Options{})
	cs := connect(t, srv)
	entity := func(name, typ string, obs ...string) map[string]any {
		list := []any{}
		for _, o := range obs {
			list = append(list, o)
		}
		return map[string]any{"name": name, "entityType": typ, "observations": list}
	}
	version := func() uint64 {
		s, err := db.Session(t.Context(), "memory")
		if err != nil {
			return 0
		}
		return s.Version()
	}
	big := strings.Repeat("x", 32<<10)

	// An item too large last: an error, and nothing written.
	text, _ := callTool(t, cs, "create_entities", map[string]any{"entities": []any{
		entity("big-1", "note", big), entity("big-2", "note", big), entity("big-3", "note", strings.Repeat("y", 300<<10))}}, true)
	if !strings.Contains(text, "nothing was written") {
		t.Errorf("an item too large: %s", text)
	}
	if v := version(); v != 0 {
		t.Errorf("an invalid item left version %d: part of the call was written", v)
	}

	// 70 entities (more than one chunk of old) are one change.
	var many []any
	for i := range 70 {
		many = append(many, entity(fmt.Sprintf("e%02d", i), "thing", "fact"))
	}
	if text, _ = callTool(t, cs, "create_entities", map[string]any{"entities": many}, false); !strings.Contains(text, `"e69"`) {
		t.Errorf("70 entities: %.300s", text)
	}
	if v := version(); v != 1 {
		t.Errorf("70 entities took %d versions, want 1", v)
	}

	// 65 relations, the last with an empty type: an error, none written.
	var rels []any
	for i := range 65 {
		typ := "next"
		if i == 64 {
			typ = ""
		}
		rels = append(rels, map[string]any{"from": fmt.Sprintf("e%02d", i), "to": fmt.Sprintf("e%02d", i+1), "relationType": typ})
	}
	if text, _ = callTool(t, cs, "create_relations", map[string]any{"relations": rels}, true); !strings.Contains(text, "nothing was created") {
		t.Errorf("an invalid relation: %s", text)
	}
	if v := version(); v != 1 {
		t.Errorf("an invalid relation left version %d", v)
	}

	// Over one Commit's budget: refused whole, saying to split it.
	var huge []any
	for i := range 600 {
		huge = append(huge, entity(fmt.Sprintf("h%03d", i), "thing"))
	}
	if text, _ = callTool(t, cs, "create_entities", map[string]any{"entities": huge}, true); !strings.Contains(text, "22Q02") || !strings.Contains(text, "split the 600 entities") {
		t.Errorf("600 entities: %s", text)
	}
	if v := version(); v != 1 {
		t.Errorf("a call over the budget left version %d", v)
	}
	if text, _ = callTool(t, cs, "open_nodes", map[string]any{"names": []any{"h000", "big-1"}}, false); strings.Contains(text, `"h000"`) || strings.Contains(text, `"big-1"`) {
		t.Errorf("a refused call left entities: %.300s", text)
	}
}
