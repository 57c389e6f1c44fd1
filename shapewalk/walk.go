package shapewalk

import (
	"context"
	"slices"
	"sync"

	"github.com/goldfish-gql/goldfish/store"
)

// The walk: a pooled walker, the breadth-first loop over hops and the
// copy of its result into a Shape.

// walker is the state of one walk and the scratch space it reuses: one
// is taken from walkerPool per walk.
type walker struct {
	snap    *store.Snapshot
	k, m, f int
	shell   bool
	hier    Hierarchy

	nodes  []*store.Node // nil until resolved (see node)
	slots  []uint32      // slots[i] is nodes[i]'s slot
	hops   []int
	edges  []*store.Edge
	ends   []Ends   // positions of edges[i]'s ends
	etypes []string // edges[i].Type
	perm   []int32
	clamps []Clamp
	trunc  bool
	rows   int
	queue  []int32
	lead   int // how many of queue's seeds walk first (0: all together)
	// after is Options.After; skip is what is left of it while a seed
	// is expanded.
	after, skip int
	// pinMore: the pinned kinds have more live nodes than the Shape holds
	pinMore bool
	rest    []int32 // the other seeds, queued once the leaders are walked

	slotSet  idSet     // node slot → index in nodes
	member   [8]uint64 // bit slot%512 is set when a node in such a slot is in nodes
	edgeSet  idSet     // edge record address (one per edge in a snapshot) → 0
	resolved int       // nodes[:resolved] are all non-nil

	// expansion
	curHop     int
	lastType   string
	lastHier   bool
	hasLast    bool
	chosen     []topEnt
	run        []topEnt
	bloom      uint64
	omitted    []Omitted
	litA, litB []byte
	wl         wl

	// closing
	closing   []closeEnt
	seeds     []*store.Node
	nPinned   int
	ctx       [][]uint64
	pinNodes  []*store.Node
	pinEnts   []sortEnt
	pinArena  []byte
	pinLast   []byte
	kindsBuf  []string
	sortBuf   []closeEnt
	sortKeys  []uint64   // sortEdges: packed fields and index
	sortOut   []closeEnt // sortEdges: the entries before the sort
	sink      uint64     // where prefetching loads go, so they are not dropped
	typeNames []string
	wideSort  bool // tests: compare edge order fields one by one
	pre       []uint32

	// done is the walk's context's Done channel (nil: never done);
	// stopped is set once it was found closed, ticks paces the looks.
	done    <-chan struct{}
	stopped bool
	ticks   uint32
}

// interruptEvery is how many steps of a walk (node expansions, entries of
// a run of look-alike neighbours, pinned candidates, closing scans) pass
// between two looks at its context.
const interruptEvery = 16

// interrupted reports whether the walk's context is done, looking at it
// once in interruptEvery calls. Once it is, the walk unwinds without
// adding anything more and WalkIntoContext returns the context's error.
func (w *walker) interrupted() bool {
	if w.done == nil {
		return false
	}
	if w.stopped {
		return true
	}
	w.ticks++
	if w.ticks%interruptEvery != 1 { // the first step looks, then every interruptEvery-th
		return false
	}
	select {
	case <-w.done:
		w.stopped = true
	default:
	}
	return w.stopped
}

var walkerPool = sync.Pool{New: func() any { return &walker{} }}

func (w *walker) isHier(t string) bool {
	if w.hasLast && t == w.lastType {
		return w.lastHier
	}
	w.lastType, w.lastHier, w.hasLast = t, w.hier(t), true
	return w.lastHier
}

// addNode adds the node in slot (n may be nil: it is resolved later, in
// a batch, so the walk does not wait on one node record at a time).
func (w *walker) addNode(n *store.Node, slot uint32, hop int) int32 {
	idx := int32(len(w.nodes))
	w.nodes = append(w.nodes, n)
	w.slots = append(w.slots, slot)
	w.hops = append(w.hops, hop)
	w.slotSet.put(slotKey(slot), idx)
	w.member[slot>>6&7] |= 1 << (slot & 63)
	w.rows++
	return idx
}

