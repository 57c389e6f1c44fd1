package shapewalk

import (
	"cmp"
	"slices"

	"github.com/goldfish-gql/goldfish/store"
)

// Expanding one node: its new neighbours in canonical order, at most F of
// them, and the clamp note counting the ones left out. A heavy group is
// probed from the Shape's side instead of scanned.

// topEnt is a candidate new neighbour of the node being expanded, reached
// over edge e (of type typ, in direction dir).
type topEnt struct {
	n      *store.Node // nil until needed (ties); the walk goes by slot
	e      *store.Edge
	typ    string
	sig    uint64
	slot   uint32
	dir    store.Dir // as seen from the expanded node
	hasSig bool
	// hidden: skipped for Options.After (an earlier page of the seed's
	// neighbours): neither added nor counted as left out.
	hidden bool
}

// heavyGroup: a (type, direction) group with more entries than this is
// not scanned whole unless scanning is cheaper (see scans); what is
// needed from it (entries whose far end is in the Shape or chosen) is
// found from the Shape's side instead.
const heavyGroup = 32

// scanPerLookup: scanning this many adjacency entries (sequential loads
// and a lookup in the walk's own small table) costs about what one
// lookup from the Shape's side costs (another node's adjacency, a binary
// search: scattered loads).
const scanPerLookup = 16

// scans reports whether scanning a group (or a whole adjacency) of n
// entries is cheaper than probing it from the side of lookups Shape
// nodes, each probe loading another node's adjacency. Either way the
// answer is exact, and the walk's cost stays bounded by M.
func scans(n, lookups int) bool { return n <= heavyGroup || n <= scanPerLookup*lookups }

// revScanMax: when counting the entries of a heavy group that lead to a
// Shape node x, scan x's own reverse group if it has at most this many
// entries, else binary-search the heavy group for x.
const revScanMax = 16

func revDir(d store.Dir) store.Dir {
	if d == store.Out {
		return store.In
	}
	return store.Out
}

// entriesTo returns the number of entries of the group [lo, hi) (type
// typ, direction dir, in adjacency a of the node in slot ns) whose far end
// is the node in slot xs, in O(min(deg of its reverse group, log group)).
// It goes by slots and loads a node record only for the binary search.
func (w *walker) entriesTo(a store.Adjacency, lo, hi int, ns uint32, typ string, dir store.Dir, xs uint32) int {
	if xs != ns {
		ax := w.snap.AdjacencyAt(xs)
		l, h := ax.Group(typ, revDir(dir))
		if h-l <= revScanMax {
			c := 0
			for k := l; k < h; k++ {
				if ax.FarSlot(k) == ns {
					c++
				}
			}
			return c
		}
	}
	l, h := a.FarRange(lo, hi, w.snap.NodeAt(xs))
	return h - l
}

// hasNew reports whether expanding the node at position idx would bring
// at least one new node.
func (w *walker) hasNew(idx int32) bool {
	a := w.snap.AdjacencyAt(w.slots[idx])
	for lo := 0; lo < a.Len(); {
		hi := a.GroupEnd(lo)
		typ, dir := a.Type(lo), a.Dir(lo)
		if w.shell && !w.isHier(typ) {
			lo = hi
			continue
		}
		if scans(hi-lo, len(w.nodes)) {
			for i := lo; i < hi; i++ {
				if _, ok := w.index(a.FarSlot(i)); !ok {
					return true
				}
			}
		} else {
			in := 0
			for i := range w.nodes {
				in += w.entriesTo(a, lo, hi, w.slots[idx], typ, dir, w.slots[i])
			}
			if in < hi-lo {
				return true
			}
		}
		lo = hi
	}
	return false
}

// expand adds up to need new neighbours of n (at hop h: F, or a seed's
// share of M); false when M cut it.
// Cost: O(groups + F + entries skipped because their far end is in the
// Shape) plus, for a group larger than scans allows, O(|Shape|) small
// lookups: at most O(min(degree, 16·M)), never O(degree) for a hub.
func (w *walker) expand(n *store.Node, idx int32, h, need int) bool {
	w.curHop = h
	w.skip = 0
	if h == 0 {
		w.skip = w.after // a later page: the first After new neighbours were shown before
	}
	a := w.snap.AdjacencyAt(w.slots[idx])
	w.chosen = w.chosen[:0]
	w.bloom = 0
	w.omitted = w.omitted[:0]
	for lo := 0; lo < a.Len(); {
		hi := a.GroupEnd(lo)
		typ, dir := a.Type(lo), a.Dir(lo)
		if !w.shell || w.isHier(typ) {
			need = w.group(a, lo, hi, w.slots[idx], typ, dir, need)
		}
		lo = hi
	}
	shown := 0
	for _, c := range w.chosen {
		if !c.hidden {
			shown++
		}
	}
	if len(w.omitted) > 0 {
		c := Clamp{Node: n, Omitted: slices.Clone(w.omitted), Shown: shown, slot: w.slots[idx]}
		for _, o := range w.omitted {
			c.Total += o.Count
		}
		w.clamps = append(w.clamps, c)
	}
	for _, c := range w.chosen {
		if c.hidden {
			continue
		}
		if w.rows+2 > w.m {
			return false
		}
		to := w.addNode(c.n, c.slot, h+1)
		if c.dir == store.Out {
			w.addEdge(c.e, c.typ, idx, to)
		} else {
			w.addEdge(c.e, c.typ, to, idx)
		}
		w.queue = append(w.queue, to)
	}
	return true
}

