package goldfish

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/goldfish-gql/goldfish/internal/engine"
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
	// FailedCalls counts the CALLs that could not apply (arguments
	// refused, precondition false or not evaluable, the body's error)
	// since the action's latest registration; LastFailure is the
	// latest's error as one line.
	FailedCalls uint64
	LastFailure string
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
	// BrokenViews are the views whose evaluation fails, with their
	// errors (the first line, shortened, at depth=lean); they show
	// whatever the read asked for.
	BrokenViews []BrokenView `json:"broken_views,omitempty"`
	// StaleActions were registered at least stale_reads Recalls ago and
	// not invoked since.
	StaleActions []string `json:"stale_actions,omitempty"`
	// Contested are the targets two or more actions' bodies write (a
	// kind and property key, a kind's nodes, or a kind and edge type),
	// each with its actions.
	Contested []ContestedTarget `json:"contested,omitempty"`
	// Yours is what concerns the reading agent alone (a Recall that
	// names one): the actions it registered that were never invoked, the
	// broken views it registered or uses, and how many of its Recalls
	// read no view.
	Yours *Yours `json:"yours,omitempty"`
	// Help is "vocabulary_review" when VocabularyHealth is degenerating:
	// the review patterns, which gqlsh's :help vocabulary prints.
	Help string `json:"help,omitempty"`
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

// ContestedTarget is a target and the actions whose bodies write it:
// TSK.status, (:TSK) for the nodes of a kind inserted or deleted,
// (:TSK)-[:has_note]-> for an edge type, * or () for any kind.
type ContestedTarget struct {
	Target  string   `json:"target"`
	Actions []string `json:"actions"`
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
	// Diff is the change itself as a Δ (Session.Diff between the two
	// versions) when the session is small and the change fits the
	// envelope's budget.
	Diff string `json:"diff,omitempty"`
}

// VocabularyGap is a (kind, property) pair and how many Commits wrote
// it raw and inside actions.
// Counts are over the session's latest gap_window Commits. When raw
// Commits of an agent kept writing the pair just before its CALLs of one
// action, BeforeCall names it: BeforeTimes of its BeforeCalls CALLs in
// the window came after such a write (the pair may belong in the action).
type VocabularyGap struct {
	Kind        string `json:"kind"`
	Property    string `json:"property"`
	Raw         uint64 `json:"raw"`
	InActions   uint64 `json:"in_actions"`
	BeforeCall  string `json:"before_call,omitempty"`
	BeforeTimes uint64 `json:"before_times,omitempty"`
	BeforeCalls uint64 `json:"before_calls,omitempty"`
}

// Yours is the part of an envelope that concerns the reading agent.
type Yours struct {
	// NeverInvoked are the actions it registered that no CALL invoked.
	NeverInvoked []string `json:"never_invoked,omitempty"`
	// BrokenViews are the broken views it registered or uses (named by
	// its views, its actions' IFs and the IFs of the actions it called).
	BrokenViews []string `json:"broken_views,omitempty"`
	// NoViewRead, when it registered views, counts its Recalls since it
	// last read views, once that is stale_reads or more.
	NoViewRead uint64 `json:"no_view_read,omitempty"`
}

// IntentOverlap is a pair of actions and the Jaccard index of their
// intents' keywords.
type IntentOverlap struct {
	A       string  `json:"a"`
	B       string  `json:"b"`
	Jaccard float64 `json:"jaccard"`
}

// AttentionSettings are a session's attention thresholds (SPEC §9):
// they change what a Recall shows, never what a Commit does.
type AttentionSettings struct {
	// StaleReads: an action registered at least this many Recalls of the
	// session ago and not invoked since is stale (default 10); also the
	// window vocabulary_health looks back over.
	StaleReads uint64 `json:"stale_reads"`
	// Decay multiplies an item's salience with each Recall that does not
	// use it (0.001 ≤ Decay ≤ 1; default 0.9).
	Decay float64 `json:"decay"`
	// SalienceThreshold: items under it are low_salience (default 0.1).
	SalienceThreshold float64 `json:"salience_threshold"`
	// GapRatio and GapMin: a (kind, property) pair written by at least
	// GapMin raw Commits and GapRatio times more often raw than by
	// actions is a vocabulary gap (defaults 4 and 5).
	GapRatio float64 `json:"gap_ratio"`
	GapMin   uint64  `json:"gap_min"`
	// GapWindow: gaps are counted over the session's latest GapWindow
	// Commits that wrote a property or called an action (default 200,
	// at most MaxGapWindow).
	GapWindow uint64 `json:"gap_window"`
	// History: how many versions before the newest the session keeps
	// readable across a flush (HistoryAll, the default; HistoryNone; or a
	// count). Not an attention threshold: it bounds what a flush keeps of
	// the log (SPEC §7), set in the same place.
	History HistoryKeep `json:"history"`
}

