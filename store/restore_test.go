package store

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/values"
)

// randomOps applies n random writes to tx (errors are expected: the Tx
// validates) and returns a log of their outcomes.
func randomOps(t *rapid.T, tx *Tx, n int, label string) string {
	var log strings.Builder
	pick := func() ID {
		var ids []ID
		s := tx.Snapshot()
		s.ScanAllNodes(func(n *Node) bool { ids = append(ids, n.ID); return true })
		s.ScanAllEdges(func(e *Edge) bool { ids = append(ids, e.ID); return true })
		ids = append(ids, 9999, DeterministicNodeID("A", "x"))
		return rapid.SampledFrom(ids).Draw(t, label+"id")
	}
	for i := 0; i < n; i++ {
		var err error
		switch op := rapid.IntRange(0, 9).Draw(t, label+"op"); op {
		case 0, 1, 2:
			id := tx.NewID()
			if rapid.IntRange(0, 4).Draw(t, label+"det") == 0 {
				id = DeterministicNodeID("A", rapid.SampledFrom([]string{"x", "y", "z"}).Draw(t, label+"loc"))
			}
			_, err = tx.InsertNode(id, genLabels().Draw(t, label+"labels"), genProps().Draw(t, label+"props"))
		case 3:
			_, err = tx.SetProps(pick(), genProps().Draw(t, label+"props"))
		case 4:
			_, err = tx.SetLabels(pick(), genLabels().Draw(t, label+"labels"))
		case 5, 6:
			_, err = tx.InsertEdge(tx.NewID(), rapid.SampledFrom(rTypes).Draw(t, label+"type"), pick(), pick(), genProps().Draw(t, label+"eprops"))
		case 7:
			id := pick()
			if err = tx.RecycleNode(id); errors.Is(err, ErrNotFound) {
				err = tx.RecycleEdge(id)
			}
		case 8:
			err = tx.Revive(pick())
		case 9:
			// Purge as goldfish does: every recycled element at once
			// (purging a node alone can leave a recycled edge whose end
			// is gone, which no snapshot can restore).
			if rapid.Bool().Draw(t, label+"purgeall") {
				purgeAll(tx)
			} else if id := pick(); tx.Snapshot().st.edges.Has(edgeItem{id: id}) {
				err = tx.Purge(id)
			}
		}
		fmt.Fprintf(&log, "%v;", err)
	}
	return log.String()
}

func purgeAll(tx *Tx) {
	var ids []ID
	s := tx.Snapshot()
	s.ScanAllEdges(func(e *Edge) bool {
		if e.Recycled {
			ids = append(ids, e.ID)
		}
		return true
	})
	s.ScanAllNodes(func(n *Node) bool {
		if n.Recycled {
			ids = append(ids, n.ID)
		}
		return true
	})
	for _, id := range ids {
		if err := tx.Purge(id); err != nil {
			panic(err)
		}
	}
}

// elements returns every node and edge of s, live and recycled.
func elements(s *Snapshot) ([]*Node, []*Edge) {
	var ns []*Node
	var es []*Edge
	s.ScanAllNodes(func(n *Node) bool { ns = append(ns, n); return true })
	s.ScanAllEdges(func(e *Edge) bool { es = append(es, e); return true })
	return ns, es
}

func modelOf(s *Snapshot) *model {
	m := newModel()
	m.nextID = s.NextID()
	ns, es := elements(s)
	for _, n := range ns {
		c := n.clone()
		m.nodes[n.ID] = &c
	}
	for _, e := range es {
		c := e.clone()
		m.edges[e.ID] = &c
	}
	return m
}

