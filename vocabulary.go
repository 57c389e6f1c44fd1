package goldfish

import (
	"context"
	"sync/atomic"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/vocab"
)

// Vocabulary is a session's registered views and actions at one version
// (SPEC §9), each in name order.
type Vocabulary struct {
	Version uint64
	Views   []View
	Actions []Action
}

// View is a registered view with its value at the Vocabulary's version.
type View struct {
	Name, Intent string
	// Expr is the view's CEL expression.
	Expr string
	// Value is the value as Go data (nil, bool, int64, float64, string,
	// time.Time, []any, map[string]any); Text the value as a literal,
	// cut to 200 bytes. Both are empty when the view is broken.
	Value any
	Text  string
	// Error says why the view is broken ("" when it is not): a missing
	// key, a type error, its cost, a cycle through view().
	Error string
	// Agent registered it; Registered is the version of its first
	// CREATE, Revised of its latest CREATE OR REPLACE, Revisions how many
	// of those there were.
	Agent               string
	Registered, Revised uint64
	Revisions           int
	// Salience is the view's salience now (SPEC §9: raised by use,
	// decayed by each Recall that does not use it); LowSalience says it
	// is under the session's threshold.
	Salience    float64
	LowSalience bool
}

// Broken reports whether the view failed to evaluate.
func (v View) Broken() bool { return v.Error != "" }

// Action is a registered action with its counters.
type Action struct {
	Name, Intent string
	// Signature is the action as a call declares it: name(p TYPE = …).
	Signature string
	Params    []ActionParam
	// If is the precondition's CEL text ("" for none).
	If string
	// Agent, Registered, Revised and Revisions are as for View;
	// Invocations counts the CALLs that applied, LastInvoked is the
	// version the latest made (0: never invoked).
	Agent               string
	Registered, Revised uint64
	Revisions           int
	Invocations         int
	LastInvoked         uint64
	// Salience and LowSalience are as for View.
	Salience    float64
	LowSalience bool
}

// ActionParam is one parameter of an action.
type ActionParam struct {
	Name string
	// Type is STRING, INTEGER, FLOAT, BOOLEAN, DATE, DATETIME or LIST.
	Type string
	// Default is the value an argument left out takes (a Go value, as
	// ParseLiteral gives them); HasDefault tells a null default from none.
	Default    any
	HasDefault bool
}

// Attention is what a Recall tells its reader to notice (SPEC §9, the
// attention envelope): the Shape's text holds it as comment lines. Empty
// fields are left out of JSON; the README's tour of the envelope says
// what each means.
type Attention struct {
	// FirstRead is set on an agent's first Recall of the session, shown
	// at depth=full once; Note says so.
	FirstRead bool   `json:"first_read,omitempty"`
	Note      string `json:"note,omitempty"`
	// BrokenViews are the views whose evaluation fails (with their
	// errors at depth=full); they show whatever the read asked for.
	BrokenViews []BrokenView `json:"broken_views,omitempty"`
	// StaleActions were registered at least stale_reads Recalls ago and
	// not invoked since.
	StaleActions []string `json:"stale_actions,omitempty"`
	// SinceYourLastRead is what changed since this agent's previous
	// Recall.
	SinceYourLastRead *SinceLastRead `json:"since_your_last_read,omitempty"`
	// YouElided are the sections the read left out (Only) that changed
	// since this agent last saw them.
	YouElided []string `json:"you_elided,omitempty"`
	// VocabularyHealth is progressive, stable or degenerating.
	VocabularyHealth string `json:"vocabulary_health,omitempty"`
	// VocabularyGaps are (kind, property) pairs raw Commits write far
	// more often than actions do.
	VocabularyGaps []VocabularyGap `json:"vocabulary_gaps,omitempty"`
	// IntentOverlap are pairs of actions whose intents share most of
	// their keywords.
	IntentOverlap []IntentOverlap `json:"intent_overlap,omitempty"`
	// LowSalience counts the views and actions left out at depth=lean for
	// low salience.
	LowSalience int `json:"low_salience,omitempty"`
}

// BrokenView is a view that fails, and why (Error at depth=full).
type BrokenView struct {
	Name  string `json:"name"`
	Error string `json:"error,omitempty"`
}

// SinceLastRead is what changed since an agent's previous Recall.
type SinceLastRead struct {
	Versions        uint64 `json:"versions"`
	ElementsChanged uint64 `json:"elements_changed"`
	// ActionsRegistered were registered or revised, ActionsInvoked
	// invoked, ViewsChanged registered, revised, changed value or
	// dropped ("name (dropped)").
	ActionsRegistered []string `json:"actions_registered,omitempty"`
	ActionsInvoked    []string `json:"actions_invoked,omitempty"`
	ViewsChanged      []string `json:"views_changed,omitempty"`
}

// VocabularyGap is a (kind, property) pair and how many Commits wrote
// it raw and inside actions.
type VocabularyGap struct {
	Kind      string `json:"kind"`
	Property  string `json:"property"`
	Raw       uint64 `json:"raw"`
	InActions uint64 `json:"in_actions"`
}

// IntentOverlap is a pair of actions and the Jaccard index of their
// intents' keywords.
type IntentOverlap struct {
	A       string  `json:"a"`
	B       string  `json:"b"`
	Jaccard float64 `json:"jaccard"`
}

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
func (s *Session) Vocabulary(ctx context.Context) (*Vocabulary, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end()
	if s.dropped.Load() {
		return nil, s.errDropped()
	}
	snap := s.snapshot()
	out := &Vocabulary{Version: snap.Version()}
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
		view := View{Name: v.Name, Intent: v.Intent, Expr: v.Expr, Value: res.Value, Text: res.Text,
			Agent: v.Agent, Registered: v.Registered, Revised: v.Revised, Revisions: v.Revisions}
		view.Salience, view.LowSalience = salience(mv, v.Name)
		if res.Err != nil {
			view.Error = res.Err.Error()
		}
		out.Views = append(out.Views, view)
	}
	for _, a := range r.state.Actions() {
		act := Action{Name: a.Name, Intent: a.Intent, Signature: a.Signature(), If: a.If, Agent: a.Agent,
			Registered: a.Registered, Revised: a.Revised, Revisions: a.Revisions,
			Invocations: a.Invocations, LastInvoked: a.LastInvoked}
		act.Salience, act.LowSalience = salience(ma, a.Name)
		for _, p := range a.Params {
			ap := ActionParam{Name: p.Name, Type: p.Type.String()}
			if p.Default != nil {
				ap.Default, ap.HasDefault = goValue(*p.Default), true
			}
			act.Params = append(act.Params, ap)
		}
		out.Actions = append(out.Actions, act)
	}
	return out, nil
}
