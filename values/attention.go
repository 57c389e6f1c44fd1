package values

// Attention is what a Recall tells its reader to notice (the attention
// envelope): the Shape's text holds it as comment lines. Empty fields are
// left out of JSON; the README's tour of the envelope says what each
// means.
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
	// Help is "vocabulary_review" when VocabularyHealth is degenerating
	// (the review patterns: the help topic vocabulary), else
	// "broken_views" when views are broken (the help topic broken_views).
	// gqlsh's :help TOPIC, GET /v1/help/TOPIC and the MCP resource
	// goldfish://help/TOPIC give the text.
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
	// WorkedAround are the actions whose CALLs failed and whose target a
	// raw Commit then wrote: the agents write around them (the action
	// needs revising).
	WorkedAround []WorkedAround `json:"worked_around,omitempty"`
	// OverTarget counts the views and actions left out at depth=full
	// (an agent's first read included), lowest salience first, for the
	// Recall's token target with the rows.
	OverTarget int `json:"over_target,omitempty"`
}

// Empty reports whether the envelope has nothing to say.
func (a *Attention) Empty() bool {
	return a == nil || !a.FirstRead && a.Note == "" && len(a.BrokenViews) == 0 && len(a.StaleActions) == 0 && len(a.Contested) == 0 &&
		a.Yours == nil && a.Help == "" && a.SinceYourLastRead == nil && len(a.YouElided) == 0 && a.VocabularyHealth == "" &&
		len(a.VocabularyGaps) == 0 && len(a.IntentOverlap) == 0 && a.LowSalience == 0 && a.OverTarget == 0 && len(a.WorkedAround) == 0
}

// WorkedAround is an action whose CALLs failed, then a raw Commit wrote
// its target.
type WorkedAround struct {
	Action      string `json:"action"`
	FailedCalls uint64 `json:"failed_calls"`
	Target      string `json:"target"`
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
