package shapewalk

import "github.com/goldfish-gql/goldfish/store"

// What a Walk is asked and what it gives: its options and the Shape.

// Defaults of Options (docs/design.md#budgets).
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
	// Lead is how many of the first seeds lead the walk: their
	// neighbourhoods, to K hops, are walked before the other seeds' are,
	// so the other seeds' neighbours never take M from them (a live task
	// before the topics seeded with it). 0: all seeds walk together.
	Lead int
	// After pages a seed's neighbours: each seed skips its first After
	// new neighbours in canonical order (shown by the Recall before),
	// neither adding nor counting them. A clamp note's Shown, added to
	// After, is the After of the next page.
	After int
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

// Clamp is the note for one node that had more new neighbours than it
// could add: F for a node past the seeds, the seed's share of M for a
// seed.
type Clamp struct {
	Node    *store.Node
	Index   int32     // Node's position in Shape.Nodes
	Omitted []Omitted // sorted by (Type, Dir)
	Total   int       // sum of Omitted counts
	// Shown is how many new neighbours the node brought into the Shape.
	Shown int
	slot  uint32
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
	// PinnedMore: the pinned kinds have live nodes the Shape left out
	// (their share of M, or M itself, was full).
	PinnedMore bool
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
