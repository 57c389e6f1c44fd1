package vocab

import (
	"fmt"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/goldfish-gql/goldfish/values"
)

// The system views (docs/design.md#the-vocabulary-and-attention): names starting with _ are reserved for
// them. They are computed when read, from the vocabulary of the version
// read, and never stored (not in the vocabulary, not in the Values of a
// version, not in the cabinet); views and preconditions read them with
// view("…") like any view.
const (
	// SystemHealth is a map of the vocabulary's health at the version:
	//   broken          views broken, among those that read no system view
	//   stale           actions not invoked since their latest registration
	//   contested       contested targets (State.Contested)
	//   overlaps        pairs of actions with overlapping intents
	//   gaps            vocabulary gaps under the default settings (over
	//                   the last values.DefaultGapWindow Commits), pre-action
	//                   clusters among them
	//   raw_commits     Commits of that window that wrote a property with
	//                   a statement of their own
	//   action_commits  Commits of that window that called an action
	//   total_actions   actions registered
	//   total_views     views registered
	//   ratio           raw_commits per action_commit (raw_commits when
	//                   none called an action)
	//   state           "progressive", "stable" or "degenerating"
	//   suggestions     what to do about each signal, a sentence each
	// state weighs the same signals as the envelope's vocabulary_health
	// but from the version alone (no Recall counts): degenerating when
	// broken + stale (promoted: more than 3, or more than 0.3 of the
	// actions) + contested + overlaps + gaps outnumber the actions
	// invoked since their latest registration, progressive when some
	// are, stable otherwise.
	SystemHealth = "_vocabulary_health"
	// SystemContested is the contested targets, a list of maps {target,
	// actions}.
	SystemContested = "_contested"
)

// Reserved reports whether name is a system view's (starts with _): no
// view or action may be registered under it.
func Reserved(name string) bool { return strings.HasPrefix(name, "_") }

// The cycle rule: _vocabulary_health's broken counts the views broken at
// this evaluation that do not read a system view, directly or through
// other views (by the names their view("…") calls give as literals). A
// view that reads _vocabulary_health is thus never counted by it, so
// reading it never depends on itself. A view that reaches it by a name
// computed at run time is not known to read it: when that view is being
// computed it is not counted, and when the health being computed meets
// it, it reads the health in progress and is broken with a cycle; the
// views are computed in name order, so the outcome is the same each time.

// system returns the named system view's value.
func (r *reader) system(name string) ref.Val {
	switch name {
	case SystemContested:
		return contestedVal(r.state.Contested())
	case SystemHealth:
		if r.ev.busy[SystemHealth] {
			return types.WrapErr(fmt.Errorf("view %s: %w", SystemHealth, errCycle))
		}
		if r.ev.busy == nil {
			r.ev.done, r.ev.vals, r.ev.busy = map[string]Result{}, map[string]ref.Val{}, map[string]bool{}
		}
		r.ev.busy[SystemHealth] = true
		defer delete(r.ev.busy, SystemHealth)
		return types.DefaultTypeAdapter.NativeToValue(r.health())
	}
	return types.NewErr("no system view named %s (the system views are %s and %s)", name, SystemHealth, SystemContested)
}

// health computes _vocabulary_health.
func (r *reader) health() map[string]any {
	s := r.state
	broken := 0
	for _, v := range readsSystem(s, false) {
		r.ev.value(v.Name)
		if res, ok := r.ev.done[v.Name]; ok && res.Err != nil {
			broken++
		}
	}
	stale, invoked := 0, 0
	for _, a := range s.Actions() {
		if invokedSince(a) {
			invoked++
		} else {
			stale++
		}
	}
	_, overlapN := overlaps(s.Actions())
	win := s.Window(values.DefaultAttentionSettings.GapWindow)
	raw, inAction := win.RawCommits, win.ActionCommits
	gaps := len(gapsOf(s, values.DefaultAttentionSettings))
	contested := len(s.Contested())
	actions, views := len(s.actions), len(s.views)
	promoted := 0
	if stalePromoted(stale, actions) {
		promoted = stale
	}
	state := "stable"
	switch deg := broken + promoted + contested + overlapN + gaps; {
	case deg > invoked:
		state = "degenerating"
	case invoked > 0:
		state = "progressive"
	}
	// ratio is raw Commits per Commit that called an action: how much
	// the agents write around the vocabulary rather than through it
	// (the raw Commits when none called one).
	ratio := float64(raw)
	if inAction > 0 {
		ratio = float64(raw) / float64(inAction)
	}
	suggestions := []any{}
	if broken > 0 {
		suggestions = append(suggestions, fmt.Sprintf("%d broken view%s: CREATE OR REPLACE VIEW with what its error names, or DROP VIEW", broken, plural(broken)))
	}
	if promoted > 0 {
		suggestions = append(suggestions, fmt.Sprintf("%d of %d actions never invoked since their registration: DROP ACTION, or CALL them", stale, actions))
	}
	if overlapN > 0 {
		suggestions = append(suggestions, fmt.Sprintf("%d pair%s of actions with overlapping intents: merge each pair into one action (CREATE OR REPLACE ACTION, then DROP ACTION)", overlapN, plural(overlapN)))
	}
	if contested > 0 {
		suggestions = append(suggestions, fmt.Sprintf("%d contested target%s: one action per target, or one action with a parameter", contested, plural(contested)))
	}
	if gaps > 0 {
		what := "properties"
		if gaps == 1 {
			what = "property"
		}
		suggestions = append(suggestions, fmt.Sprintf("%d %s written raw more than through actions: CREATE ACTION for them", gaps, what))
	}
	return map[string]any{
		"broken": int64(broken), "stale": int64(stale), "contested": int64(contested),
		"overlaps": int64(overlapN), "gaps": int64(gaps),
		"raw_commits": int64(raw), "action_commits": int64(inAction),
		"total_actions": int64(actions), "total_views": int64(views), "ratio": ratio,
		"state": state, "suggestions": suggestions,
	}
}

// readsSystem returns the views that read a system view, directly or
// through other views (with true), or those that do not (with false), in
// name order.
func readsSystem(s *State, reads bool) []*View {
	memo := map[string]int8{} // 1 reads, -1 does not, 2 being looked at
	var visit func(name string) bool
	visit = func(name string) bool {
		if Reserved(name) {
			return true
		}
		switch memo[name] {
		case 1:
			return true
		case -1, 2:
			return false
		}
		memo[name] = 2
		v, ok := s.View(name)
		out := false
		if ok {
			for _, ref := range v.Refs {
				if visit(ref) {
					out = true
					break
				}
			}
		}
		memo[name] = -1
		if out {
			memo[name] = 1
		}
		return out
	}
	var out []*View
	for _, v := range s.Views() {
		if visit(v.Name) == reads {
			out = append(out, v)
		}
	}
	return out
}

// contestedVal is _contested's value: [{target, actions}, …].
func contestedVal(cs []values.ContestedTarget) ref.Val {
	list := make([]any, len(cs))
	for i, c := range cs {
		actions := make([]any, len(c.Actions))
		for j, a := range c.Actions {
			actions[j] = a
		}
		list[i] = map[string]any{"target": c.Target, "actions": actions}
	}
	return types.DefaultTypeAdapter.NativeToValue(list)
}
