package shapewalk

import (
	"bytes"
	"cmp"
	"context"
	"math/bits"
	"slices"
	"sync"

	"github.com/goldfish-gql/goldfish/store"
)

// Defaults of Options (SPEC §3).
const (
	DefaultK = 2
	DefaultM = 50
	DefaultF = 8
)

// Options bound a Walk. Zero values mean the defaults; a negative K or F
// means 0 (seeds only; no neighbour added, everything clamped).
type Options struct {
	K, M, F   int       // hops (default 2), rows (default 50), fan-out clamp (default 8)
	Shell     bool      // view=shell: walk only hierarchical edges
	Pinned    []string  // kinds added first, within M
	Hierarchy Hierarchy // nil = DefaultHierarchy
}

// Omitted counts, for one (Type, Dir) as seen from the clamped node, the
// live edges whose far end was neither already in the Shape nor brought in
// by that node (so a neighbour reached over two omitted edges counts twice,
// once per edge). Counts are taken when the node is expanded.
type Omitted struct {
	Type  string
	Dir   store.Dir // store.Out or store.In, as seen from the clamped node
	Count int
}

// Clamp is the note for one node that had more than F new neighbours.
type Clamp struct {
	Node    *store.Node
	Index   int32     // Node's position in Shape.Nodes
	Omitted []Omitted // sorted by (Type, Dir)
	Total   int       // sum of Omitted counts
	slot    uint32
}

// Shape is the result of a Walk.
type Shape struct {
	Nodes     []*store.Node // emit order: pinned first, then seeds (in the order given), then BFS order
	Slots     []uint32      // Slots[i] is Nodes[i]'s slot (store.Snapshot.RenderingAt reads by slot)
	Hops      []int         // hop distance of Nodes[i] from the seed set; -1 for pinned nodes not reached
	Edges     []*store.Edge // sorted by (index of From, Type, index of To, props literal)
	Types     []string      // the edges' types, sorted, each once
	Ends      []Ends        // Ends[i]: where Edges[i]'s From and To are in Nodes, its type in Types
	Clamps    []Clamp       // in the order the clamped nodes were expanded
	Truncated bool          // M cut the walk short
	MaxHop    int
	Pinned    int // the first Pinned of Nodes are the pinned kinds' nodes
}

// Ends locates an edge's ends in Shape.Nodes and its type in Shape.Types
// (known from the adjacency, so a reader need not load the edge).
type Ends struct{ From, To, Type int32 }

// Rows returns the number of rows (nodes + edges) of the Shape.
func (s *Shape) Rows() int { return len(s.Nodes) + len(s.Edges) }

// Index returns the position of the node with this id in s.Nodes, or -1.
func (s *Shape) Index(id store.ID) int {
	for i, n := range s.Nodes {
		if n.ID == id {
			return i
		}
	}
	return -1
}

// ---- small open-addressing id → int32 table --------------------------------

// idSet maps ids to int32 values for the length of one walk. An entry
// belongs to the walk whose generation it carries, so starting a walk
// costs a counter increment, not a clear of the table.
type idSet struct {
	ents []idEnt
	gen  uint32
	mask int
}

type idEnt struct {
	key store.ID
	val int32
	gen uint32 // the walk that wrote the entry; another walk's is empty
}

func (s *idSet) init(capacity int) {
	size := 16
	for size < 2*capacity+2 {
		size <<= 1
	}
	s.gen++
	if cap(s.ents) < size || s.gen == 0 {
		s.ents = make([]idEnt, size)
		s.gen = 1
	}
	s.ents = s.ents[:size]
	s.mask = size - 1
}

func (s *idSet) get(id store.ID) (int32, bool) {
	for i := int(mix(uint64(id))) & s.mask; ; i = (i + 1) & s.mask {
		e := &s.ents[i]
		if e.gen != s.gen {
			return -1, false
		}
		if e.key == id {
			return e.val, true
		}
	}
}

func (s *idSet) put(id store.ID, v int32) {
	for i := int(mix(uint64(id))) & s.mask; ; i = (i + 1) & s.mask {
		e := &s.ents[i]
		if e.gen != s.gen || e.key == id {
			*e = idEnt{key: id, val: v, gen: s.gen}
			return
		}
	}
}

func bloomBit(id store.ID) uint64 { return 1 << (mix(uint64(id)) >> 58) }

// ---- walker --------------------------------------------------------------

type topEnt struct {
	n      *store.Node // nil until needed (ties); the walk goes by slot
	e      *store.Edge
	typ    string
	sig    uint64
	slot   uint32
	dir    store.Dir // as seen from the expanded node
	hasSig bool
}

type closeEnt struct {
	e      *store.Edge
	typ    string // e.Type, from the adjacency's type table (no edge load)
	pf, pt int32
	rank   uint32 // typ's position among the sorted types sortEdges met
}

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

// edgeKey identifies an edge within one snapshot by its record
// (store.Edge.RecordKey): both adjacency entries of an edge hold the same
// record, and using it spares loading the record for its id.
func edgeKey(e *store.Edge) store.ID { return store.ID(e.RecordKey()) }

