package store

import (
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// ---- slot table and per-node adjacency ---------------------------------
//
// Every node gets a dense slot (1-based; 0 means "no slot", e.g. a Node
// literal built outside the store) when first inserted; recycling keeps
// it, and it is never reused (Purge clears the record). The slot table is
// a persistent array in three levels: state.dirs is a slice of pointers
// to directories of 64 leaves of 16 records. A Tx copies the directory
// slice once and each directory and leaf it writes once (tracked with the
// Tx's generation number), so published snapshots are never modified,
// and a write that touches scattered slots copies a 1 KB leaf and a
// 512-byte directory per slot, not a large block of records. (Leaves of
// 32 and directories of 256 made an ingest of the standard library
// allocate 5% more, all of it copies the versions before kept; the
// directory slice a Tx copies whole is a pointer per 1,024 slots, 8 KB
// at a million nodes.)
//
// A record (one 64-byte cache line) holds the node's current *Node, a
// copy of that record's rendering reference (so an emit need not load the
// record), its live out/in degree and its adjacency: an immutable (per
// version) slice of entries {edge, far slot, direction} sorted by
//
//	(edge type, direction (Out before In), far node's observable key,
//	 far node's engine id, edge id)
//
// i.e. the walk's canonical neighbour order (docs/design.md#the-walk) up to the WL tie-break
// within runs of observably equal neighbours (engine ids only make the
// order total). A Tx copies a record's adjacency slice the first time it
// writes it and then edits it in place.
//
// Cost of keeping the order: inserting or removing an edge is a binary
// search plus an O(degree) slice copy at each end. When a node's
// observable key changes (SetProps, SetLabels), its entries are moved in
// each neighbour's list: O(Σ neighbour degrees) per such write (a node
// adjacent to a hub pays the hub's degree).

const (
	leafShift = 4 // 16 records per leaf
	leafSize  = 1 << leafShift
	leafMask  = leafSize - 1
	dirShift  = 6 // 64 leaves per directory
	dirSize   = 1 << dirShift
	dirMask   = dirSize - 1
)

type adjEnt struct {
	e   *Edge
	far uint32
	tid uint16 // interned edge type (per graph; tidOverflow: compare e.Type)
	dir Dir
	kh  uint8 // keyByte of the far node's observable key
}

// keyByte hashes an observable key to one byte, kept in adjacency entries
// so a walk tells most neighbours' keys apart without loading the far
// nodes (equal bytes still need the keys compared).
func keyByte(okey string) uint8 { return uint8(xxhash.Sum64String(okey)) }

// tidOverflow marks an entry whose type got no small id (more than 65535
// distinct edge types in one graph): group tests fall back to strings.
const tidOverflow = 0xFFFF

func sameGroup(a, b adjEnt) bool {
	if a.dir != b.dir || a.tid != b.tid {
		return false
	}
	return a.tid != tidOverflow || a.e.Type == b.e.Type
}

type slotRec struct {
	n       *Node
	adj     []adjEnt
	out, in uint32 // live degree
	gen     uint64 // generation of the Tx that owns adj (may edit in place)
	// n's rendering and its cost (see Node.Rendering), kept beside the
	// adjacency so a Recall's emit reads it without loading n's record.
	// With these a record is one 64-byte cache line.
	text    *byte
	textLen uint32
	cost    int32
}

type slotDir struct {
	gen    uint64
	leaves [dirSize]*slotLeaf // nil past the last slot
}

type slotLeaf struct {
	recs [leafSize]slotRec // first, so each record is aligned to a cache line
	gen  uint64
}

// recOf returns the record of slot (nil when out of range or slot 0).
func recOf(dirs []*slotDir, slot uint32) *slotRec {
	di := int(slot >> (leafShift + dirShift))
	if slot == 0 || di >= len(dirs) {
		return nil
	}
	l := dirs[di].leaves[(slot>>leafShift)&dirMask]
	if l == nil {
		return nil
	}
	return &l.recs[slot&leafMask]
}

func (s *state) rec(slot uint32) *slotRec { return recOf(s.dirs, slot) }

// recFor returns the record of node n in s (by slot when n has one and it
// matches, else through the id index), or nil.
func (s *state) recFor(n *Node) *slotRec {
	if r := s.rec(n.slot); r != nil && (r.n == n || r.n != nil && r.n.ID == n.ID) {
		return r
	}
	it, ok := s.nodes.Get(nodeItem{id: n.ID})
	if !ok {
		return nil
	}
	return s.rec(it.n.slot)
}

func (s *state) recByID(id ID) *slotRec {
	it, ok := s.nodes.Get(nodeItem{id: id})
	if !ok {
		return nil
	}
	return s.rec(it.n.slot)
}

// cmpEnt orders adjacency entries (see above).
func (s *state) cmpEnt(a, b adjEnt) int {
	if a.e.Type != b.e.Type {
		return strings.Compare(a.e.Type, b.e.Type)
	}
	if a.dir != b.dir {
		return int(a.dir) - int(b.dir)
	}
	if a.far != b.far {
		fa, fb := s.rec(a.far).n, s.rec(b.far).n
		if c := strings.Compare(fa.okey(), fb.okey()); c != 0 {
			return c
		}
		if fa.ID != fb.ID {
			if fa.ID < fb.ID {
				return -1
			}
			return 1
		}
	}
	if a.e.ID != b.e.ID {
		if a.e.ID < b.e.ID {
			return -1
		}
		return 1
	}
	return 0
}

// ---- Tx side -----------------------------------------------------------

// recW returns slot's record, writable by t (copying the directory slice,
// the directory and the leaf on first write in this Tx).
func (t *Tx) recW(slot uint32) *slotRec {
	st := &t.st
	if st.dirsGen != t.gen {
		t.displaced += int64(cap(st.dirs)) * sizePtr
		st.dirs = slices.Clone(st.dirs)
		st.dirsGen = t.gen
	}
	di := int(slot >> (leafShift + dirShift))
	for di >= len(st.dirs) {
		st.dirs = append(st.dirs, &slotDir{gen: t.gen})
	}
	d := st.dirs[di]
	if d.gen != t.gen {
		t.displaced += sizeSlotDir
		nd := new(slotDir)
		*nd = *d
		nd.gen = t.gen
		st.dirs[di] = nd
		d = nd
	}
	li := (slot >> leafShift) & dirMask
	l := d.leaves[li]
	switch {
	case l == nil:
		l = &slotLeaf{gen: t.gen}
		d.leaves[li] = l
	case l.gen != t.gen:
		t.displaced += sizeLeaf
		nl := new(slotLeaf)
		*nl = *l
		nl.gen = t.gen
		d.leaves[li] = nl
		l = nl
	}
	return &l.recs[slot&leafMask]
}

// adjW makes r's adjacency owned by t and returns it.
func (t *Tx) adjW(r *slotRec) []adjEnt {
	if r.gen != t.gen {
		t.displaced += int64(cap(r.adj)) * sizeAdjEnt
		a := make([]adjEnt, len(r.adj), len(r.adj)+1)
		copy(a, r.adj)
		r.adj, r.gen = a, t.gen
	}
	return r.adj
}

func (t *Tx) newSlot(n *Node) {
	t.st.nslots++
	n.slot = t.st.nslots
	t.recW(n.slot).setNode(n)
}

func (t *Tx) searchEnt(adj []adjEnt, x adjEnt) int {
	lo, hi := 0, len(adj)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.st.cmpEnt(adj[m], x) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

func (t *Tx) adjInsert(slot uint32, x adjEnt) {
	r := t.recW(slot)
	adj := t.adjW(r)
	i := t.searchEnt(adj, x)
	r.adj = slices.Insert(adj, i, x)
	if x.dir == Out {
		r.out++
	} else {
		r.in++
	}
}

// adjFind returns the index of the entry for edge id (dir, far) in adj,
// or -1.
func (t *Tx) adjFind(adj []adjEnt, x adjEnt) int {
	i := t.searchEnt(adj, x)
	if i < len(adj) && adj[i].e.ID == x.e.ID && adj[i].dir == x.dir {
		return i
	}
	for i := range adj { // defensive; cannot happen while lists are sorted
		if adj[i].e.ID == x.e.ID && adj[i].dir == x.dir {
			return i
		}
	}
	return -1
}

func (t *Tx) adjRemove(slot uint32, x adjEnt) {
	r := t.recW(slot)
	adj := t.adjW(r)
	if i := t.adjFind(adj, x); i >= 0 {
		r.adj = slices.Delete(adj, i, i+1)
		if x.dir == Out {
			r.out--
		} else {
			r.in--
		}
	}
}

func (t *Tx) adjReplaceEdge(slot uint32, x adjEnt, ne *Edge) {
	r := t.recW(slot)
	adj := t.adjW(r)
	if i := t.adjFind(adj, x); i >= 0 {
		adj[i].e = ne
	}
}

// rekey is called after node slot's record got a node with a different
// observable key: it moves the node's entries in its neighbours' lists
// (and re-sorts its own list if it has self-loops).
func (t *Tx) rekey(slot uint32) {
	r := t.st.rec(slot)
	if len(r.adj) == 0 {
		return
	}
	fars := t.slotBuf[:0]
	self := false
	for _, a := range r.adj {
		if a.far == slot {
			self = true
		} else {
			fars = append(fars, a.far)
		}
	}
	slices.Sort(fars)
	fars = slices.Compact(fars)
	for _, f := range fars {
		fr := t.recW(f)
		adj := t.adjW(fr)
		moved := t.entBuf[:0]
		k := 0
		for _, a := range adj {
			if a.far == slot {
				moved = append(moved, a)
			} else {
				adj[k] = a
				k++
			}
		}
		clear(adj[k:])
		adj = adj[:k]
		kh := keyByte(r.n.okey())
		for _, a := range moved {
			a.kh = kh
			i := t.searchEnt(adj, a)
			adj = slices.Insert(adj, i, a)
		}
		fr.adj = adj
		t.entBuf = moved[:0]
	}
	t.slotBuf = fars[:0]
	if self {
		rw := t.recW(slot)
		adj := t.adjW(rw)
		kh := keyByte(rw.n.okey())
		for i := range adj {
			if adj[i].far == slot {
				adj[i].kh = kh
			}
		}
		slices.SortFunc(adj, t.st.cmpEnt)
	}
}

// ---- read side: Adjacency ----------------------------------------------

// Adjacency is a read-only view of one node's live incident edges in a
// snapshot, in canonical neighbour order:
//
//	(edge type, direction (Out before In), far node's observable key,
//	 far node's engine id, edge id)
//
// Entries of one (type, direction) form a contiguous group. A self-loop
// appears twice (once Out, once In). Every accessor is O(1) except the
// group and far-node searches, which are binary searches. The zero value
// is an empty adjacency.
type Adjacency struct {
	dirs    []*slotDir
	types   []string
	ents    []adjEnt
	out, in int
}

// Adjacency returns n's adjacency in s (empty when n is not live in s).
// O(1) when n is a record of s's graph; otherwise an id lookup.
func (s *Snapshot) Adjacency(n *Node) Adjacency {
	if n == nil {
		return Adjacency{}
	}
	r := s.st.recFor(n)
	if r == nil || r.n == nil || r.n.Recycled {
		return Adjacency{}
	}
	return s.adjOf(r)
}

func (s *Snapshot) adjOf(r *slotRec) Adjacency {
	return Adjacency{dirs: s.st.dirs, types: s.st.types, ents: r.adj, out: int(r.out), in: int(r.in)}
}

// NodeAt returns the node record in slot (live or recycled), or nil. A
// walk that goes by slots resolves nodes with it.
func (s *Snapshot) NodeAt(slot uint32) *Node {
	if r := s.st.rec(slot); r != nil {
		return r.n
	}
	return nil
}

// Current returns the live record of n's node in s: O(1) through n's slot
// when n is a record of s's graph, else an id lookup.
func (s *Snapshot) Current(n *Node) (*Node, bool) {
	if r := s.st.rec(n.slot); r != nil && r.n == n {
		return n, !n.Recycled
	}
	return s.Node(n.ID)
}

// Prefetch loads what a walk and then its emit read for each slot (its
// record, the ends of its adjacency, its rendering) in one loop of
// independent loads, so their cache misses overlap instead of queueing.
// It returns a value made of the loads; callers keep it (anywhere) so
// they are not dropped.
//
//go:noinline
func (s *Snapshot) Prefetch(slots []uint32) uint64 {
	var sink uint64
	dirs := s.st.dirs
	for _, slot := range slots {
		r := recOf(dirs, slot)
		if r == nil || r.n == nil {
			continue
		}
		if len(r.adj) > 0 {
			sink += uint64(r.adj[0].far) + uint64(r.adj[len(r.adj)-1].far)
		}
		sink += r.touchText()
	}
	return sink
}

// RenderingAt returns what NodeAt(slot).Rendering() returns, read from
// the slot table: a Recall's emit copies a node's text without loading
// its record.
func (s *Snapshot) RenderingAt(slot uint32) (text string, cost int64) {
	r := s.st.rec(slot)
	if r == nil || r.n == nil {
		return "", 0
	}
	// Every record in the table was laid out by the store (layoutNode,
	// or a clone of such a record), so its text is kept.
	text = r.rendering()
	return text, costOf(text, r.cost)
}

// AdjacencyAt returns the adjacency of the live node in slot (empty when
// there is none): what Adjacency gives, without loading the node record.
func (s *Snapshot) AdjacencyAt(slot uint32) Adjacency {
	r := s.st.rec(slot)
	if r == nil {
		return Adjacency{}
	}
	// A recycled node has no live edges (RecycleNode refuses one that
	// has), so its list is empty: no need to load the node to check.
	// Purge clears the record.
	return s.adjOf(r)
}

// Len returns the number of entries (the degree, self-loops twice).
func (a Adjacency) Len() int { return len(a.ents) }

// Degree returns the number of entries in the given directions.
func (a Adjacency) Degree(dir Dir) int {
	d := 0
	if dir&Out != 0 {
		d += a.out
	}
	if dir&In != 0 {
		d += a.in
	}
	return d
}

// Edge returns the edge of entry i.
func (a Adjacency) Edge(i int) *Edge { return a.ents[i].e }

// Dir returns the direction of entry i as seen from the node (Out or In).
func (a Adjacency) Dir(i int) Dir { return a.ents[i].dir }

// Type returns the edge type of entry i (from the type table when it
// knows the entry's type id, so the edge record is not loaded).
func (a Adjacency) Type(i int) string { return a.typeOf(a.ents[i]) }

// SameFarKey reports whether entries i and j lead to far nodes with equal
// observable keys. The far nodes are loaded only when the keys' hash
// bytes agree.
func (a Adjacency) SameFarKey(i, j int) bool {
	x, y := a.ents[i], a.ents[j]
	if x.far == y.far {
		return true
	}
	if x.kh != y.kh {
		return false
	}
	return recOf(a.dirs, x.far).n.okey() == recOf(a.dirs, y.far).n.okey()
}

// Far returns the node at the other end of entry i (the node itself for a
// self-loop), without any lookup.
func (a Adjacency) Far(i int) *Node { return recOf(a.dirs, a.ents[i].far).n }

// FarSlot returns the slot of the far node of entry i (compare with
// Node.Slot; no memory access beyond the entry).
func (a Adjacency) FarSlot(i int) uint32 { return a.ents[i].far }

// Slot returns n's dense slot in its graph's slot table: a small engine
// index, unique per live or recycled node of one graph (0 for a Node not
// created by the store). Like the engine id it is never observable.
func (n *Node) Slot() uint32 { return n.slot }

// At returns entry i: edge, far node, direction.
func (a Adjacency) At(i int) (*Edge, *Node, Dir) {
	x := a.ents[i]
	return x.e, recOf(a.dirs, x.far).n, x.dir
}

// typeOf is entry x's edge type, from the type table when it knows x's
// type id (no edge load).
func (a Adjacency) typeOf(x adjEnt) string {
	if t := int(x.tid); t < len(a.types) {
		return a.types[t]
	}
	return x.e.Type
}

func (a Adjacency) grpLess(x adjEnt, typ string, dir Dir) bool {
	if t := a.typeOf(x); t != typ {
		return t < typ
	}
	return x.dir < dir
}

// GroupEnd returns the end of the (type, direction) group containing
// entry i (binary search).
func (a Adjacency) GroupEnd(i int) int {
	g := a.ents[i]
	lo, hi := i+1, len(a.ents)
	if lo < hi && !sameGroup(a.ents[lo], g) {
		return lo
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if sameGroup(a.ents[m], g) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// Group returns the index range [lo, hi) of the entries of edge type typ
// in direction dir (Out or In).
func (a Adjacency) Group(typ string, dir Dir) (lo, hi int) {
	lo, hi = 0, len(a.ents)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if a.grpLess(a.ents[m], typ, dir) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(a.ents) || a.typeOf(a.ents[lo]) != typ || a.ents[lo].dir != dir {
		return lo, lo
	}
	return lo, a.GroupEnd(lo)
}

// FarRange returns the index range [i, j) within the group range
// [lo, hi) (one (type, direction) group) of the entries whose far node is
// far (binary search on the far node's observable key and id).
func (a Adjacency) FarRange(lo, hi int, far *Node) (int, int) {
	key, id := far.ObservableKey(), far.ID
	less := func(x adjEnt) bool {
		f := recOf(a.dirs, x.far).n
		if fk := f.okey(); fk != key {
			return fk < key
		}
		return f.ID < id
	}
	l, h := lo, hi
	for l < h {
		m := int(uint(l+h) >> 1)
		if less(a.ents[m]) {
			l = m + 1
		} else {
			h = m
		}
	}
	j := l
	for j < hi && recOf(a.dirs, a.ents[j].far).n.ID == id {
		j++
	}
	return l, j
}

// ObservableKey returns n's observable order key (see package doc) as a
// string, without allocating for records built by the store.
func (n *Node) ObservableKey() string {
	if n.blob != "" {
		return n.okey()
	}
	return observableKey(n.Labels, n.Props)
}
