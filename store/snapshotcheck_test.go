package store

import (
	"cmp"
	"slices"
	"sort"

	"github.com/goldfish-gql/goldfish/tokens"
	"github.com/goldfish-gql/goldfish/values"
)

// checkSnapshot compares every read method of s with the model, and
// checks the layout its structures rely on (CheckLayout).
func checkSnapshot(t fataler, s *Snapshot, m *model) {
	t.Helper()
	all := m.live(nil)
	expectNodes(t, "ScanNodes", collect(s.ScanNodes), all)
	if s.NodeCount() != len(all) {
		t.Fatalf("NodeCount %d want %d", s.NodeCount(), len(all))
	}
	if s.NextID() != m.nextID {
		t.Fatalf("NextID %d want %d", s.NextID(), m.nextID)
	}
	kindCnt := checkNodeIndexes(t, s, m, all)
	checkNodeRecords(t, s, m, all)
	recycled := checkNodesByID(t, s, m)
	types, live, recycledEdges := checkEdgesByID(t, s, m)
	recycled += recycledEdges
	if s.EdgeCount() != live || s.RecycledCount() != recycled {
		t.Fatalf("EdgeCount %d want %d; RecycledCount %d want %d", s.EdgeCount(), live, s.RecycledCount(), recycled)
	}
	checkScans(t, s, m, kindCnt, types, live)
	if err := s.CheckLayout(); err != nil {
		t.Fatalf("CheckLayout: %v", err)
	}
}

// checkNodeIndexes checks the label, kind and property indexes and
// counters over the live nodes all (in observable order), and returns the
// live nodes per kind.
func checkNodeIndexes(t fataler, s *Snapshot, m *model, all []*Node) map[string]int {
	t.Helper()
	labelSet := map[string]bool{}
	kindCnt := map[string]int{}
	propVals := map[string][]values.Value{}
	for _, n := range all {
		for _, l := range n.Labels {
			labelSet[l] = true
		}
		kindCnt[n.Kind()]++
		for _, kv := range n.Props {
			propVals[kv.Key] = append(propVals[kv.Key], kv.Val)
		}
	}
	labelSet["absent"] = true
	for l := range labelSet {
		want := m.live(func(n *Node) bool { return n.HasLabel(l) })
		expectNodes(t, "ScanLabel "+l, collect(func(f func(*Node) bool) { s.ScanLabel(l, f) }), want)
		if s.LabelCount(l) != len(want) {
			t.Fatalf("LabelCount(%s) %d want %d", l, s.LabelCount(l), len(want))
		}
		if len(want) > 1 { // early stop
			got := 0
			s.ScanLabel(l, func(*Node) bool { got++; return got < 2 })
			if got != 2 {
				t.Fatalf("ScanLabel did not stop: %d", got)
			}
		}
	}
	var kinds []string
	for k, c := range kindCnt {
		kinds = append(kinds, k)
		if s.KindCount(k) != c {
			t.Fatalf("KindCount(%q) %d want %d", k, s.KindCount(k), c)
		}
	}
	sort.Strings(kinds)
	if !slices.Equal(s.Kinds(), kinds) && !(len(kinds) == 0 && len(s.Kinds()) == 0) {
		t.Fatalf("Kinds %q want %q", s.Kinds(), kinds)
	}
	for key, vals := range propVals {
		vals = append(vals, values.Int(12345), values.Null())
		for _, v := range vals {
			want := m.live(func(n *Node) bool { x, ok := n.Props.Get(key); return ok && x.Equal(v) })
			expectNodes(t, "ScanProp "+key+"="+v.Literal(), collect(func(f func(*Node) bool) { s.ScanProp(key, v, f) }), want)
		}
	}
	return kindCnt
}

// checkNodeRecords checks, for each live node, its renderings, the nodes
// identical to it and its nick.
func checkNodeRecords(t fataler, s *Snapshot, m *model, all []*Node) {
	t.Helper()
	for _, n := range all {
		// The slot table's copy of the rendering is the record's, and
		// the record's is a fresh render of its content.
		rec, _ := s.Node(n.ID)
		text, cost := s.RenderingAt(rec.Slot())
		fresh := appendRendering(nil, rec.Labels, rec.Props)
		if rt, rc := rec.Rendering(); text != rt || cost != rc || text != string(fresh) || cost != tokens.Milli(fresh) {
			t.Fatalf("RenderingAt(%d) = %q (%d), record %q (%d), fresh %q", rec.Slot(), text, cost, rt, rc, fresh)
		}
		want := m.live(func(x *Node) bool { return x.Kind() == n.Kind() && x.Props.Equal(n.Props) })
		expectNodes(t, "ScanIdentical", collect(func(f func(*Node) bool) { s.ScanIdentical(n.Kind(), n.Props, f) }), want)
		if nick, ok := nickOf(n.Props); ok {
			got, ok := s.NodeByNick(nick)
			if !ok || got.ID != n.ID {
				t.Fatalf("NodeByNick(%q) = %v,%v want %d", nick, got, ok, n.ID)
			}
		}
	}
	if _, ok := s.NodeByNick("no such nick"); ok {
		t.Fatal("NodeByNick absent")
	}
}

