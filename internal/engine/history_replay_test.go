package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/store"
)

// snapshotText is everything a version shows, engine ids included: the
// dump, every node and edge live or recycled by id, each live node's
// adjacency in its canonical order, the id counter, the counts and the
// vocabulary's encoding.
func snapshotText(snap *store.Snapshot) string {
	var b strings.Builder
	b.WriteString(dump(snap))
	fmt.Fprintf(&b, "next id %d, live %d/%d, recycled %d\n", snap.NextID(), snap.NodeCount(), snap.EdgeCount(), snap.RecycledCount())
	snap.ScanAllNodes(func(n *store.Node) bool {
		fmt.Fprintf(&b, "node %d recycled=%v %s\n", n.ID, n.Recycled, nodeLiteral(n))
		if a := snap.Adjacency(n); a.Len() > 0 {
			b.WriteString("  adjacency")
			for i := range a.Len() {
				fmt.Fprintf(&b, " %d%v", a.Edge(i).ID, a.Dir(i))
			}
			b.WriteByte('\n')
		}
		return true
	})
	snap.ScanAllEdges(func(e *store.Edge) bool {
		fmt.Fprintf(&b, "edge %d recycled=%v %d-[%s]->%d\n", e.ID, e.Recycled, e.From, edgeBody(e), e.To)
		return true
	})
	fmt.Fprintf(&b, "kinds %v, types %v\n", snap.Kinds(), snap.EdgeTypes())
	if ext := snap.Ext(); ext != nil {
		fmt.Fprintf(&b, "vocabulary %x\n", ext.AppendExt(nil))
	}
	return b.String()
}

// mixedStatement is one random Δ: inserts, sets, label changes,
// deletes, edges, settling tasks, views and actions.
func mixedStatement(rng *rand.Rand) string {
	nick := func() string { return fmt.Sprintf("n%d", rng.IntN(8)) }
	kind := []string{"A", "TSK"}[rng.IntN(2)]
	v := rng.IntN(3)
	val := []string{"1", "1.5", `"x"`, "[1, 2]", "DATE '2026-01-31'", "true"}[rng.IntN(6)]
	switch rng.IntN(20) {
	case 0, 1:
		return fmt.Sprintf(`INSERT (:%s {nick: %q, v: %d})`, kind, nick(), v)
	case 2:
		return fmt.Sprintf(`INSERT (:%s:L {v: %d}), (:%s {v: %d, w: %s})`, kind, v, kind, v, val)
	case 3:
		return fmt.Sprintf(`MATCH (a {nick: %q}) SET a.v = %s`, nick(), val)
	case 4:
		return fmt.Sprintf(`MATCH (a {nick: %q}) REMOVE a.v`, nick())
	case 5:
		return fmt.Sprintf(`MATCH (a {nick: %q}) SET a:%s`, nick(), []string{"L", "Settled"}[rng.IntN(2)])
	case 6:
		return fmt.Sprintf(`MATCH (a {nick: %q}) REMOVE a:%s SET a:%s`, nick(), kind, []string{"A", "B", "C"}[rng.IntN(3)])
	case 7, 8:
		return fmt.Sprintf(`MATCH (a {nick: %q}), (b {nick: %q}) INSERT (a)-[:r%s]->(b)`, nick(), nick(), []string{"", " {w: 1}", " {w: 2.0}"}[rng.IntN(3)])
	case 9:
		return fmt.Sprintf(`MATCH (a {nick: %q}) DETACH DELETE a`, nick())
	case 10:
		return fmt.Sprintf(`MATCH (a:%s {v: %d}) DETACH DELETE a`, kind, v)
	case 11:
		return fmt.Sprintf(`MATCH (a {nick: %q}) SET a.nick = %q`, nick(), nick())
	case 12:
		return fmt.Sprintf(`MATCH (a {nick: %q})-[e:r]->(b) DELETE e`, nick())
	case 13:
		return fmt.Sprintf(`MATCH (a:%s {v: %d}), (b {nick: %q}) INSERT (a)-[:r]->(b), (b)-[:s {w: %s}]->(:C {v: %d})`, kind, v, nick(), val, v)
	case 14:
		return fmt.Sprintf(`MATCH (a {nick: %q}) INSERT (a)-[:has]->(:N {delete_on_settle: true, v: %d})`, nick(), v)
	case 15:
		return fmt.Sprintf(`MATCH (a {nick: %q})-[e:r]->() SET e.w = %s`, nick(), val)
	case 16:
		return fmt.Sprintf(`CREATE OR REPLACE VIEW heavy INTENT 'tasks over %d' AS 'size(nodes("TSK").filter(t, t.v > %d))'`, v, v)
	case 17:
		return `CREATE OR REPLACE ACTION bump(nick STRING, n INTEGER) INTENT 'count a task up'
		IF 'count("TSK") > 0' { MATCH (t:TSK {nick: $nick}) SET t.n = $n }`
	case 18:
		return fmt.Sprintf(`CALL bump(%q, %d)`, nick(), v)
	default:
		return fmt.Sprintf(`INSERT (:%s {v: %d, tmp: 1});`+"\n"+`MATCH (n {tmp: 1}) REMOVE n.tmp`, kind, v)
	}
}

