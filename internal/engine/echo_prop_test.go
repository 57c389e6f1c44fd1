package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// echoGraph draws a session as one INSERT text. Each node carries a nick
// or, when distinct is set, a unique name, so its observables tell it
// apart; without distinct, nodes without a nick repeat observables on
// purpose. Edges may be parallel, self-loops, and carry a property.
func echoGraph(t *rapid.T, distinct bool) string {
	kinds := []string{"TSK", "MOD", "NOTE"}
	types := []string{"touches", "contains", "refs"}
	n := rapid.IntRange(1, 25).Draw(t, "nodes")
	var parts []string
	for i := range n {
		kind := rapid.SampledFrom(kinds).Draw(t, "kind")
		label := ""
		if rapid.IntRange(0, 4).Draw(t, "label") == 0 {
			label = ":Seen"
		}
		v := rapid.IntRange(0, 2).Draw(t, "v")
		switch {
		case rapid.Bool().Draw(t, "nicked"):
			parts = append(parts, fmt.Sprintf(`(n%d:%s%s {nick: "k%d", v: %d})`, i, kind, label, i, v))
		case distinct:
			parts = append(parts, fmt.Sprintf(`(n%d:%s%s {name: "x%d", v: %d})`, i, kind, label, i, v))
		default:
			parts = append(parts, fmt.Sprintf(`(n%d:%s%s {v: %d})`, i, kind, label, v))
		}
	}
	for range rapid.IntRange(0, 2*n).Draw(t, "edges") {
		props := ""
		if w := rapid.IntRange(0, 3).Draw(t, "w"); w < 2 {
			props = fmt.Sprintf(" {w: %d}", w)
		}
		parts = append(parts, fmt.Sprintf("(n%d)-[:%s%s]->(n%d)", rapid.IntRange(0, n-1).Draw(t, "from"),
			rapid.SampledFrom(types).Draw(t, "type"), props, rapid.IntRange(0, n-1).Draw(t, "to")))
	}
	return "INSERT " + strings.Join(parts, ",\n")
}

var echoQueries = []string{
	`MATCH (a:TSK)`,
	`MATCH (a:MOD {v: 1}) LIMIT 2`,
	`MATCH (a:NOTE), (b:TSK) LIMIT 3`,
	`MATCH (a {nick: "k0"})`,
	`MATCH (a:Seen)`,
	`MATCH (a) WHERE a CONTAINS "x1"`,
	`MATCH (a) WHERE a.v >= 1`,
	`MATCH (a:NOPE)`,
	`MATCH ()`,
}

// TestShapeCommittedBackAppliesNothing: for random sessions and Recall
// tokens, committing the Recall's whole text (header, notes and
// attention comments included) back into its session applies nothing:
// every node and edge row is an echo, the version and the contents stay
// as they were (docs/design.md#commit, "Echoes bind"). With view=shell the rows show
// identity properties only, so the test's nodes all carry a nick there.
func TestShapeCommittedBackAppliesNothing(t *testing.T) {
	ctx := context.Background()
	rapid.Check(t, func(t *rapid.T) {
		db, _ := openTest(bigBudget)
		s, _ := db.Session(ctx, "prop")
		view := rapid.SampledFrom([]string{"interior", "shell"}).Draw(t, "view")
		text := echoGraph(t, true)
		if view == "shell" {
			text = strings.NewReplacer(`{name: "x`, `{nick: "x`).Replace(text)
		}
		if _, err := s.commitText(ctx, text, nil); err != nil {
			t.Fatalf("building the session: %v\n%s", err, text)
		}
		before := contents(s)
		nodes, edges := s.graph.Snapshot().NodeCount(), s.graph.Snapshot().EdgeCount()
		o := values.RecallOptions{
			M:    rapid.IntRange(1, 80).Draw(t, "M"),
			K:    rapid.IntRange(0, 3).Draw(t, "K"),
			L:    rapid.IntRange(1, 6).Draw(t, "L"),
			F:    rapid.IntRange(1, 10).Draw(t, "F"),
			View: view,
			// An untrimmed Shape: a value the token target elides is not
			// the value, so it cannot be an echo of it; nor is a node an
			// economical Shape shows in part (Whole).
			T:     1 << 30,
			Whole: true,
			Agent: rapid.SampledFrom([]string{"", "ana"}).Draw(t, "agent"),
		}
		q := rapid.SampledFrom(echoQueries).Draw(t, "q")
		r, err := s.Recall(ctx, q, o, nil)
		if err != nil {
			t.Fatalf("Recall %s: %v", q, err)
		}
		shape := r.Text
		res, err := s.commitText(ctx, shape, nil)
		if err != nil {
			t.Fatalf("the values.Shape does not commit back: %v\n%s", err, shape)
		}
		if res.Applied || res.Total.NodesCreated != 0 || res.Total.EdgesCreated != 0 {
			t.Fatalf("the values.Shape committed back applied %v: %+v\n%s", res.Applied, res.Total, shape)
		}
		if got, want := res.Total.NodesEchoed+res.Total.EdgesEchoed, r.Rows; got != want && r.Cue != "outline" {
			t.Fatalf("%d echoes for %d rows\n%s", got, want, shape)
		}
		if after := contents(s); after != before {
			t.Fatalf("the session changed:\nbefore:\n%s\nafter:\n%s\nShape:\n%s", before, after, shape)
		}
		if s.graph.Snapshot().NodeCount() != nodes || s.graph.Snapshot().EdgeCount() != edges {
			t.Fatalf("counts moved")
		}
	})
}