// node returns the node at position i, resolving it from its slot.
func (w *walker) node(i int) *store.Node {
	if w.nodes[i] == nil {
		w.nodes[i] = w.snap.NodeAt(w.slots[i])
	}
	return w.nodes[i]
}

// resolveAll resolves every node added so far, the records' loads side by
// side.
func (w *walker) resolveAll() {
	for i := w.resolved; i < len(w.nodes); i++ {
		w.node(i)
	}
	w.resolved = len(w.nodes)
}

func (w *walker) addEdge(e *store.Edge, typ string, from, to int32) {
	w.edges = append(w.edges, e)
	w.etypes = append(w.etypes, typ)
	w.ends = append(w.ends, Ends{From: from, To: to})
	w.edgeSet.put(edgeKey(e), 0)
	w.rows++
}

// Walk computes the Shape of seeds in snap (docs/design.md#the-walk). Seeds that are not
// live in snap are ignored; a seed given twice appears once.
func Walk(snap *store.Snapshot, seeds []*store.Node, opt Options) *Shape {
	return WalkInto(new(Shape), snap, seeds, opt)
}

// WalkInto is Walk writing the Shape into sh, whose slices' capacity it
// reuses (their old contents are overwritten): a caller that is done with
// one Shape before it walks the next need not allocate one per walk.
func WalkInto(sh *Shape, snap *store.Snapshot, seeds []*store.Node, opt Options) *Shape {
	sh, _ = WalkIntoContext(context.Background(), sh, snap, seeds, opt)
	return sh
}

// WalkIntoContext is WalkInto that stops when ctx is done, returning the
// context's error and no Shape. The walk is bounded by M, but one
// expansion may still meet a long run of neighbours that look alike; ctx
// is checked between steps, so a cancelled walk stops within a few of
// them.
func WalkIntoContext(ctx context.Context, sh *Shape, snap *store.Snapshot, seeds []*store.Node, opt Options) (*Shape, error) {
	w := walkerPool.Get().(*walker)
	if ctx != nil {
		w.done = ctx.Done()
	}
	w.walk(snap, seeds, opt)
	stopped := w.stopped
	if !stopped {
		w.result(sh)
	}
	w.release()
	walkerPool.Put(w)
	if stopped {
		return nil, ctx.Err()
	}
	return sh, nil
}

func (w *walker) release() {
	w.snap = nil
	clear(w.nodes)
	clear(w.edges)
	clear(w.etypes)
	clear(w.run)
	clear(w.chosen)
	clear(w.closing)
	clear(w.seeds)
	clear(w.pinNodes)
	clear(w.pinEnts)
	clear(w.sortBuf)
	w.clamps = nil
	w.wl.reset(nil)
	w.hier = nil
	w.hasLast = false
	w.done, w.stopped, w.ticks = nil, false, 0
}

func (w *walker) walk(snap *store.Snapshot, seeds []*store.Node, opt Options) {
	w.reset(snap, opt)
	w.addSeeds(seeds, opt.Pinned, opt.Lead)
	w.breadthFirst()
	if w.stopped {
		return
	}
	// Closing edges and the emit read every Shape node's record,
	// adjacency and rendering; the last hop's and pinned nodes' have not
	// been loaded yet. One loop loads them all (the others are cached).
	w.sink += w.snap.Prefetch(w.slots)
	w.resolveAll()
	if w.nPinned > 1 {
		w.refinePinned()
	}
	w.closeEdges()
}

