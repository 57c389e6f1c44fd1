package wire

import (
	"maps"
	"slices"
	"time"

	"github.com/goldfish-gql/goldfish/values"
)

// Session is one session in GET /v1/sessions, GET /v1/sessions/{name}
// and the sessions tool.
type Session struct {
	Name       string         `json:"name"`
	Version    uint64         `json:"version"`
	Nodes      int            `json:"nodes"`
	Edges      int            `json:"edges"`
	Recycled   int            `json:"recycled,omitempty"`
	Kinds      map[string]int `json:"kinds,omitempty"`
	LastCommit *time.Time     `json:"last_commit,omitempty"`
}

// Sessions is the answer of GET /v1/sessions.
type Sessions struct {
	Sessions []Session `json:"sessions"`
}

// SessionOf is the answer for in.
func SessionOf(in values.SessionInfo) Session {
	out := Session{Name: in.Name, Version: in.Version, Nodes: in.Nodes, Edges: in.Edges, Recycled: in.Recycled}
	if len(in.Kinds) > 0 {
		out.Kinds = make(map[string]int, len(in.Kinds))
		for _, k := range in.Kinds {
			out.Kinds[k.Kind] = k.Count
		}
	}
	if !in.LastCommit.IsZero() {
		t := in.LastCommit.UTC()
		out.LastCommit = &t
	}
	return out
}

// Value is the session s describes; the cabinet holds it (Persisted)
// once it has a version.
func (s Session) Value() values.SessionInfo {
	in := values.SessionInfo{Name: s.Name, Version: s.Version, Nodes: s.Nodes, Edges: s.Edges, Recycled: s.Recycled, Persisted: s.Version > 0}
	if s.LastCommit != nil {
		in.LastCommit = *s.LastCommit
	}
	for _, k := range slices.Sorted(maps.Keys(s.Kinds)) {
		in.Kinds = append(in.Kinds, values.KindCount{Kind: k, Count: s.Kinds[k]})
	}
	return in
}

// Vocabulary is the answer of GET /v1/sessions/{name}/vocabulary: the
// session's views, with their values or errors, and actions, with every
// counter (values.Vocabulary).
type Vocabulary struct {
	Version uint64   `json:"version"`
	Views   []View   `json:"views"`
	Actions []Action `json:"actions"`
}

// View is one view. Text is its value as a literal; Error, when set,
// says why it is broken.
type View struct {
	Name        string  `json:"name"`
	Intent      string  `json:"intent"`
	Expr        string  `json:"expr"`
	Text        string  `json:"text,omitempty"`
	Error       string  `json:"error,omitempty"`
	Agent       string  `json:"agent,omitempty"`
	Registered  uint64  `json:"registered"`
	Revised     uint64  `json:"revised"`
	Revisions   int     `json:"revisions"`
	Salience    float64 `json:"salience"`
	LowSalience bool    `json:"low_salience,omitempty"`
}

// Action is one action.
type Action struct {
	Name        string  `json:"name"`
	Intent      string  `json:"intent"`
	Signature   string  `json:"signature"`
	If          string  `json:"if,omitempty"`
	Agent       string  `json:"agent,omitempty"`
	Registered  uint64  `json:"registered"`
	Revised     uint64  `json:"revised"`
	Revisions   int     `json:"revisions"`
	Invocations int     `json:"invocations"`
	LastInvoked uint64  `json:"last_invoked"`
	Salience    float64 `json:"salience"`
	LowSalience bool    `json:"low_salience,omitempty"`
	// FailedCalls counts the CALLs that could not apply since the
	// action's latest registration, LastFailure the latest's error.
	FailedCalls uint64 `json:"failed_calls,omitempty"`
	LastFailure string `json:"last_failure,omitempty"`
}

// VocabularyOf is the answer for v (a view's Go value and an action's
// parameters are not carried: the text and the signature say them).
func VocabularyOf(v *values.Vocabulary) Vocabulary {
	out := Vocabulary{Version: v.Version, Views: []View{}, Actions: []Action{}}
	for _, x := range v.Views {
		out.Views = append(out.Views, View{Name: x.Name, Intent: x.Intent, Expr: x.Expr, Text: x.Text, Error: x.Error,
			Agent: x.Agent, Registered: x.Registered, Revised: x.Revised, Revisions: x.Revisions,
			Salience: x.Salience, LowSalience: x.LowSalience})
	}
	for _, a := range v.Actions {
		out.Actions = append(out.Actions, Action{Name: a.Name, Intent: a.Intent, Signature: a.Signature, If: a.If,
			Agent: a.Agent, Registered: a.Registered, Revised: a.Revised, Revisions: a.Revisions,
			Invocations: a.Invocations, LastInvoked: a.LastInvoked, Salience: a.Salience, LowSalience: a.LowSalience,
			FailedCalls: a.FailedCalls, LastFailure: a.LastFailure})
	}
	return out
}