// checkNodesByID checks every node id of the model, live or recycled (the
// record, its degree, its edges and adjacency), and returns the number of
// recycled nodes.
func checkNodesByID(t fataler, s *Snapshot, m *model) int {
	t.Helper()
	recycled := 0
	for id, n := range m.nodes {
		got, ok := s.Node(id)
		rgot, rok := s.RecycledNode(id)
		if n.Recycled {
			recycled++
			if ok || !rok || !sameNode(rgot, n) {
				t.Fatalf("recycled node %d: live=%v rec=%v %+v", id, ok, rok, rgot)
			}
			if s.Degree(id, Both) != 0 {
				t.Fatal("degree of recycled")
			}
			continue
		}
		if !ok || rok || !sameNode(got, n) {
			t.Fatalf("node %d: %+v %v %v want %+v", id, got, ok, rok, n)
		}
		if !sameNode(got, n) {
			t.Fatalf("node %d mismatch", id)
		}
		checkAdjacency(t, s, got)
		for _, d := range []Dir{Out, In, Both} {
			var want []*Edge
			if d&Out != 0 {
				want = append(want, m.liveEdges(id, Out)...)
			}
			if d&In != 0 {
				want = append(want, m.liveEdges(id, In)...)
			}
			var got []*Edge
			s.Edges(id, d, func(e *Edge) bool { got = append(got, e); return true })
			if len(got) != len(want) || s.Degree(id, d) != len(want) {
				t.Fatalf("Edges(%d,%d): %d (degree %d) want %d", id, d, len(got), s.Degree(id, d), len(want))
			}
			for i := range got {
				if !sameEdge(got[i], want[i]) {
					t.Fatalf("Edges(%d,%d)[%d] = %+v want %+v", id, d, i, got[i], want[i])
				}
			}
			if len(want) > 0 {
				typ := want[0].Type
				var gt []*Edge
				s.EdgesOfType(id, d, typ, func(e *Edge) bool { gt = append(gt, e); return true })
				n := 0
				for _, e := range want {
					if e.Type == typ {
						if n >= len(gt) || gt[n].ID != e.ID {
							t.Fatalf("EdgesOfType mismatch")
						}
						n++
					}
				}
				if n != len(gt) {
					t.Fatalf("EdgesOfType count")
				}
			}
		}
	}
	return recycled
}

// checkEdgesByID checks every edge id of the model, live or recycled, and
// the edge type counters; it returns the live edge types (sorted), the
// number of live edges and that of recycled ones.
func checkEdgesByID(t fataler, s *Snapshot, m *model) (types []string, live, recycled int) {
	t.Helper()
	typeCnt, propsCnt := map[string]int{}, map[string]int{}
	for id, e := range m.edges {
		got, ok := s.Edge(id)
		rgot, rok := s.RecycledEdge(id)
		if e.Recycled {
			recycled++
			if ok || !rok || !sameEdge(rgot, e) {
				t.Fatalf("recycled edge %d", id)
			}
			continue
		}
		live++
		typeCnt[e.Type]++
		if len(e.Props) > 0 {
			propsCnt[e.Type]++
		}
		if !ok || rok || !sameEdge(got, e) {
			t.Fatalf("edge %d: %+v want %+v", id, got, e)
		}
	}
	for ty, c := range typeCnt {
		types = append(types, ty)
		if s.EdgeTypeCount(ty) != c {
			t.Fatalf("EdgeTypeCount")
		}
		if s.TypeCarriesProps(ty) != (propsCnt[ty] > 0) {
			t.Fatalf("TypeCarriesProps(%q) = %v, %d live edges of it have properties", ty, s.TypeCarriesProps(ty), propsCnt[ty])
		}
	}
	sort.Strings(types)
	if len(types) != len(s.EdgeTypes()) || (len(types) > 0 && !slices.Equal(types, s.EdgeTypes())) {
		t.Fatalf("EdgeTypes %q want %q", s.EdgeTypes(), types)
	}
	return types, live, recycled
}

