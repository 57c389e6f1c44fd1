package store

import (
	"cmp"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
	"github.com/google/btree"

	"github.com/goldfish-gql/goldfish/tokens"
)

// ID is an engine id. It is never shown to a model. Ids below 1<<63 come
// from the per-graph counter (Tx.NewID); ids with the top bit set are
// deterministic (DeterministicNodeID, DeterministicEdgeID).
type ID uint64

// DeterministicBit is set in every deterministic id and in no counter id.
const DeterministicBit ID = 1 << 63

// Node is an immutable node record. Records reachable from a Snapshot are
// shared by all readers and must never be modified; a write creates a new
// record. Labels[0] is the kind; there are no duplicate labels.
type Node struct {
	// blob holds the rendering, blob[:textLen]: the text a Shape writes
	// for the node (see Rendering), then the observable key. The store
	// makes both with the record, in one allocation, so a Recall meeting
	// the node for the first time copies bytes instead of formatting
	// scattered properties. The fields a Recall's emit reads come first,
	// so they share the record's first cache line, and the rendering
	// starts its allocation.
	blob     string
	textLen  uint32
	cost     int32 // the rendering's token estimate (tokens.Milli); -1: too large to keep
	ID       ID
	Labels   []string
	Props    Props
	slot     uint32 // dense slot in the graph's slot table (0: none)
	Recycled bool
}

// okey returns n's observable key.
func (n *Node) okey() string { return n.blob[n.textLen:] }

// Kind returns the first label, or "" for a node without labels.
func (n *Node) Kind() string {
	if len(n.Labels) == 0 {
		return ""
	}
	return n.Labels[0]
}

// HasLabel reports whether n carries label l (at any position).
func (n *Node) HasLabel(l string) bool {
	for _, x := range n.Labels {
		if x == l {
			return true
		}
	}
	return false
}

// Edge is an immutable edge record (see Node).
type Edge struct {
	ID       ID
	Type     string
	From, To ID
	Props    Props
	Recycled bool
	memo     atomic.Pointer[Rendering]
}

// Dir selects edge directions relative to a node.
type Dir uint8

const (
	Out  Dir = 1 << iota // the node is the edge's From
	In                   // the node is the edge's To
	Both = Out | In
)

// Sentinel errors.
var (
	ErrNotFound  = errors.New("store: element not found")
	ErrNickClash = errors.New("store: nick already used by a live node")
	ErrHasEdges  = errors.New("store: node has live edges")
	ErrIDTaken   = errors.New("store: id already used by a live or recycled element")
	ErrTxDone    = errors.New("store: transaction already committed or rolled back")
)

// NickKey is the property holding a node's session-unique nick (indexed
// when its value is a STRING).
const NickKey = "nick"

// ---- index items -------------------------------------------------------

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

func (it propItem) prop() *Prop { return &it.n.Props[it.i] }

