package vocab

import (
	"context"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// CheckView evaluates one view of state over snap, as a Recall would
// (under ViewCostLimit, the views it names with view() computed for it
// alone, all under ReadCostBudget): a registration reports at once a view
// that is broken on the state it made. The error is the view's own (nil:
// it evaluates); only the context stopping the evaluation is ctxErr.
func CheckView(ctx context.Context, snap *store.Snapshot, state *State, name string) (viewErr, ctxErr error) {
	v, ok := state.View(name)
	if !ok {
		return nil, nil
	}
	// Untracked where its cost is bounded under the limit: the same
	// value or error, without cel-go's dear tracking (evalfast.go).
	ev := &evaluation{ctx: ctx, budget: ReadCostBudget, top: name, untracked: untrackedFor(v.prog, snap, nil)}
	ev.r = &reader{snap: snap, state: state, ev: ev, limit: ViewCostLimit}
	ev.value(name)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ev.done[name].Err, nil
}

// CheckPrecondition evaluates an action's IF over snap as a CALL that
// gives no arguments would: only when every parameter has a default (a
// parameter without one has no value to bind, and a made-up zero value
// would report failures no CALL meets), with the defaults bound. checked
// reports whether it was evaluated; err is why it fails to evaluate (its
// false is no failure: a precondition may well be false now). Only the
// context stopping the evaluation is ctxErr.
func (a *Action) CheckPrecondition(ctx context.Context, snap *store.Snapshot, state *State) (checked bool, err, ctxErr error) {
	if a.ifProg == nil {
		return false, nil, nil
	}
	args := make(map[string]values.Value, len(a.Params))
	for _, p := range a.Params {
		if p.Default == nil {
			return false, nil, nil
		}
		args[p.Name] = *p.Default
	}
	_, err = a.precondition(ctx, snap, state, celArgs(args), true)
	if cerr := ctx.Err(); cerr != nil {
		return false, nil, cerr
	}
	return true, err, nil
}

// ErrorLine is an error as one short line: its first line, at most
// ErrorLineRunes runes, cut with "…". The envelope shows a broken view's
// error so at depth=lean.
func ErrorLine(msg string) string {
	for i := 0; i < len(msg); i++ {
		if msg[i] == '\n' || msg[i] == '\r' {
			return cutRunes(msg[:i], ErrorLineRunes, true)
		}
	}
	return cutRunes(msg, ErrorLineRunes, false)
}

// ErrorLineRunes is the most runes ErrorLine keeps.
const ErrorLineRunes = 60

// cutRunes cuts s to n runes with "…"; more says s was already cut (a
// line of several), which "…" marks too.
func cutRunes(s string, n int, more bool) string {
	count := 0
	for i := range s {
		if count == n {
			return s[:i] + "…"
		}
		count++
	}
	if more {
		return s + "…"
	}
	return s
}