// isChosen reports whether the node in slot is among w.chosen.
func (w *walker) isChosen(slot uint32) bool {
	if w.bloom&bloomBit(slotKey(slot)) == 0 {
		return false
	}
	for i := range w.chosen {
		if w.chosen[i].slot == slot {
			return true
		}
	}
	return false
}

// reached marks a pinned Shape node (hop -1) reached from the node being
// expanded.
func (w *walker) reached(idx int32) {
	if w.hops[idx] < 0 {
		w.hops[idx] = w.curHop + 1
	}
}

// group handles the (type, dir) group [lo, hi) of the adjacency of the
// node in slot ns: takes the first new neighbours in canonical order
// (observable key from the adjacency order, WL signature within runs of
// equal keys, then id), at most need of them, and records the omitted
// count when the fan-out runs out. Returns the remaining fan-out.
func (w *walker) group(a store.Adjacency, lo, hi int, ns uint32, typ string, dir store.Dir, need int) int {
	heavy := !scans(hi-lo, len(w.nodes)+len(w.chosen))
	if heavy {
		// Pinned nodes reached over this group, found from the Shape side.
		for idx := range w.nodes {
			if w.hops[idx] < 0 && w.entriesTo(a, lo, hi, ns, typ, dir, w.slots[idx]) > 0 {
				w.reached(int32(idx))
			}
		}
	}
	for i := lo; i < hi && need > 0; {
		fs := a.FarSlot(i)
		if idx, ok := w.index(fs); ok {
			w.reached(idx)
			i++
			continue
		}
		if w.isChosen(fs) {
			i++
			continue
		}
		// The run of distinct new far nodes sharing entry i's far node's
		// observable key.
		w.run = w.run[:0]
		j := i
		for j < hi {
			if j > i && !a.SameFarKey(i, j) {
				break
			}
			if w.interrupted() {
				return 0
			}
			fs := a.FarSlot(j)
			k := j + 1
			best := a.Edge(j)
			for k < hi && a.FarSlot(k) == fs {
				if e := a.Edge(k); w.betterEdge(e, best) {
					best = e
				}
				k++
			}
			if idx, ok := w.index(fs); ok {
				w.reached(idx)
			} else if !w.isChosen(fs) {
				w.run = append(w.run, topEnt{e: best, typ: typ, dir: dir, slot: fs})
			}
			j = k
		}
		if len(w.run) > 1 {
			for r := range w.run {
				w.run[r].n = w.snap.NodeAt(w.run[r].slot)
				w.sigOf(&w.run[r])
			}
			slices.SortFunc(w.run, func(x, y topEnt) int {
				if c := cmp.Compare(x.sig, y.sig); c != 0 {
					return c
				}
				return cmp.Compare(x.n.ID, y.n.ID)
			})
		}
		skip := min(w.skip, len(w.run))
		w.skip -= skip
		take := min(need, len(w.run)-skip)
		for r, t := range w.run[:skip+take] {
			w.chosen = append(w.chosen, topEnt{n: t.n, e: t.e, typ: t.typ, dir: t.dir, slot: t.slot, hidden: r < skip})
			w.bloom |= bloomBit(slotKey(t.slot))
		}
		need -= take
		i = j
	}
	clear(w.run)
	if need > 0 {
		if !heavy {
			w.markReached(a, lo, hi) // the rest of a light group
		}
		return need // every new neighbour of this group was taken
	}
	// Fan-out exhausted: count the entries whose far end is neither in
	// the Shape nor chosen.
	cnt := 0
	if !heavy {
		for i := lo; i < hi; i++ {
			fs := a.FarSlot(i)
			if idx, ok := w.index(fs); ok {
				w.reached(idx)
				continue
			}
			if !w.isChosen(fs) {
				cnt++
			}
		}
	} else {
		cnt = hi - lo
		for i := range w.nodes {
			cnt -= w.entriesTo(a, lo, hi, ns, typ, dir, w.slots[i])
		}
		for _, c := range w.chosen {
			cnt -= w.entriesTo(a, lo, hi, ns, typ, dir, c.slot)
		}
	}
	if cnt > 0 {
		w.omitted = append(w.omitted, Omitted{Type: typ, Dir: dir, Count: cnt})
	}
	return 0
}

// markReached marks the pinned Shape nodes among the far ends of a light
// group (nothing to do when no pinned node is unreached).
func (w *walker) markReached(a store.Adjacency, lo, hi int) {
	if w.nPinned == 0 {
		return
	}
	for i := lo; i < hi; i++ {
		if idx, ok := w.index(a.FarSlot(i)); ok {
			w.reached(idx)
		}
	}
}

func (w *walker) sigOf(t *topEnt) uint64 {
	if !t.hasSig {
		t.sig, t.hasSig = w.wl.sig2(t.n), true
	}
	return t.sig
}

// betterEdge reports whether parallel edge a sorts before b.
func (w *walker) betterEdge(a, b *store.Edge) bool {
	if c := cmpPropsLit(a.Props, b.Props, &w.litA, &w.litB); c != 0 {
		return c < 0
	}
	return a.ID < b.ID // identical parallel edges: indistinguishable
}
