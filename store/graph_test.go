package store

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/values"
)

func mustNode(t *testing.T, tx *Tx, labels []string, p values.Props) *Node {
	t.Helper()
	n, err := tx.InsertNode(tx.NewID(), labels, p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func nick(s string) values.Props { return values.Props{{Key: NickKey, Val: values.String(s)}} }

func TestEmptyGraph(t *testing.T) {
	g := New()
	s := g.Snapshot()
	if s.Version() != 0 || s.NodeCount() != 0 || s.EdgeCount() != 0 || s.RecycledCount() != 0 || s.Working() {
		t.Fatal("empty")
	}
	if len(s.Kinds()) != 0 || len(s.EdgeTypes()) != 0 || s.LabelCount("X") != 0 || s.Degree(1, Both) != 0 {
		t.Fatal("empty counts")
	}
	checkSnapshot(t, s, newModel())
	if NewAt(41).Begin().Commit().Version() != 42 {
		t.Fatal("NewAt")
	}
}

func TestInsertAndRead(t *testing.T) {
	g := New()
	tx := g.Begin()
	a := mustNode(t, tx, []string{"TSK", "Open", "TSK", ""}, values.Props{{Key: "title", Val: values.String("a")}, {Key: "nick", Val: values.String("a1")}})
	if !slices.Equal(a.Labels, []string{"TSK", "Open"}) || a.Kind() != "TSK" || !a.HasLabel("Open") || a.HasLabel("X") {
		t.Fatalf("labels %q", a.Labels)
	}
	if a.Props.Literal() != `{nick: "a1", title: "a"}` {
		t.Fatal("props not normalised: ", a.Props.Literal())
	}
	b := mustNode(t, tx, nil, nil)
	if b.Kind() != "" {
		t.Fatal("unlabelled kind")
	}
	// working view sees own writes
	ws := tx.Snapshot()
	if !ws.Working() || ws.NodeCount() != 2 || ws.Version() != 1 {
		t.Fatal("working view")
	}
	if g.Snapshot().NodeCount() != 0 {
		t.Fatal("published changed before commit")
	}
	e, err := tx.InsertEdge(tx.NewID(), "dependsOn", a.ID, b.ID, values.Props{{Key: "w", Val: values.Int(1)}})
	if err != nil {
		t.Fatal(err)
	}
	s := tx.Commit()
	if s.Version() != 1 || g.Snapshot() != s || s.Working() {
		t.Fatal("commit")
	}
	if n, ok := s.NodeByNick("a1"); !ok || n.ID != a.ID {
		t.Fatal("nick")
	}
	if got, ok := s.Edge(e.ID); !ok || got.From != a.ID || got.To != b.ID || got.Type != "dependsOn" {
		t.Fatal("edge")
	}
	if s.Degree(a.ID, Out) != 1 || s.Degree(a.ID, In) != 0 || s.Degree(b.ID, Both) != 1 {
		t.Fatal("degree")
	}
	if !slices.Equal(s.Kinds(), []string{"", "TSK"}) || !slices.Equal(s.EdgeTypes(), []string{"dependsOn"}) {
		t.Fatalf("kinds %q types %q", s.Kinds(), s.EdgeTypes())
	}
	if s.KindCount("TSK") != 1 || s.LabelCount("Open") != 1 || s.KindCount("Open") != 0 || s.EdgeTypeCount("dependsOn") != 1 {
		t.Fatal("counts")
	}
}

func TestErrors(t *testing.T) {
	g := New()
	tx := g.Begin()
	a := mustNode(t, tx, []string{"A"}, nick("x"))
	b := mustNode(t, tx, []string{"B"}, nil)
	if _, err := tx.InsertNode(a.ID, []string{"A"}, nil); !errors.Is(err, ErrIDTaken) {
		t.Fatal("id taken", err)
	}
	if _, err := tx.InsertNode(tx.NewID(), []string{"A"}, nick("x")); !errors.Is(err, ErrNickClash) {
		t.Fatal("nick clash", err)
	}
	// a non-string nick is not indexed and never clashes
	if _, err := tx.InsertNode(tx.NewID(), []string{"A"}, values.Props{{Key: NickKey, Val: values.Int(1)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.SetProps(b.ID, nick("x")); !errors.Is(err, ErrNickClash) {
		t.Fatal("setprops nick clash", err)
	}
	if _, err := tx.SetProps(a.ID, nick("x").With("k", values.Int(1))); err != nil {
		t.Fatal("own nick", err)
	}
	if _, err := tx.SetProps(999, nil); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if _, err := tx.SetLabels(999, nil); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if _, err := tx.InsertEdge(tx.NewID(), "r", a.ID, 999, nil); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if _, err := tx.InsertEdge(tx.NewID(), "r", 999, a.ID, nil); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	e, err := tx.InsertEdge(tx.NewID(), "r", a.ID, b.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.InsertEdge(e.ID, "r", a.ID, b.ID, nil); !errors.Is(err, ErrIDTaken) {
		t.Fatal("edge id taken", err)
	}
	if _, err := tx.InsertNode(e.ID, nil, nil); !errors.Is(err, ErrIDTaken) {
		t.Fatal("node id = edge id", err)
	}
	if _, err := tx.InsertEdge(a.ID, "r", a.ID, b.ID, nil); !errors.Is(err, ErrIDTaken) {
		t.Fatal("edge id = node id", err)
	}
	if _, err := tx.SetEdgeProps(999, nil); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if err := tx.RecycleNode(a.ID); !errors.Is(err, ErrHasEdges) {
		t.Fatal("has edges", err)
	}
	if err := tx.RecycleNode(b.ID); !errors.Is(err, ErrHasEdges) {
		t.Fatal("has edges (in)", err)
	}
	if err := tx.RecycleNode(999); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if err := tx.RecycleEdge(999); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if err := tx.RecycleEdge(e.ID); err != nil {
		t.Fatal(err)
	}
	if err := tx.RecycleEdge(e.ID); !errors.Is(err, ErrNotFound) {
		t.Fatal("recycle twice", err)
	}
	if _, err := tx.SetEdgeProps(e.ID, nil); !errors.Is(err, ErrNotFound) {
		t.Fatal("set props of recycled edge", err)
	}
	if err := tx.RecycleNode(a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.SetProps(a.ID, nil); !errors.Is(err, ErrNotFound) {
		t.Fatal("set props of recycled node", err)
	}
	if _, err := tx.InsertNode(a.ID, nil, nil); !errors.Is(err, ErrIDTaken) {
		t.Fatal("recycled id taken", err)
	}
	if _, err := tx.InsertEdge(tx.NewID(), "r", a.ID, b.ID, nil); !errors.Is(err, ErrNotFound) {
		t.Fatal("edge to recycled", err)
	}
	if err := tx.Revive(e.ID); !errors.Is(err, ErrNotFound) {
		t.Fatal("revive edge with recycled end", err)
	}
	if err := tx.Revive(999); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if err := tx.Purge(b.ID); !errors.Is(err, ErrNotFound) {
		t.Fatal("purge live", err)
	}
	tx.Commit()
	// a done Tx refuses writes and does not panic
	for _, err := range []error{
		func() error { _, err := tx.InsertNode(5000, nil, nil); return err }(),
		func() error { _, err := tx.SetProps(b.ID, nil); return err }(),
		func() error { _, err := tx.InsertEdge(5001, "r", b.ID, b.ID, nil); return err }(),
		tx.RecycleNode(b.ID), tx.RecycleEdge(e.ID), tx.Revive(a.ID), tx.Purge(a.ID),
	} {
		if !errors.Is(err, ErrTxDone) {
			t.Fatal("done tx", err)
		}
	}
}

func TestNickFreedByRecycle(t *testing.T) {
	g := New()
	tx := g.Begin()
	a := mustNode(t, tx, []string{"A"}, nick("n"))
	tx.Commit()
	tx = g.Begin()
	if err := tx.RecycleNode(a.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := tx.Snapshot().NodeByNick("n"); ok {
		t.Fatal("recycled nick still indexed")
	}
	b := mustNode(t, tx, []string{"B"}, nick("n"))
	if err := tx.Revive(a.ID); !errors.Is(err, ErrNickClash) {
		t.Fatal("revive with taken nick", err)
	}
	s := tx.Commit()
	if n, ok := s.NodeByNick("n"); !ok || n.ID != b.ID {
		t.Fatal("new owner")
	}
	if n, ok := s.RecycledNode(a.ID); !ok || !n.Recycled || n.Props.Literal() != `{nick: "n"}` {
		t.Fatal("recycled content kept")
	}
	tx = g.Begin()
	if _, err := tx.SetProps(b.ID, nil); err != nil {
		t.Fatal(err)
	}
	if err := tx.Revive(a.ID); err != nil {
		t.Fatal(err)
	}
	if err := tx.Revive(a.ID); err != nil {
		t.Fatal("revive live is a no-op", err)
	}
	s = tx.Commit()
	if n, ok := s.NodeByNick("n"); !ok || n.ID != a.ID || s.RecycledCount() != 0 {
		t.Fatal("revived owner")
	}
}

func TestSetLabelsKeepsKind(t *testing.T) {
	g := New()
	tx := g.Begin()
	a := mustNode(t, tx, []string{"TSK"}, nil)
	n, _ := tx.SetLabels(a.ID, []string{"Done", "TSK", "Done"})
	if !slices.Equal(n.Labels, []string{"TSK", "Done"}) {
		t.Fatalf("%q", n.Labels)
	}
	n, _ = tx.SetLabels(a.ID, []string{"NOTE"})
	if !slices.Equal(n.Labels, []string{"NOTE"}) || tx.Snapshot().KindCount("TSK") != 0 || tx.Snapshot().LabelCount("Done") != 0 {
		t.Fatalf("%q", n.Labels)
	}
	n, _ = tx.SetLabels(a.ID, nil)
	if n.Kind() != "" || tx.Snapshot().KindCount("") != 1 {
		t.Fatal("no labels")
	}
	tx.Rollback()
}

func TestSelfLoopAndEdgeOrder(t *testing.T) {
	g := New()
	tx := g.Begin()
	a := mustNode(t, tx, []string{"A"}, nil)
	b := mustNode(t, tx, []string{"B"}, nil)
	loop, _ := tx.InsertEdge(tx.NewID(), "self", a.ID, a.ID, nil)
	e2, _ := tx.InsertEdge(tx.NewID(), "b", a.ID, b.ID, nil)
	e1, _ := tx.InsertEdge(tx.NewID(), "a", a.ID, b.ID, nil)
	e3, _ := tx.InsertEdge(tx.NewID(), "a", b.ID, a.ID, nil)
	s := tx.Snapshot()
	var got []ID
	s.Edges(a.ID, Both, func(e *Edge) bool { got = append(got, e.ID); return true })
	want := []ID{e1.ID, e2.ID, loop.ID, e3.ID, loop.ID}
	if !slices.Equal(got, want) {
		t.Fatalf("Edges order %v want %v", got, want)
	}
	if s.Degree(a.ID, Both) != 5 || s.Degree(a.ID, Out) != 3 || s.Degree(a.ID, In) != 2 {
		t.Fatal("degree")
	}
	n := 0
	s.Edges(a.ID, Both, func(*Edge) bool { n++; return n < 3 })
	if n != 3 {
		t.Fatal("Edges early stop", n)
	}
	ne, err := tx.SetEdgeProps(loop.ID, values.Props{{Key: "w", Val: values.Int(2)}})
	if err != nil {
		t.Fatal(err)
	}
	s = tx.Snapshot()
	s.Edges(a.ID, In, func(e *Edge) bool {
		if e.ID == loop.ID && e != ne {
			t.Fatal("adjacency not updated")
		}
		return true
	})
	if loop.Props != nil {
		t.Fatal("old record mutated")
	}
	if err := tx.RecycleEdge(loop.ID); err != nil {
		t.Fatal(err)
	}
	if tx.Snapshot().Degree(a.ID, Both) != 3 {
		t.Fatal("degree after recycle")
	}
	if err := tx.Revive(loop.ID); err != nil || tx.Snapshot().Degree(a.ID, Both) != 5 {
		t.Fatal("revive edge", err)
	}
	tx.Commit()
}

func TestSnapshotIsolation(t *testing.T) {
	g := New()
	m := newModel()
	tx := g.Begin()
	var keep []ID
	for i := 0; i < 50; i++ {
		id := tx.NewID()
		p := values.Props{{Key: "i", Val: values.Int(int64(i))}, {Key: "nick", Val: values.String(fmt.Sprint("n", i))}}
		if _, err := tx.InsertNode(id, []string{"K", fmt.Sprint("L", i%3)}, p); err != nil {
			t.Fatal(err)
		}
		m.insertNode(id, []string{"K", fmt.Sprint("L", i%3)}, p)
		keep = append(keep, id)
	}
	for i := 1; i < 50; i++ {
		id := tx.NewID()
		tx.InsertEdge(id, "r", keep[i-1], keep[i], nil)
		m.insertEdge(id, "r", keep[i-1], keep[i], nil)
	}
	s1 := tx.Commit()
	m1 := m.clone()
	checkSnapshot(t, s1, m1)

	// a rolled-back Tx changes nothing
	tx = g.Begin()
	for _, id := range keep[:10] {
		tx.SetProps(id, values.Props{{Key: "x", Val: values.Int(1)}})
	}
	tx.InsertNode(tx.NewID(), []string{"K"}, nil)
	tx.Rollback()
	tx.Rollback() // idempotent
	if tx.Commit() != s1 || g.Snapshot() != s1 {
		t.Fatal("rollback published something")
	}
	checkSnapshot(t, s1, m1)

	// a committed Tx does not change an older snapshot
	tx = g.Begin()
	for i, id := range keep[:10] {
		if i > 0 {
			var eid ID
			s1.Edges(id, In, func(e *Edge) bool { eid = e.ID; return false })
			tx.RecycleEdge(eid)
			m.recycleEdge(eid)
		}
		tx.SetProps(id, values.Props{{Key: "x", Val: values.Int(int64(i))}})
		m.setProps(id, values.Props{{Key: "x", Val: values.Int(int64(i))}})
		tx.SetLabels(id, []string{"K", "New"})
		m.setLabels(id, []string{"K", "New"})
	}
	s2 := tx.Commit()
	if s2.Version() != 2 || s1.Version() != 1 {
		t.Fatal("versions")
	}
	checkSnapshot(t, s1, m1)
	checkSnapshot(t, s2, m)
	// Commit without writes still bumps the version
	if g.Begin().Commit().Version() != 3 {
		t.Fatal("empty commit")
	}
}

func TestScansOrderAndIdentical(t *testing.T) {
	g := New()
	tx := g.Begin()
	mk := func(labels []string, p values.Props) *Node { return mustNode(t, tx, labels, p) }
	n1 := mk([]string{"B"}, values.Props{{Key: "v", Val: values.Int(2)}})
	n2 := mk([]string{"A", "Z"}, values.Props{{Key: "v", Val: values.Int(2)}})
	n3 := mk([]string{"A"}, values.Props{{Key: "v", Val: values.Int(1)}})
	n4 := mk([]string{"A", "Y"}, values.Props{{Key: "v", Val: values.Int(2)}})
	n5 := mk([]string{"A"}, values.Props{{Key: "v", Val: values.Int(2)}})
	n6 := mk([]string{"A"}, values.Props{{Key: "v", Val: values.Float(2)}})
	s := tx.Snapshot()
	order := func(scan func(func(*Node) bool)) []ID {
		var out []ID
		for _, n := range collect(scan) {
			out = append(out, n.ID)
		}
		return out
	}
	want := []ID{n3.ID, n5.ID, n4.ID, n2.ID, n6.ID, n1.ID}
	if got := order(s.ScanNodes); !slices.Equal(got, want) {
		t.Fatalf("ScanNodes %v want %v", got, want)
	}
	if got := order(func(f func(*Node) bool) { s.ScanProp("v", values.Int(2), f) }); !slices.Equal(got, []ID{n5.ID, n4.ID, n2.ID, n1.ID}) {
		t.Fatalf("ScanProp %v", got)
	}
	if got := order(func(f func(*Node) bool) { s.ScanIdentical("A", values.Props{{Key: "v", Val: values.Int(2)}}, f) }); !slices.Equal(got, []ID{n5.ID, n4.ID, n2.ID}) {
		t.Fatalf("ScanIdentical %v", got)
	}
	if got := order(func(f func(*Node) bool) { s.ScanLabel("Y", f) }); !slices.Equal(got, []ID{n4.ID}) {
		t.Fatalf("ScanLabel %v", got)
	}
	for _, n := range []*Node{n1, n2, n3} {
		if string(s.ObservableKey(n)) != string(s.ObservableKey(&Node{Labels: n.Labels, Props: n.Props})) {
			t.Fatal("ObservableKey of a fresh record")
		}
	}
	tx.Rollback()
}

func TestLongPropsTruncatedKeys(t *testing.T) {
	g := New()
	tx := g.Begin()
	long := func(s string) values.Props {
		return values.Props{{Key: "body", Val: values.String(string(make([]byte, 100)) + s)}, {Key: "z", Val: values.String(s)}}
	}
	a := mustNode(t, tx, []string{"N"}, long("b"))
	b := mustNode(t, tx, []string{"N"}, long("a"))
	c := mustNode(t, tx, []string{"N"}, long("a"))
	s := tx.Snapshot()
	if string(s.ObservableKey(b)) != string(s.ObservableKey(c)) || string(s.ObservableKey(a)) == string(s.ObservableKey(b)) {
		t.Fatal("truncated keys")
	}
	if len(s.ObservableKey(a)) > 100 {
		t.Fatal("key not bounded", len(s.ObservableKey(a)))
	}
	got := collect(func(f func(*Node) bool) { s.ScanIdentical("N", long("a"), f) })
	if len(got) != 2 {
		t.Fatal("identical long", len(got))
	}
	v, _ := long("a").Get("body")
	got = collect(func(f func(*Node) bool) { s.ScanProp("body", v, f) })
	if len(got) != 2 {
		t.Fatal("ScanProp long", len(got))
	}
	tx.Rollback()
}

func TestIDs(t *testing.T) {
	d := DeterministicNodeID("FILE", "a.go")
	if d&DeterministicBit == 0 || d != DeterministicNodeID("FILE", "a.go") || d == DeterministicNodeID("FILE", "b.go") || d == DeterministicNodeID("FILEa", ".go") {
		t.Fatal("node ids")
	}
	e := DeterministicEdgeID(1, "r", 2)
	if e&DeterministicBit == 0 || e == DeterministicEdgeID(2, "r", 1) || e != DeterministicEdgeID(1, "r", 2) {
		t.Fatal("edge ids")
	}
	g := New()
	tx := g.Begin()
	if tx.NewID() != 1 {
		t.Fatal("first id")
	}
	if _, err := tx.InsertNode(100, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.InsertNode(d, []string{"FILE"}, nil); err != nil {
		t.Fatal(err)
	}
	if id := tx.NewID(); id != 101 {
		t.Fatal("counter must skip past explicit ids", id)
	}
	tx.Commit()
	if g.Snapshot().NextID() != 102 {
		t.Fatal("NextID")
	}
	tx = g.Begin()
	tx.NewID()
	tx.Rollback()
	if g.Begin().NewID() != 102 {
		t.Fatal("rolled-back ids are reissued")
	}
}

func TestPurge(t *testing.T) {
	g := New()
	tx := g.Begin()
	a := mustNode(t, tx, []string{"A"}, nil)
	b := mustNode(t, tx, []string{"A"}, nil)
	e, _ := tx.InsertEdge(tx.NewID(), "r", a.ID, b.ID, nil)
	tx.RecycleEdge(e.ID)
	tx.RecycleNode(a.ID)
	if tx.Snapshot().RecycledCount() != 2 {
		t.Fatal("recycled count")
	}
	if err := tx.Purge(e.ID); err != nil {
		t.Fatal(err)
	}
	if err := tx.Purge(a.ID); err != nil {
		t.Fatal(err)
	}
	s := tx.Commit()
	if s.RecycledCount() != 0 || s.NodeCount() != 1 {
		t.Fatal("purge")
	}
	if _, ok := s.RecycledNode(a.ID); ok {
		t.Fatal("purged node")
	}
	tx = g.Begin()
	if _, err := tx.InsertNode(a.ID, nil, nil); err != nil {
		t.Fatal("purged id reusable", err)
	}
	tx.Rollback()
}

// TestConcurrentReaders runs readers scanning published snapshots while a
// writer commits; each snapshot must be internally consistent. Run with
// -race.
func TestConcurrentReaders(t *testing.T) {
	g := New()
	const rounds = 200
	var stop atomic.Bool
	var wg sync.WaitGroup
	var checks atomic.Int64
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				s := g.Snapshot()
				v := s.Version()
				// invariant: version v has exactly v nodes labelled N, each
				// with prop i, one edge per consecutive pair
				n := 0
				s.ScanLabel("N", func(x *Node) bool { n++; return true })
				if n != int(v) || s.NodeCount() != int(v) || s.LabelCount("N") != int(v) {
					t.Errorf("version %d: %d nodes", v, n)
					return
				}
				want := int(v) - 1
				if want < 0 {
					want = 0
				}
				if s.EdgeCount() != want {
					t.Errorf("version %d: %d edges", v, s.EdgeCount())
					return
				}
				if v > 0 {
					cnt := 0
					s.ScanProp("i", values.Int(int64(v-1)), func(*Node) bool { cnt++; return true })
					if cnt != 1 {
						t.Errorf("ScanProp in version %d", v)
						return
					}
				}
				checks.Add(1)
			}
		}()
	}
	var prev ID
	for i := 0; i < rounds; i++ {
		tx := g.Begin()
		id := tx.NewID()
		if _, err := tx.InsertNode(id, []string{"N"}, values.Props{{Key: "i", Val: values.Int(int64(i))}}); err != nil {
			t.Fatal(err)
		}
		if prev != 0 {
			tx.InsertEdge(tx.NewID(), "next", prev, id, nil)
		}
		if i%5 == 4 { // a rolled-back Tx in between
			tx.Rollback()
			tx = g.Begin()
			tx.InsertNode(id, []string{"N"}, values.Props{{Key: "i", Val: values.Int(int64(i))}})
			if prev != 0 {
				tx.InsertEdge(tx.NewID(), "next", prev, id, nil)
			}
		}
		tx.Commit()
		prev = id
	}
	// On a loaded machine the writer can finish before a reader is first
	// scheduled: give them a moment to check the last version at least.
	for deadline := time.Now().Add(10 * time.Second); checks.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	if checks.Load() == 0 {
		t.Fatal("readers never ran")
	}
}

// TestScanLabelEmpty: no node carries the empty label, not even the
// nodes without labels, whose kind is "".
func TestScanLabelEmpty(t *testing.T) {
	g := New()
	tx := g.Begin()
	mustNode(t, tx, nil, nil)
	mustNode(t, tx, []string{"A"}, nil)
	s := tx.Commit()
	n := 0
	s.ScanLabel("", func(*Node) bool { n++; return true })
	if n != 0 || s.LabelCount("") != 0 {
		t.Fatalf("ScanLabel(\"\") found %d nodes, LabelCount %d", n, s.LabelCount(""))
	}
	s.ScanKind("", func(*Node) bool { n++; return true })
	if n != 1 {
		t.Fatalf("ScanKind(\"\") found %d nodes, want the one without labels", n)
	}
}
