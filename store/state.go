package store

import (
	"cmp"
	"strings"

	"github.com/goldfish-gql/goldfish/store/internal/btree"

	"github.com/goldfish-gql/goldfish/values"
)

// A version's state: its copy-on-write index trees, which each Tx clones
// in O(1), and how a node record enters and leaves them.

const btreeDegree = 16

type nodeItem struct {
	id ID
	n  *Node
}

type edgeItem struct {
	id ID
	e  *Edge
}

type labelItem struct {
	label string
	n     *Node
}

// propItem is the i-th property of node n: 16 bytes, the key and value
// are read through the (immutable) node record.
type propItem struct {
	n *Node
	i uint32
}

func (it propItem) prop() *values.Prop { return &it.n.Props[it.i] }

type countItem struct {
	name string
	n    int
	// pivot, in the counter of kinds, is where the kind's nodes start in
	// the observable order (kindPivot), made once with the entry, so a
	// scan of the kind allocates nothing.
	pivot *Node
}

// kindPivot is a record whose observable key is the prefix of every
// key of kind's nodes, and less than all of them.
func kindPivot(kind string) *Node {
	return &Node{blob: string(values.AppendKeyString(nil, kind))}
}

var minNode = &Node{}

// nodeLess orders nodes by observable key, then engine id (only to make
// index entries unique).
func nodeLess(a, b *Node) bool {
	if ka, kb := a.okey(), b.okey(); ka != kb {
		return ka < kb
	}
	return a.ID < b.ID
}

