package exec

import (
	"fmt"
	"strings"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// Counts are what one statement (or a whole Δ) did.
type Counts struct {
	NodesCreated   int `json:"nodes_created"`
	EdgesCreated   int `json:"edges_created"`
	PropsSet       int `json:"properties_set"`
	LabelsAdded    int `json:"labels_added"`
	LabelsRemoved  int `json:"labels_removed"`
	NodesRecycled  int `json:"nodes_recycled"`
	EdgesRecycled  int `json:"edges_recycled"`
	NodesUpdated   int `json:"nodes_updated"` // ingest: existing nodes found by locator
	Bindings       int `json:"bindings"`
	NodesEchoed    int `json:"nodes_echoed,omitempty"` // INSERT node patterns bound to the live node they restate (SPEC §6)
	EdgesEchoed    int `json:"edges_echoed,omitempty"` // INSERT edge patterns bound to the live edge they restate
	BytesWritten   int `json:"-"`
	ElementsTouch  int `json:"-"`
	changedAnyData bool
}

func (c *Counts) add(o Counts) {
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
	c.BytesWritten += o.BytesWritten
	c.ElementsTouch += o.ElementsTouch
	c.changedAnyData = c.changedAnyData || o.changedAnyData
}

// Summary renders the counts that are not zero: "+2 nodes +1 edge 3 props".
func (c Counts) Summary() string {
	var parts []string
	plural := func(n int, one, many string) string {
		if n == 1 {
			return one
		}
		return many
	}
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

// StmtResult is the outcome of one statement of a Δ.
type StmtResult struct {
	Index  int    `json:"statement"`
	Status string `json:"status"`
	// Action names the action a CALL ran; Defined says what a
	// registration did ("registered view open_tasks").
	Action  string `json:"action,omitempty"`
	Defined string `json:"defined,omitempty"`
	Counts
	Notices []gqlstatus.Notice `json:"notices,omitempty"`
	// echoAt is where the statement's first echo is, for its notice.
	echoAt gqlstatus.Pos
}

// Result is the outcome of one Commit.
type Result struct {
	// Status is 00000, or the first warning or no-data code raised.
	Status  gqlstatus.Code
	Version uint64
	// Applied is false when the Δ changed nothing (or was rolled back);
	// the version is then unchanged.
	Applied bool
	Total   Counts
	Stmts   []StmtResult
}
