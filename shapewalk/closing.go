package shapewalk

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/goldfish-gql/goldfish/store"
)

// Edges among Shape nodes: the closing edges the walk did not take, and
// the order Shape edges are emitted in.

// closeEnt is an edge between the Shape nodes at positions pf (its From)
// and pt (its To), as sortEdges orders them.
type closeEnt struct {
	e      *store.Edge
	typ    string // e.Type, from the adjacency's type table (no edge load)
	pf, pt int32
	rank   uint32 // typ's position among the sorted types sortEdges met
}

// closeEdges adds the live edges between Shape nodes not yet included, in
// canonical order, while rows < M. Each edge is found once, from its From
// side: an Out group that scans allows is scanned; for a larger one, the
// entries leading to each Shape node are found from that node's (light)
// reverse group or by binary search, so a hub in the Shape costs
// O(|Shape|) lookups, not its degree.
func (w *walker) closeEdges() {
	w.closing = w.closing[:0]
	if w.trunc && w.rows >= w.m {
		// M is spent and the Shape already says it was cut: no closing
		// edge could be added, and finding one would change nothing.
		return
	}
	full := w.rows >= w.m // then one closing edge is all there is to know
	for i := range w.nodes {
		if w.interrupted() {
			return
		}
		a := w.snap.AdjacencyAt(w.slots[i])
		if scans(a.Len(), len(w.nodes)) {
			w.closeScan(a, 0, a.Len(), int32(i)) // a light node: no group search
		} else {
			for lo := 0; lo < a.Len(); {
				hi := a.GroupEnd(lo)
				if a.Dir(lo) != store.Out || (w.shell && !w.isHier(a.Type(lo))) {
					lo = hi
					continue
				}
				if scans(hi-lo, len(w.nodes)) {
					w.closeScan(a, lo, hi, int32(i))
				} else {
					typ := a.Type(lo)
					for j := range w.nodes {
						w.closeTo(a, lo, hi, w.slots[i], typ, int32(i), w.slots[j], int32(j))
					}
				}
				lo = hi
			}
		}
		if full && len(w.closing) > 0 {
			w.trunc = true
			w.closing = w.closing[:0]
			return
		}
	}
	if len(w.closing) == 0 {
		return
	}
	// Closing edges in order of (lower end, higher end, type, From).
	w.sortEdges(w.closing, func(c *closeEnt, rank uint32) [4]uint32 {
		return [4]uint32{uint32(min(c.pf, c.pt)), uint32(max(c.pf, c.pt)), rank, uint32(c.pf)}
	})
	for _, c := range w.closing {
		if w.rows >= w.m {
			w.trunc = true
			break
		}
		w.addEdge(c.e, c.typ, c.pf, c.pt)
	}
}

// closeScan collects the edges among entries [lo, hi) of the adjacency of
// Shape node pf that go out to a Shape node (hierarchical ones only in
// view=shell).
func (w *walker) closeScan(a store.Adjacency, lo, hi int, pf int32) {
	for k := lo; k < hi; k++ {
		if a.Dir(k) != store.Out {
			continue
		}
		if pt, ok := w.index(a.FarSlot(k)); ok {
			if typ := a.Type(k); !w.shell || w.isHier(typ) {
				w.closeAdd(a.Edge(k), typ, pf, pt)
			}
		}
	}
}

func (w *walker) closeAdd(e *store.Edge, typ string, pf, pt int32) {
	if _, in := w.edgeSet.get(edgeKey(e)); !in {
		w.closing = append(w.closing, closeEnt{e: e, typ: typ, pf: pf, pt: pt})
	}
}

// closeTo collects the edges of the heavy Out group [lo, hi) (type typ)
// of the node in slot xs that lead to the Shape node in slot ys.
func (w *walker) closeTo(a store.Adjacency, lo, hi int, xs uint32, typ string, pf int32, ys uint32, pt int32) {
	if ys != xs {
		ay := w.snap.AdjacencyAt(ys)
		l, h := ay.Group(typ, store.In)
		if h-l <= revScanMax {
			for k := l; k < h; k++ {
				if ay.FarSlot(k) == xs {
					w.closeAdd(ay.Edge(k), typ, pf, pt)
				}
			}
			return
		}
	}
	l, h := a.FarRange(lo, hi, w.snap.NodeAt(ys))
	for k := l; k < h; k++ {
		w.closeAdd(a.Edge(k), typ, pf, pt)
	}
}

// sortEdges sorts ents by the four fields order gives for each entry
// (positions and the rank of its type among the types present), then by
// property literal, then by id (identical parallel edges). When the
// fields and the entry's index fit one integer (M up to a few thousand),
// it sorts those integers, with no comparison function, and settles
// equal fields (parallel edges of one type) afterwards.
func (w *walker) sortEdges(ents []closeEnt, order func(c *closeEnt, rank uint32) [4]uint32) {
	// The distinct types, sorted (a Shape has a handful), and each
	// entry's rank among them. Types are interned by the store, so the
	// equality tests mostly compare pointers.
	names := w.typeNames[:0]
	for i := range ents {
		if !slices.Contains(names, ents[i].typ) {
			names = append(names, ents[i].typ)
		}
	}
	slices.Sort(names)
	w.typeNames = names
	for i := range ents {
		ents[i].rank = uint32(slices.Index(names, ents[i].typ))
	}
	if len(ents) < 2 {
		return
	}
	fb := uint(bits.Len(uint(max(len(w.nodes), len(names))))) // bits per field
	ib := uint(bits.Len(uint(len(ents))))                     // bits of the index
	if 4*fb+ib > 64 || w.wideSort {
		slices.SortFunc(ents, func(a, b closeEnt) int {
			if c := cmpFields(order(&a, a.rank), order(&b, b.rank)); c != 0 {
				return c
			}
			return w.cmpTail(a, b)
		})
		return
	}
	keys := w.sortKeys[:0]
	for i := range ents {
		f := order(&ents[i], ents[i].rank)
		k := uint64(f[0])<<(3*fb) | uint64(f[1])<<(2*fb) | uint64(f[2])<<fb | uint64(f[3])
		keys = append(keys, k<<ib|uint64(i))
	}
	slices.Sort(keys)
	w.sortKeys = keys
	sorted := append(w.sortOut[:0], ents...)
	w.sortOut = sorted
	for i, k := range keys {
		ents[i] = sorted[k&(1<<ib-1)]
	}
	for lo := 0; lo < len(keys); {
		hi := lo + 1
		for hi < len(keys) && keys[hi]>>ib == keys[lo]>>ib {
			hi++
		}
		if hi-lo > 1 {
			slices.SortFunc(ents[lo:hi], w.cmpTail)
		}
		lo = hi
	}
	clear(sorted)
}

func (w *walker) cmpTail(a, b closeEnt) int {
	if c := cmpPropsLit(a.e.Props, b.e.Props, &w.litA, &w.litB); c != 0 {
		return c
	}
	return cmp.Compare(a.e.ID, b.e.ID)
}

func cmpFields(a, b [4]uint32) int {
	for i := range a {
		if a[i] != b[i] {
			return cmp.Compare(a[i], b[i])
		}
	}
	return 0
}
