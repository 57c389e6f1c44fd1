package store

import (
	"strconv"

	"github.com/goldfish-gql/goldfish/values"
)

// Tx is the single writer's working state. Its read methods (through
// Tx.Snapshot) see its own writes. A Tx must be used by one goroutine.
type Tx struct {
	g    *Graph
	base *Snapshot
	st   state
	done bool
	buf  []byte
	gen  uint64 // this Tx's generation: slot table parts and adjacency it owns carry it

	slotBuf []uint32
	entBuf  []adjEnt

	touched []ID // the nodes changed, when the graph tracks them

	// displaced counts the bytes of the base version's slot table,
	// adjacency and records this Tx replaced; cowBase is what its trees
	// and tries had counted when it began (see Snapshot.Displaced).
	displaced, cowBase int64
	ownsLog            bool // the change log's array is one this Tx allocated
}

// Snapshot returns a view of the working state. It is valid only until the
// next write through t (the trees are shared, not cloned); Working()
// reports true for it.
func (t *Tx) Snapshot() *Snapshot {
	return &Snapshot{version: t.base.version + 1, working: !t.done, st: t.st}
}

// Base returns the published snapshot the Tx started from.
func (t *Tx) Base() *Snapshot { return t.base }

// NewID returns a fresh engine id from the counter (always < 1<<63).
func (t *Tx) NewID() ID {
	id := t.st.nextID
	t.st.nextID++
	return ID(id)
}

func (t *Tx) noteID(id ID) {
	if id&DeterministicBit == 0 && uint64(id) >= t.st.nextID {
		t.st.nextID = uint64(id) + 1
	}
}

func (t *Tx) idTaken(id ID) bool {
	return t.st.nodes.Has(nodeItem{id: id}) || t.st.edges.Has(edgeItem{id: id})
}

// newNode builds a node record laid out for reading: its Props share the
// record's allocation (up to eight properties); its observable key and
// rendering share one string, and each scalar string value whose bytes
// appear there (most do) points into it instead of its own allocation. A
// walk or an emit meeting the node for the first time then misses on a
// few neighbouring cache lines instead of one per string. A value found
// nowhere keeps its own bytes, which other records may share.
func (t *Tx) newNode(id ID, labels []string, props values.Props) *Node {
	var n *Node
	n, t.buf = layoutNode(t.buf, id, labels, props)
	return n
}

func (t *Tx) liveNode(id ID) (nodeItem, error) {
	if t.done {
		return nodeItem{}, ErrTxDone
	}
	it, ok := t.st.nodes.Get(nodeItem{id: id})
	if !ok || it.n.Recycled {
		return nodeItem{}, ErrNotFound
	}
	return it, nil
}

func (t *Tx) liveEdge(id ID) (edgeItem, error) {
	if t.done {
		return edgeItem{}, ErrTxDone
	}
	it, ok := t.st.edges.Get(edgeItem{id: id})
	if !ok || it.e.Recycled {
		return edgeItem{}, ErrNotFound
	}
	return it, nil
}

// InsertNode creates a live node. id comes from NewID or
// DeterministicNodeID (counter-range ids above the counter advance it).
// Labels are deduplicated (first occurrence kept; Labels[0] is the kind;
// zero labels is allowed: kind ""). props is normalised (values.NormalizeProps).
// Errors: ErrIDTaken if a live or recycled node or edge has id;
// ErrNickClash if props has a STRING nick used by a live node.
func (t *Tx) InsertNode(id ID, labels []string, props values.Props) (*Node, error) {
	if t.done {
		return nil, ErrTxDone
	}
	if t.idTaken(id) {
		return nil, ErrIDTaken
	}
	props = values.NormalizeProps(props)
	if !t.nickFree(props, id) {
		return nil, ErrNickClash
	}
	labels = t.g.internLabels(labels)
	n := t.newNode(id, labels, props)
	t.newSlot(n)
	t.st.nodes.ReplaceOrInsert(nodeItem{id: id, n: n})
	t.addNodeIdx(n)
	t.st.liveNodes++
	t.noteID(id)
	return n, nil
}

