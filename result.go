package goldfish

import (
	"slices"

	"github.com/goldfish-gql/goldfish/internal/engine"
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
	NodesEchoed   int `json:"nodes_echoed,omitempty"` // INSERT node patterns bound to the live node they restate (SPEC §6)
	EdgesEchoed   int `json:"edges_echoed,omitempty"` // INSERT edge patterns bound to the live edge they restate
}

// Summary renders the counts that are not zero: "+2 nodes +1 edge 3
// properties set".
func (c Counts) Summary() string {
	return engine.Counts{NodesCreated: c.NodesCreated, EdgesCreated: c.EdgesCreated, PropsSet: c.PropsSet,
		LabelsAdded: c.LabelsAdded, LabelsRemoved: c.LabelsRemoved, NodesRecycled: c.NodesRecycled,
		EdgesRecycled: c.EdgesRecycled, NodesUpdated: c.NodesUpdated, Bindings: c.Bindings,
		NodesEchoed: c.NodesEchoed, EdgesEchoed: c.EdgesEchoed}.Summary()
}

func countsOf(c engine.Counts) Counts {
	return Counts{NodesCreated: c.NodesCreated, EdgesCreated: c.EdgesCreated, PropsSet: c.PropsSet,
		LabelsAdded: c.LabelsAdded, LabelsRemoved: c.LabelsRemoved, NodesRecycled: c.NodesRecycled,
		EdgesRecycled: c.EdgesRecycled, NodesUpdated: c.NodesUpdated, Bindings: c.Bindings,
		NodesEchoed: c.NodesEchoed, EdgesEchoed: c.EdgesEchoed}
}

func commitResultOf(r *engine.Result) *CommitResult {
	if r == nil {
		return nil
	}
	out := &CommitResult{Status: r.Status, Version: r.Version, Applied: r.Applied, Total: countsOf(r.Total),
		Stmts: make([]StmtResult, len(r.Stmts))}
	for i, st := range r.Stmts {
		out.Stmts[i] = StmtResult{Index: st.Index, Status: st.Status, Action: st.Action, Defined: st.Defined,
			Counts: countsOf(st.Counts), Notices: slices.Clone(st.Notices)}
	}
	return out
}
