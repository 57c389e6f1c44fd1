package exec

import (
	"fmt"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/vocab"
)

// checkDefined evaluates, once on the state the Δ made, each view it
// registered or revised and each action's precondition it registered or
// revised whose parameters all have defaults (vocab.CheckPrecondition
// says why only those): one that fails is registered all the same, and
// the statement that defined it carries a 01000 notice naming it and its
// error. A name the Δ defined twice is checked once, for the last
// definition; one it dropped after is not checked. Replay checks nothing
// (nobody reads its notices), and an evaluation the context stops is
// left unreported.
func (x *executor) checkDefined(stmts []values.StmtResult) {
	if x.opts.Replay || x.plan.RolledBack {
		return
	}
	var state *vocab.State
	var done map[string]bool
	for i := len(x.plan.Stmts) - 1; i >= 0; i-- {
		d := x.plan.Stmts[i].Define
		if d == nil || d.Drop || i >= len(stmts) {
			continue
		}
		key := "v" + d.Name
		if d.Action {
			key = "a" + d.Name
		}
		if done[key] {
			continue
		}
		if done == nil {
			done, state = map[string]bool{}, Vocabulary(x.tx.Snapshot())
		}
		done[key] = true
		var msg string
		if d.Action {
			a, ok := state.Action(d.Name)
			if !ok {
				continue
			}
			checked, err, ctxErr := a.CheckPrecondition(x.ctx, x.tx.Snapshot(), state)
			if ctxErr != nil {
				return
			}
			if !checked || err == nil {
				continue
			}
			with := ""
			if len(a.Params) > 0 {
				with = " with its parameters' defaults"
			}
			msg = fmt.Sprintf("the precondition of action %s cannot be evaluated%s: %v "+
				"(registered all the same; a CALL fails while it cannot; CREATE OR REPLACE ACTION %s revises it)",
				d.Name, with, err, d.Name)
		} else {
			viewErr, ctxErr := vocab.CheckView(x.ctx, x.tx.Snapshot(), state, d.Name)
			if ctxErr != nil {
				return
			}
			if viewErr == nil {
				continue
			}
			msg = fmt.Sprintf("view %s is broken: %v "+
				"(registered all the same, and shown in broken_views; CREATE OR REPLACE VIEW %s revises it)",
				d.Name, viewErr, d.Name)
		}
		sr := &stmts[i]
		sr.Notices = append(sr.Notices, gqlstatus.Notice{Code: gqlstatus.Warning, Pos: d.Pos, Msg: msg})
		if sr.Status == string(gqlstatus.Omitted) {
			sr.Status = string(gqlstatus.Warning)
		}
	}
}
