package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
)

// diffStatement draws a statement of a random history: inserts with and
// without nicks (identical ones too), SET of values of every type,
// REMOVE, label and kind changes, nicks that move, parallel edges with
// and without properties, DELETE and DETACH DELETE, tasks settled with
// delete_on_settle nodes. It may fail (a nick
// taken, a MATCH binding nothing): a failed Commit makes no version.
func diffStatement(t *rapid.T) string {
	nick := func(l string) string { return fmt.Sprintf("n%d", rapid.IntRange(0, 5).Draw(t, l)) }
	kind := rapid.SampledFrom([]string{"A", "TSK"}).Draw(t, "kind")
	v := rapid.IntRange(0, 2).Draw(t, "v")
	val := rapid.SampledFrom([]string{"1", "1.0", "1.5", `"x"`, "[1, 2]", "[1.0]", "DATE '2026-01-31'", "true"}).Draw(t, "val")
	switch rapid.IntRange(0, 16).Draw(t, "form") {
	case 15:
		// a node made unlike the others, then alike: one no echo made
		return fmt.Sprintf(`INSERT (:%s {v: %d, tmp: 1});`+"\n"+`MATCH (n {tmp: 1}) REMOVE n.tmp`, kind, v)
	case 16:
		return fmt.Sprintf(`MATCH (a {nick: %q})-[e:r]->() SET e.w = %s`, nick("nick"), val)
	case 14:
		// a settling task recycles such a node (docs/design.md#commit, delete_on_settle)
		return fmt.Sprintf(`MATCH (a {nick: %q}) INSERT (a)-[:has]->(:N {delete_on_settle: true, v: %d})`, nick("nick"), v)
	case 0:
		return fmt.Sprintf(`INSERT (:%s {nick: %q, v: %d})`, kind, nick("nick"), v)
	case 1:
		return fmt.Sprintf(`INSERT (:%s {v: %d})`, kind, v)
	case 2:
		return fmt.Sprintf(`INSERT (:%s:L {v: %d}), (:%s {v: %d, w: %s})`, kind, v, kind, v, val)
	case 3:
		return fmt.Sprintf(`MATCH (a {nick: %q}) SET a.v = %s`, nick("nick"), val)
	case 4:
		return fmt.Sprintf(`MATCH (a {nick: %q}) REMOVE a.v`, nick("nick"))
	case 5:
		return fmt.Sprintf(`MATCH (a {nick: %q}) SET a:%s`, nick("nick"), rapid.SampledFrom([]string{"L", "Settled"}).Draw(t, "label"))
	case 6:
		return fmt.Sprintf(`MATCH (a {nick: %q}) REMOVE a:%s SET a:%s`, nick("nick"), kind, rapid.SampledFrom([]string{"A", "B", "C"}).Draw(t, "k2"))
	case 7:
		props := rapid.SampledFrom([]string{"", " {w: 1}", " {w: 2.0}"}).Draw(t, "eprops")
		return fmt.Sprintf(`MATCH (a {nick: %q}), (b {nick: %q}) INSERT (a)-[:r%s]->(b)`, nick("from"), nick("to"), props)
	case 8:
		return fmt.Sprintf(`MATCH (a {nick: %q}) DETACH DELETE a`, nick("nick"))
	case 9:
		return fmt.Sprintf(`MATCH (a:%s {v: %d}) DETACH DELETE a`, kind, v)
	case 10:
		return fmt.Sprintf(`MATCH (a {nick: %q}) SET a.nick = %q`, nick("nick"), nick("to"))
	case 11:
		return fmt.Sprintf(`MATCH (a {nick: %q})-[e:r]->(b) DELETE e`, nick("nick"))
	case 12:
		return fmt.Sprintf(`MATCH (a:%s {v: %d}), (b {nick: %q}) INSERT (a)-[:r]->(b), (b)-[:s {w: %s}]->(:C {v: %d})`, kind, v, nick("nick"), val, v)
	default:
		return fmt.Sprintf(`MATCH (a {nick: %q}), (b {nick: %q}) SET a.nick = %q, b.nick = %q`, nick("x"), nick("y"), "tmp", nick("z"))
	}
}

// graphLines is a dump without its counts line: the node and edge lines
// (a copy holds as many elements; only its recycled count may differ).
func graphLines(dump string) string {
	lines := strings.SplitN(dump, "\n", 3)
	if len(lines) < 3 {
		return ""
	}
	return lines[2]
}

// TestDiffCommittedGivesVersion: for a random history and random a ≤ b
// among its versions, a fresh session that commits Diff(0, a) holds
// version a's graph, and then committing Diff(a, b) gives version b's.
func TestDiffCommittedGivesVersion(t *testing.T) {
	ctx := context.Background()
	rapid.Check(t, func(t *rapid.T) {
		db, _ := openTest(bigBudget)
		s, _ := db.Session(ctx, "hist")
		// Nodes with nicks to start from, so that the statements which
		// MATCH by nick (edges, SET, REMOVE, DELETE) find some.
		if _, err := s.commitText(ctx, `INSERT (:A {nick: "n0", v: 0}), (:TSK {nick: "n1", v: 1}), (:A:L {nick: "n2", v: 1}), (:TSK {nick: "n3"}), (:A {v: 0})`, nil); err != nil {
			t.Fatal(err)
		}
		for i, n := 0, rapid.IntRange(1, 16).Draw(t, "commits"); i < n; i++ {
			var stmts []string
			for j, m := 0, rapid.IntRange(1, 3).Draw(t, "stmts"); j < m; j++ {
				stmts = append(stmts, diffStatement(t))
			}
			_, _ = s.commitText(ctx, strings.Join(stmts, ";\n"), nil)
		}
		newest := s.Snapshot().Version()
		b := rapid.Uint64Range(0, newest).Draw(t, "b")
		a := rapid.Uint64Range(0, b).Draw(t, "a")
		if b == 0 {
			return
		}
		copyOf, _ := db.Session(ctx, "copy")
		apply := func(from, to uint64) bool {
			d, err := s.Diff(ctx, from, to, values.DiffOptions{})
			var ge *gqlstatus.Error
			if errors.As(err, &ge) && ge.Code == gqlstatus.InvalidReference {
				return false // identical nodes without nick: refused, as documented
			}
			if err != nil {
				t.Fatalf("Diff(%d, %d): %v", from, to, err)
			}
			if !d.Empty() {
				if _, err := copyOf.commitText(ctx, d.Text, nil); err != nil {
					t.Fatalf("Diff(%d, %d) does not commit: %v\n%s\nfrom:\n%s", from, to, err, d.Text, mustDump(t, s, from))
				}
			}
			want := graphLines(mustDump(t, s, to))
			if got := graphLines(copyOf.Dump()); got != want {
				t.Fatalf("Diff(%d, %d) committed gives\n%s\nwant\n%s\ndiff:\n%s\nfrom:\n%s", from, to, got, want, d.Text, mustDump(t, s, from))
			}
			return true
		}
		if a > 0 && !apply(0, a) {
			return
		}
		apply(a, b)
	})
}

func mustDump(t *rapid.T, s *Session, v uint64) string {
	d, err := s.DumpAt(context.Background(), v)
	if err != nil {
		t.Fatalf("DumpAt(%d): %v", v, err)
	}
	return d
}
