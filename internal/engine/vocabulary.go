package engine

import (
	"context"
	"sync/atomic"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/vocab"
)

// vocabRead is a session's vocabulary at one version, evaluated once and
// kept until the next version: its views' values and what every envelope
// of the version shares.
type vocabRead struct {
	version  uint64
	state    *vocab.State
	values   *vocab.Values
	prepared *vocab.Prepared
	// seen and changedAt: per view, its value's hash and the version it
	// was last seen to change at.
	seen      map[string]viewSeen
	changedAt map[string]uint64
}

// vocabCache holds the latest vocabRead of a session.
type vocabCache struct{ cur atomic.Pointer[vocabRead] }

// vocabularyAt evaluates (once per version) the vocabulary of snap: nil
// when the session has no vocabulary state yet. Only the context
// stopping the evaluation is an error; broken views are part of the
// result.
func (s *Session) vocabularyAt(ctx context.Context, snap *store.Snapshot) (*vocabRead, error) {
	state := exec.Vocabulary(snap)
	if state == nil {
		return nil, nil
	}
	prev := s.vocab.cur.Load()
	if prev != nil && prev.version == snap.Version() && prev.state == state {
		return prev, nil
	}
	vals, err := vocab.Evaluate(ctx, snap, state)
	if err != nil {
		return nil, gqlstatus.Interrupted(ctx, "Recall")
	}
	r := &vocabRead{version: snap.Version(), state: state, values: vals, prepared: vocab.Prepare(state, vals)}
	base := s.attn.base
	if prev != nil {
		base = prev.seen
	}
	r.seen = seenValues(vals, state, base, r.version)
	r.changedAt = make(map[string]uint64, len(r.seen))
	for name, v := range r.seen {
		r.changedAt[name] = v.changedAt
	}
	s.ensureMarks(state)
	// A slower evaluation of an older version never replaces a newer one.
	for {
		cur := s.vocab.cur.Load()
		if cur != nil && cur.version > r.version {
			break
		}
		if s.vocab.cur.CompareAndSwap(cur, r) {
			break
		}
	}
	return r, nil
}

// Vocabulary returns the session's views, with their values at its
// current version, and its actions with their counters.
func (s *Session) Vocabulary(ctx context.Context) (*values.Vocabulary, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end()
	if s.dropped.Load() {
		return nil, s.errDropped()
	}
	snap := s.snapshot()
	out := &values.Vocabulary{Version: snap.Version()}
	r, err := s.vocabularyAt(ctx, snap)
	if err != nil || r == nil {
		return out, err
	}
	tick, set, marks := s.attn.tick.Load(), s.attn.currentSettings(), s.attn.marks.Load()
	salience := func(m map[string]vocab.Mark, name string) (float64, bool) {
		mk, ok := m[name]
		if !ok {
			mk = vocab.Fresh(tick)
		}
		sal := mk.At(tick, set.Decay)
		return sal, sal < set.SalienceThreshold
	}
	var mv, ma map[string]vocab.Mark
	if marks != nil {
		mv, ma = marks.Views, marks.Actions
	}
	for _, v := range r.state.Views() {
		res := r.values.Results[v.Name]
		view := values.View{Name: v.Name, Intent: v.Intent, Expr: v.Expr, Value: res.Value, Text: res.Text,
			Agent: v.Agent, Registered: v.Registered, Revised: v.Revised, Revisions: v.Revisions}
		view.Salience, view.LowSalience = salience(mv, v.Name)
		if res.Err != nil {
			view.Error = res.Err.Error()
		}
		out.Views = append(out.Views, view)
	}
	for _, a := range r.state.Actions() {
		act := values.Action{Name: a.Name, Intent: a.Intent, Signature: a.Signature(), If: a.If, Agent: a.Agent,
			Registered: a.Registered, Revised: a.Revised, Revisions: a.Revisions,
			Invocations: a.Invocations, LastInvoked: a.LastInvoked}
		act.Salience, act.LowSalience = salience(ma, a.Name)
		if marks != nil {
			f := marks.Failed[a.Name]
			act.FailedCalls, act.LastFailure = f.Count, f.Error
		}
		for _, p := range a.Params {
			ap := values.ActionParam{Name: p.Name, Type: p.Type.String()}
			if p.Default != nil {
				ap.Default, ap.HasDefault = p.Default.Go(), true
			}
			act.Params = append(act.Params, ap)
		}
		out.Actions = append(out.Actions, act)
	}
	return out, nil
}
