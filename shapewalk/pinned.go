package shapewalk

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/goldfish-gql/goldfish/store"
)

// Pinned kinds: their first nodes in canonical order, placed before the
// walk, and the reordering of their ties once the walk has placed the rest.

// scanKind calls fn for the live nodes whose kind is kind, in store
// (observable key, id) order.
func scanKind(snap *store.Snapshot, kind string, fn func(*store.Node) bool) {
	if kind == "" {
		snap.ScanNodes(func(n *store.Node) bool {
			if n.Kind() != "" {
				return false
			}
			return fn(n)
		})
		return
	}
	snap.ScanLabel(kind, func(n *store.Node) bool {
		if n.Kind() != kind {
			return true
		}
		return fn(n)
	})
}

// firstOfKinds returns the first limit live nodes whose kind is in kinds,
// in canonical order, and whether more existed. ents/arena are scratch.
// interrupted, when not nil, is asked once per node scanned: true ends
// the scan (the caller then drops the result).
func firstOfKinds(snap *store.Snapshot, kinds []string, limit int, w *wl, rank func(*store.Node) int, interrupted func() bool, nodes []*store.Node, ents []sortEnt, arena, last []byte) ([]*store.Node, []sortEnt, []byte, []byte, bool) {
	more := false
	nodes = nodes[:0]
	for _, kind := range kinds {
		stop := false
		scanKind(snap, kind, func(n *store.Node) bool {
			if interrupted != nil && interrupted() {
				stop = true
				return false
			}
			if len(nodes) < limit {
				nodes = append(nodes, n)
				if len(nodes) == limit {
					last = appendObsKey(last[:0], n)
				}
				return true
			}
			// Past the limit: keep only ties with the limit-th node, which
			// the WL order may put before it.
			arena = appendObsKey(arena[:0], n)
			if limit > 0 && bytes.Equal(arena, last) {
				nodes = append(nodes, n)
				return true
			}
			more, stop = true, true
			return false
		})
		if stop {
			break
		}
	}
	ents = ents[:0]
	arena = arena[:0]
	for _, n := range nodes {
		from := len(arena)
		arena = appendObsKey(arena, n)
		ents = append(ents, sortEnt{n: n, sig: uint64(from)}) // sig holds the offset for now
	}
	for i := range ents {
		from := int(ents[i].sig)
		to := len(arena)
		if i+1 < len(ents) {
			to = int(ents[i+1].sig)
		}
		ents[i].key = arena[from:to:to]
	}
	for i := range ents {
		ents[i].sig = 0
	}
	sortEnts(snap, ents, w, rank)
	if len(ents) > limit {
		// A cut of the pinned kinds (rank set) inside a run of nodes that
		// nothing observable tells apart (key, signature, not seeds) would
		// keep some of them by engine id: the whole run goes instead.
		cut := limit
		for rank != nil && cut > 0 && indistinct(w, rank, ents[cut-1].n, ents[limit].n) {
			cut--
		}
		ents = ents[:cut]
		more = true
	}
	nodes = nodes[:0]
	for _, e := range ents {
		nodes = append(nodes, e.n)
	}
	return nodes, ents, arena, last, more
}

// indistinct reports whether a and b tie on everything the canonical
// order reads (observable key and WL signature) and neither is a seed
// (rank tells seeds apart).
func indistinct(w *wl, rank func(*store.Node) int, a, b *store.Node) bool {
	return a.ObservableKey() == b.ObservableKey() && rank(a) == rank(b) && w.sig2(a) == w.sig2(b)
}

func sortedKinds(buf []string, kinds []string) []string {
	buf = append(buf[:0], kinds...)
	slices.Sort(buf)
	return slices.Compact(buf)
}

// seedRank puts seeds first (in seed order) among pinned candidates that
// are indistinguishable to WL: the seed set is part of the query, and
// without it the id order would decide whether a seed is among them.
func (w *walker) seedRank(n *store.Node) int {
	for i, s := range w.seeds {
		if s.ID == n.ID {
			return i
		}
	}
	return len(w.seeds)
}

// PinnedShare is the most nodes of the pinned kinds a Shape of m rows
// holds besides its seeds: a quarter of M, at least 1 (docs/design.md#recall: pinned
// kinds are added first, within a documented share of M). The walk also
// never gives them more than the rows the seeds leave (M − seeds). A seed
// of a pinned kind is in the Shape anyway and takes none of the share.
func PinnedShare(m int) int { return max(1, m/4) }

