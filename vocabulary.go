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
// attention envelope). Empty fields are left out of JSON.
type Attention struct {
	// BrokenViews are the views whose evaluation fails, with their errors.
	BrokenViews []BrokenView `json:"broken_views,omitempty"`
}

// BrokenView is a view that fails, and why.
type BrokenView struct {
	Name  string `json:"name"`
	Error string `json:"error"`
}

// empty reports whether the envelope has nothing to say.
func (a *Attention) empty() bool { return a == nil || len(a.BrokenViews) == 0 }

// vocabRead is a session's vocabulary at one version, evaluated once and
// kept until the next version: its views' values, the comment block a
// Recall shows and the attention it raises.
type vocabRead struct {
	version uint64
	state   *vocab.State
	values  *vocab.Values
	block   []byte
	cost    int64
	broken  []BrokenView
}

// vocabCache holds the latest vocabRead of a session.
type vocabCache struct{ cur atomic.Pointer[vocabRead] }

// vocabularyAt evaluates (once per version) the vocabulary of snap: nil
// when the session has none. Only the context stopping the evaluation is
// an error; broken views are part of the result.
func (s *Session) vocabularyAt(ctx context.Context, snap *store.Snapshot) (*vocabRead, error) {
	state := exec.Vocabulary(snap)
	if state.Empty() {
		return nil, nil
	}
	if r := s.vocab.cur.Load(); r != nil && r.version == snap.Version() && r.state == state {
		return r, nil
	}
	vals, err := vocab.Evaluate(ctx, snap, state)
	if err != nil {
		return nil, gqlstatus.Interrupted(ctx, "Recall")
	}
	r := &vocabRead{version: snap.Version(), state: state, values: vals}
	r.block, r.cost = exec.VocabularyBlock(state, vals)
	for _, v := range state.Views() {
		if res := vals.Results[v.Name]; res.Err != nil {
			r.broken = append(r.broken, BrokenView{Name: v.Name, Error: res.Err.Error()})
		}
	}
	s.vocab.cur.Store(r)
	return r, nil
}

// attention builds a Recall's envelope.
func (r *vocabRead) attention() *Attention {
	if r == nil || len(r.broken) == 0 {
		return nil
	}
	return &Attention{BrokenViews: append([]BrokenView(nil), r.broken...)}
}

// Vocabulary returns the session's views, with their values at its
// current version, and its actions with their counters.
func (s *Session) Vocabulary(ctx context.Context) (*Vocabulary, error) {
	if err := s.db.enter(); err != nil {
		return nil, err
	}
	defer s.db.exit()
	if s.dropped.Load() {
		return nil, s.errDropped()
	}
	snap := s.snapshot()
	out := &Vocabulary{Version: snap.Version()}
	r, err := s.vocabularyAt(ctx, snap)
	if err != nil || r == nil {
		return out, err
	}
	for _, v := range r.state.Views() {
		res := r.values.Results[v.Name]
		view := View{Name: v.Name, Intent: v.Intent, Expr: v.Expr, Value: res.Value, Text: res.Text,
			Agent: v.Agent, Registered: v.Registered, Revised: v.Revised, Revisions: v.Revisions}
		if res.Err != nil {
			view.Error = res.Err.Error()
		}
		out.Views = append(out.Views, view)
	}
	for _, a := range r.state.Actions() {
		act := Action{Name: a.Name, Intent: a.Intent, Signature: a.Signature(), If: a.If, Agent: a.Agent,
			Registered: a.Registered, Revised: a.Revised, Revisions: a.Revisions,
			Invocations: a.Invocations, LastInvoked: a.LastInvoked}
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

func (r *vocabRead) preamble() []byte {
	if r == nil {
		return nil
	}
	return r.block
}

func (r *vocabRead) preambleCost() int64 {
	if r == nil {
		return 0
	}
	return r.cost
}
