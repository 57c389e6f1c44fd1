package exec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

func TestFinishedStatus(t *testing.T) {
	for _, s := range []string{"done", "DONE", " Done ", "closed", "finished", "complete", "completed", "resolved", "cancelled", "canceled"} {
		if !FinishedStatus(values.String(s)) {
			t.Errorf("%q is not finished", s)
		}
	}
	for _, v := range []values.Value{values.String("open"), values.String("blocked"), values.String("not done"), values.String(""), values.Int(1), values.Null()} {
		if FinishedStatus(v) {
			t.Errorf("%s is finished", v.Literal())
		}
	}
}

// TestUnsettledNotice: a SET of a finished status on tasks a Δ leaves
// unsettled draws one 01000 notice per statement and status, naming at
// most three; a task settled later in the Δ, and a Δ rolled back, draw
// none.
func TestUnsettledNotice(t *testing.T) {
	g := store.New()
	var ins []string
	for i := range 10 {
		ins = append(ins, fmt.Sprintf(`(:TSK {nick: "t%d", status: "open"})`, i))
	}
	if _, err := commitText(t, g, "INSERT "+strings.Join(ins, ", "), MintDefault); err != nil {
		t.Fatal(err)
	}
	res, err := commitText(t, g, `MATCH (t:TSK) SET t.status = "done"`, MintDefault)
	if err != nil {
		t.Fatal(err)
	}
	want := `t0, t1, t2 and 7 more tasks: status "done" does not settle a task; add the label: SET t:Settled`
	if n := res.Stmts[0].Notices; len(n) != 1 || n[0].Code != gqlstatus.Warning || n[0].Msg != want || res.Status != gqlstatus.Warning {
		t.Errorf("got %s %+v, want one notice %q", res.Status, n, want)
	}
	res, err = commitText(t, g, `MATCH (t:TSK {nick: "t0"}) SET t.status = "closed"; MATCH (t:TSK {nick: "t0"}) SET t:Settled`, MintDefault)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != gqlstatus.Omitted || len(res.Stmts[0].Notices)+len(res.Stmts[1].Notices) != 0 {
		t.Errorf("a task settled later in the Δ: %s %+v", res.Status, res.Stmts)
	}
	res, err = commitText(t, g, `START TRANSACTION; MATCH (t:TSK {nick: "t1"}) SET t.status = "resolved"; ROLLBACK`, MintDefault)
	if err != nil {
		t.Fatal(err)
	}
	for _, sr := range res.Stmts {
		if len(sr.Notices) != 0 {
			t.Errorf("a Δ rolled back: %+v", sr.Notices)
		}
	}
}
