package values

import "time"

// SessionInfo describes one session without hydrating it.
type SessionInfo struct {
	Name       string
	Version    uint64
	Nodes      int
	Edges      int
	Recycled   int
	Kinds      []KindCount // live nodes per kind, sorted by kind
	LastCommit time.Time   // zero if never committed (or in memory before any commit)
	Persisted  bool        // the cabinet holds it
}

// KindCount is the number of live nodes of one kind.
type KindCount struct {
	Kind  string
	Count int
}

// KindSchema is what the nodes of one kind hold, read from them (a
// session has no schema): how many there are, the property keys they
// carry (each with the number of nodes carrying it) and the edge types
// leaving and reaching them (each with its number of edges). gqlsh's
// :kinds shows it, as psql's \d and sqlite's .schema show a table.
type KindSchema struct {
	Kind    string
	Nodes   int
	Keys    []NameCount
	Out, In []NameCount
}

// NameCount is a name and how many times it was seen.
type NameCount struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// Names are the names a session holds, each list sorted: for completion
// and for a caller who wants to know what it may ask a Recall for.
type Names struct {
	// Labels are the labels of live nodes (kinds and the labels after
	// them), EdgeTypes the types of live edges: both exact.
	Labels, EdgeTypes []string
	// Keys are property keys and Nicks the nicks of live nodes, from at
	// most MaxNameScan nodes and as many edges, so the call stays quick
	// on a session that outgrew its Shapes.
	Keys, Nicks []string
}

// MaxNameScan bounds the elements Names reads for keys and nicks.
const MaxNameScan = 20000

// NodeData is a node as NodeByNick and Graph read it: its labels, the
// kind first, and its properties as Go values (Value.Go). It is the
// caller's to change.
type NodeData struct {
	Labels []string
	Props  map[string]any
}

// EdgeData is an edge as Graph reads it: its type, its properties and
// the indexes of its ends in Graph.Nodes.
type EdgeData struct {
	Type     string
	From, To int
	Props    map[string]any
}

// Graph is the whole of a session at one version, as Session.Graph reads
// it.
type Graph struct {
	Version uint64
	// Nodes are the live nodes in observable order, Edges the live edges
	// between them.
	Nodes []NodeData
	Edges []EdgeData
}

// AgentInfo is what a session keeps about one agent.
type AgentInfo struct {
	Name string
	// LastRead is the session version its latest Recall read.
	LastRead uint64
	// Reads is the number of its Recalls of the session.
	Reads uint64
}

// MemoryStats describe the sessions a database keeps in memory.
type MemoryStats struct {
	// Budget is the memory budget (0: none, or an in-memory database).
	Budget int64
	// ResidentSessions are the sessions hydrated now (not the catalogue),
	// ResidentBytes their estimated memory.
	ResidentSessions int
	ResidentBytes    int64
	// Unloads counts the sessions unloaded since Open, Rehydrations the
	// hydrations of unloaded sessions.
	Unloads, Rehydrations uint64
	// ShapeCacheBytes is what the Shape cache holds; under a budget it
	// counts against it with the resident sessions (the cache may then
	// take at most a quarter of the budget).
	ShapeCacheBytes int64
}

// Footprint is where one session's memory goes, in bytes, part by part
// (Session.Footprint): each object counted at its allocated length (the
// allocator rounds each up to its size class, some 3–15% more).
type Footprint struct {
	// Elements is the session's nodes and edges, live and recycled.
	Elements int
	// NodeRecords: each node's record, properties and rendering (the
	// text a Shape writes for it) with its observable key.
	NodeRecords int64
	// EdgeRecords: each edge's record and the rendering a Recall kept.
	EdgeRecords int64
	// Adjacency: the slot table (a record per node) and an entry per
	// edge end.
	Adjacency int64
	// IDIndexes: engine id to node and to edge.
	IDIndexes int64
	// OrderIndexes: nodes in observable order, by label, by property;
	// edges by type; the counters.
	OrderIndexes int64
	// NickIndex: nick and loc to node.
	NickIndex int64
	// KeywordIndex: the keyword index, once a keyword seed built it,
	// and the list of nodes changed since.
	KeywordIndex int64
	// History is what the past versions kept in memory hold beyond the
	// newest (measured as their Commits wrote), HistoryVersions how many
	// they are; Rebuilt is what versions rebuilt from the cabinet's
	// history and its index hold, when a reader asked for them.
	History         int64
	HistoryVersions int
	Rebuilt         int64
}

// Present is the newest version's memory: every part but the history.
func (f Footprint) Present() int64 {
	return f.NodeRecords + f.EdgeRecords + f.Adjacency + f.IDIndexes + f.OrderIndexes + f.NickIndex + f.KeywordIndex
}

// Total is the present and the history.
func (f Footprint) Total() int64 { return f.Present() + f.History + f.Rebuilt }