// pairOneByOne rebuilds versions v-1 and v as every version is made: a
// fork of the checkpoint before them, each logged entry replayed as a
// Commit that copies what it writes.
func pairOneByOne(ctx context.Context, x *historyIndex, s *Session, v uint64) (before, after *store.Snapshot, err error) {
	ck := x.ckpts[(v-1-x.from)/historyCheckpoint]
	if ck.Version() == v-1 {
		before = ck
	}
	g := ck.Fork()
	log, err := s.db.cab.Log(s.name, ck.Version(), v)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range log {
		if _, err := replay(ctx, s.db, g, e); err != nil {
			return nil, nil, err
		}
		if g.Snapshot().Version() == v-1 {
			before = g.Snapshot()
		}
	}
	return before, g.Snapshot(), nil
}

// TestHistoryPairAgreesWithReplay: every version of a session of mixed
// Commits, and the one before it, rebuilt for a History from
// the index's checkpoints, are exactly the versions a replay of each
// logged entry as its own copying Commit makes: the same ids, records,
// adjacency, counters and vocabulary.
func TestHistoryPairAgreesWithReplay(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(3) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mix.db")
			db, err := openTest(bigBudget, WithCabinet(path))
			if err != nil {
				t.Fatal(err)
			}
			s, _ := db.Session(ctx, "mix")
			if _, err := s.commitText(ctx, `INSERT (:A {nick: "n0", v: 0}), (:TSK {nick: "n1", v: 1}), (:A:L {nick: "n2", v: 1}), (:TSK {nick: "n3"})`, nil); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(seed, 11))
			for s.Version() < 3*historyCheckpoint+7 {
				var stmts []string
				for range 1 + rng.IntN(3) {
					stmts = append(stmts, mixedStatement(rng))
				}
				_, _ = s.commitText(ctx, strings.Join(stmts, ";\n"), nil) // a Δ refused makes no version
			}
			if err := db.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			db.Close()
			if db, err = openTest(bigBudget, WithCabinet(path)); err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			s, _ = db.Session(ctx, "mix")
			if err := s.begin(ctx); err != nil {
				t.Fatal(err)
			}
			defer s.end()
			x, err := s.historyIndexFor(ctx, s.snapshot().Version())
			if err != nil {
				t.Fatal(err)
			}
			defer x.mu.Unlock()
			for v := x.from + 1; v <= x.to(); v++ {
				fb, fa, err := x.pair(ctx, s, v)
				if err != nil {
					t.Fatalf("version %d: %v", v, err)
				}
				sb, sa, err := pairOneByOne(ctx, x, s, v)
				if err != nil {
					t.Fatalf("version %d one by one: %v", v, err)
				}
				for _, c := range []struct {
					what       string
					fast, slow *store.Snapshot
				}{{"before", fb, sb}, {"after", fa, sa}} {
					if c.fast.Version() != c.slow.Version() {
						t.Fatalf("pair(%d) %s: version %d, one by one %d", v, c.what, c.fast.Version(), c.slow.Version())
					}
					if err := c.fast.CheckLayout(); err != nil {
						t.Fatalf("pair(%d) %s: %v", v, c.what, err)
					}
					if got, want := snapshotText(c.fast), snapshotText(c.slow); got != want {
						t.Fatalf("pair(%d) %s differs from the one-by-one replay:\n%s\nwant\n%s", v, c.what, got, want)
					}
				}
			}
		})
	}
}
