package store

import "github.com/goldfish-gql/goldfish/store/internal/btree"

// Ext is session state the store versions with its graph without reading
// it: a Tx sets one, the snapshot the Tx publishes carries it, and later
// versions inherit it until a Tx sets another, so a reader of a version
// sees the state of that version, published with its graph in the same
// pointer swap. A session's vocabulary lives here. An Ext must be
// immutable once set.
type Ext interface {
	// AppendExt appends the state's encoding, which the cabinet keeps
	// with the graph's snapshot.
	AppendExt(b []byte) []byte
}

// RawExt is an extension state still in its encoding, as the cabinet
// restores it from a snapshot: the package that owns the state decodes
// it (and sets the decoded state with Graph.SetExt); until then it
// encodes itself as the bytes it was read from.
type RawExt []byte

// AppendExt implements Ext.
func (r RawExt) AppendExt(b []byte) []byte { return append(b, r...) }

// Ext returns the version's extension state (nil if none was set).
func (s *Snapshot) Ext() Ext { return s.st.ext }

// SetExt sets the extension state the Tx publishes.
func (t *Tx) SetExt(e Ext) { t.st.ext = e }

// SetExt sets the extension state of g's published snapshot in place,
// without a new version: for hydrating a graph restored from a snapshot
// that carried one, before any reader or Tx has seen g.
func (g *Graph) SetExt(e Ext) {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := *g.pub.Load()
	s.st.ext = e
	g.pub.Store(&s)
}

// typeItem is one entry of the index of live edges by type: the type's
// small id (the graph's, as adjacency entries carry it) and the edge's
// id, 16 bytes; the record is looked up by id when the scan reaches it.
type typeItem struct {
	tid uint16
	id  ID
}

func lessTypeItem(a, b typeItem) bool {
	if a.tid != b.tid {
		return a.tid < b.tid
	}
	return a.id < b.id
}

func newTypeTree() *btree.BTreeG[typeItem] { return btree.NewG(typeTreeDegree, lessTypeItem) }

// ScanEdgeType calls fn for every live edge of type typ, in engine-id
// order (which a session's replayed history reproduces), until fn returns
// false: O((edges of the type + 1) × log n).
func (s *Snapshot) ScanEdgeType(typ string, fn func(*Edge) bool) {
	tid, ok := s.typeIDOf(typ)
	if !ok {
		return
	}
	s.st.byType.AscendGreaterOrEqual(typeItem{tid: tid}, func(it typeItem) bool {
		if it.tid != tid {
			return false
		}
		e, _ := s.Edge(it.id)
		if e == nil || (tid == tidOverflow && e.Type != typ) {
			return true // types past the small ids share one: filter by name
		}
		return fn(e)
	})
}

// typeIDOf finds the small id of an edge type in the types this version
// knows (a linear scan of at most a few dozen names: sessions hold few
// edge types), or tidOverflow for a type past the small ids.
func (s *Snapshot) typeIDOf(typ string) (uint16, bool) {
	if count(s.st.typeCnt, typ) == 0 {
		return 0, false
	}
	for i, name := range s.st.types {
		if name == typ {
			return uint16(i), true
		}
	}
	return tidOverflow, true
}

// typeTreeDegree is the index by type's B-tree degree: the default's.
// Wider nodes saved a byte or two per edge but every inserted edge
// copied four of them (3 KB each) for the versions before it: with
// ingest's spread edge ids, most of the bytes a build allocated.
const typeTreeDegree = 16
