package store

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
)

// A Graph: the published snapshot, the writer lock that allows one Tx
// at a time, and the tables that intern the strings its records share.

// Sentinel errors.
var (
	ErrNotFound  = errors.New("store: element not found")
	ErrNickClash = errors.New("store: nick already used by a live node")
	ErrHasEdges  = errors.New("store: node has live edges")
	ErrIDTaken   = errors.New("store: id already used by a live or recycled element")
	ErrTxDone    = errors.New("store: transaction already committed or rolled back")
)

// Graph is one session's graph: a published snapshot plus one writer at a
// time. Readers load the published snapshot atomically and never block;
// the writer never waits for readers.
type Graph struct {
	mu  sync.Mutex // the writer lock, held from Begin to Commit/Rollback
	pub atomic.Pointer[Snapshot]
	gen uint64 // the generation of the latest Tx (under mu), from txGens

	// track makes each Tx note the nodes it changes (TrackTouched);
	// touched is what the last committed one noted.
	track   bool
	touched []ID

	// transient makes a Tx write in place what the previous one made
	// (Transient); carried says the published state is the working state
	// of the Tx of generation gen, committed while transient was set, so
	// the next Tx may carry on writing it.
	transient, carried bool

	// Interning tables, only touched while holding mu.
	strs      map[string]string
	labelSets map[string][]string
	typeIDs   map[string]uint16 // edge type → small id for adjacency entries
	// typeNames[id] is the type of small id: append-only, so a published
	// state's prefix of it never changes.
	typeNames []string
}

// txGens numbers the Txs of every graph: a part a Tx made carries its
// generation and is edited in place only by that Tx, so generations must
// differ between graphs that share parts (Snapshot.Fork).
var txGens atomic.Uint64

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
	if g.transient && g.carried {
		// The published state is the last Tx's own: its trees' copy-on-write
		// contexts and its generation's parts are written on in place.
		g.carried = false
		return &Tx{g: g, base: base, st: base.st, gen: g.gen, cowBase: base.st.cowDisplaced()}
	}
	g.carried = false
	g.gen = txGens.Add(1)
	st := base.st.clone()
	return &Tx{g: g, base: base, st: st, gen: g.gen, cowBase: st.cowDisplaced()}
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

// typeID returns the small id adjacency entries carry for edge type typ,
// giving the type the next one when it has none (tidOverflow once they
// run out).
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