func (w *walker) addEdge(e *store.Edge, typ string, from, to int32) {
	w.edges = append(w.edges, e)
	w.etypes = append(w.etypes, typ)
	w.ends = append(w.ends, Ends{From: from, To: to})
	w.edgeSet.put(edgeKey(e), 0)
	w.rows++
}

// Walk computes the Shape of seeds in snap (SPEC §5.2). Seeds that are not
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
	w.snap = snap
	w.k, w.m, w.f = opt.K, opt.M, opt.F
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
	w.slotSet.init(w.m)
	w.member = [8]uint64{}
	w.edgeSet.init(w.m)
	w.wl.reset(snap)

	// Seeds: live, deduplicated, at most M.
	w.seeds = w.seeds[:0]
	for _, s := range seeds {
		if s == nil {
			continue
		}
		n, ok := snap.Current(s)
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
	if len(w.seeds) > w.m {
		w.seeds = w.seeds[:w.m]
		w.trunc = true
	}

	if len(opt.Pinned) > 0 {
		w.addPinned(opt.Pinned, w.m-len(w.seeds))
	}
	for _, s := range w.seeds {
		if idx, ok := w.index(s.Slot()); ok {
			w.hops[idx] = 0
			w.queue = append(w.queue, idx)
			continue
		}
		w.queue = append(w.queue, w.addNode(s, s.Slot(), 0))
	}

	// Breadth-first walk. Each hop's nodes are prefetched together: their
	// records and adjacency are scattered, and loads issued side by side
	// overlap their cache misses.
	levelEnd := 0
	for qi := 0; qi < len(w.queue); qi++ {
		if w.interrupted() {
			return
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
				break
			}
			continue
		}
		if !w.expand(n, idx, h) {
			w.trunc = true
			break
		}
	}

	// Closing edges and the emit read every Shape node's record,
	// adjacency and rendering; the last hop's and pinned nodes' have not
	// been loaded yet. One loop loads them all (the others are cached).
	if w.stopped {
		return
	}
	w.sink += w.snap.Prefetch(w.slots)
	w.resolveAll()
	if w.nPinned > 1 {
		w.refinePinned()
	}
	w.closeEdges()
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

// expand adds up to F new neighbours of n (at hop h); false when M cut it.
// Cost: O(groups + F + entries skipped because their far end is in the
// Shape) plus, for a group larger than scans allows, O(|Shape|) small
// lookups: at most O(min(degree, 16·M)), never O(degree) for a hub.
func (w *walker) expand(n *store.Node, idx int32, h int) bool {
	w.curHop = h
	a := w.snap.AdjacencyAt(w.slots[idx])
	need := w.f
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
	if len(w.omitted) > 0 {
		c := Clamp{Node: n, Omitted: slices.Clone(w.omitted), slot: w.slots[idx]}
		for _, o := range w.omitted {
			c.Total += o.Count
		}
		w.clamps = append(w.clamps, c)
	}
	for _, c := range w.chosen {
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

// index returns the position in nodes of the node in slot. Most slots a
// walk asks about (neighbours of Shape nodes) are not in the Shape: the
// member bitmap answers for nearly all of them without a table probe.
func (w *walker) index(slot uint32) (int32, bool) {
	if w.member[slot>>6&7]&(1<<(slot&63)) == 0 {
		return -1, false
	}
	return w.slotSet.get(slotKey(slot))
}

// slotKey maps a node slot into the idSet key space.
func slotKey(slot uint32) store.ID { return store.ID(slot) }

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
		take := min(need, len(w.run))
		for _, t := range w.run[:take] {
			w.chosen = append(w.chosen, topEnt{n: t.n, e: t.e, typ: t.typ, dir: t.dir, slot: t.slot})
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

// ---- pinned --------------------------------------------------------------

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
		ents = ents[:limit]
		more = true
	}
	nodes = nodes[:0]
	for _, e := range ents {
		nodes = append(nodes, e.n)
	}
	return nodes, ents, arena, last, more
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

func (w *walker) addPinned(kinds []string, budget int) {
	w.kindsBuf = sortedKinds(w.kindsBuf, kinds)
	if budget < 0 {
		budget = 0
	}
	var more bool
	w.pinNodes, w.pinEnts, w.pinArena, w.pinLast, more = firstOfKinds(w.snap, w.kindsBuf, budget, &w.wl, w.seedRank, w.interrupted, w.pinNodes, w.pinEnts, w.pinArena, w.pinLast)
	if w.stopped {
		return
	}
	if more {
		w.trunc = true
	}
	for _, n := range w.pinNodes {
		w.addNode(n, n.Slot(), -1)
	}
	w.nPinned = len(w.pinNodes)
}

// ---- closing edges ---------------------------------------------------------

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

// result copies the walk into sh (reusing its slices) with the edges in
// emit order.
func (w *walker) result(sh *Shape) {
	*sh = Shape{Truncated: w.trunc, Clamps: w.clamps, Pinned: w.nPinned,
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

func cmpFields(a, b [4]uint32) int {
	for i := range a {
		if a[i] != b[i] {
			return cmp.Compare(a[i], b[i])
		}
	}
	return 0
}