type countItem struct {
	name string
	n    int
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
	labels   *btree.BTreeG[labelItem] // (label, observable key, id), live nodes
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

// ---- Graph -------------------------------------------------------------

// Graph is one session's graph: a published snapshot plus one writer at a
// time. Readers load the published snapshot atomically and never block;
// the writer never waits for readers.
type Graph struct {
	mu  sync.Mutex // the writer lock, held from Begin to Commit/Rollback
	pub atomic.Pointer[Snapshot]
	gen uint64 // Tx generation counter (under mu)

	// Interning tables, only touched while holding mu.
	strs      map[string]string
	labelSets map[string][]string
	typeIDs   map[string]uint16 // edge type → small id for adjacency entries
	// typeNames[id] is the type of small id: append-only, so a published
	// state's prefix of it never changes.
	typeNames []string
}

// New returns an empty graph at version 0.
func New() *Graph { return NewAt(0) }

// NewAt returns an empty graph whose published snapshot has the given
// version (for hydrating a session whose log continues from there).
func NewAt(version uint64) *Graph {
	g := &Graph{strs: map[string]string{}, labelSets: map[string][]string{}}
	g.pub.Store(&Snapshot{version: version, st: newState()})
	return g
}

// Snapshot returns the published snapshot (an atomic load; never blocks).
func (g *Graph) Snapshot() *Snapshot { return g.pub.Load() }

// Begin takes the writer lock (waiting for any other writer) and starts a
// Tx from the published snapshot.
func (g *Graph) Begin() *Tx {
	g.mu.Lock()
	base := g.pub.Load()
	g.gen++
	return &Tx{g: g, base: base, st: base.st.clone(), gen: g.gen}
}

func (g *Graph) internStr(s string) string {
	if x, ok := g.strs[s]; ok {
		return x
	}
	g.strs[s] = s
	return s
}

// internLabels returns a shared, deduplicated label slice (first
// occurrence kept, empty labels dropped). The result must not be modified.
func (g *Graph) internLabels(labels []string) []string {
	if len(labels) == 0 {
		return nil
	}
	key := labels[0]
	if len(labels) > 1 {
		var kb strings.Builder
		for i, l := range labels {
			if i > 0 {
				kb.WriteByte(0)
			}
			kb.WriteString(l)
		}
		key = kb.String()
	}
	if x, ok := g.labelSets[key]; ok {
		return x
	}
	out := make([]string, 0, len(labels))
	for _, l := range labels {
		if l == "" {
			continue
		}
		dup := false
		for _, o := range out {
			if o == l {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, g.internStr(l))
		}
	}
	if len(out) == 0 {
		out = nil
	}
	g.labelSets[key] = out
	return out
}

// ---- ids ---------------------------------------------------------------

// DeterministicNodeID is the ingest id of a node: xxhash of
// (kind, 0x00, loc) with the top bit set.
func DeterministicNodeID(kind, loc string) ID {
	d := xxhash.New()
	d.WriteString(kind)
	d.Write([]byte{0})
	d.WriteString(loc)
	return ID(d.Sum64()) | DeterministicBit
}

// DeterministicEdgeID is the ingest id of an edge: xxhash of (from as 8
// big-endian bytes, typ, 0x00, to as 8 big-endian bytes) with the top bit
// set.
func DeterministicEdgeID(from ID, typ string, to ID) ID {
	var b [8]byte
	d := xxhash.New()
	binary.BigEndian.PutUint64(b[:], uint64(from))
	d.Write(b[:])
	d.WriteString(typ)
	d.Write([]byte{0})
	binary.BigEndian.PutUint64(b[:], uint64(to))
	d.Write(b[:])
	return ID(d.Sum64()) | DeterministicBit
}

// ---- observable key ----------------------------------------------------

const (
	propsKeyMax    = 72 // props part kept verbatim up to this many bytes
	propsKeyPrefix = 64 // otherwise: this many bytes + 8-byte xxhash
)

// appendObsPrefix appends kind and props parts of the observable key.
func appendObsPrefix(b []byte, kind string, props Props) []byte {
	b = appendKeyString(b, kind)
	start := len(b)
	b = appendPropsKey(b, props)
	if len(b)-start > propsKeyMax {
		h := xxhash.Sum64(b[start:])
		b = binary.BigEndian.AppendUint64(b[:start+propsKeyPrefix], h)
	}
	return b
}

func appendObservableKey(b []byte, labels []string, props Props) []byte {
	kind := ""
	if len(labels) > 0 {
		kind = labels[0]
	}
	b = appendObsPrefix(b, kind, props)
	var arr [8]string
	for _, l := range sortedExtraLabels(arr[:0], labels) {
		b = appendKeyString(b, l)
	}
	return b
}

func observableKey(labels []string, props Props) string {
	return string(appendObservableKey(nil, labels, props))
}

// ---- Snapshot ----------------------------------------------------------

// Snapshot is an immutable, consistent view of one version: safe for any
// number of goroutines. A Snapshot obtained from Tx.Snapshot is instead a
// view of the writer's working state (see there).
type Snapshot struct {
	version uint64
	working bool
	st      state
}

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

// nodeByNick looks nick up in the nick index.
func (st *state) nodeByNick(nick string) (*Node, bool) {
	return st.nicks.get(xxhash.Sum64String(nick), func(n *Node) bool {
		v, _ := nickOf(n.Props)
		return v == nick
	})
}

// putNick indexes n under nick (replacing n's earlier record), writing as
// generation gen.
func (st *state) putNick(gen uint64, nick string, n *Node) {
	st.nicks.put(gen, xxhash.Sum64String(nick), n, func(m *Node) bool { return m.ID == n.ID })
}

// delNick removes n from the index under nick.
func (st *state) delNick(gen uint64, nick string, n *Node) {
	st.nicks.del(gen, xxhash.Sum64String(nick), func(m *Node) bool { return m.ID == n.ID })
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
func (s *Snapshot) ScanLabel(label string, fn func(*Node) bool) {
	s.st.labels.AscendGreaterOrEqual(labelItem{label: label, n: minNode}, func(it labelItem) bool {
		if it.label != label {
			return false
		}
		return fn(it.n)
	})
}

// ScanProp calls fn for the live nodes whose property key is Equal to v, in
// observable order, until fn returns false. A null v matches nothing.
// Cost: O(log n + hits).
func (s *Snapshot) ScanProp(key string, v Value, fn func(*Node) bool) {
	if v.IsNull() {
		return
	}
	if key == LocKey && v.Kind() == KindString && s.st.scanLoc(v.AsString(), fn) {
		return
	}
	pivot := &Node{Props: Props{{key, v}}}
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
func (s *Snapshot) ScanIdentical(kind string, props Props, fn func(*Node) bool) {
	props = NormalizeProps(props)
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
	var buf [64]byte
	prefix := string(appendKeyString(buf[:0], kind))
	s.st.all.AscendGreaterOrEqual(&Node{blob: prefix}, func(n *Node) bool {
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
// before In), then edge Type, then engine edge id (as before the slot
// table; the canonical neighbour order is Snapshot.Adjacency's). Cost:
// O(log n) for the id, then O(hits) (a group with several edges is sorted
// by edge id on the fly).
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

// ---- Tx ----------------------------------------------------------------

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

func (t *Tx) incr(tr *btree.BTreeG[countItem], name string, d int) {
	it, _ := tr.Get(countItem{name: name})
	it.name = name
	it.n += d
	if it.n <= 0 {
		tr.Delete(it)
	} else {
		tr.ReplaceOrInsert(it)
	}
}

func nickOf(p Props) (string, bool) {
	v, ok := p.Get(NickKey)
	if !ok || v.Kind() != KindString {
		return "", false
	}
	return v.AsString(), true
}

// nickFree reports whether nick is unused by live nodes other than self.
func (t *Tx) nickFree(p Props, self ID) bool {
	nick, ok := nickOf(p)
	if !ok {
		return true
	}
	n, ok := t.st.nodeByNick(nick)
	return !ok || n.ID == self
}

func (t *Tx) addNodeIdx(n *Node) {
	st := &t.st
	st.changed = append(st.changed, n.slot)
	st.all.ReplaceOrInsert(n)
	for _, l := range n.Labels {
		st.labels.ReplaceOrInsert(labelItem{label: l, n: n})
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
	st := &t.st
	st.all.Delete(n)
	for _, l := range n.Labels {
		st.labels.Delete(labelItem{label: l, n: n})
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

// newNode builds a node record laid out for reading: its Props share the
// record's allocation (up to eight properties); its observable key and
// rendering share one string, and each scalar string value whose bytes
// appear there (most do) points into it instead of its own allocation. A
// walk or an emit meeting the node for the first time then misses on a
// few neighbouring cache lines instead of one per string. A value found
// nowhere keeps its own bytes, which other records may share.
func (t *Tx) newNode(id ID, labels []string, props Props) *Node {
	var n *Node
	n, t.buf = layoutNode(t.buf, id, labels, props)
	return n
}

// layoutNode is newNode with buf as scratch space for the key and the
// rendering; it returns buf for reuse.
func layoutNode(buf []byte, id ID, labels []string, props Props) (*Node, []byte) {
	buf = appendRendering(buf[:0], labels, props)
	textLen := len(buf)
	buf = appendObservableKey(buf, labels, props)
	n := nodeWithProps(len(props))
	n.ID, n.Labels, n.blob, n.textLen = id, labels, string(buf), uint32(textLen)
	n.cost = keptCost(tokens.Milli(buf[:textLen]))
	for i, p := range props {
		if v := &p.Val; v.l == nil && len(v.s) > 0 {
			if at := strings.Index(n.blob, v.s); at >= 0 {
				v.s = n.blob[at : at+len(v.s)] // the same bytes
			}
		}
		n.Props[i] = p
	}
	return n, buf
}

// nodeWithProps returns a node whose Props (length k) are allocated with
// it when k is small.
func nodeWithProps(k int) *Node {
	switch k {
	case 0:
		return &Node{}
	case 1:
		return withProps(func(p *[1]Prop) Props { return p[:] })
	case 2:
		return withProps(func(p *[2]Prop) Props { return p[:] })
	case 3:
		return withProps(func(p *[3]Prop) Props { return p[:] })
	case 4:
		return withProps(func(p *[4]Prop) Props { return p[:] })
	case 5:
		return withProps(func(p *[5]Prop) Props { return p[:] })
	case 6:
		return withProps(func(p *[6]Prop) Props { return p[:] })
	case 7:
		return withProps(func(p *[7]Prop) Props { return p[:] })
	case 8:
		return withProps(func(p *[8]Prop) Props { return p[:] })
	}
	return &Node{Props: make(Props, k)}
}

// withProps allocates a node and an array A of properties together; all
// slices the array.
func withProps[A any](all func(*A) Props) *Node {
	b := new(struct {
		n Node
		p A
	})
	b.n.Props = all(&b.p)
	return &b.n
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
// zero labels is allowed: kind ""). props is normalised (NormalizeProps).
// Errors: ErrIDTaken if a live or recycled node or edge has id;
// ErrNickClash if props has a STRING nick used by a live node.
func (t *Tx) InsertNode(id ID, labels []string, props Props) (*Node, error) {
	if t.done {
		return nil, ErrTxDone
	}
	if t.idTaken(id) {
		return nil, ErrIDTaken
	}
	props = NormalizeProps(props)
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
func (t *Tx) SetProps(id ID, props Props) (*Node, error) {
	it, err := t.liveNode(id)
	if err != nil {
		return nil, err
	}
	props = NormalizeProps(props)
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

func (g *Graph) typeID(typ string) uint16 {
	if id, ok := g.typeIDs[typ]; ok {
		return id
	}
	id := uint16(tidOverflow)
	if len(g.typeIDs) < tidOverflow {
		id = uint16(len(g.typeIDs))
		g.typeNames = append(g.typeNames, typ)
	}
	if g.typeIDs == nil {
		g.typeIDs = map[string]uint16{}
	}
	g.typeIDs[typ] = id
	return id
}

func (t *Tx) linkEdge(e *Edge) {
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
func (t *Tx) InsertEdge(id ID, typ string, from, to ID, props Props) (*Edge, error) {
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
	e := &Edge{ID: id, Type: t.g.internStr(typ), From: from, To: to, Props: NormalizeProps(props)}
	t.st.edges.ReplaceOrInsert(edgeItem{id: id, e: e})
	t.linkEdge(e)
	t.st.liveEdges++
	t.noteID(id)
	return e, nil
}

// SetEdgeProps replaces all properties of a live edge. Errors: ErrNotFound.
func (t *Tx) SetEdgeProps(id ID, props Props) (*Edge, error) {
	it, err := t.liveEdge(id)
	if err != nil {
		return nil, err
	}
	e := it.e.clone()
	e.Props = NormalizeProps(props)
	if had, has := len(it.e.Props) > 0, len(e.Props) > 0; had != has {
		d := 1
		if had {
			d = -1
		}
		t.incr(t.st.propsCnt, e.Type, d)
	}
	ne := &e
	t.st.edges.ReplaceOrInsert(edgeItem{id: id, e: ne})
	fs, ts := t.slotOf(ne.From), t.slotOf(ne.To)
	t.adjReplaceEdge(fs, adjEnt{e: ne, far: ts, dir: Out}, ne)
	t.adjReplaceEdge(ts, adjEnt{e: ne, far: fs, dir: In}, ne)
	return ne, nil
}

// RecycleNode recycles a live node: it disappears from every scan and
// index (its nick becomes free) but stays retrievable with RecycledNode
// until purged. Errors: ErrNotFound, ErrHasEdges if it has live edges
// (recycle them first for DETACH).
func (t *Tx) RecycleNode(id ID) error {
	it, err := t.liveNode(id)
	if err != nil {
		return err
	}
	if r := t.st.rec(it.n.slot); r != nil && r.out+r.in > 0 {
		return ErrHasEdges
	}
	t.delNodeIdx(it.n)
	n := it.n.clone()
	n.Recycled = true
	it.n = &n
	t.st.nodes.ReplaceOrInsert(it)
	t.setRec(&n)
	t.st.liveNodes--
	t.st.recycled++
	return nil
}

// RecycleEdge recycles a live edge. Errors: ErrNotFound.
func (t *Tx) RecycleEdge(id ID) error {
	it, err := t.liveEdge(id)
	if err != nil {
		return err
	}
	t.unlinkEdge(it.e)
	e := it.e.clone()
	e.Recycled = true
	t.st.edges.ReplaceOrInsert(edgeItem{id: id, e: &e})
	t.st.liveEdges--
	t.st.recycled++
	return nil
}

// Revive makes a recycled node or edge live again with its old content
// (the caller may then SetProps). Reviving a live element is a no-op.
// Errors: ErrNotFound (no such element, or an edge end is not live),
// ErrNickClash (the node's nick has been taken meanwhile).
func (t *Tx) Revive(id ID) error {
	if t.done {
		return ErrTxDone
	}
	if it, ok := t.st.nodes.Get(nodeItem{id: id}); ok {
		if !it.n.Recycled {
			return nil
		}
		if !t.nickFree(it.n.Props, id) {
			return ErrNickClash
		}
		n := it.n.clone()
		n.Recycled = false
		it.n = &n
		t.st.nodes.ReplaceOrInsert(it)
		t.setRec(&n)
		t.addNodeIdx(it.n)
		t.st.liveNodes++
		t.st.recycled--
		return nil
	}
	if it, ok := t.st.edges.Get(edgeItem{id: id}); ok {
		if !it.e.Recycled {
			return nil
		}
		if _, err := t.liveNode(it.e.From); err != nil {
			return err
		}
		if _, err := t.liveNode(it.e.To); err != nil {
			return err
		}
		e := it.e.clone()
		e.Recycled = false
		t.st.edges.ReplaceOrInsert(edgeItem{id: id, e: &e})
		t.linkEdge(&e)
		t.st.liveEdges++
		t.st.recycled--
		return nil
	}
	return ErrNotFound
}

// Purge removes a recycled node or edge for good (its id becomes free).
// Purge a node's recycled edges before the node: Purge does not look for
// them (that is a scan of every edge), and a recycled edge whose end is
// gone can be neither revived nor restored. Errors: ErrNotFound if id is
// not a recycled element.
func (t *Tx) Purge(id ID) error {
	if t.done {
		return ErrTxDone
	}
	if it, ok := t.st.nodes.Get(nodeItem{id: id}); ok && it.n.Recycled {
		t.st.nodes.Delete(it)
		if it.n.slot != 0 {
			r := t.recW(it.n.slot)
			r.n, r.adj = nil, nil
		}
		t.st.recycled--
		return nil
	}
	if it, ok := t.st.edges.Get(edgeItem{id: id}); ok && it.e.Recycled {
		t.st.edges.Delete(it)
		t.st.recycled--
		return nil
	}
	return ErrNotFound
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
	s := &Snapshot{version: t.base.version + 1, st: t.st}
	t.g.pub.Store(s)
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

// ---- renderings ------------------------------------------------------------

// Rendering is an edge's text as a Shape writes it (type, then the
// property literal) with a cost its renderer derives from the text (the
// token estimate). It is computed on first use and kept with the immutable
// record; a write makes a new record without one. (A node's rendering is
// made with its record: see Node.Rendering.)
type Rendering struct {
	Text []byte
	Cost int64
}

// Rendering returns the text a Shape writes for n (its labels, kind first
// and the others sorted, then its property literal) and that text's token
// estimate (tokens.Milli).
func (n *Node) Rendering() (text string, cost int64) {
	if n.blob == "" && (len(n.Labels) > 0 || len(n.Props) > 0) {
		// A record the store did not make (a caller's literal).
		b := appendRendering(nil, n.Labels, n.Props)
		return string(b), tokens.Milli(b)
	}
	text = n.blob[:n.textLen]
	return text, costOf(text, n.cost)
}

// costOf is the cost of a kept rendering, text, whose record keeps kept
// (keptCost): counted afresh when too large to keep.
func costOf(text string, kept int32) int64 {
	if kept < 0 {
		return tokens.MilliString(text)
	}
	return int64(kept)
}

// keptCost is a rendering's cost as a record keeps it.
func keptCost(c int64) int32 {
	if c > math.MaxInt32 {
		return -1
	}
	return int32(c)
}

// Rendering returns e's kept rendering, or nil.
func (e *Edge) Rendering() *Rendering { return e.memo.Load() }

// KeepRendering keeps r as e's rendering unless one is kept already, and
// returns the kept one. Renderers must produce the same r for the same e.
func (e *Edge) KeepRendering(r *Rendering) *Rendering {
	if e.memo.CompareAndSwap(nil, r) {
		return r
	}
	return e.memo.Load()
}

// clone copies n's record, key and rendering included: callers change
// only its Recycled flag (a change of labels or properties lays out a new
// record).
func (n *Node) clone() Node {
	return Node{ID: n.ID, Labels: n.Labels, Props: n.Props, Recycled: n.Recycled, blob: n.blob, textLen: n.textLen, cost: n.cost, slot: n.slot}
}

// clone copies e's content; the rendering is not copied (the copy is about
// to change).
func (e *Edge) clone() Edge {
	return Edge{ID: e.ID, Type: e.Type, From: e.From, To: e.To, Props: e.Props, Recycled: e.Recycled}
}