// readsDump renders every read of s in a deterministic text, ids
// included: two snapshots with equal dumps answer every read alike.
func readsDump(s *Snapshot) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	nodeIDs := func(scan func(func(*Node) bool)) {
		scan(func(n *Node) bool { p(" %d", n.ID); return true })
		p("\n")
	}
	p("v%d next %d nodes %d edges %d recycled %d\n", s.Version(), s.NextID(), s.NodeCount(), s.EdgeCount(), s.RecycledCount())
	p("kinds %q types %q\n", s.Kinds(), s.EdgeTypes())
	for _, k := range s.Kinds() {
		p("kind %q %d\n", k, s.KindCount(k))
	}
	for _, t := range s.EdgeTypes() {
		p("type %q %d\n", t, s.EdgeTypeCount(t))
	}
	p("scan")
	nodeIDs(s.ScanNodes)
	ns, es := elements(s)
	labels := map[string]bool{}
	type kv struct {
		k string
		v values.Value
	}
	var props []kv
	for _, n := range ns {
		p("node %d %v %q %s %x\n", n.ID, n.Recycled, n.Labels, n.Props.Literal(), s.ObservableKey(n))
		if n.Recycled {
			continue
		}
		for _, l := range n.Labels {
			labels[l] = true
		}
		for _, pr := range n.Props {
			props = append(props, kv{pr.Key, pr.Val})
		}
		if nick, ok := nickOf(n.Props); ok {
			h, _ := s.NodeByNick(nick)
			p("nick %q %d\n", nick, h.ID)
		}
		p("identical")
		nodeIDs(func(f func(*Node) bool) { s.ScanIdentical(n.Kind(), n.Props, f) })
		a := s.Adjacency(n)
		p("adj %d out %d in %d:", a.Len(), a.Degree(Out), a.Degree(In))
		for i := 0; i < a.Len(); i++ {
			e, far, d := a.At(i)
			lo, hi := a.Group(e.Type, d)
			p(" %d/%d/%d[%d,%d)", e.ID, d, far.ID, lo, hi)
		}
		p("\nedges")
		for _, d := range []Dir{Out, In, Both} {
			p(" %d:%d:", d, s.Degree(n.ID, d))
			s.Edges(n.ID, d, func(e *Edge) bool { p(" %d", e.ID); return true })
			for _, t := range []string{"r", "s"} {
				p(" %s:", t)
				s.EdgesOfType(n.ID, d, t, func(e *Edge) bool { p(" %d", e.ID); return true })
			}
		}
		p("\n")
	}
	for _, e := range es {
		p("edge %d %v %q %d %d %s\n", e.ID, e.Recycled, e.Type, e.From, e.To, e.Props.Literal())
	}
	p("live edges")
	s.ScanEdges(func(e *Edge) bool { p(" %d", e.ID); return true })
	p("\n")
	for _, t := range append(s.EdgeTypes(), "absent") {
		p("type scan %q:", t)
		s.ScanEdgeType(t, func(e *Edge) bool { p(" %d", e.ID); return true })
		p("\n")
	}
	ls := make([]string, 0, len(labels))
	for l := range labels {
		ls = append(ls, l)
	}
	slices.Sort(ls)
	for _, l := range append(ls, "absent") {
		p("label %q %d:", l, s.LabelCount(l))
		nodeIDs(func(f func(*Node) bool) { s.ScanLabel(l, f) })
	}
	slices.SortFunc(props, func(a, b kv) int {
		if c := strings.Compare(a.k, b.k); c != 0 {
			return c
		}
		return a.v.Compare(b.v)
	})
	for _, x := range props {
		p("prop %s=%s:", x.k, x.v.Literal())
		nodeIDs(func(f func(*Node) bool) { s.ScanProp(x.k, x.v, f) })
	}
	return b.String()
}

