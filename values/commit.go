package values

import (
	"fmt"
	"strconv"
	"strings"
)

// CommitResult reports what a Commit did, per statement and in total. It
// is the caller's: nothing the engine keeps shares its slices.
type CommitResult struct {
	// Status is 00001 (successful completion, omitted result: a Δ returns
	// no table), or the first warning or no-data code raised.
	Status  Code
	Version uint64
	// Applied is false when the Δ changed nothing (or was rolled back);
	// the version is then unchanged.
	Applied bool
	Total   Counts
	Stmts   []StmtResult
}

// Summary renders what the Δ did as one line, as the shell prints it:
// "ok v=3 registered view open_tasks +2 nodes +1 edge 3 properties set
// (ran settle)", with " (not applied)" when the version did not move
// (nothing changed, or the text ended with ROLLBACK: the counts are what
// would have been). The counts are the Δ's totals.
func (r *CommitResult) Summary() string {
	s := "ok v=" + strconv.FormatUint(r.Version, 10)
	if c := r.Change(); c != "" {
		s += " " + c
	}
	if !r.Applied {
		s += " (not applied)"
	}
	return s
}

// Change is the part of Summary that says what the Δ did: the vocabulary
// it defined, its counts, the actions it ran ("registered view
// open_tasks +2 nodes +1 edge 3 properties set (ran settle)").
func (r *CommitResult) Change() string {
	var parts []string
	for _, st := range r.Stmts {
		if st.Defined != "" {
			parts = append(parts, st.Defined)
		}
	}
	if c := r.Total.Summary(); c != "" {
		parts = append(parts, c)
	}
	var ran []string
	for _, st := range r.Stmts {
		if st.Action != "" {
			ran = append(ran, st.Action)
		}
	}
	if len(ran) > 0 {
		parts = append(parts, "(ran "+strings.Join(ran, ", ")+")")
	}
	return strings.Join(parts, " ")
}

// StmtResult reports what one statement of a Δ did. Its Status is 00001,
// 02000 when its MATCH bound nothing, or its first notice's code.
type StmtResult struct {
	Index  int    `json:"statement"`
	Status string `json:"status"`
	// Action names the action a CALL ran; Defined says what a CREATE or
	// DROP of the vocabulary did ("registered view open_tasks").
	Action  string `json:"action,omitempty"`
	Defined string `json:"defined,omitempty"`
	Counts
	Notices []Notice `json:"notices,omitempty"`
}

// Counts are the element counts of a statement or a Δ.
type Counts struct {
	NodesCreated  int `json:"nodes_created"`
	EdgesCreated  int `json:"edges_created"`
	PropsSet      int `json:"properties_set"`
	LabelsAdded   int `json:"labels_added"`
	LabelsRemoved int `json:"labels_removed"`
	NodesRecycled int `json:"nodes_recycled"`
	EdgesRecycled int `json:"edges_recycled"`
	NodesUpdated  int `json:"nodes_updated"` // ingest: existing nodes found by locator
	Bindings      int `json:"bindings"`
	NodesEchoed   int `json:"nodes_echoed,omitempty"` // INSERT node patterns bound to the live node they restate
	EdgesEchoed   int `json:"edges_echoed,omitempty"` // INSERT edge patterns bound to the live edge they restate
}

// Add adds o's counts to c's.
func (c *Counts) Add(o Counts) {
	c.NodesCreated += o.NodesCreated
	c.EdgesCreated += o.EdgesCreated
	c.PropsSet += o.PropsSet
	c.LabelsAdded += o.LabelsAdded
	c.LabelsRemoved += o.LabelsRemoved
	c.NodesRecycled += o.NodesRecycled
	c.EdgesRecycled += o.EdgesRecycled
	c.NodesUpdated += o.NodesUpdated
	c.Bindings += o.Bindings
	c.NodesEchoed += o.NodesEchoed
	c.EdgesEchoed += o.EdgesEchoed
}

// Summary renders the counts that are not zero: "+2 nodes +1 edge 3
// properties set".
func (c Counts) Summary() string {
	var parts []string
	add := func(n int, format, one, many string) {
		if n != 0 {
			parts = append(parts, fmt.Sprintf(format, n, plural(n, one, many)))
		}
	}
	add(c.NodesCreated, "+%d %s", "node", "nodes")
	add(c.EdgesCreated, "+%d %s", "edge", "edges")
	add(c.NodesUpdated, "~%d %s", "node updated", "nodes updated")
	add(c.PropsSet, "%d %s set", "property", "properties")
	add(c.LabelsAdded, "+%d %s", "label", "labels")
	add(c.LabelsRemoved, "-%d %s", "label", "labels")
	add(c.NodesRecycled, "-%d %s", "node", "nodes")
	add(c.EdgesRecycled, "-%d %s", "edge", "edges")
	add(c.Bindings, "%d %s", "binding", "bindings")
	// One count for both kinds: the statement's notice says which.
	add(c.NodesEchoed+c.EdgesEchoed, "%d %s", "echo", "echoes")
	return strings.Join(parts, " ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