// checkScans checks the scans of all nodes and edges, of each kind and of
// each edge type.
func checkScans(t fataler, s *Snapshot, m *model, kindCnt map[string]int, types []string, live int) {
	t.Helper()
	nAll, eAll := 0, 0
	s.ScanAllNodes(func(*Node) bool { nAll++; return true })
	s.ScanAllEdges(func(*Edge) bool { eAll++; return true })
	liveE := 0
	s.ScanEdges(func(*Edge) bool { liveE++; return true })
	if nAll != len(m.nodes) || eAll != len(m.edges) || liveE != live {
		t.Fatalf("ScanAll: %d/%d %d/%d %d/%d", nAll, len(m.nodes), eAll, len(m.edges), liveE, live)
	}
	// the nodes of each kind, in the order of all nodes
	for kind := range kindCnt {
		var want, got []ID
		s.ScanNodes(func(n *Node) bool {
			if n.Kind() == kind {
				want = append(want, n.ID)
			}
			return true
		})
		s.ScanKind(kind, func(n *Node) bool { got = append(got, n.ID); return true })
		if !slices.Equal(got, want) {
			t.Fatalf("ScanKind(%q) = %v want %v", kind, got, want)
		}
	}
	// the index by type: every live edge of the type, current, by id
	for _, typ := range append(types, "absent") {
		var want []ID
		for id, e := range m.edges {
			if !e.Recycled && e.Type == typ {
				want = append(want, id)
			}
		}
		slices.Sort(want)
		var got []ID
		s.ScanEdgeType(typ, func(e *Edge) bool {
			if cur, ok := s.Edge(e.ID); !ok || cur != e {
				t.Fatalf("ScanEdgeType(%s) gives a record of edge %d that is not its current one", typ, e.ID)
			}
			got = append(got, e.ID)
			return true
		})
		if !slices.Equal(got, want) {
			t.Fatalf("ScanEdgeType(%s) = %v want %v", typ, got, want)
		}
	}
}

// checkAdjacency checks n's Adjacency against Edges: same edges, far
// nodes current, canonical order, groups and FarRange consistent.
func checkAdjacency(t interface{ Fatalf(string, ...any) }, s *Snapshot, n *Node) {
	a := s.Adjacency(n)
	if a.Len() != s.Degree(n.ID, Both) || a.Degree(Out) != s.Degree(n.ID, Out) || a.Degree(In) != s.Degree(n.ID, In) {
		t.Fatalf("adjacency len %d degree %d", a.Len(), s.Degree(n.ID, Both))
	}
	cnt := map[[2]uint64]int{}
	s.Edges(n.ID, Both, func(e *Edge) bool {
		d := Out
		if e.To == n.ID && !(e.From == n.ID && cnt[[2]uint64{uint64(e.ID), uint64(Out)}] == 0) {
			d = In
		}
		cnt[[2]uint64{uint64(e.ID), uint64(d)}]++
		return true
	})
	for i := 0; i < a.Len(); i++ {
		e, far, d := a.At(i)
		want := e.To
		if d == In {
			want = e.From
		}
		if (d == Out && e.From != n.ID) || (d == In && e.To != n.ID) {
			t.Fatalf("entry %d: wrong direction", i)
		}
		cur, ok := s.Node(want)
		if !ok || cur != far {
			t.Fatalf("entry %d: far %v not current %v", i, far, cur)
		}
		cur2, _ := s.Edge(e.ID)
		if cur2 != e {
			t.Fatalf("entry %d: edge record not current", i)
		}
		if a.Type(i) != e.Type {
			t.Fatalf("entry %d: Type %q, the edge's is %q", i, a.Type(i), e.Type)
		}
		if a.ents[i].kh != keyByte(far.ObservableKey()) {
			t.Fatalf("entry %d: stale key byte for the far node", i)
		}
		for j := 0; j < a.Len(); j++ {
			if a.SameFarKey(i, j) != (a.Far(j).ObservableKey() == far.ObservableKey()) {
				t.Fatalf("entries %d and %d: SameFarKey wrong", i, j)
			}
		}
		k := [2]uint64{uint64(e.ID), uint64(d)}
		if cnt[k] == 0 {
			t.Fatalf("entry %d: edge not in Edges", i)
		}
		cnt[k]--
		if i > 0 {
			pe, pf, pd := a.At(i - 1)
			c := cmp.Compare(pe.Type, e.Type)
			if c == 0 {
				c = cmp.Compare(pd, d)
			}
			if c == 0 {
				c = cmp.Compare(pf.ObservableKey(), far.ObservableKey())
			}
			if c == 0 {
				c = cmp.Compare(pf.ID, far.ID)
			}
			if c == 0 {
				c = cmp.Compare(pe.ID, e.ID)
			}
			if c >= 0 {
				t.Fatalf("entry %d out of canonical order", i)
			}
		}
		lo, hi := a.Group(e.Type, d)
		if i < lo || i >= hi || a.GroupEnd(i) != hi {
			t.Fatalf("entry %d: group [%d,%d) GroupEnd %d", i, lo, hi, a.GroupEnd(i))
		}
		fl, fh := a.FarRange(lo, hi, far)
		if i < fl || i >= fh {
			t.Fatalf("entry %d: FarRange [%d,%d)", i, fl, fh)
		}
		for j := fl; j < fh; j++ {
			if a.Far(j).ID != far.ID {
				t.Fatalf("FarRange includes another node")
			}
		}
	}
	if n.ObservableKey() != string(s.ObservableKey(n)) {
		t.Fatalf("ObservableKey mismatch")
	}
}
