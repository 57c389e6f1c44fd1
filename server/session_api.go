package server

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// The endpoints below give a program what the shell's meta-commands give
// a person: a session's vocabulary (:views, :actions), its attention
// settings (:set), a listing of all of it (:dump), and slices to move
// neighbourhoods between sessions and servers (:export, :absorb).

// VocabularyJSON is the answer of GET /v1/sessions/{name}/vocabulary:
// the session's views, with their values or errors, and actions, with
// every counter (goldfish.Vocabulary).
type VocabularyJSON struct {
	Version uint64       `json:"version"`
	Views   []ViewJSON   `json:"views"`
	Actions []ActionJSON `json:"actions"`
}

// ViewJSON is one view. Text is its value as a literal; Error, when set,
// says why it is broken.
type ViewJSON struct {
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

// ActionJSON is one action.
type ActionJSON struct {
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

// SettingsRequest is the body of POST /v1/sessions/{name}/settings: the
// attention settings to change (SPEC §9); those left out keep their
// values. The answer is the settings after the change.
type SettingsRequest struct {
	StaleReads        *uint64  `json:"stale_reads,omitempty"`
	Decay             *float64 `json:"decay,omitempty"`
	SalienceThreshold *float64 `json:"salience_threshold,omitempty"`
	GapRatio          *float64 `json:"gap_ratio,omitempty"`
	GapMin            *uint64  `json:"gap_min,omitempty"`
	GapWindow         *uint64  `json:"gap_window,omitempty"`
	// History: "all", "none" or a count of versions (SPEC §7).
	History *goldfish.HistoryKeep `json:"history,omitempty"`
	// Pinned sets the session's pinned kinds (goldfish.Session.
	// SetPinnedKinds): a list of kinds, or one string of them separated
	// by commas; [] or "" clears them, left out keeps them.
	Pinned *Sections `json:"pinned,omitempty"`
}

// SettingsJSON is the answer of GET and POST /v1/sessions/{name}/settings:
// the session's attention settings and its pinned kinds ([] for none).
type SettingsJSON struct {
	goldfish.AttentionSettings
	Pinned []string `json:"pinned"`
}

// DumpJSON is the answer of GET /v1/sessions/{name}/dump: the whole
// session as goldfish's Session.Dump writes it (deterministic, without
// engine ids), within the 4 MiB frame.
type DumpJSON struct {
	Version uint64 `json:"version"`
	Dump    string `json:"dump"`
}

// ExportRequest is the body of POST /v1/sessions/{name}/export: the
// anchors as a Recall's q (and its params), or as nicks, and the budgets.
type ExportRequest struct {
	Q       string   `json:"q,omitempty"`
	Params  Params   `json:"params,omitempty"`
	Nicks   []string `json:"nicks,omitempty"`
	Options struct {
		M int  `json:"M,omitempty"`
		K *int `json:"k,omitempty"` // 0: no walk; left out: the default (RecallSettings.K)
		L int  `json:"L,omitempty"`
		F int  `json:"F,omitempty"`
	} `json:"options,omitempty"`
}

// SliceJSON is the answer of an export: the slice's text and its counts.
type SliceJSON struct {
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

// AbsorbRequest is the body of POST /v1/sessions/{name}/absorb: a
// slice's text and the policy for ids the session holds already.
type AbsorbRequest struct {
	Slice  string `json:"slice"`
	Policy string `json:"policy"`
	Agent  string `json:"agent,omitempty"`
}

// AbsorbJSON is the answer of an absorb: the Commit's object, then what
// the policy kept, skipped and reminted.
type AbsorbJSON struct {
	CommitJSON
	Policy    string            `json:"policy"`
	Unchanged int               `json:"unchanged,omitempty"`
	Skipped   []SkippedJSON     `json:"skipped,omitempty"`
	Reminted  map[string]string `json:"reminted,omitempty"`
}

// SkippedJSON is a slice element an absorb left out, and why.
type SkippedJSON struct {
	Element string `json:"element"`
	Reason  string `json:"reason"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

// vocabulary answers GET /v1/sessions/{name}/vocabulary.
func (s *Server) vocabulary(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	name := r.PathValue("name")
	sess, err := s.session(r.Context(), scope, name, "read")
	if err != nil {
		return nil, err
	}
	if name == goldfish.CatalogName && !scope.Unrestricted() {
		// The catalogue a token that reads only some sessions Recalls is
		// theirs alone, at version 1 (goldfish.RecallOptions.Sessions);
		// its vocabulary is that catalogue's: the real one's version
		// counts the changes of every session. The catalogue takes no
		// Commit, so it has no views or actions.
		return VocabularyJSON{Version: 1, Views: []ViewJSON{}, Actions: []ActionJSON{}}, nil
	}
	v, err := sess.Vocabulary(r.Context())
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	out := VocabularyJSON{Version: v.Version, Views: []ViewJSON{}, Actions: []ActionJSON{}}
	for _, x := range v.Views {
		out.Views = append(out.Views, ViewJSON{Name: x.Name, Intent: x.Intent, Expr: x.Expr, Text: x.Text, Error: x.Error,
			Agent: x.Agent, Registered: x.Registered, Revised: x.Revised, Revisions: x.Revisions,
			Salience: x.Salience, LowSalience: x.LowSalience})
	}
	for _, a := range v.Actions {
		out.Actions = append(out.Actions, ActionJSON{Name: a.Name, Intent: a.Intent, Signature: a.Signature, If: a.If,
			Agent: a.Agent, Registered: a.Registered, Revised: a.Revised, Revisions: a.Revisions,
			Invocations: a.Invocations, LastInvoked: a.LastInvoked, Salience: a.Salience, LowSalience: a.LowSalience,
			FailedCalls: a.FailedCalls, LastFailure: a.LastFailure})
	}
	return out, nil
}

// settings answers GET /v1/sessions/{name}/settings.
func (s *Server) settings(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	sess, err := s.session(r.Context(), scope, r.PathValue("name"), "read")
	if err != nil {
		return nil, err
	}
	cur, err := sess.AttentionSettings(r.Context())
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	return settingsJSON(r.Context(), s, sess, cur)
}

// settingsJSON is the answer of the settings endpoints.
func settingsJSON(ctx context.Context, s *Server, sess *goldfish.Session, set goldfish.AttentionSettings) (SettingsJSON, error) {
	pinned, err := sess.PinnedKinds(ctx)
	if err != nil {
		return SettingsJSON{}, s.callError(ctx, err)
	}
	if pinned == nil {
		pinned = []string{}
	}
	return SettingsJSON{AttentionSettings: set, Pinned: pinned}, nil
}

// setSettings answers POST /v1/sessions/{name}/settings. Setting them is
// a write: it needs the write scope, as a Commit does.
func (s *Server) setSettings(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	var req SettingsRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	name := r.PathValue("name")
	sess, err := s.session(r.Context(), scope, name, "write")
	if err != nil {
		return nil, err
	}
	if name == goldfish.CatalogName {
		return nil, gqlstatus.Errorf(gqlstatus.ReadOnlySession, "the %s session is kept by the engine and has no settings to change", goldfish.CatalogName).
			WithHint("set the attention settings of a session of your own")
	}
	// Read, change, write: two requests changing different settings at
	// once must both hold, so they take turns (one lock per session).
	defer s.memory.lock("settings\x00" + name)()
	cur, err := sess.AttentionSettings(r.Context())
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	if req.StaleReads != nil {
		cur.StaleReads = *req.StaleReads
	}
	if req.Decay != nil {
		cur.Decay = *req.Decay
	}
	if req.SalienceThreshold != nil {
		cur.SalienceThreshold = *req.SalienceThreshold
	}
	if req.GapRatio != nil {
		cur.GapRatio = *req.GapRatio
	}
	if req.GapMin != nil {
		cur.GapMin = *req.GapMin
	}
	if req.GapWindow != nil {
		cur.GapWindow = *req.GapWindow
	}
	if req.History != nil {
		cur.History = *req.History
	}
	if req.Pinned != nil {
		// The kinds first: their refusal leaves everything as it was;
		// the settings' refusal then puts the kinds back.
		was, err := sess.PinnedKinds(r.Context())
		if err != nil {
			return nil, s.callError(r.Context(), err)
		}
		if err := sess.SetPinnedKinds(r.Context(), *req.Pinned); err != nil {
			return nil, s.callError(r.Context(), err)
		}
		if err := sess.SetAttentionSettings(r.Context(), cur); err != nil {
			sess.SetPinnedKinds(r.Context(), was)
			return nil, s.callError(r.Context(), err)
		}
		return settingsJSON(r.Context(), s, sess, cur)
	}
	if err := sess.SetAttentionSettings(r.Context(), cur); err != nil {
		return nil, s.callError(r.Context(), err)
	}
	return settingsJSON(r.Context(), s, sess, cur)
}

// dump answers GET /v1/sessions/{name}/dump.
func (s *Server) dump(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	name := r.PathValue("name")
	if name == goldfish.CatalogName && !scope.Unrestricted() {
		// The catalogue's listing holds every session: a token that may
		// read only some reads the catalogue through Recall, which shows
		// it only those (and hides the others' changes in its version).
		return nil, gqlstatus.Errorf(gqlstatus.AccessDenied, "this token may read only some sessions, and the %s session's dump lists them all", goldfish.CatalogName).
			WithHint("Recall the catalogue (MATCH (s:SESSION)) or GET /v1/sessions: both show the sessions this token may read")
	}
	sess, err := s.session(r.Context(), scope, name, "read")
	if err != nil {
		return nil, err
	}
	if r.URL.Query().Has("at") {
		return s.dumpAt(r, sess)
	}
	// One snapshot's listing, so the version is the dump's own. It is
	// this server's view: with other hosts it may lag their Commits by
	// the poll interval, as a Recall's knowledge may before it catches up.
	text := sess.Dump()
	version, _, _ := strings.Cut(strings.TrimPrefix(text, "version "), "\n")
	v, _ := strconv.ParseUint(version, 10, 64)
	return DumpJSON{Version: v, Dump: text}, nil
}

// export answers POST /v1/sessions/{name}/export.
func (s *Server) export(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	var req ExportRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	sess, err := s.session(r.Context(), scope, r.PathValue("name"), "read")
	if err != nil {
		return nil, err
	}
	k, err := hops(req.Options.K)
	if err != nil {
		return nil, err
	}
	o := goldfish.SliceOptions{M: req.Options.M, K: k, L: req.Options.L, F: req.Options.F, Nicks: req.Nicks}
	if len(req.Params) > 0 {
		o.Params = req.Params.values()
	}
	sl, err := sess.ExportSlice(r.Context(), req.Q, o)
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	return SliceJSON{Status: string(sl.Status), Version: sl.Version, Anchors: sl.Anchors, Nodes: sl.Nodes, Edges: sl.Edges,
		Rows: sl.Rows, Bound: sl.Bound, Truncated: sl.Truncated, Notices: append([]Notice{}, notices(sl.Notices)...), Slice: sl.Text}, nil
}

// absorb answers POST /v1/sessions/{name}/absorb.
func (s *Server) absorb(_ http.ResponseWriter, r *http.Request, scope *Scope) (any, error) {
	var req AbsorbRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	name := r.PathValue("name")
	sess, agent, err := s.sessionAs(r.Context(), scope, name, "write", req.Agent)
	if err != nil {
		return nil, err
	}
	policy, err := goldfish.ParseAbsorbPolicy(req.Policy)
	if err != nil {
		return nil, err
	}
	res, err := sess.AbsorbWith(r.Context(), req.Slice, policy, goldfish.CommitOptions{Agent: agent})
	if err != nil {
		return nil, s.callError(r.Context(), err)
	}
	if res.Applied {
	}
	s.metrics.committed(&res.CommitResult)
	out := AbsorbJSON{CommitJSON: commitJSON(&res.CommitResult), Policy: string(res.Policy), Unchanged: res.Unchanged, Reminted: res.Reminted}
	for _, k := range res.Skipped {
		out.Skipped = append(out.Skipped, SkippedJSON{Element: k.Element, Reason: k.Reason, Line: k.Line, Column: k.Column})
	}
	return out, nil
}