// TestRestoreRapid builds random graphs through Tx, restores each
// published snapshot's elements with Restore and checks that the restored
// graph answers every read exactly like the original (and like the naive
// model), then that the same further writes give the same results on
// both.
func TestRestoreRapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := New()
		for x, n := 0, rapid.IntRange(1, 4).Draw(t, "ntx"); x < n; x++ {
			tx := g.Begin()
			randomOps(t, tx, rapid.IntRange(0, 30).Draw(t, "nops"), "")
			tx.Commit()
		}
		orig := g.Snapshot()
		nodes, edges := elements(orig)
		r, err := Restore(orig.Version(), uint64(orig.NextID()), nodes, edges)
		if err != nil {
			t.Fatalf("Restore: %v", err)
		}
		rs := r.Snapshot()
		if rs.Working() {
			t.Fatal("restored snapshot is a working view")
		}
		if a, b := readsDump(rs), readsDump(orig); a != b {
			t.Fatalf("restored reads differ\n--- restored\n%s\n--- original\n%s", a, b)
		}
		m := modelOf(orig)
		checkSnapshot(t, rs, m)
		// the input records are not modified or retained
		n2, e2 := elements(orig)
		if !slices.Equal(nodes, n2) || !slices.Equal(edges, e2) {
			t.Fatal("original changed")
		}
		for _, n := range nodes {
			if rn, _ := rs.Node(n.ID); rn == n {
				t.Fatal("Restore kept an input record")
			}
		}
		// the same writes on both graphs
		nops := rapid.IntRange(0, 30).Draw(t, "nops2")
		tx1, tx2 := g.Begin(), r.Begin()
		var log2 string
		log1 := randomOpsReplay(t, tx1, tx2, nops, &log2)
		if log1 != log2 {
			t.Fatalf("writes after restore differ:\n%s\n%s", log1, log2)
		}
		s1, s2 := tx1.Commit(), tx2.Commit()
		if a, b := readsDump(s2), readsDump(s1); a != b {
			t.Fatalf("reads after writes differ\n--- restored\n%s\n--- original\n%s", a, b)
		}
		// the restored version is untouched by the later Tx
		if a, b := readsDump(rs), readsDump(orig); a != b {
			t.Fatal("restored snapshot changed after a Tx")
		}
		checkSnapshot(t, rs, m)
	})
}

// randomOpsReplay applies the same random writes to two Txs (drawing each
// choice once) and returns the first one's outcome log; the second's goes
// to log2.
func randomOpsReplay(t *rapid.T, tx1, tx2 *Tx, n int, log2 *string) string {
	var l1, l2 strings.Builder
	pick := func() ID {
		var ids []ID
		s := tx1.Snapshot()
		s.ScanAllNodes(func(n *Node) bool { ids = append(ids, n.ID); return true })
		s.ScanAllEdges(func(e *Edge) bool { ids = append(ids, e.ID); return true })
		ids = append(ids, 9999)
		return rapid.SampledFrom(ids).Draw(t, "id")
	}
	both := func(f func(tx *Tx) error) {
		fmt.Fprintf(&l1, "%v;", f(tx1))
		fmt.Fprintf(&l2, "%v;", f(tx2))
	}
	for i := 0; i < n; i++ {
		switch rapid.IntRange(0, 8).Draw(t, "op") {
		case 0, 1:
			id1, id2 := tx1.NewID(), tx2.NewID()
			if id1 != id2 {
				t.Fatalf("NewID %d vs %d", id1, id2)
			}
			labels, props := genLabels().Draw(t, "labels"), genProps().Draw(t, "props")
			both(func(tx *Tx) error { _, err := tx.InsertNode(id1, labels, props); return err })
		case 2:
			id, props := pick(), genProps().Draw(t, "props")
			both(func(tx *Tx) error { _, err := tx.SetProps(id, props); return err })
		case 3:
			id, labels := pick(), genLabels().Draw(t, "labels")
			both(func(tx *Tx) error { _, err := tx.SetLabels(id, labels); return err })
		case 4:
			id := tx1.NewID()
			tx2.NewID()
			typ, from, to := rapid.SampledFrom(rTypes).Draw(t, "type"), pick(), pick()
			both(func(tx *Tx) error { _, err := tx.InsertEdge(id, typ, from, to, nil); return err })
		case 5:
			id, props := pick(), genProps().Draw(t, "eprops")
			both(func(tx *Tx) error { _, err := tx.SetEdgeProps(id, props); return err })
		case 6:
			id := pick()
			both(func(tx *Tx) error {
				if err := tx.RecycleNode(id); !errors.Is(err, ErrNotFound) {
					return err
				}
				return tx.RecycleEdge(id)
			})
		case 7:
			id := pick()
			both(func(tx *Tx) error { return tx.Revive(id) })
		case 8:
			id := pick()
			both(func(tx *Tx) error { return tx.Purge(id) })
		}
	}
	*log2 = l2.String()
	return l1.String()
}