// reset prepares w for a walk of snap with opt (defaults applied),
// keeping the capacity of its scratch state.
func (w *walker) reset(snap *store.Snapshot, opt Options) {
	w.snap = snap
	w.k, w.m, w.f = opt.K, opt.M, opt.F
	w.after = max(opt.After, 0)
	if w.k == 0 {
		w.k = DefaultK
	} else if w.k < 0 {
		w.k = 0
	}
	if w.m <= 0 {
		w.m = DefaultM
	}
	if w.f == 0 {
		w.f = DefaultF
	} else if w.f < 0 {
		w.f = 0
	}
	w.shell = opt.Shell
	w.hier = opt.Hierarchy
	if w.hier == nil {
		w.hier = DefaultHierarchy
	}
	w.hasLast = false
	w.nodes, w.slots, w.hops, w.queue = w.nodes[:0], w.slots[:0], w.hops[:0], w.queue[:0]
	w.edges, w.etypes, w.ends = w.edges[:0], w.etypes[:0], w.ends[:0]
	w.resolved = 0
	w.clamps = nil
	w.trunc = false
	w.rows = 0
	w.nPinned = 0
	w.pinMore = false
	w.slotSet.init(w.m)
	w.member = [8]uint64{}
	w.edgeSet.init(w.m)
	w.wl.reset(snap)
}

// addSeeds adds the nodes of the pinned kinds, then the seeds: live,
// deduplicated, at most M in all; it queues the seeds at hop 0. The
// first lead of seeds (those of them that are live) lead the walk.
func (w *walker) addSeeds(seeds []*store.Node, pinned []string, lead int) {
	w.seeds = w.seeds[:0]
	w.lead = 0
	for i, s := range seeds {
		if i == lead {
			w.lead = len(w.seeds)
		}
		if s == nil {
			continue
		}
		n, ok := w.snap.Current(s)
		if !ok {
			continue
		}
		dup := false
		for _, x := range w.seeds {
			if x.ID == n.ID {
				dup = true
				break
			}
		}
		if !dup {
			w.seeds = append(w.seeds, n)
		}
	}
	if lead <= 0 || lead >= len(seeds) {
		w.lead = 0
	}
	if len(w.seeds) > w.m {
		w.seeds = w.seeds[:w.m]
		w.trunc = true
	}
	if w.lead >= len(w.seeds) {
		w.lead = 0
	}

	if len(pinned) > 0 {
		w.addPinned(pinned, w.m-len(w.seeds))
	}
	for _, s := range w.seeds {
		if idx, ok := w.index(s.Slot()); ok {
			w.hops[idx] = 0
			w.queue = append(w.queue, idx)
			continue
		}
		w.queue = append(w.queue, w.addNode(s, s.Slot(), 0))
	}
}

// breadthFirst expands the queued nodes in order, hop by hop, until K
// hops or M rows: the leading seeds' neighbourhoods first, when some
// lead, then the other seeds'.
func (w *walker) breadthFirst() {
	if w.lead == 0 {
		w.expandFrom(0)
		return
	}
	w.rest = append(w.rest[:0], w.queue[w.lead:]...)
	w.queue = w.queue[:w.lead]
	if !w.expandFrom(0) {
		return
	}
	from := len(w.queue)
	w.queue = append(w.queue, w.rest...)
	w.expandFrom(from)
}

// expandFrom expands the queued nodes from queue[from] on, in order, and
// says whether it ran out of nodes (not of M, nor of time). Each hop's
// nodes are prefetched together: their records and adjacency are
// scattered, and loads issued side by side overlap their cache misses.
func (w *walker) expandFrom(from int) bool {
	levelEnd := from
	// queue[from:seedEnd] are seeds: F does not clamp them. Each takes
	// at least F and a fair share of what M leaves; once all are
	// expanded, those with neighbours left take the rest (widenSeeds),
	// so every edge of a seed comes before any node two hops away.
	seedEnd := from
	for seedEnd < len(w.queue) && w.hops[w.queue[seedEnd]] == 0 {
		seedEnd++
	}
	for qi := from; qi < len(w.queue); qi++ {
		if w.interrupted() {
			return false
		}
		if qi == seedEnd && qi > from && !w.widenSeeds(from, seedEnd) {
			w.trunc = true
			return false
		}
		idx := w.queue[qi]
		h := w.hops[idx]
		if h >= w.k {
			continue
		}
		if qi >= levelEnd {
			levelEnd = len(w.queue)
			w.prefetch(w.queue[qi:])
			w.resolveAll()
		}
		n := w.nodes[idx]
		if w.rows+2 > w.m {
			if w.hasNew(idx) {
				w.trunc = true
				return false
			}
			continue
		}
		need := w.f
		if h == 0 {
			need = min(max(w.f, (w.m-w.rows)/2/(seedEnd-qi)), (w.m-w.rows)/2)
		}
		if !w.expand(n, idx, h, need) {
			w.trunc = true
			return false
		}
		if h == 0 && w.rows+2 > w.m && w.clampOf(w.slots[idx]) >= 0 {
			w.trunc = true // M, not F, left the seed's neighbours out
		}
	}
	return true
}