// Value is the vocabulary v describes.
func (v Vocabulary) Value() *values.Vocabulary {
	out := &values.Vocabulary{Version: v.Version}
	for _, x := range v.Views {
		out.Views = append(out.Views, values.View{Name: x.Name, Intent: x.Intent, Expr: x.Expr, Text: x.Text, Error: x.Error,
			Agent: x.Agent, Registered: x.Registered, Revised: x.Revised, Revisions: x.Revisions,
			Salience: x.Salience, LowSalience: x.LowSalience})
	}
	for _, a := range v.Actions {
		out.Actions = append(out.Actions, values.Action{Name: a.Name, Intent: a.Intent, Signature: a.Signature, If: a.If,
			Agent: a.Agent, Registered: a.Registered, Revised: a.Revised, Revisions: a.Revisions,
			Invocations: a.Invocations, LastInvoked: a.LastInvoked, Salience: a.Salience, LowSalience: a.LowSalience,
			FailedCalls: a.FailedCalls, LastFailure: a.LastFailure})
	}
	return out
}

// SettingsRequest is the body of POST /v1/sessions/{name}/settings: the
// attention settings to change (docs/design.md#the-vocabulary-and-attention); those left out keep their
// values. The answer is the settings after the change.
type SettingsRequest struct {
	StaleReads        *uint64  `json:"stale_reads,omitempty"`
	Decay             *float64 `json:"decay,omitempty"`
	SalienceThreshold *float64 `json:"salience_threshold,omitempty"`
	GapRatio          *float64 `json:"gap_ratio,omitempty"`
	GapMin            *uint64  `json:"gap_min,omitempty"`
	GapWindow         *uint64  `json:"gap_window,omitempty"`
	// History: "all", "none" or a count of versions (docs/design.md#persistence-and-history).
	History *values.HistoryKeep `json:"history,omitempty"`
	// Pinned sets the session's pinned kinds: a list of kinds, or one
	// string of them separated by commas; [] or "" clears them, left out
	// keeps them.
	Pinned *Sections `json:"pinned,omitempty"`
}

// SettingsRequestOf is the request that sets every attention setting to
// set's (the pinned kinds are left as they are).
func SettingsRequestOf(set values.AttentionSettings) SettingsRequest {
	return SettingsRequest{StaleReads: &set.StaleReads, Decay: &set.Decay, SalienceThreshold: &set.SalienceThreshold,
		GapRatio: &set.GapRatio, GapMin: &set.GapMin, GapWindow: &set.GapWindow, History: &set.History}
}

// PinnedRequest is the request that sets the pinned kinds to kinds
// (none: no kind).
func PinnedRequest(kinds []string) SettingsRequest {
	list := Sections(kinds)
	if list == nil {
		list = Sections{}
	}
	return SettingsRequest{Pinned: &list}
}

// Settings is the answer of GET and POST /v1/sessions/{name}/settings:
// the session's attention settings and its pinned kinds ([] for none).
type Settings struct {
	values.AttentionSettings
	Pinned []string `json:"pinned"`
}

// SettingsOf is the answer for set and the pinned kinds.
func SettingsOf(set values.AttentionSettings, pinned []string) Settings {
	return Settings{AttentionSettings: set, Pinned: orEmpty(pinned)}
}

// Dump is the answer of GET /v1/sessions/{name}/dump: the whole session
// as Session.Dump writes it (deterministic, without engine ids), within
// the frame, or with ?at=N as DumpAt writes it.
type Dump struct {
	Version uint64 `json:"version"`
	Dump    string `json:"dump"`
}

// ExportRequest is the body of POST /v1/sessions/{name}/export: the
// anchors as a Recall's q (and its params), or as nicks, and the budgets.
type ExportRequest struct {
	Q       string         `json:"q,omitempty"`
	Params  Params         `json:"params,omitempty"`
	Nicks   []string       `json:"nicks,omitempty"`
	Options ExportSettings `json:"options,omitempty"`
}

// ExportSettings are an export's budgets (K as RecallSettings.K).
type ExportSettings struct {
	M int  `json:"M,omitempty"`
	K *int `json:"k,omitempty"` // 0: no walk; left out: the default
	L int  `json:"L,omitempty"`
	F int  `json:"F,omitempty"`
}

// NewExportRequest is the request of an export of q with o.
func NewExportRequest(q string, o values.SliceOptions) (ExportRequest, error) {
	ps, err := EncodeParams(o.Params)
	if err != nil {
		return ExportRequest{}, err
	}
	return ExportRequest{Q: q, Params: ps, Nicks: o.Nicks, Options: ExportSettings{M: o.M, K: Hops(o.K), L: o.L, F: o.F}}, nil
}

// SliceOptions are the options r asks for.
func (r ExportRequest) SliceOptions() (values.SliceOptions, error) {
	k, err := HopsOf(r.Options.K)
	if err != nil {
		return values.SliceOptions{}, err
	}
	o := values.SliceOptions{M: r.Options.M, K: k, L: r.Options.L, F: r.Options.F, Nicks: r.Nicks}
	if len(r.Params) > 0 {
		o.Params = r.Params
	}
	return o, nil
}

