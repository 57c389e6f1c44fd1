package values

import "time"

// DefaultDiffRows is the most rows a Diff's Δ may write or bind when
// DiffOptions.MaxRows is 0 (the session's R bounds it too).
const DefaultDiffRows = 1000

// DefaultHistory is how many versions History and Versions list when
// their limit is 0.
const DefaultHistory = 20

// DiffOptions narrow and bound one Diff.
type DiffOptions struct {
	// Nicks and Kinds narrow the diff to the changes of the nodes with
	// those nicks, or of those kinds (at either version), and of their
	// edges: what to ask for when a whole diff is over its bound.
	Nicks, Kinds []string
	// MaxRows bounds the rows the Δ writes or binds (DefaultDiffRows
	// when 0); the session's R bounds them too.
	MaxRows int
}

// Diff is the change between two versions of a session as one Δ.
type Diff struct {
	// The JSON form is the one gqlsh --format json prints and the
	// server's diff endpoint answers.
	From uint64 `json:"from"`
	To   uint64 `json:"to"`
	// What the Δ does.
	NodesCreated int `json:"nodes_created"`
	NodesDeleted int `json:"nodes_deleted"`
	NodesChanged int `json:"nodes_changed"`
	EdgesCreated int `json:"edges_created"`
	EdgesDeleted int `json:"edges_deleted"`
	// Rows is what the Δ writes or binds, at most Bound.
	Rows  int `json:"rows"`
	Bound int `json:"bound"`
	// Views and Actions count the vocabulary registered, replaced or
	// dropped between the versions (not in the Δ).
	Views   int `json:"views_changed"`
	Actions int `json:"actions_changed"`
	// Text is GQL: a header comment ("// goldfish diff session=… from=…
	// to=… nodes=+c-d~m edges=+c-d rows=n/bound"), a vocabulary line
	// when views or actions changed between the versions (they are not
	// in the Δ), then the statements. Committed as one Commit (default
	// mint) on a copy of version From, it gives version To's graph, ids
	// aside: the nodes and edges Dump lists are the same, though the
	// recycled count of the copy may differ (it deleted what it did not
	// need to keep). Nodes are found by nick, else by every label and
	// property at From, and a node another live node is identical to
	// through an edge to a node with a nick that the other lacks; a diff
	// that must change or connect a node nothing tells apart is refused
	// with 42002.
	Text string `json:"diff"`
}

// Empty reports whether the Δ changes nothing (its Text holds no
// statement).
func (d *Diff) Empty() bool {
	return d.NodesCreated+d.NodesDeleted+d.NodesChanged+d.EdgesCreated+d.EdgesDeleted == 0
}

// HistoryEntry is one version that changed a node or its edges.
type HistoryEntry struct {
	Version uint64
	// How is what made the version: "commit", "absorb" or "purge".
	How   string
	Agent string
	Time  time.Time
	// Change is the version's diff narrowed to the node (and the nodes
	// its new edges end at).
	Change *Diff
}

// History is a node's history, newest first.
type History struct {
	Nick    string
	Entries []HistoryEntry
	// More is set when older versions changed the node too, past the
	// limit; Oldest is the oldest version the session keeps readable,
	// where History stops.
	More   bool
	Oldest uint64
}

// VersionEntry is one version of a session: what made it ("commit",
// "absorb" or "purge"), the agent that did, when, and what it changed.
type VersionEntry struct {
	Version uint64
	How     string
	Agent   string
	Time    time.Time
	// Change is what the version's Δ did, as a Commit's summary says it
	// ("+2 nodes +1 edge 3 properties set", "registered view open"), or
	// "purged 3 recycled elements"; "" for a version the session did not
	// make or replay since it was opened (the stored state it opened at).
	Change string
}