func (t *Tx) replaceNode(it nodeItem, n *Node) {
	t.delNodeIdx(it.n)
	old := it.n
	t.displaced += old.recordBytes()
	n.slot = old.slot
	it.n = n
	t.st.nodes.ReplaceOrInsert(it)
	t.addNodeIdx(n)
	t.recW(n.slot).setNode(n)
	if n.okey() != old.okey() {
		t.rekey(n.slot)
	}
}

// setRec points n's slot record at n (a new record of the same node).
func (t *Tx) setRec(n *Node) {
	if n.slot != 0 {
		t.recW(n.slot).setNode(n)
	}
}

// SetProps replaces all properties of a live node (props is normalised).
// Errors: ErrNotFound, ErrNickClash.
func (t *Tx) SetProps(id ID, props values.Props) (*Node, error) {
	it, err := t.liveNode(id)
	if err != nil {
		return nil, err
	}
	props = values.NormalizeProps(props)
	if !t.nickFree(props, id) {
		return nil, ErrNickClash
	}
	n := t.newNode(id, it.n.Labels, props)
	t.replaceNode(it, n)
	return n, nil
}

// SetLabels replaces the label list of a live node. Labels are
// deduplicated; if the current kind is still present it is kept first,
// otherwise labels[0] becomes the new kind. Errors: ErrNotFound.
func (t *Tx) SetLabels(id ID, labels []string) (*Node, error) {
	it, err := t.liveNode(id)
	if err != nil {
		return nil, err
	}
	if kind := it.n.Kind(); kind != "" {
		for i, l := range labels {
			if l == kind {
				if i > 0 {
					c := make([]string, 0, len(labels))
					c = append(c, kind)
					c = append(c, labels[:i]...)
					c = append(c, labels[i+1:]...)
					labels = c
				}
				break
			}
		}
	}
	labels = t.g.internLabels(labels)
	n := t.newNode(id, labels, it.n.Props)
	t.replaceNode(it, n)
	return n, nil
}

func (t *Tx) slotOf(id ID) uint32 {
	it, _ := t.st.nodes.Get(nodeItem{id: id})
	return it.n.slot
}

func (t *Tx) linkEdge(e *Edge) {
	t.touch(e.From)
	t.touch(e.To)
	st := &t.st
	fs, ts := t.slotOf(e.From), t.slotOf(e.To)
	tid := t.g.typeID(e.Type)
	t.adjInsert(fs, adjEnt{e: e, far: ts, tid: tid, dir: Out, kh: keyByte(t.st.rec(ts).n.okey())})
	t.adjInsert(ts, adjEnt{e: e, far: fs, tid: tid, dir: In, kh: keyByte(t.st.rec(fs).n.okey())})
	t.incr(st.typeCnt, e.Type, 1)
	if len(e.Props) > 0 {
		t.incr(st.propsCnt, e.Type, 1)
	}
	st.byType.ReplaceOrInsert(typeItem{tid: tid, id: e.ID})
	st.types = t.g.typeNames // a working view's ScanEdgeType finds a type new in the Tx
}

func (t *Tx) unlinkEdge(e *Edge) {
	t.touch(e.From)
	t.touch(e.To)
	st := &t.st
	fs, ts := t.slotOf(e.From), t.slotOf(e.To)
	t.adjRemove(fs, adjEnt{e: e, far: ts, dir: Out})
	t.adjRemove(ts, adjEnt{e: e, far: fs, dir: In})
	t.incr(st.typeCnt, e.Type, -1)
	if len(e.Props) > 0 {
		t.incr(st.propsCnt, e.Type, -1)
	}
	st.byType.Delete(typeItem{tid: t.g.typeID(e.Type), id: e.ID})
}