// Slice is the answer of an export: the slice's text and its counts.
type Slice struct {
	Status    string   `json:"status"`
	Version   uint64   `json:"version"`
	Anchors   int      `json:"anchors"`
	Nodes     int      `json:"nodes"`
	Edges     int      `json:"edges"`
	Rows      int      `json:"rows"`
	Bound     int      `json:"bound"`
	Truncated bool     `json:"truncated,omitempty"`
	Notices   []Notice `json:"notices"`
	Slice     string   `json:"slice"`
}

// SliceOf is the answer for sl.
func SliceOf(sl *values.Slice) Slice {
	return Slice{Status: string(sl.Status), Version: sl.Version, Anchors: sl.Anchors, Nodes: sl.Nodes, Edges: sl.Edges,
		Rows: sl.Rows, Bound: sl.Bound, Truncated: sl.Truncated, Notices: noticeList(sl.Notices), Slice: sl.Text}
}

// Value is the slice s describes.
func (s Slice) Value() *values.Slice {
	return &values.Slice{Text: s.Slice, Anchors: s.Anchors, Nodes: s.Nodes, Edges: s.Edges, Rows: s.Rows,
		Bound: s.Bound, Version: s.Version, Truncated: s.Truncated, Notices: noticeValues(s.Notices), Status: values.Code(s.Status)}
}

// Agents is the answer of GET /v1/sessions/{name}/agents (and of DELETE
// …/agents/{agent}, empty): the agents that read the session, sorted by
// name.
type Agents struct {
	Agents []Agent `json:"agents"`
}

// Agent is one agent: the version its latest Recall read, and its
// number of Recalls.
type Agent struct {
	Name     string `json:"name"`
	LastRead uint64 `json:"last_read"`
	Reads    uint64 `json:"reads"`
}

// AgentOf is the answer's entry for a.
func AgentOf(a values.AgentInfo) Agent {
	return Agent{Name: a.Name, LastRead: a.LastRead, Reads: a.Reads}
}

// Value is the agent a describes.
func (a Agent) Value() values.AgentInfo {
	return values.AgentInfo{Name: a.Name, LastRead: a.LastRead, Reads: a.Reads}
}

// Kinds is the answer of GET /v1/sessions/{name}/kinds: each kind's
// nodes, property keys and edge types out and in, with counts.
type Kinds struct {
	Kinds []Kind `json:"kinds"`
}

// Kind is one kind of Kinds.
type Kind struct {
	Kind  string             `json:"kind"`
	Nodes int                `json:"nodes"`
	Keys  []values.NameCount `json:"keys"`
	Out   []values.NameCount `json:"out"`
	In    []values.NameCount `json:"in"`
}

// KindOf is the answer's entry for k.
func KindOf(k values.KindSchema) Kind {
	return Kind{Kind: k.Kind, Nodes: k.Nodes, Keys: nameCounts(k.Keys), Out: nameCounts(k.Out), In: nameCounts(k.In)}
}

// Value is the kind k describes.
func (k Kind) Value() values.KindSchema {
	return values.KindSchema{Kind: k.Kind, Nodes: k.Nodes, Keys: nameCounts(k.Keys), Out: nameCounts(k.Out), In: nameCounts(k.In)}
}

// nameCounts is a list of its own ([] for none), so the answer and the
// caller share nothing.
func nameCounts(in []values.NameCount) []values.NameCount { return append([]values.NameCount{}, in...) }

// Names is the answer of GET /v1/sessions/{name}/names: the names a
// shell completes ([] for none).
type Names struct {
	Labels    []string `json:"labels"`
	EdgeTypes []string `json:"edge_types"`
	Keys      []string `json:"keys"`
	Nicks     []string `json:"nicks"`
}

// NamesOf is the answer for n.
func NamesOf(n values.Names) Names {
	return Names{Labels: orEmpty(n.Labels), EdgeTypes: orEmpty(n.EdgeTypes), Keys: orEmpty(n.Keys), Nicks: orEmpty(n.Nicks)}
}

// Value is the names n lists.
func (n Names) Value() values.Names {
	return values.Names{Labels: n.Labels, EdgeTypes: n.EdgeTypes, Keys: n.Keys, Nicks: n.Nicks}
}

// Purge is the answer of POST /v1/sessions/{name}/purge: the recycled
// elements removed and the session's version after.
type Purge struct {
	Purged  int    `json:"purged"`
	Version uint64 `json:"version"`
}

// Dropped is the answer of DELETE /v1/sessions/{name}: the session as it
// was before the drop (Version 0 when it never held a Commit).
type Dropped struct {
	Dropped Session `json:"dropped"`
}

// Flush is the answer of POST /v1/flush: where the sessions were written
// ("" when the server keeps them in memory).
type Flush struct {
	Cabinet string `json:"cabinet"`
}
