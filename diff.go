package goldfish

import (
	"context"
	"time"

	"github.com/goldfish-gql/goldfish/internal/engine"
)

// DefaultDiffRows is the most rows a Diff's Δ may write or bind when
// DiffOptions.MaxRows is 0 (the session's R bounds it too).
const DefaultDiffRows = 1000

// DefaultHistory is how many versions History lists when its limit is 0.
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

// Diff returns the change from version from of the session to version
// to as one Δ (see Diff.Text); from 0 is the empty graph, so Diff(ctx,
// 0, n) is version n as INSERTs. Refused: from > to (22Q06), a
// version the session does not keep readable (22Q08), the catalogue
// (42Q02), a nick or kind to narrow by that no node has (42002), a node
// the Δ cannot find by content (42002), a diff over its bound or the
// session's R (22Q02, with how big it is and how to narrow it).
func (s *Session) Diff(ctx context.Context, from, to uint64, opt DiffOptions) (*Diff, error) {
	d, err := s.e.Diff(ctx, from, to, engine.DiffOptions{Nicks: opt.Nicks, Kinds: opt.Kinds, MaxRows: opt.MaxRows})
	if err != nil {
		return nil, err
	}
	return &Diff{Text: d.Text, From: d.From, To: d.To, NodesCreated: d.NodesCreated, NodesDeleted: d.NodesDeleted,
		NodesChanged: d.NodesChanged, EdgesCreated: d.EdgesCreated, EdgesDeleted: d.EdgesDeleted,
		Rows: d.Rows, Bound: d.Bound, Views: d.Views, Actions: d.Actions}, nil
}

// DumpAt is Dump at version v, one the session keeps readable (0: the
// empty graph): what a Diff committed elsewhere is checked against.
func (s *Session) DumpAt(ctx context.Context, v uint64) (string, error) {
	return s.e.DumpAt(ctx, v)
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

// History lists the versions that changed the node nick names (at the
// newest version, else at the latest readable one that had it) or its
// edges, newest first, with who made each, when, and the change: at most
// limit entries (DefaultHistory when 0), More set when there are older
// ones. Refused: a nick no readable version has (42002), the catalogue
// (42Q02).
func (s *Session) History(ctx context.Context, nick string, limit int) (*History, error) {
	h, err := s.e.History(ctx, nick, limit)
	if err != nil {
		return nil, err
	}
	out := &History{Nick: h.Nick, More: h.More, Oldest: h.Oldest}
	for _, e := range h.Entries {
		d := e.Change
		out.Entries = append(out.Entries, HistoryEntry{Version: e.Version, How: e.How, Agent: e.Agent, Time: e.Time,
			Change: &Diff{Text: d.Text, From: d.From, To: d.To, NodesCreated: d.NodesCreated, NodesDeleted: d.NodesDeleted,
				NodesChanged: d.NodesChanged, EdgesCreated: d.EdgesCreated, EdgesDeleted: d.EdgesDeleted,
				Rows: d.Rows, Bound: d.Bound, Views: d.Views, Actions: d.Actions}})
	}
	return out, nil
}

// VersionEntry is one version of a session: what made it ("commit",
// "absorb" or "purge"), the agent that did, and when.
type VersionEntry struct {
	Version uint64
	How     string
	Agent   string
	Time    time.Time
}

// Versions lists the versions the session keeps readable, newest first:
// at most limit (DefaultHistory when 0), more set when older readable
// ones exist, oldest the oldest readable version. What a timeline of the
// session shows. Refused: the catalogue (42Q02).
func (s *Session) Versions(ctx context.Context, limit int) (entries []VersionEntry, more bool, oldest uint64, err error) {
	es, more, oldest, err := s.e.Versions(ctx, limit)
	if err != nil {
		return nil, false, 0, err
	}
	for _, e := range es {
		entries = append(entries, VersionEntry(e))
	}
	return entries, more, oldest, nil
}
