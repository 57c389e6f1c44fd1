package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/server"
	"github.com/goldfish-gql/goldfish/wire"
)

// TestRecallSaysWhatWasLeftOut: a Recall whose token matched more nodes
// than L let it seed says so in the JSON (matched, a 01000 notice) as in
// the header, over HTTP and through the memory server's search_nodes,
// whose eight seeds would otherwise pass for every match there is.
func TestRecallSaysWhatWasLeftOut(t *testing.T) {
	db, srv, ts := newServer(t, server.Options{})
	ctx := context.Background()
	s, _ := db.Session(ctx, "main")
	var ins []string
	for i := range 10 {
		ins = append(ins, fmt.Sprintf(`(:TSK {nick: "t%02d", status: "open"})`, i))
	}
	if _, err := s.Commit(ctx, "INSERT "+strings.Join(ins, ", "), nil); err != nil {
		t.Fatal(err)
	}
	code, body := call(t, ts, "POST", "/v1/sessions/main/recall", "", `{"q": "MATCH (t:TSK {status: 'open'})"}`)
	var sh wire.Shape
	if err := json.Unmarshal([]byte(body), &sh); err != nil || code != 200 {
		t.Fatalf("%d %s: %v", code, body, err)
	}
	if sh.Seeds != 4 || sh.Matched != 10 || sh.MatchedAtLeast || sh.Status != "01000" ||
		!strings.Contains(sh.GQL, " seeds=4 matched=10 ") || len(sh.Notices) != 1 || !strings.Contains(sh.Notices[0].Message, "10 nodes, 4 seeded") {
		t.Errorf("ten open tasks, L = 4: %s", body)
	}
	code, body = call(t, ts, "POST", "/v1/sessions/main/recall", "", `{"q": "MATCH (t:TSK {status: 'open'}) LIMIT 10"}`)
	if code != 200 || strings.Contains(body, "matched") {
		t.Errorf("all ten seeded, nothing to say: %d %s", code, body)
	}

	// The memory server's search_nodes seeds eight.
	mem, _ := db.Session(ctx, "memory")
	ins = ins[:0]
	for i := range 12 {
		ins = append(ins, fmt.Sprintf(`(:person {nick: "p%02d", observations: ["plays chess"]})`, i))
	}
	if _, err := mem.Commit(ctx, "INSERT "+strings.Join(ins, ", "), nil); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	text, sc := callTool(t, cs, "search_nodes", map[string]any{"query": "chess"}, false)
	if !strings.HasPrefix(text, "// best 8 of 12 matches; a longer query narrows them\n") {
		t.Errorf("search_nodes chess:\n%s", text)
	}
	if n := len(sc["entities"].([]any)); n != 8 {
		t.Errorf("search_nodes structured content: %d entities, want the 8 shown", n)
	}
}
