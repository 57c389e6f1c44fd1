package exec

import (
	"fmt"
	"strings"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// Settling is one concept: a task is live until it carries the label
// Settled (SET t:Settled), whatever its properties say. Liveness (the
// seeds of a codebook miss, the walk's order, delete_on_settle) reads the
// label alone. A status property is the agent's own, but a Δ that SETs a
// task's status to a value that says it is finished, and leaves the task
// without Settled, is the common slip of believing that settles it: the
// statement gets a 01000 notice that says to add the label.

// StatusKey is the property a finished-sounding value of which, SET on a
// task the Δ leaves unsettled, draws the notice.
const StatusKey = "status"

// finishedStatus holds the status values (lower case, trimmed) that say
// a task is finished.
var finishedStatus = map[string]bool{
	"done": true, "closed": true, "finished": true, "complete": true, "completed": true,
	"resolved": true, "cancelled": true, "canceled": true,
}

// FinishedStatus reports whether v is a status value that says a task
// is finished (done, closed, finished, complete, completed, resolved,
// cancelled, canceled; any case).
func FinishedStatus(v values.Value) bool {
	return v.Kind() == values.KindString && finishedStatus[strings.ToLower(strings.TrimSpace(v.AsString()))]
}

// statusWrite is a SET of a task's status by a statement of the Δ.
type statusWrite struct {
	id   store.ID
	stmt int           // its statement's place in the Δ's results
	pos  gqlstatus.Pos // the SET item, none in an action's body
}

// unsettledTaskNamesMax is how many tasks one notice names; past it, it
// says how many more.
const unsettledTaskNamesMax = 3

// wroteStatus records that a SET item wrote the status of n: a task's
// is checked once the Δ has run (unsettledNotices). Cost: a comparison,
// and an append for a task.
func (x *executor) wroteStatus(n *store.Node, pos gqlstatus.Pos) {
	if n == nil || n.Kind() != TaskKind || x.opts.Replay {
		return
	}
	x.statuses = append(x.statuses, statusWrite{id: n.ID, stmt: x.stmt, pos: x.noticePos(pos)})
}

// unsettledNotices adds, once every statement of the Δ has run, a 01000
// notice to each statement that SET a task's status to a finished value
// when the task ends the Δ live (without Settled): such a task still
// seeds a miss and keeps its delete_on_settle nodes. A task is judged by
// its state at the end of the Δ, so a later statement that labels it
// Settled, or sets another status, leaves no notice; the statement that
// wrote its status last gets it. Cost: the tasks whose status the Δ SET.
func (x *executor) unsettledNotices(stmts []values.StmtResult) {
	if len(x.statuses) == 0 {
		return
	}
	snap := x.tx.Snapshot()
	last := make(map[store.ID]int, len(x.statuses))
	for i, w := range x.statuses {
		last[w.id] = i
	}
	type group struct {
		stmt   int
		status string
		pos    gqlstatus.Pos
		names  []string
		more   int
	}
	var groups []*group
	for i, w := range x.statuses {
		if last[w.id] != i || w.stmt < 0 || w.stmt >= len(stmts) {
			continue
		}
		n, ok := snap.Node(w.id)
		if !ok || n.Kind() != TaskKind || n.HasLabel(SettledLabel) {
			continue
		}
		v, ok := n.Props.Get(StatusKey)
		if !ok || !FinishedStatus(v) {
			continue
		}
		lit := v.Literal()
		var g *group
		for _, h := range groups {
			if h.stmt == w.stmt && h.status == lit {
				g = h
				break
			}
		}
		if g == nil {
			g = &group{stmt: w.stmt, status: lit, pos: w.pos}
			groups = append(groups, g)
		}
		if len(g.names) < unsettledTaskNamesMax {
			g.names = append(g.names, taskName(n))
		} else {
			g.more++
		}
	}
	for _, g := range groups {
		who := strings.Join(g.names, ", ")
		if g.more > 0 {
			who += fmt.Sprintf(" and %d more %s", g.more, plural(g.more, "task", "tasks"))
		}
		sr := &stmts[g.stmt]
		sr.Notices = append(sr.Notices, gqlstatus.Notice{Code: gqlstatus.Warning, Pos: g.pos,
			Msg: fmt.Sprintf("%s: status %s does not settle a task; add the label: SET t:Settled", who, g.status)})
		if sr.Status == string(gqlstatus.Omitted) {
			sr.Status = string(gqlstatus.Warning)
		}
	}
}

// taskName names a task in a notice: its nick, or its kind when it has
// none.
func taskName(n *store.Node) string {
	if v, ok := n.Props.Get("nick"); ok && v.Kind() == values.KindString {
		return v.AsString()
	}
	return "a " + TaskKind + " without a nick"
}