// InsertEdge creates a live edge from → to. Errors: ErrIDTaken (a live or
// recycled node or edge has id), ErrNotFound (an end is not a live node).
func (t *Tx) InsertEdge(id ID, typ string, from, to ID, props values.Props) (*Edge, error) {
	if t.done {
		return nil, ErrTxDone
	}
	if t.idTaken(id) {
		return nil, ErrIDTaken
	}
	if _, err := t.liveNode(from); err != nil {
		return nil, err
	}
	if _, err := t.liveNode(to); err != nil {
		return nil, err
	}
	e := &Edge{ID: id, Type: t.g.internStr(typ), From: from, To: to, Props: values.NormalizeProps(props)}
	t.st.edges.ReplaceOrInsert(edgeItem{id: id, e: e})
	t.linkEdge(e)
	t.st.liveEdges++
	t.noteID(id)
	return e, nil
}

// SetEdgeProps replaces all properties of a live edge. Errors: ErrNotFound.
func (t *Tx) SetEdgeProps(id ID, props values.Props) (*Edge, error) {
	it, err := t.liveEdge(id)
	if err != nil {
		return nil, err
	}
	e := it.e.clone()
	e.Props = values.NormalizeProps(props)
	if had, has := len(it.e.Props) > 0, len(e.Props) > 0; had != has {
		d := 1
		if had {
			d = -1
		}
		t.incr(t.st.propsCnt, e.Type, d)
	}
	ne := &e
	t.displaced += sizeEdge
	t.touch(ne.From)
	t.touch(ne.To)
	t.st.edges.ReplaceOrInsert(edgeItem{id: id, e: ne})
	fs, ts := t.slotOf(ne.From), t.slotOf(ne.To)
	t.adjReplaceEdge(fs, adjEnt{e: ne, far: ts, dir: Out}, ne)
	t.adjReplaceEdge(ts, adjEnt{e: ne, far: fs, dir: In}, ne)
	return ne, nil
}

// Commit publishes the working state as version base+1 (an atomic pointer
// swap), releases the writer lock and returns the new snapshot. It always
// bumps the version, even with no writes. After Commit or Rollback it does
// nothing and returns the currently published snapshot.
func (t *Tx) Commit() *Snapshot {
	if t.done {
		return t.g.pub.Load()
	}
	t.st.types = t.g.typeNames
	t.g.touched = t.touched
	s := &Snapshot{version: t.base.version + 1, st: t.st, displaced: t.displacedBytes()}
	t.g.pub.Store(s)
	t.g.carried = t.g.transient
	t.done = true
	t.g.mu.Unlock()
	return s
}

// CommitAt is Commit publishing the working state as the given version
// instead of base+1: a graph whose version is a function of state kept
// elsewhere (the catalogue, whose version is derived from the cabinet's
// durable state, docs/design.md#persistence-and-history) jumps to it. The version must be greater than
// the base's: CommitAt panics otherwise, publishing nothing (a
// version that does not move forward would name two states; the caller
// computed it wrong), rolling the Tx back first. After Commit or Rollback it does nothing and
// returns the currently published snapshot.
func (t *Tx) CommitAt(version uint64) *Snapshot {
	if t.done {
		return t.g.pub.Load()
	}
	if version <= t.base.version {
		t.Rollback()
		panic("store: CommitAt: version " + strconv.FormatUint(version, 10) +
			" does not follow the base version " + strconv.FormatUint(t.base.version, 10))
	}
	t.st.types = t.g.typeNames
	t.g.touched = t.touched
	s := &Snapshot{version: version, st: t.st, displaced: t.displacedBytes()}
	t.g.pub.Store(s)
	t.g.carried = t.g.transient
	t.done = true
	t.g.mu.Unlock()
	return s
}

// Rollback discards the working state and releases the writer lock. It is
// idempotent and does nothing after Commit.
func (t *Tx) Rollback() {
	if t.done {
		return
	}
	t.done = true
	t.st = t.base.st
	t.g.mu.Unlock()
}

// Done reports whether the Tx has been committed or rolled back.
func (t *Tx) Done() bool { return t.done }

// displacedBytes is what the Tx displaced from its base version: the
// parts of it the working state no longer reaches.
func (t *Tx) displacedBytes() int64 { return t.st.cowDisplaced() - t.cowBase + t.displaced }
