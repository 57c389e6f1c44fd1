package goldfish_test

import (
	"context"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestNodeByNick: the live node of a nick, its labels and properties as
// Go values; nothing for a nick no live node has (a recycled one
// included).
func TestNodeByNick(t *testing.T) {
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	s, _ := db.Session(ctx, "s")
	if _, err := s.Commit(ctx, `INSERT (:P:Extra {nick: "ann", n: 3, f: 1.5, l: ["a", 2], d: DATE '2026-01-31'}), (:P {nick: "bob"})`, nil); err != nil {
		t.Fatal(err)
	}
	n, v, ok, err := s.NodeByNick(ctx, "ann")
	if err != nil || !ok || v != 1 {
		t.Fatalf("ann: %v %v %v", ok, v, err)
	}
	if strings.Join(n.Labels, ",") != "P,Extra" || n.Props["n"] != int64(3) || n.Props["f"] != 1.5 || n.Props["nick"] != "ann" ||
		len(n.Props["l"].([]any)) != 2 || n.Props["d"] != (goldfish.Date{Year: 2026, Month: 1, Day: 31}) {
		t.Errorf("ann reads %+v", n)
	}
	s.Commit(ctx, `MATCH (b {nick: "bob"}) DETACH DELETE b`, nil)
	for _, nick := range []string{"bob", "nobody", "ANN"} {
		if _, _, ok, err := s.NodeByNick(ctx, nick); ok || err != nil {
			t.Errorf("%s: found %v, err %v", nick, ok, err)
		}
	}
}

// TestRecallCatalogSessions: RecallOptions.Sessions shows a caller the
// catalogue nodes of its sessions alone, at a version of its own; other
// sessions' Recalls ignore it.
func TestRecallCatalogSessions(t *testing.T) {
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, name := range []string{"a1", "a2", "b1"} {
		s, _ := db.Session(ctx, name)
		s.Commit(ctx, `INSERT (:N {nick: "x"})`, nil)
		s.Commit(ctx, `INSERT (:N {nick: "y"})`, nil)
	}
	cat, _ := db.Session(ctx, goldfish.CatalogName)
	onlyA := func(n string) bool { return strings.HasPrefix(n, "a") }
	sh, err := cat.Recall(ctx, "MATCH (s:SESSION)", goldfish.RecallOptions{L: 10, Sessions: onlyA})
	if err != nil {
		t.Fatal(err)
	}
	if sh.Seeds != 2 || sh.Version != 1 || strings.Contains(sh.Text, `"b1"`) || !strings.Contains(sh.Text, `"a2"`) {
		t.Errorf("the catalogue of a*:\n%s", sh.Text)
	}
	all, _ := cat.Recall(ctx, "MATCH (s:SESSION)", goldfish.RecallOptions{L: 10})
	if all.Seeds != 3 {
		t.Errorf("the whole catalogue after a filtered read:\n%s", all.Text)
	}
	none, _ := cat.Recall(ctx, "MATCH ()", goldfish.RecallOptions{Sessions: func(string) bool { return false }})
	if none.Rows != 0 {
		t.Errorf("the catalogue of no session:\n%s", none.Text)
	}
	s, _ := db.Session(ctx, "b1")
	if sh, _ := s.Recall(ctx, "MATCH (n:N)", goldfish.RecallOptions{Sessions: onlyA}); sh.Seeds != 2 {
		t.Errorf("Sessions changed a Recall of a session:\n%s", sh.Text)
	}
}

// TestSessionGraph: Graph reads every live node and edge, edges by the
// indexes of their ends, and leaves recycled ones out.
func TestSessionGraph(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, _ := db.Session(ctx, "g")
	if _, err := s.Commit(ctx, `INSERT (a:P {nick: "a", n: 1})-[:r {w: 2}]->(b:Q:X {nick: "b"}), (:P {nick: "gone"})`, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, `MATCH (n {nick: "gone"}) DELETE n`, nil); err != nil {
		t.Fatal(err)
	}
	g, err := s.Graph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 2 || len(g.Edges) != 1 || g.Version != s.Version() {
		t.Fatalf("%+v", g)
	}
	e := g.Edges[0]
	if g.Nodes[e.From].Props["nick"] != "a" || g.Nodes[e.To].Props["nick"] != "b" || e.Type != "r" || e.Props["w"] != int64(2) {
		t.Errorf("edge %+v of %+v", e, g.Nodes)
	}
}