// TestAmbiguousEchoesCreate: with repeated observables, a node row of a
// Shape committed back binds when it is identical to one live node and
// is created, with one notice each, when it is identical to several;
// every row is one or the other.
func TestAmbiguousEchoesCreate(t *testing.T) {
	ctx := context.Background()
	rapid.Check(t, func(t *rapid.T) {
		db, _ := openTest(bigBudget)
		s, _ := db.Session(ctx, "prop")
		if _, err := s.commitText(ctx, echoGraph(t, false), nil); err != nil {
			t.Fatal(err)
		}
		q := rapid.SampledFrom(echoQueries).Draw(t, "q")
		r, err := s.Recall(ctx, q, values.RecallOptions{M: rapid.IntRange(1, 80).Draw(t, "M"), T: 1 << 30, Whole: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Which rows are ambiguous, from the live session: a row's
		// observables shared by more than one live node.
		want := 0
		count := map[string]int{}
		for _, row := range liveObservables(s) {
			count[row]++
		}
		nodeRows := 0
		for _, row := range bodyRows(r.Text) {
			obs, ok := nodeObservables(row)
			if !ok {
				continue
			}
			nodeRows++
			if count[obs] == 0 {
				t.Fatalf("row %q is no live node's; live: %v", obs, count)
			}
			if count[obs] > 1 && !strings.Contains(obs, "nick:") {
				want++
			}
		}
		res, err := s.commitText(ctx, r.Text, nil)
		if err != nil {
			t.Fatalf("%v\n%s", err, r.Text)
		}
		notices := 0
		for _, st := range res.Stmts {
			for _, n := range st.Notices {
				if strings.Contains(n.Msg, "cannot say which it restates") {
					notices++
				}
			}
		}
		if res.Total.NodesCreated != want || notices != want || res.Total.NodesEchoed+res.Total.NodesCreated != nodeRows {
			t.Fatalf("%d ambiguous rows of %d: created %d, echoed %d, %d notices\n%s", want, nodeRows,
				res.Total.NodesCreated, res.Total.NodesEchoed, notices, r.Text)
		}
		if res.Applied != (want > 0) {
			t.Fatalf("applied %v with %d ambiguous rows", res.Applied, want)
		}
	})
}

// liveObservables renders every live node of s as a node row's
// observables: ":TSK:Seen {v: 1}".
func liveObservables(s *Session) []string {
	var out []string
	s.graph.Snapshot().ScanNodes(func(n *store.Node) bool {
		row := ":" + strings.Join(n.Labels, ":")
		if len(n.Props) > 0 {
			row += " " + n.Props.Literal()
		}
		out = append(out, row)
		return true
	})
	return out
}

// nodeObservables is a Shape row's observables when it is a node row
// ("  (tsk1:TSK:Seen {v: 1}),"), without its variable.
func nodeObservables(row string) (string, bool) {
	row = strings.TrimSuffix(strings.TrimSpace(row), ",")
	if strings.Contains(row, ")-[") || strings.Contains(row, ")<-[") || !strings.HasPrefix(row, "(") || !strings.HasSuffix(row, ")") {
		return "", false
	}
	_, obs, ok := strings.Cut(row[1:len(row)-1], ":")
	return ":" + obs, ok
}