// addPinned places the pinned kinds' nodes before the walk: the seeds of
// those kinds, and the first of the others in canonical order, at most
// PinnedShare(M) of them and at most budget (the rows the seeds leave).
func (w *walker) addPinned(kinds []string, budget int) {
	w.kindsBuf = sortedKinds(w.kindsBuf, kinds)
	keep := min(max(budget, 0), PinnedShare(w.m))
	seedsOfKinds := 0
	for _, s := range w.seeds {
		if _, ok := slices.BinarySearch(w.kindsBuf, s.Kind()); ok {
			seedsOfKinds++
		}
	}
	var more bool
	w.pinNodes, w.pinEnts, w.pinArena, w.pinLast, more = firstOfKinds(w.snap, w.kindsBuf, keep+seedsOfKinds, &w.wl, w.seedRank, w.interrupted, w.pinNodes, w.pinEnts, w.pinArena, w.pinLast)
	if w.stopped {
		return
	}
	// The seeds among them cost no share; the others are kept up to it.
	others, j := 0, 0
	var dropped *store.Node // the first node past the share
	for _, n := range w.pinNodes {
		if w.seedRank(n) == len(w.seeds) {
			if others == keep {
				more = true
				if dropped == nil {
					dropped = n
				}
				continue
			}
			others++
		}
		w.pinNodes[j] = n
		j++
	}
	// As in firstOfKinds: the share does not split a run of nodes that
	// nothing observable tells apart.
	for dropped != nil && j > 0 && indistinct(&w.wl, w.seedRank, w.pinNodes[j-1], dropped) {
		j--
	}
	clear(w.pinNodes[j:])
	w.pinNodes = w.pinNodes[:j]
	if more && keep == max(budget, 0) {
		w.trunc = true // M, not the share, left pinned nodes out
	}
	w.pinMore = more
	for _, n := range w.pinNodes {
		w.addNode(n, n.Slot(), -1)
	}
	w.nPinned = len(w.pinNodes)
}

// refinePinned reorders, after the walk, runs of pinned nodes that tie on
// observables and signature (and are not seeds) by how they attach to the
// already placed part of the Shape: hop, then the sorted list of
// (position, edge type, direction) of its neighbours among the walked
// nodes and the pinned nodes placed before its run (runs are refined in
// order). Pinned nodes are placed before
// the walk, so their WL tie was broken by id; without this, two
// automorphic pinned nodes could be ordered incoherently with the walked
// nodes the id order also chose (the emitted edges would then differ).
func (w *walker) refinePinned() {
	np := w.nPinned
	var ka, kb []byte
	for i := 0; i < np; {
		ka = appendObsKey(ka[:0], w.nodes[i])
		j := i + 1
		for j < np {
			kb = appendObsKey(kb[:0], w.nodes[j])
			if !bytes.Equal(ka, kb) {
				break
			}
			j++
		}
		if j-i > 1 {
			w.refineRun(i, j)
		}
		i = j
	}
}

func (w *walker) refineRun(lo, hi int) {
	type ent struct {
		n    *store.Node
		hop  int
		from int32 // position before refining
		sig  uint64
		ctx  []uint64
		pin  bool // a seed: keeps its place first
	}
	ents := make([]ent, 0, hi-lo)
	for i := lo; i < hi; i++ {
		n := w.nodes[i]
		e := ent{n: n, hop: w.hops[i], from: int32(i), sig: w.wl.sig2(n), pin: w.hops[i] == 0}
		if a := w.snap.Adjacency(n); !e.pin && a.Len() <= wlDegreeCap {
			for k := 0; k < a.Len(); k++ {
				if p, ok := w.index(a.FarSlot(k)); ok && (int(p) >= w.nPinned || int(p) < lo) {
					e.ctx = append(e.ctx, uint64(p)<<40|(xxhashStr(a.Type(k))&(1<<38-1))<<2|uint64(a.Dir(k)))
				}
			}
			slices.Sort(e.ctx)
		}
		ents = append(ents, e)
	}
	// ents is sorted by (signature, seeds first, id): refine each block of
	// equal signature, after its seeds, by (hop, attachment).
	for a := 0; a < len(ents); {
		b := a + 1
		for b < len(ents) && ents[b].sig == ents[a].sig {
			b++
		}
		s := a
		for s < b && ents[s].pin {
			s++
		}
		if b-s > 1 {
			slices.SortStableFunc(ents[s:b], func(x, y ent) int {
				if c := cmp.Compare(x.hop, y.hop); c != 0 {
					return c
				}
				return slices.Compare(x.ctx, y.ctx)
			})
		}
		a = b
	}
	w.perm = w.perm[:0]
	for i := range w.nodes {
		w.perm = append(w.perm, int32(i))
	}
	for k, e := range ents {
		i := lo + k
		w.perm[e.from] = int32(i)
		w.nodes[i] = e.n
		w.slots[i] = e.n.Slot()
		w.hops[i] = e.hop
		w.slotSet.put(slotKey(e.n.Slot()), int32(i))
	}
	for i := range w.ends {
		w.ends[i] = Ends{From: w.perm[w.ends[i].From], To: w.perm[w.ends[i].To]}
	}
}
