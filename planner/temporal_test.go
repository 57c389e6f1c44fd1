package planner

import (
	"context"
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/vocab"
)

// temporalNode is one node with DATEs, DATETIMEs on the same day, and a
// DATETIME stored in an ISO form other than RFC 3339 (as a session saved
// by an older release may hold).
func temporalNode(t *testing.T) (*store.Snapshot, *store.Node) {
	t.Helper()
	tx := store.New().Begin()
	n, err := tx.InsertNode(tx.NewID(), []string{"V"}, values.MakeProps(map[string]values.Value{
		"d":        values.DateValue("2026-01-31"),
		"same_d":   values.DateValue("2026-01-31"),
		"midnight": values.DateTimeValue("2026-01-31T00:00:00Z"),
		"t":        values.DateTimeValue("2026-01-31T08:00:00Z"),
		"zoned":    values.DateTimeValue("2026-01-31T10:00:00+02:00"),
		"old":      values.DateTimeValue("2026-01-31 08:00:00"),
		"ds":       values.List(values.DateValue("2026-01-31"), values.DateTimeValue("2026-01-31T08:00:00Z")),
	}))
	if err != nil {
		t.Fatal(err)
	}
	return tx.Commit(), n
}

// whereTruth runs a WHERE predicate over the node as v, with $due bound
// to a DATE: "true", "false" or "null" (unknown).
func whereTruth(t *testing.T, n *store.Node, pred string) string {
	t.Helper()
	p, err := plan(t, "MATCH (v:V) WHERE "+pred+" SET v.x = $due")
	if err != nil {
		t.Fatalf("%s: %v", pred, err)
	}
	prg := p.Stmts[0].Steps[0].(*MatchStep).Where
	params := make([]ref.Val, len(p.Params))
	for i, name := range p.Params {
		if name == "due" {
			params[i] = ToCEL(values.DateValue("2026-01-31"))
		}
	}
	out, _, err := prg.Eval(context.Background(), &Row{Vars: []Element{{Node: n}}, Params: params})
	if err != nil {
		t.Fatalf("%s: %v", pred, err)
	}
	switch out {
	case types.True:
		return "true"
	case types.False:
		return "false"
	}
	return "null"
}

// computed is the literal of a computed value over the node as v, as SET
// would store it.
func computed(t *testing.T, n *store.Node, expr string) string {
	t.Helper()
	p, err := plan(t, "MATCH (v:V) SET v.x = "+expr)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	prg := p.Stmts[0].Steps[1].(*SetStep).Items[0].Val.Prog
	out, _, err := prg.Eval(context.Background(), &Row{Vars: []Element{{Node: n}}})
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	v, err := FromCEL(out)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v.Literal()
}

// TestTemporalAgree: a DATE or DATETIME property reads as the same CEL
// value in a WHERE predicate, in a view and in an action's precondition,
// so each computes the same truth over it, and a value a view shows is
// the value SET would write.
func TestTemporalAgree(t *testing.T) {
	snap, n := temporalNode(t)
	for _, c := range []struct {
		name  string
		where string // over v, with $due a DATE
		// view is the same over n, the node, and due: in a view the DATE
		// property same_d, in a precondition its DATE parameter.
		view string
		want string
	}{
		{"DATE equals a DATE literal", `v.d = DATE '2026-01-31'`, `n.d == due`, "true"},
		{"DATE equals a DATE parameter", `v.d = $due`, `n.d == due`, "true"},
		{"DATE equals a DATE property", `v.d = v.same_d`, `n.d == n.same_d`, "true"},
		{"DATE after an earlier DATE literal", `v.d > DATE '2026-01-01'`, `n.d > timestamp("2026-01-01T00:00:00Z")`, "true"},
		{"DATE before a later DATE literal", `v.d < DATE '2026-02-01'`, `n.d < timestamp("2026-02-01T00:00:00Z")`, "true"},
		{"DATE and DATETIME at the same instant", `v.d = v.midnight`, `n.d == n.midnight`, "true"},
		{"DATE before a DATETIME that day", `v.d < v.t`, `n.d < n.t`, "true"},
		{"DATETIME in another offset, same instant", `v.t = v.zoned`, `n.t == n.zoned`, "true"},
		{"DATETIME stored in another ISO form, same instant", `v.old = v.t`, `n.old == n.t`, "true"},
		{"DATETIME stored in another ISO form, after the DATE", `v.old > v.d`, `n.old > n.d`, "true"},
		{"DATE in a list", `v.d IN v.ds`, `n.d in n.ds`, "true"},
		{"DATE is not its text", `v.d = '2026-01-31'`, `n.d == dyn("2026-01-31")`, "false"},
	} {
		t.Run(c.name, func(t *testing.T) {
			where := whereTruth(t, n, c.where)
			view := viewText(t, snap, "[n.same_d].map(due, "+c.view+")[0]")
			cond := precondition(t, snap, c.view)
			if where != c.want || view != c.want || cond != c.want {
				t.Errorf("WHERE %s: %s; view %s: %s; IF: %s; want %s", c.where, where, c.view, view, cond, c.want)
			}
		})
	}
	// The value a view shows is the literal SET writes (DATE stays DATE).
	for _, key := range []string{"d", "midnight", "t", "zoned", "old", "ds"} {
		t.Run("value of "+key, func(t *testing.T) {
			set := computed(t, n, "v."+key)
			view := viewText(t, snap, "n."+key)
			if set != view {
				t.Errorf("%s: SET writes %s, a view shows %s", key, set, view)
			}
		})
	}
}

// overNode binds the node to n in a view's or a precondition's CEL.
func overNode(expr string) string { return `[nodes("V")[0]].map(n, ` + expr + `)[0]` }

// viewText is the literal of a view whose expression reads the node as n.
func viewText(t *testing.T, snap *store.Snapshot, expr string) string {
	t.Helper()
	s, err := (*vocab.State)(nil).DefineView("x", "", overNode(expr), false, "", 1)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	vals, err := vocab.Evaluate(context.Background(), snap, s)
	if err != nil {
		t.Fatal(err)
	}
	r := vals.Results["x"]
	if r.Err != nil {
		return "broken: " + r.Err.Error()
	}
	return r.Text
}

// precondition is the truth of an action's IF over the node as n, with a
// DATE parameter due.
func precondition(t *testing.T, snap *store.Snapshot, expr string) string {
	t.Helper()
	def := vocab.ActionDef{Name: "a", Params: []vocab.Param{{Name: "due", Type: vocab.TypeDate}}, If: overNode(expr)}
	s, err := (*vocab.State)(nil).DefineAction(def, false, "", 1)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	a, _ := s.Action("a")
	ok, err := a.Precondition(context.Background(), snap, s, map[string]values.Value{"due": values.DateValue("2026-01-31")})
	if err != nil {
		return "error: " + err.Error()
	}
	if ok {
		return "true"
	}
	return "false"
}
