package store

import (
	"slices"

	"github.com/cespare/xxhash/v2"

	"github.com/goldfish-gql/goldfish/values"
)

// LocKey is the property holding a node's locator: the artefact it came
// from (docs/design.md#what-goldfish-is). Seeds by locator are the commonest after nicks, and a
// locator is nearly always held by one node, so equality on a STRING loc
// is answered by a hash index (the locator index) instead of a descent of
// the property index, whose every comparison loads another node.
const LocKey = "loc"

// locEntry is what the locator index holds for one locator: the live node
// carrying it, or a bucket when several do.
type locEntry struct {
	n *Node
	b *locBucket
}

// locBucket holds the live nodes sharing a locator, in observable order;
// past locBucketMax of them it holds none and says so (over), and lookups
// of that locator go to the property index, which is exact at any size.
// It is immutable: a write replaces it.
type locBucket struct {
	loc   string
	nodes []*Node
	over  bool
}

// locBucketMax bounds a bucket, so a locator shared by many nodes does not
// make each write to it copy a long list. A variable for tests.
var locBucketMax = 64

func locOf(p values.Props) (string, bool) {
	v, ok := p.Get(LocKey)
	if !ok || v.Kind() != values.KindString {
		return "", false
	}
	return v.AsString(), true
}

func (e locEntry) loc() string {
	if e.n != nil {
		l, _ := locOf(e.n.Props)
		return l
	}
	return e.b.loc
}

func locMatch(loc string) func(locEntry) bool {
	return func(e locEntry) bool { return e.loc() == loc }
}

// putLoc indexes the live node n under loc, writing as generation gen.
func (st *state) putLoc(gen uint64, loc string, n *Node) {
	h, match := xxhash.Sum64String(loc), locMatch(loc)
	e, ok := st.locs.get(h, match)
	switch {
	case !ok:
		e = locEntry{n: n}
	case e.n != nil:
		nodes := []*Node{e.n, n}
		if nodeLess(n, e.n) {
			nodes[0], nodes[1] = n, e.n
		}
		e = locEntry{b: &locBucket{loc: loc, nodes: nodes}}
	case e.b.over:
		return
	case len(e.b.nodes) >= locBucketMax:
		e = locEntry{b: &locBucket{loc: loc, over: true}}
	default:
		i, _ := slices.BinarySearchFunc(e.b.nodes, n, cmpNode)
		nodes := make([]*Node, 0, len(e.b.nodes)+1)
		nodes = append(append(append(nodes, e.b.nodes[:i]...), n), e.b.nodes[i:]...)
		e = locEntry{b: &locBucket{loc: loc, nodes: nodes}}
	}
	st.locs.put(gen, h, e, match)
}

// delLoc removes the node n from the index under loc (a bucket that went
// over stays over: lookups then take the exact path).
func (st *state) delLoc(gen uint64, loc string, n *Node) {
	h, match := xxhash.Sum64String(loc), locMatch(loc)
	e, ok := st.locs.get(h, match)
	switch {
	case !ok:
	case e.n != nil:
		if e.n.ID == n.ID {
			st.locs.del(gen, h, match)
		}
	case e.b.over:
	default:
		i := slices.IndexFunc(e.b.nodes, func(m *Node) bool { return m.ID == n.ID })
		switch {
		case i < 0:
		case len(e.b.nodes) == 2:
			st.locs.put(gen, h, locEntry{n: e.b.nodes[1-i]}, match)
		default:
			nodes := slices.Delete(slices.Clone(e.b.nodes), i, i+1)
			st.locs.put(gen, h, locEntry{b: &locBucket{loc: loc, nodes: nodes}}, match)
		}
	}
}

// scanLoc calls fn for the live nodes whose STRING loc is loc, in
// observable order, and reports whether the index could answer (false:
// the locator's bucket went over; ask the property index).
func (st *state) scanLoc(loc string, fn func(*Node) bool) bool {
	e, ok := st.locs.get(xxhash.Sum64String(loc), locMatch(loc))
	switch {
	case !ok:
	case e.n != nil:
		fn(e.n)
	case e.b.over:
		return false
	default:
		for _, n := range e.b.nodes {
			if !fn(n) {
				break
			}
		}
	}
	return true
}

// buildLocs builds the locator index of live, which is in observable
// order.
func buildLocs(live []*Node) hashTrie[locEntry] {
	var st state
	for _, n := range live {
		if loc, ok := locOf(n.Props); ok {
			st.putLoc(0, loc, n)
		}
	}
	return st.locs
}
