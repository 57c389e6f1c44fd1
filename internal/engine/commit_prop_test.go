package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
)

// contents renders everything a session holds, engine ids included, so two
// renderings are equal only when the sessions are identical.
func contents(s *Session) string {
	snap := s.graph.Snapshot()
	var lines []string
	snap.ScanNodes(func(n *store.Node) bool {
		lines = append(lines, fmt.Sprintf("n%d %v %s", n.ID, n.Labels, n.Props.Literal()))
		snap.Edges(n.ID, store.Out, func(e *store.Edge) bool {
			lines = append(lines, fmt.Sprintf("e%d %d-%s->%d %s", e.ID, e.From, e.Type, e.To, e.Props.Literal()))
			return true
		})
		return true
	})
	sort.Strings(lines)
	return fmt.Sprintf("v%d recycled=%d\n%s", snap.Version(), snap.RecycledCount(), strings.Join(lines, "\n"))
}

var kinds = []string{"TSK", "MOD", "NOTE"}

// goodStatement draws a statement that succeeds on any session built by
// these generators (it may bind nothing).
func goodStatement(t *rapid.T) string {
	nick := fmt.Sprintf("n%d", rapid.IntRange(0, 40).Draw(t, "nick"))
	kind := rapid.SampledFrom(kinds).Draw(t, "kind")
	v := rapid.IntRange(0, 3).Draw(t, "v")
	switch rapid.IntRange(0, 5).Draw(t, "form") {
	case 0:
		return fmt.Sprintf(`INSERT (:%s {v: %d})`, kind, v)
	case 1:
		return fmt.Sprintf(`MATCH (a:%s {v: %d}) SET a.w = %d`, kind, v, v+1)
	case 2:
		return fmt.Sprintf(`MATCH (a:%s {v: %d}), (b:%s) INSERT (a)-[:rel]->(b)`, kind, v, rapid.SampledFrom(kinds).Draw(t, "k2"))
	case 3:
		return fmt.Sprintf(`MATCH (a:%s {v: %d}) DETACH DELETE a`, kind, v)
	case 4:
		return fmt.Sprintf(`MATCH (a:%s) WHERE a.v >= %d SET a:Seen REMOVE a.draft`, kind, v)
	default:
		return fmt.Sprintf(`MATCH (a {nick: %q}) SET a.touched = true`, nick)
	}
}

// badStatement draws a statement that fails at run time on any session
// that holds the node nick "fixed" with an edge to an ANCHOR node, which
// goodStatement never touches.
func badStatement(t *rapid.T) string {
	return rapid.SampledFrom([]string{
		`INSERT (:TSK {nick: "fixed", clash: true})`,       // 40002 nick clash (it disagrees: no echo)
		`MATCH (a {nick: "fixed"}) DELETE a`,               // G1001 live edges
		`MATCH (a {nick: "fixed"}) SET a.x = 1, a.x = 2`,   // 22G0M
		`MATCH (a {nick: "fixed"}) SET a.nick = 7`,         // 22G03
		`MATCH (a {nick: "fixed"}) LIMIT $neg SET a.y = 1`, // 22G02
		`CALL nothing_registered()`,                        // 42002 no such action
	}).Draw(t, "bad")
}

// TestFailedDeltaChangesNothing: a Δ that fails at any statement leaves the
// session's full contents and version exactly as before; versions only grow.
func TestFailedDeltaChangesNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		db, _ := openTest()
		s, _ := db.Session(context.Background(), "prop")
		ctx := context.Background()
		if _, err := s.commitText(ctx, `INSERT (:TSK {nick: "fixed"})-[:rel]->(:ANCHOR {v: 0})`, nil); err != nil {
			t.Fatal(err)
		}
		last := s.Version()
		for i, n := 0, rapid.IntRange(0, 8).Draw(t, "setup"); i < n; i++ {
			if _, err := s.commitText(ctx, goodStatement(t), nil); err != nil {
				t.Fatalf("setup statement failed: %v", err)
			}
			if v := s.Version(); v < last {
				t.Fatalf("version went back from %d to %d", last, v)
			} else {
				last = v
			}
		}
		before := contents(s)
		var stmts []string
		for i, n := 0, rapid.IntRange(0, 4).Draw(t, "good"); i < n; i++ {
			stmts = append(stmts, goodStatement(t))
		}
		bad := badStatement(t)
		at := rapid.IntRange(0, len(stmts)).Draw(t, "at")
		stmts = append(stmts[:at], append([]string{bad}, stmts[at:]...)...)
		_, err := s.commitText(ctx, strings.Join(stmts, ";\n"), map[string]any{"neg": -1})
		if err == nil {
			t.Fatalf("Δ with a failing statement succeeded:\n%s", strings.Join(stmts, ";\n"))
		}
		ge, ok := err.(*gqlstatus.Error)
		if !ok || ge.Stmt != at+1 {
			t.Fatalf("error %v does not name statement %d", err, at+1)
		}
		if after := contents(s); after != before {
			t.Fatalf("failed Δ changed the session:\nbefore:\n%s\nafter:\n%s", before, after)
		}
	})
}