func TestRestoreEmpty(t *testing.T) {
	g, err := Restore(7, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := readsDump(g.Snapshot()), readsDump(NewAt(7).Snapshot()); a != b {
		t.Fatalf("%s\nvs\n%s", a, b)
	}
	tx := g.Begin()
	if _, err := tx.InsertNode(tx.NewID(), []string{"A"}, nil); err != nil {
		t.Fatal(err)
	}
	if s := tx.Commit(); s.Version() != 8 || s.NodeCount() != 1 {
		t.Fatalf("v%d %d nodes", s.Version(), s.NodeCount())
	}
}

// TestRestoreInvariants: a set of elements a Tx could not have built is
// an error naming the problem, never a panic.
func TestRestoreInvariants(t *testing.T) {
	nick := func(s string) values.Props { return values.Props{{Key: NickKey, Val: values.String(s)}} }
	node := func(id ID, recycled bool, p values.Props) *Node {
		return &Node{ID: id, Labels: []string{"A"}, Props: p, Recycled: recycled}
	}
	edge := func(id, from, to ID, recycled bool) *Edge {
		return &Edge{ID: id, Type: "r", From: from, To: to, Recycled: recycled}
	}
	for _, c := range []struct {
		name   string
		next   uint64
		nodes  []*Node
		edges  []*Edge
		want   error
		substr string
	}{
		{"next id zero", 0, nil, nil, nil, "next id 0"},
		{"next id deterministic", uint64(DeterministicBit) | 5, nil, nil, nil, "not a counter id"},
		{"duplicate node", 9, []*Node{node(1, false, nil), node(1, true, nil)}, nil, ErrIDTaken, "node id 1"},
		{"duplicate edge", 9, []*Node{node(1, false, nil)}, []*Edge{edge(2, 1, 1, false), edge(2, 1, 1, true)}, ErrIDTaken, "edge id 2"},
		{"node and edge", 9, []*Node{node(1, false, nil), node(2, false, nil)}, []*Edge{edge(2, 1, 1, false)}, ErrIDTaken, "id 2 is both"},
		{"missing end", 9, []*Node{node(1, false, nil)}, []*Edge{edge(2, 1, 5, true)}, ErrNotFound, "end node 5 does not exist"},
		{"live edge, recycled end", 9, []*Node{node(1, false, nil), node(3, true, nil)}, []*Edge{edge(2, 3, 1, false)}, ErrNotFound, "end node 3 is recycled"},
		{"live nick twice", 9, []*Node{node(1, false, nick("a")), node(2, false, nick("a"))}, nil, ErrNickClash, `nick "a" held by live nodes 1 and 2`},
		{"id not below next", 5, []*Node{node(5, false, nil)}, nil, nil, "id 5 is not below the next id 5"},
		{"edge id not below next", 5, []*Node{node(1, false, nil)}, []*Edge{edge(7, 1, 1, false)}, nil, "id 7 is not below"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := Restore(3, c.next, c.nodes, c.edges)
			if err == nil {
				t.Fatalf("accepted: %v", g)
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("error %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), c.substr) {
				t.Fatalf("error %q does not say %q", err, c.substr)
			}
		})
	}
	// What a Tx can build is accepted: a recycled node holding a live
	// node's nick, a recycled edge between recycled nodes, deterministic
	// ids, and a counter above every id (purged elements).
	det := DeterministicNodeID("A", "x")
	g, err := Restore(3, 100, []*Node{
		node(1, false, nick("a")), node(2, true, nick("a")), node(3, true, nil), node(det, false, nick("b")),
	}, []*Edge{edge(4, 3, 1, true), edge(5, 1, det, false), edge(6, 1, 1, false), edge(7, 2, 3, true)})
	if err != nil {
		t.Fatal(err)
	}
	s := g.Snapshot()
	if n, ok := s.NodeByNick("a"); !ok || n.ID != 1 {
		t.Fatal("nick a")
	}
	if s.NextID() != 100 || s.NodeCount() != 2 || s.EdgeCount() != 2 || s.RecycledCount() != 4 || s.Degree(1, Both) != 3 {
		t.Fatalf("counts: next %d nodes %d edges %d recycled %d degree %d", s.NextID(), s.NodeCount(), s.EdgeCount(), s.RecycledCount(), s.Degree(1, Both))
	}
	tx := g.Begin()
	if err := tx.Revive(2); !errors.Is(err, ErrNickClash) {
		t.Fatalf("revive of a node whose nick is taken: %v", err)
	}
	if err := tx.Revive(3); err != nil {
		t.Fatal(err)
	}
	if err := tx.Revive(4); err != nil {
		t.Fatalf("revive edge between revived ends: %v", err)
	}
	tx.Rollback()
}

// TestRestoreInputOrder: records given in any order restore alike.
func TestRestoreInputOrder(t *testing.T) {
	g := New()
	tx := g.Begin()
	var ids []ID
	for i := 0; i < 300; i++ {
		id := tx.NewID()
		ids = append(ids, id)
		if _, err := tx.InsertNode(id, []string{"A", "B"}, values.Props{{Key: "k", Val: values.Int(int64(i % 7))}, {Key: NickKey, Val: values.String(fmt.Sprint(i))}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < len(ids); i++ {
		if _, err := tx.InsertEdge(tx.NewID(), "r", ids[i-1], ids[i*7%len(ids)], nil); err != nil {
			t.Fatal(err)
		}
	}
	s := tx.Commit()
	nodes, edges := elements(s)
	slices.Reverse(nodes)
	slices.Reverse(edges)
	r, err := Restore(s.Version(), uint64(s.NextID()), nodes, edges)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := readsDump(r.Snapshot()), readsDump(s); a != b {
		t.Fatal("restore from reversed input differs")
	}
}

// TestRestoreLarge exercises the concurrent paths (parallel key
// computation, merged sort) on a graph above their thresholds.
func TestRestoreLarge(t *testing.T) {
	g := New()
	tx := g.Begin()
	var prev ID
	for i := 0; i < 10000; i++ {
		id := tx.NewID()
		labels := []string{[]string{"A", "B", "C"}[i%3]}
		if i%5 == 0 {
			labels = append(labels, "X")
		}
		p := values.Props{{Key: "n", Val: values.Int(int64(i%1000 - 500))}, {Key: "s", Val: values.String(fmt.Sprint(i % 333))}}
		if i%4 == 0 {
			p = append(p, values.Prop{Key: NickKey, Val: values.String(fmt.Sprint("n", i))})
		}
		if i%9 == 0 {
			p = append(p, values.Prop{Key: "z", Val: values.Float(float64(i%17-8) / 3)})
		}
		if _, err := tx.InsertNode(id, labels, p); err != nil {
			t.Fatal(err)
		}
		if prev != 0 {
			if _, err := tx.InsertEdge(tx.NewID(), []string{"r", "s"}[i%2], prev, id, nil); err != nil {
				t.Fatal(err)
			}
		}
		prev = id
	}
	for i := ID(1); i < 2000; i += 7 { // recycle some edges and nodes
		if e, ok := tx.Snapshot().Edge(i); ok {
			tx.RecycleEdge(e.ID)
		} else if n, ok := tx.Snapshot().Node(i); ok && tx.Snapshot().Degree(n.ID, Both) == 0 {
			tx.RecycleNode(n.ID)
		}
	}
	s := tx.Commit()
	nodes, edges := elements(s)
	r, err := Restore(s.Version(), uint64(s.NextID()), nodes, edges)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := readsDump(r.Snapshot()), readsDump(s); a != b {
		t.Fatal("large restore differs")
	}
}
