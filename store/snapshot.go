package store

import (
	"cmp"
	"iter"
	"slices"
	"strings"

	"github.com/goldfish-gql/goldfish/values"
)

// Snapshot is an immutable, consistent view of one version: safe for any
// number of goroutines. A Snapshot obtained from Tx.Snapshot is instead a
// view of the writer's working state (see there).
type Snapshot struct {
	version uint64
	working bool
	st      state
	// displaced is what the Tx that made this version displaced from the
	// version before it (see Displaced).
	displaced int64
}

// Displaced is the bytes the version before s holds that s does not
// reach: the nodes of the index trees and tries, the slot table's
// directories and leaves, the adjacency lists and the records that the
// Tx making s copied or dropped, each counted at its allocated length
// when it was displaced. Keeping the versions from v to s−1 readable
// therefore costs the sum of Displaced over v+1 … s, measured as the
// writes happened: what a ring of past versions keeps is priced by it.
// (Memory the store never frees per version, such as the keyword index's
// entries, is not counted; a rebuilt version shares none of it either.)
func (s *Snapshot) Displaced() int64 { return s.displaced }

// Version returns the session version. For a Tx working view it is the
// version the Tx would commit as.
func (s *Snapshot) Version() uint64 { return s.version }

// Working reports whether s is a Tx working view (not a published,
// immutable version; never cache results keyed by its version).
func (s *Snapshot) Working() bool { return s.working }

func (s *Snapshot) nodeItem(id ID) (nodeItem, bool) {
	return s.st.nodes.Get(nodeItem{id: id})
}

// Node returns the live node with this id.
func (s *Snapshot) Node(id ID) (*Node, bool) {
	it, ok := s.nodeItem(id)
	if !ok || it.n.Recycled {
		return nil, false
	}
	return it.n, true
}

// RecycledNode returns the recycled node with this id.
func (s *Snapshot) RecycledNode(id ID) (*Node, bool) {
	it, ok := s.nodeItem(id)
	if !ok || !it.n.Recycled {
		return nil, false
	}
	return it.n, true
}

// Edge returns the live edge with this id.
func (s *Snapshot) Edge(id ID) (*Edge, bool) {
	it, ok := s.st.edges.Get(edgeItem{id: id})
	if !ok || it.e.Recycled {
		return nil, false
	}
	return it.e, true
}

// RecycledEdge returns the recycled edge with this id.
func (s *Snapshot) RecycledEdge(id ID) (*Edge, bool) {
	it, ok := s.st.edges.Get(edgeItem{id: id})
	if !ok || !it.e.Recycled {
		return nil, false
	}
	return it.e, true
}

// NodeByNick returns the live node whose STRING property "nick" is nick.
func (s *Snapshot) NodeByNick(nick string) (*Node, bool) {
	return s.st.nodeByNick(nick)
}

// NodeCount returns the number of live nodes.
func (s *Snapshot) NodeCount() int { return s.st.liveNodes }

// EdgeCount returns the number of live edges.
func (s *Snapshot) EdgeCount() int { return s.st.liveEdges }

// RecycledCount returns the number of recycled nodes and edges.
func (s *Snapshot) RecycledCount() int { return s.st.recycled }

// NextID returns the id the next Tx.NewID would return.
func (s *Snapshot) NextID() ID { return ID(s.st.nextID) }

// ScanNodes calls fn for every live node in observable order until fn
// returns false.
func (s *Snapshot) ScanNodes(fn func(*Node) bool) {
	s.st.all.Ascend(fn)
}

