package exec

import (
	"context"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/planner"
)

// checkEvery is how many units of work pass between two looks at the
// call's context: often enough that a cancelled call stops within tens of
// microseconds of work, rarely enough that looking costs nothing a Recall
// could measure.
const checkEvery = 256

// meter counts the work of one call and stops it when its context is done
// or, for a Δ, when the work passes the work budget (Budget.Work). Work is
// counted in units: one per candidate node examined and per edge
// traversed, and for each predicate or computed value evaluated one plus
// its CEL cost, so that units stay roughly proportional to time whether a
// MATCH spends it scanning or evaluating.
type meter struct {
	ctx  context.Context
	done <-chan struct{} // nil when ctx can never be done
	what string          // "Recall" or "Δ", for messages
	// work is the units spent so far, limit the most allowed (0: no
	// limit), due the units left before the next look at the context.
	work, limit, due int
}

func (m *meter) start(ctx context.Context, what string, limit int) {
	m.ctx, m.done, m.what, m.limit, m.due = ctx, ctx.Done(), what, limit, checkEvery
}

// spend charges units of work.
func (m *meter) spend(units int) error {
	m.work += units
	if m.due -= units; m.due <= 0 {
		m.due = checkEvery
		if err := m.check(); err != nil {
			return err
		}
	}
	if m.limit > 0 && m.work > m.limit {
		return m.overWork()
	}
	return nil
}

// evaluated charges one evaluation that cost celCost CEL units (at most
// planner.CostLimit).
func (m *meter) evaluated(celCost uint64) error {
	return m.spend(1 + int(min(celCost, 1<<30)))
}

// check reports the context's end, if it has come.
func (m *meter) check() error {
	if m.done == nil {
		return nil
	}
	select {
	case <-m.done:
		return m.interrupted()
	default:
		return nil
	}
}

func (m *meter) interrupted() error {
	e := gqlstatus.Interrupted(m.ctx, m.what)
	if m.what == "Δ" {
		e.Msg += "; nothing applied"
	}
	return e
}

func (m *meter) overWork() error {
	return gqlstatus.Errorf(gqlstatus.WorkBudget,
		"Δ did more than %d units of work to bind its MATCH (the work budget, %d per element of R: candidates examined, edges traversed, predicates evaluated); nothing applied",
		m.limit, WorkPerRow).
		WithHint("give each node pattern a label, a property or a nick, and join the patterns by edges instead of listing them apart (a cartesian product), so the MATCH examines fewer candidates; or split the Δ")
}

// test runs a predicate for one row, charging its evaluation.
func (x *executor) test(p *planner.Program, row *planner.Row) (bool, error) {
	ok, cost, err := p.Test(x.ctx, row)
	if err != nil {
		return false, x.located(err)
	}
	if err := x.evaluated(cost); err != nil {
		return false, err
	}
	return ok, nil
}