// HistoryKeep is the history setting: a count of versions, HistoryAll or
// HistoryNone; as text (JSON, the shell) "all", "none" or the count.
type HistoryKeep uint64

// The history setting's ends.
const (
	HistoryNone HistoryKeep = 0
	HistoryAll  HistoryKeep = math.MaxUint64
)

// String writes the setting as the shell takes it.
func (h HistoryKeep) String() string { return engine.HistoryKeep(h).String() }

// MarshalText writes "all", "none" or the count.
func (h HistoryKeep) MarshalText() ([]byte, error) { return engine.HistoryKeep(h).MarshalText() }

// UnmarshalText reads "all", "none" or a count.
func (h *HistoryKeep) UnmarshalText(b []byte) error { return (*engine.HistoryKeep)(h).UnmarshalText(b) }

// UnmarshalJSON reads a string or a bare count.
func (h *HistoryKeep) UnmarshalJSON(b []byte) error { return (*engine.HistoryKeep)(h).UnmarshalJSON(b) }

// MaxGapWindow is the largest GapWindow.
const MaxGapWindow = 1000

// DefaultAttentionSettings are the settings of a session that set none.
var DefaultAttentionSettings = AttentionSettings{StaleReads: 10, Decay: 0.9, SalienceThreshold: 0.1, GapRatio: 4, GapMin: 5, GapWindow: 200, History: HistoryAll}

// AttentionSettings returns the session's attention settings.
func (s *Session) AttentionSettings(ctx context.Context) (AttentionSettings, error) {
	set, err := s.e.AttentionSettings(ctx)
	return settingsOut(set), err
}

// SetAttentionSettings sets the session's attention settings, durably
// when the cabinet holds the session (a session never committed keeps
// them in memory until its first Commit saves them with it). A value out
// of range is refused with 22Q06.
func (s *Session) SetAttentionSettings(ctx context.Context, set AttentionSettings) error {
	return s.e.SetAttentionSettings(ctx, set.in())
}

// MaxPinnedKinds is the most kinds a session pins (SetPinnedKinds).
const MaxPinnedKinds = 16

// PinnedKinds returns the session's pinned kinds, sorted (nil: none).
func (s *Session) PinnedKinds(ctx context.Context) ([]string, error) {
	return s.e.PinnedKinds(ctx)
}

// SetPinnedKinds sets the session's pinned kinds (nil or empty clears
// them), kept with the session as its attention settings are: durably
// when the cabinet holds the session, across reopen, on PostgreSQL too.
// Every Recall of the session that names no Pinned kinds of its own
// carries the live nodes of these kinds first (RecallOptions.Pinned).
// Kinds are sorted and kept once; more than MaxPinnedKinds, or a kind
// that is empty or over 128 bytes, is refused with 22Q06; the catalogue
// pins none (42Q02).
func (s *Session) SetPinnedKinds(ctx context.Context, kinds []string) error {
	return s.e.SetPinnedKinds(ctx, kinds)
}

