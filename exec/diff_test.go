package exec

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// graphText lists a snapshot's nodes and edges by content, ids aside,
// sorted: two graphs a diff makes alike list the same.
func graphText(s *store.Snapshot) string {
	node := func(n *store.Node) string { text, _ := n.Rendering(); return "(" + text + ")" }
	var lines []string
	s.ScanNodes(func(n *store.Node) bool { lines = append(lines, node(n)); return true })
	s.ScanEdges(func(e *store.Edge) bool {
		from, _ := s.Node(e.From)
		to, _ := s.Node(e.To)
		lines = append(lines, node(from)+"-["+string(appendEdgeText(nil, e, false))+"]->"+node(to))
		return true
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestDiffSnapshots: for each history, the diff from its first version
// to its last, committed on a copy of the first, gives the last; its
// text holds what the case is about, or it is refused with the code.
func TestDiffSnapshots(t *testing.T) {
	cases := []struct {
		name    string
		before  []string // makes version From
		after   []string // then version To
		opt     DiffOptions
		want    []string // in the text
		refused gqlstatus.Code
	}{
		{name: "labels, properties removed and retyped",
			before: []string{`INSERT (:TSK:Draft {nick: "t", n: 1, d: "x", l: [1]})`},
			after:  []string{`MATCH (t {nick: "t"}) REMOVE t:Draft, t.d SET t:Seen, t.n = 1.0, t.l = [1.0], t.day = DATE '2026-01-31'`},
			want:   []string{"REMOVE tsk_1:Draft", "tsk_1:Seen", "n: 1.0", "DATE '2026-01-31'"}},
		{name: "a kind change",
			before: []string{`INSERT (:A:B {nick: "x"})`},
			after:  []string{`MATCH (x {nick: "x"}) REMOVE x:A SET x:C`},
			want:   []string{"REMOVE a_1:A:B", "SET a_1:B:C"}},
		{name: "parallel edges rewritten whole",
			before: []string{`INSERT (a:A {nick: "a"}), (b:A {nick: "b"}), (a)-[:r]->(b), (a)-[:r]->(b), (a)-[:s {w: 1}]->(b)`},
			after:  []string{`MATCH (a {nick: "a"})-[e:s]->() SET e.w = 2`, `MATCH (a {nick: "a"}), (b {nick: "b"}) INSERT (a)-[:r {w: 3}]->(b)`},
			want:   []string{"-[e:s]->", "DELETE e;", "-[e:r]->", "e_", ":s {w: 2}"}},
		{name: "a self-loop",
			before: []string{`INSERT (a:A {nick: "a"})`, `MATCH (a {nick: "a"}) INSERT (a)-[:r]->(a)`},
			after:  []string{`MATCH (a {nick: "a"})-[e:r]->() DELETE e`},
			want:   []string{"-[e:r]->(a_1)"}},
		{name: "DETACH DELETE, and an identical node made again",
			before: []string{`INSERT (a:A {nick: "a"}), (:N {v: 1}), (n:N {v: 2}), (a)-[:r]->(n)`},
			after:  []string{`MATCH (n:N {v: 2}) DETACH DELETE n`, `INSERT (:N {v: 1, tmp: true})`, `MATCH (n:N {tmp: true}) REMOVE n.tmp`},
			want:   []string{"DETACH DELETE n_3", "(n_5:N)", "SET n_5 = {v: 1}"}},
		{name: "a node found among look-alikes",
			before: []string{`INSERT (:N {v: 1}), (:N {v: 1, w: 2}), (:N:L {v: 1})`},
			after:  []string{`MATCH (n:N {v: 1}) WHERE n.w IS NULL AND NOT n:L SET n.v = 5`},
			want:   []string{"WHERE n_1.w IS NULL AND NOT n_1:L"}},
		{name: "nicks swapped",
			before: []string{`INSERT (:A {nick: "x", v: 1}), (:A {nick: "y", v: 2})`},
			after:  []string{`MATCH (a {nick: "x"}), (b {nick: "y"}) SET a.nick = "t"`, `MATCH (b {nick: "y"}) SET b.nick = "x"`, `MATCH (a {nick: "t"}) SET a.nick = "y"`},
			want:   []string{"_new"}},
		{name: "a settled task keeps a delete_on_settle node",
			before: []string{`INSERT (t:TSK {nick: "t"})`},
			after:  []string{`MATCH (t {nick: "t"}) SET t:Settled`, `MATCH (t {nick: "t"}) INSERT (t)-[:has]->(:N {delete_on_settle: true})`},
			want:   []string{"tsk_1_new"}},
		{name: "identical nodes told apart by an edge to a nick",
			before: []string{`INSERT (:N {v: 1}), (:N {v: 1, tmp: 1}), (:M {nick: "m"})`, `MATCH (n {tmp: 1}), (m {nick: "m"}) INSERT (n)-[:r]->(m) REMOVE n.tmp`},
			after:  []string{`MATCH (n:N)-[:r]->(m {nick: "m"}) SET n.v = 2, m.seen = true`, `MATCH (n:N)-[:r]->(m {nick: "m"}) INSERT (n)-[:s]->(:X {v: 1})`},
			want:   []string{`(n_2:N {v: 1})-[:r]->(m_3:M {nick: "m"})`, "n_2 = {v: 2}", "(n_2)-[e_"}},
		{name: "identical nodes: refused",
			before:  []string{`INSERT (:N {v: 1}), (:N {v: 1, tmp: 1}), (:M {nick: "m"})`, `MATCH (n {tmp: 1}), (m {nick: "m"}) INSERT (n)-[:r]->(m) REMOVE n.tmp`},
			after:   []string{`MATCH (m {nick: "m"})<-[e:r]-() DELETE e`},
			refused: gqlstatus.InvalidReference},
		{name: "over the row bound: refused",
			before:  []string{`INSERT (:N {v: 1})`},
			after:   []string{`INSERT (:N {v: 2}), (:N {v: 3}), (:N {v: 4})`},
			opt:     DiffOptions{MaxRows: 2},
			refused: gqlstatus.CommitBudget},
		{name: "over R: refused",
			before:  []string{`INSERT (:N {v: 1})`},
			after:   []string{`INSERT (:N {v: 2}), (:N {v: 3}), (:N {v: 4})`},
			opt:     DiffOptions{Budget: values.Budget{Rows: 2}},
			refused: gqlstatus.CommitBudget},
		{name: "narrowed by nick",
			before: []string{`INSERT (:A {nick: "a"}), (:A {nick: "b"})`},
			after:  []string{`MATCH (a {nick: "a"}), (b {nick: "b"}) SET a.v = 1, b.v = 2`},
			opt:    DiffOptions{Nicks: []string{"a"}},
			want:   []string{"a_1 = {nick: \"a\", v: 1}"}},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := store.New()
			for _, q := range c.before {
				if _, err := commitText(t, g, q, MintDefault); err != nil {
					t.Skipf("history: %s: %v", q, err)
				}
			}
			from := g.Snapshot()
			for _, q := range c.after {
				if _, err := commitText(t, g, q, MintDefault); err != nil {
					t.Skipf("history: %s: %v", q, err)
				}
			}
			to := g.Snapshot()
			d, err := DiffSnapshots(ctx, from, to, c.opt)
			if c.refused != "" {
				var ge *gqlstatus.Error
				if !errors.As(err, &ge) || ge.Code != c.refused || ge.Hint == "" {
					t.Fatalf("got %v, want %s with a hint", err, c.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(d.Text, w) {
					t.Errorf("the diff lacks %q:\n%s", w, d.Text)
				}
			}
			if len(c.opt.Nicks)+len(c.opt.Kinds) > 0 {
				return // a narrowed diff gives only part of To
			}
			cp := store.New()
			for _, q := range []string{mustDiff(t, store.New().Snapshot(), from), d.Text} {
				if _, err := commitText(t, cp, q, MintDefault); err != nil {
					t.Fatalf("%v\n%s", err, q)
				}
			}
			if got, want := graphText(cp.Snapshot()), graphText(to); got != want {
				t.Fatalf("committed, the diff gives\n%s\nwant\n%s\n%s", got, want, d.Text)
			}
		})
	}
}

func mustDiff(t *testing.T, a, b *store.Snapshot) string {
	t.Helper()
	d, err := DiffSnapshots(context.Background(), a, b, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d.Text
}