// ScanLabel calls fn for the live nodes carrying label (at any position)
// in observable order until fn returns false. Cost: O(log n + hits).
//
// The nodes whose kind is label are a range of the observable order,
// which starts with the kind (ScanKind); the index of labels holds only
// the labels after a node's kind. The two ordered streams are merged,
// the second pulled as the first is pushed, when the label is both.
func (s *Snapshot) ScanLabel(label string, fn func(*Node) bool) {
	if label == "" {
		return // no node carries the empty label (a node without labels has kind "")
	}
	kind, _ := s.st.kindCnt.Get(countItem{name: label})
	extras := s.LabelCount(label) - kind.n
	if extras == 0 {
		s.scanKind(kind.pivot, fn)
		return
	}
	scanExtra := func(yield func(*Node) bool) {
		s.st.labels.AscendGreaterOrEqual(labelItem{label: label, n: minNode}, func(it labelItem) bool {
			return it.label == label && yield(it.n)
		})
	}
	if kind.n == 0 {
		scanExtra(fn)
		return
	}
	next, stop := iter.Pull(scanExtra)
	defer stop()
	x, more := next()
	done := false
	s.scanKind(kind.pivot, func(n *Node) bool {
		for more && cmpNode(x, n) < 0 {
			if !fn(x) {
				done = true
				return false
			}
			x, more = next()
		}
		if !fn(n) {
			done = true
			return false
		}
		return true
	})
	for !done && more && fn(x) {
		x, more = next()
	}
}

// ScanProp calls fn for the live nodes whose property key is Equal to v, in
// observable order, until fn returns false. A null v matches nothing.
// Cost: O(log n + hits).
func (s *Snapshot) ScanProp(key string, v values.Value, fn func(*Node) bool) {
	if v.IsNull() {
		return
	}
	if key == LocKey && v.Kind() == values.KindString && s.st.scanLoc(v.AsString(), fn) {
		return
	}
	pivot := &Node{Props: values.Props{{Key: key, Val: v}}}
	s.st.props.AscendGreaterOrEqual(propItem{n: pivot}, func(it propItem) bool {
		p := it.prop()
		if p.Key != key || !p.Val.Equal(v) {
			return false
		}
		return fn(it.n)
	})
}

// ScanIdentical calls fn, in observable order, for the live nodes whose
// kind is kind and whose properties are exactly props (Equal), whatever
// their extra labels (echo detection). props is normalised first.
func (s *Snapshot) ScanIdentical(kind string, props values.Props, fn func(*Node) bool) {
	props = values.NormalizeProps(props)
	var buf [128]byte
	prefix := string(appendObsPrefix(buf[:0], kind, props))
	s.st.all.AscendGreaterOrEqual(&Node{blob: prefix}, func(n *Node) bool {
		if !strings.HasPrefix(n.okey(), prefix) {
			return false
		}
		if n.Kind() != kind || !n.Props.Equal(props) {
			return true
		}
		return fn(n)
	})
}

// ScanKind calls fn for every live node of kind kind (its first label),
// in observable order, until fn returns false: O(log n + nodes of the
// kind). A node's observable key starts with its kind, so the nodes of
// one kind are one run of the index of all live nodes.
func (s *Snapshot) ScanKind(kind string, fn func(*Node) bool) {
	it, _ := s.st.kindCnt.Get(countItem{name: kind})
	s.scanKind(it.pivot, fn)
}

// scanKind scans the nodes of the kind whose pivot (kindPivot) is given;
// nil, a kind no live node has, scans none.
func (s *Snapshot) scanKind(pivot *Node, fn func(*Node) bool) {
	if pivot == nil {
		return
	}
	prefix := pivot.okey()
	s.st.all.AscendGreaterOrEqual(pivot, func(n *Node) bool {
		if !strings.HasPrefix(n.okey(), prefix) {
			return false
		}
		return fn(n)
	})
}

// ScanEdges calls fn for every live edge in engine-id order (not an
// observable order: for persistence and diagnostics).
func (s *Snapshot) ScanEdges(fn func(*Edge) bool) {
	s.st.edges.Ascend(func(it edgeItem) bool {
		if it.e.Recycled {
			return true
		}
		return fn(it.e)
	})
}

// ScanAllNodes calls fn for every node, live and recycled, in engine-id
// order (for persistence).
func (s *Snapshot) ScanAllNodes(fn func(*Node) bool) {
	s.st.nodes.Ascend(func(it nodeItem) bool { return fn(it.n) })
}

// ScanAllEdges calls fn for every edge, live and recycled, in engine-id
// order (for persistence).
func (s *Snapshot) ScanAllEdges(fn func(*Edge) bool) {
	s.st.edges.Ascend(func(it edgeItem) bool { return fn(it.e) })
}