// cmpNode is nodeLess as a three-way comparison.
func cmpNode(a, b *Node) int {
	if c := strings.Compare(a.okey(), b.okey()); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

func lessNodeItem(a, b nodeItem) bool { return a.id < b.id }

func lessEdgeItem(a, b edgeItem) bool { return a.id < b.id }

func lessLabelItem(a, b labelItem) bool {
	if a.label != b.label {
		return a.label < b.label
	}
	return nodeLess(a.n, b.n)
}

func lessPropItem(a, b propItem) bool {
	pa, pb := a.prop(), b.prop()
	if pa.Key != pb.Key {
		return pa.Key < pb.Key
	}
	if c := pa.Val.Compare(pb.Val); c != 0 {
		return c < 0
	}
	return nodeLess(a.n, b.n)
}

func lessCountItem(a, b countItem) bool { return a.name < b.name }

// state is the full content of one version: persistent (copy-on-write)
// trees plus a few counters. Copying a state copies pointers only.
type state struct {
	nodes    *btree.BTreeG[nodeItem]  // id → node (live and recycled)
	edges    *btree.BTreeG[edgeItem]  // id → edge (live and recycled)
	all      *btree.BTreeG[*Node]     // live nodes by (observable key, id)
	labels   *btree.BTreeG[labelItem] // (label, observable key, id), live nodes' labels after their kind
	props    *btree.BTreeG[propItem]  // (key, value, observable key, id), live nodes
	nicks    hashTrie[*Node]          // nick (by its hash) → live node
	locs     hashTrie[locEntry]       // STRING loc (by its hash) → live nodes (locs.go)
	labelCnt *btree.BTreeG[countItem] // live nodes per label
	kindCnt  *btree.BTreeG[countItem] // live nodes per kind
	typeCnt  *btree.BTreeG[countItem] // live edges per type
	propsCnt *btree.BTreeG[countItem] // live edges with properties, per type
	byType   *btree.BTreeG[typeItem]  // (type, id) → live edge (ext.go)
	ext      Ext                      // extension state (ext.go)

	liveNodes, liveEdges, recycled int
	nextID                         uint64

	// slot table (see adj.go): records by dense slot, with adjacency.
	dirs    []*slotDir
	dirsGen uint64      // generation of the Tx that owns the dirs slice
	nslots  uint32      // slots handed out (slot 0 is never used)
	types   []string    // edge type names by small id, as of the last publish
	changed []uint32    // slots of nodes inserted, changed or revived, oldest first (see text.go)
	text    *textHolder // the graph's keyword index, shared by all its states
}

func newState() state {
	return state{
		text:     &textHolder{},
		nodes:    btree.NewG(btreeDegree, lessNodeItem),
		edges:    btree.NewG(btreeDegree, lessEdgeItem),
		all:      btree.NewG(btreeDegree, nodeLess),
		labels:   btree.NewG(btreeDegree, lessLabelItem),
		props:    btree.NewG(btreeDegree, lessPropItem),
		labelCnt: btree.NewG(btreeDegree, lessCountItem),
		kindCnt:  btree.NewG(btreeDegree, lessCountItem),
		typeCnt:  btree.NewG(btreeDegree, lessCountItem),
		propsCnt: btree.NewG(btreeDegree, lessCountItem),
		byType:   newTypeTree(),
		nextID:   1,
	}
}

// clone returns a state whose trees are lazy O(1) copy-on-write clones.
// Only the writer (under the graph's writer lock) calls it.
func (s *state) clone() state {
	c := *s
	c.nodes = s.nodes.Clone()
	c.edges = s.edges.Clone()
	c.all = s.all.Clone()
	c.labels = s.labels.Clone()
	c.props = s.props.Clone()
	c.labelCnt = s.labelCnt.Clone()
	c.kindCnt = s.kindCnt.Clone()
	c.typeCnt = s.typeCnt.Clone()
	c.propsCnt = s.propsCnt.Clone()
	c.byType = s.byType.Clone()
	return c
}

// cowDisplaced is what the writes to s's trees and tries have displaced
// since they were cloned (see Snapshot.Displaced).
func (s *state) cowDisplaced() int64 {
	return s.nodes.Displaced() + s.edges.Displaced() + s.all.Displaced() + s.labels.Displaced() +
		s.props.Displaced() + s.labelCnt.Displaced() + s.kindCnt.Displaced() + s.typeCnt.Displaced() +
		s.propsCnt.Displaced() + s.byType.Displaced() + s.nicks.displaced + s.locs.displaced
}

func count(t *btree.BTreeG[countItem], name string) int {
	it, _ := t.Get(countItem{name: name})
	return it.n
}

func names(t *btree.BTreeG[countItem]) []string {
	out := make([]string, 0, t.Len())
	t.Ascend(func(it countItem) bool {
		out = append(out, it.name)
		return true
	})
	return out
}

func (t *Tx) incr(tr *btree.BTreeG[countItem], name string, d int) {
	it, _ := tr.Get(countItem{name: name})
	it.name = name
	it.n += d
	if it.pivot == nil && tr == t.st.kindCnt {
		it.pivot = kindPivot(name)
	}
	if it.n <= 0 {
		tr.Delete(it)
	} else {
		tr.ReplaceOrInsert(it)
	}
}

func (t *Tx) addNodeIdx(n *Node) {
	t.touch(n.ID)
	st := &t.st
	if len(st.changed) == cap(st.changed) && !t.ownsLog {
		// The versions before keep the log's array; this Tx grows a new one.
		t.displaced += int64(cap(st.changed)) * 4
		t.ownsLog = true
	}
	st.changed = append(st.changed, n.slot)
	st.all.ReplaceOrInsert(n)
	for i, l := range n.Labels {
		if i > 0 { // the kind's nodes are a range of the observable order
			st.labels.ReplaceOrInsert(labelItem{label: l, n: n})
		}
		t.incr(st.labelCnt, l, 1)
	}
	t.incr(st.kindCnt, n.Kind(), 1)
	for i := range n.Props {
		st.props.ReplaceOrInsert(propItem{n: n, i: uint32(i)})
	}
	if nick, ok := nickOf(n.Props); ok {
		st.putNick(t.gen, nick, n)
	}
	if loc, ok := locOf(n.Props); ok {
		st.putLoc(t.gen, loc, n)
	}
}

func (t *Tx) delNodeIdx(n *Node) {
	t.touch(n.ID)
	st := &t.st
	st.all.Delete(n)
	for i, l := range n.Labels {
		if i > 0 {
			st.labels.Delete(labelItem{label: l, n: n})
		}
		t.incr(st.labelCnt, l, -1)
	}
	t.incr(st.kindCnt, n.Kind(), -1)
	for i := range n.Props {
		st.props.Delete(propItem{n: n, i: uint32(i)})
	}
	if nick, ok := nickOf(n.Props); ok {
		st.delNick(t.gen, nick, n)
	}
	if loc, ok := locOf(n.Props); ok {
		st.delLoc(t.gen, loc, n)
	}
}