// widenSeeds expands again the seeds queue[from:seedEnd] that left
// neighbours out, in order, each with a fair share of the rows M leaves:
// the next new neighbours in canonical order. A seed's clamp note is
// replaced by what is still left out. It reports false when M cut it.
func (w *walker) widenSeeds(from, seedEnd int) bool {
	var left []int32
	for _, idx := range w.queue[from:seedEnd] {
		if w.clampOf(w.slots[idx]) >= 0 {
			left = append(left, idx)
		}
	}
	for i, idx := range left {
		need := (w.m - w.rows) / 2 / (len(left) - i)
		if need <= 0 {
			w.trunc = true
			return true
		}
		j := w.clampOf(w.slots[idx])
		before := w.clamps[j].Shown
		w.clamps = slices.Delete(w.clamps, j, j+1)
		n := len(w.clamps)
		if !w.expand(w.nodes[idx], idx, 0, need) {
			return false
		}
		if len(w.clamps) > n { // still some left: the new note in the old one's place
			c := w.clamps[n]
			c.Shown += before
			w.clamps = slices.Insert(w.clamps[:n], j, c)
		}
	}
	return true
}

// clampOf is the index of the clamp note of the node in slot, or -1.
func (w *walker) clampOf(slot uint32) int {
	for i := range w.clamps {
		if w.clamps[i].slot == slot {
			return i
		}
	}
	return -1
}

// prefetch loads the records, adjacency heads and renderings of the queued
// nodes idx.
func (w *walker) prefetch(idx []int32) {
	if len(idx) < 2 {
		return
	}
	buf := w.pre[:0]
	for _, i := range idx {
		buf = append(buf, w.slots[i])
	}
	w.pre = buf
	w.sink += w.snap.Prefetch(buf)
}

// result copies the walk into sh (reusing its slices) with the edges in
// emit order.
func (w *walker) result(sh *Shape) {
	*sh = Shape{Truncated: w.trunc, Clamps: w.clamps, Pinned: w.nPinned, PinnedMore: w.pinMore,
		Nodes: append(sh.Nodes[:0], w.nodes...), Slots: append(sh.Slots[:0], w.slots...), Hops: append(sh.Hops[:0], w.hops...),
		Edges: sh.Edges[:0], Types: sh.Types[:0], Ends: sh.Ends[:0]}
	for i := range sh.Clamps {
		sh.Clamps[i].Index, _ = w.index(sh.Clamps[i].slot)
	}
	for _, h := range w.hops {
		sh.MaxHop = max(sh.MaxHop, h)
	}
	if len(w.edges) == 0 {
		return
	}
	w.sortBuf = w.sortBuf[:0]
	for i, e := range w.edges {
		w.sortBuf = append(w.sortBuf, closeEnt{e: e, typ: w.etypes[i], pf: w.ends[i].From, pt: w.ends[i].To})
	}
	// Shape edges in order of (From, type, To).
	w.sortEdges(w.sortBuf, func(c *closeEnt, rank uint32) [4]uint32 {
		return [4]uint32{uint32(c.pf), rank, uint32(c.pt), 0}
	})
	sh.Types = append(sh.Types, w.typeNames...)
	for _, c := range w.sortBuf {
		sh.Edges = append(sh.Edges, c.e)
		sh.Ends = append(sh.Ends, Ends{c.pf, c.pt, int32(c.rank)})
	}
}