// Edges calls fn for the live edges incident to node id until fn returns
// false: with Out those where id is From, with In those where id is To. A
// self-loop is reported once per direction asked. Order: direction (Out
// before In), then edge Type, then engine edge id (not the canonical
// neighbour order, which is Snapshot.Adjacency's). Cost: O(log n) for the
// id, then O(hits) (a group with several edges is sorted by edge id on
// the fly).
func (s *Snapshot) Edges(id ID, dir Dir, fn func(e *Edge) bool) {
	r := s.st.recByID(id)
	if r == nil || r.n == nil || r.n.Recycled {
		return
	}
	for _, d := range [2]Dir{Out, In} {
		if dir&d == 0 {
			continue
		}
		if !emitByID(r.adj, d, "", false, fn) {
			return
		}
	}
}

// emitByID calls fn for the entries of adj in direction d (and of type
// typ when one is set), by (type, edge id); false when fn stopped.
func emitByID(adj []adjEnt, d Dir, typ string, one bool, fn func(*Edge) bool) bool {
	var arr [16]*Edge
	for i := 0; i < len(adj); {
		x := adj[i]
		j := i + 1
		for j < len(adj) && adj[j].e.Type == x.e.Type && adj[j].dir == x.dir {
			j++
		}
		if x.dir != d || (one && x.e.Type != typ) {
			i = j
			continue
		}
		if j-i == 1 {
			if !fn(x.e) {
				return false
			}
			i = j
			continue
		}
		es := arr[:0]
		for k := i; k < j; k++ {
			es = append(es, adj[k].e)
		}
		slices.SortFunc(es, func(a, b *Edge) int { return cmp.Compare(a.ID, b.ID) })
		for _, e := range es {
			if !fn(e) {
				return false
			}
		}
		i = j
	}
	return true
}

// EdgesOfType is Edges restricted to one edge type.
func (s *Snapshot) EdgesOfType(id ID, dir Dir, typ string, fn func(e *Edge) bool) {
	r := s.st.recByID(id)
	if r == nil || r.n == nil || r.n.Recycled {
		return
	}
	a := Adjacency{ents: r.adj}
	for _, d := range [2]Dir{Out, In} {
		if dir&d == 0 {
			continue
		}
		lo, hi := a.Group(typ, d)
		if !emitByID(r.adj[lo:hi], d, typ, true, fn) {
			return
		}
	}
}

// Degree returns the number of live edges incident to id in the given
// directions (a self-loop counts once per direction), O(log n); 0 for a
// node that is not live.
func (s *Snapshot) Degree(id ID, dir Dir) int {
	r := s.st.recByID(id)
	if r == nil || r.n == nil || r.n.Recycled {
		return 0
	}
	d := 0
	if dir&Out != 0 {
		d += int(r.out)
	}
	if dir&In != 0 {
		d += int(r.in)
	}
	return d
}

// LabelCount returns the number of live nodes carrying label, O(log n).
func (s *Snapshot) LabelCount(label string) int { return count(s.st.labelCnt, label) }

// Labels returns the labels of live nodes (kinds and the labels after
// them), sorted.
func (s *Snapshot) Labels() []string { return names(s.st.labelCnt) }

// Kinds returns the kinds of live nodes, sorted. Nodes without labels have
// kind "" (listed first when present).
func (s *Snapshot) Kinds() []string { return names(s.st.kindCnt) }

// EdgeTypes returns the types of live edges, sorted.
func (s *Snapshot) EdgeTypes() []string { return names(s.st.typeCnt) }

// KindCount returns the number of live nodes of this kind.
func (s *Snapshot) KindCount(kind string) int { return count(s.st.kindCnt, kind) }

// EdgeTypeCount returns the number of live edges of this type.
func (s *Snapshot) EdgeTypeCount(t string) int { return count(s.st.typeCnt, t) }

// TypeCarriesProps reports whether some live edge of type t has
// properties. When none has, a reader can write such an edge from its type
// alone, without loading its record.
func (s *Snapshot) TypeCarriesProps(t string) bool { return count(s.st.propsCnt, t) > 0 }

// ObservableKey returns n's observable order key (see package doc). Scans
// return nodes in bytewise order of this key; nodes with identical
// observables have identical keys and are then ordered by engine id, which
// callers must not rely on.
func (s *Snapshot) ObservableKey(n *Node) []byte {
	if n.blob != "" {
		return []byte(n.okey())
	}
	return appendObservableKey(nil, n.Labels, n.Props)
}