// ParseKinds reads a list of kinds as shells and servers take it as
// words: "LAW,RULE" (spaces around the names are dropped, empty names
// skipped; "" is none).
func ParseKinds(text string) []string {
	var out []string
	for _, k := range strings.Split(text, ",") {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	return out
}

// Vocabulary returns the session's views, with their values at its
// current version, and its actions with their counters.
func (s *Session) Vocabulary(ctx context.Context) (*Vocabulary, error) {
	v, err := s.e.Vocabulary(ctx)
	if v == nil {
		return nil, err
	}
	out := &Vocabulary{Version: v.Version}
	for _, view := range v.Views {
		view.Value = goValue(view.Value)
		out.Views = append(out.Views, View(view))
	}
	for _, a := range v.Actions {
		act := Action{Name: a.Name, Intent: a.Intent, Signature: a.Signature, If: a.If, Agent: a.Agent,
			Registered: a.Registered, Revised: a.Revised, Revisions: a.Revisions,
			Invocations: a.Invocations, LastInvoked: a.LastInvoked, Salience: a.Salience, LowSalience: a.LowSalience,
			FailedCalls: a.FailedCalls, LastFailure: a.LastFailure}
		for _, p := range a.Params {
			act.Params = append(act.Params, ActionParam{Name: p.Name, Type: p.Type, Default: goValue(p.Default), HasDefault: p.HasDefault})
		}
		out.Actions = append(out.Actions, act)
	}
	return out, err
}

// attentionOf gives one caller its own copy of an envelope's fields.
func attentionOf(a *engine.Attention) *Attention {
	if a == nil {
		return nil
	}
	out := &Attention{FirstRead: a.FirstRead, Note: a.Note, StaleActions: slices.Clone(a.StaleActions),
		YouElided: slices.Clone(a.YouElided), VocabularyHealth: a.Health, LowSalience: a.LowSalience, Help: a.Help}
	if y := a.Yours; y != nil {
		out.Yours = &Yours{NeverInvoked: slices.Clone(y.NeverInvoked), BrokenViews: slices.Clone(y.BrokenViews), NoViewRead: y.NoViewRead}
	}
	for _, b := range a.BrokenViews {
		out.BrokenViews = append(out.BrokenViews, BrokenView(b))
	}
	if s := a.Since; s != nil {
		out.SinceYourLastRead = &SinceLastRead{Versions: s.Versions, ElementsChanged: s.ElementsChanged,
			ActionsRegistered: slices.Clone(s.ActionsRegistered), ActionsInvoked: slices.Clone(s.ActionsInvoked),
			ViewsChanged: slices.Clone(s.ViewsChanged), Diff: s.Diff}
	}
	for _, g := range a.Gaps {
		out.VocabularyGaps = append(out.VocabularyGaps, VocabularyGap(g))
	}
	for _, c := range a.Contested {
		out.Contested = append(out.Contested, ContestedTarget{Target: c.Target, Actions: slices.Clone(c.Actions)})
	}
	for _, o := range a.Overlap {
		out.IntentOverlap = append(out.IntentOverlap, IntentOverlap(o))
	}
	return out
}

// AttentionSettingNames are the settings' names, as SetAttentionSetting
// and the shell's :set take them.
var AttentionSettingNames = []string{"stale_reads", "decay", "salience_threshold", "gap_ratio", "gap_min", "gap_window", "history"}

// SetAttentionSetting returns cur with the named setting (stale_reads,
// decay, salience_threshold, gap_ratio, gap_min) set from its text, for
// shells and servers that take settings as words; a name it does not know
// or a value out of range is refused with 22Q06.
func SetAttentionSetting(cur AttentionSettings, name, value string) (AttentionSettings, error) {
	next, err := engine.SetSetting(cur.in(), name, value)
	if err != nil {
		return cur, err
	}
	return settingsOut(next), nil
}

// String writes the settings as name=value words.
func (a AttentionSettings) String() string { return a.in().String() }

// in is a as the engine's settings; settingsOut the engine's as the
// facade's (the history setting is a type of each).
func (a AttentionSettings) in() engine.Settings {
	return engine.Settings{StaleReads: a.StaleReads, Decay: a.Decay, SalienceThreshold: a.SalienceThreshold,
		GapRatio: a.GapRatio, GapMin: a.GapMin, GapWindow: a.GapWindow, History: engine.HistoryKeep(a.History)}
}

func settingsOut(s engine.Settings) AttentionSettings {
	return AttentionSettings{StaleReads: s.StaleReads, Decay: s.Decay, SalienceThreshold: s.SalienceThreshold,
		GapRatio: s.GapRatio, GapMin: s.GapMin, GapWindow: s.GapWindow, History: HistoryKeep(s.History)}
}
