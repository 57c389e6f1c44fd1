package client

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/server"
)

// Session is one session of the server, with the calls of
// goldfish.Session that the server's API offers.
type Session struct {
	c    *Client
	name string
	// version is the newest version an answer of the server named.
	version atomic.Uint64
}

// seen records version v, named by an answer (versions only grow).
func (s *Session) seen(v uint64) {
	for {
		old := s.version.Load()
		if v <= old || s.version.CompareAndSwap(old, v) {
			return
		}
	}
}

// Name is the session's name.
func (s *Session) Name() string { return s.name }

// Version asks the server for the session's version (other callers may
// have committed since this one's last answer); when the server does not
// answer within a second, it is the newest version an answer named.
func (s *Session) Version() uint64 {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if in, err := s.c.SessionInfo(ctx, s.name); err == nil {
		s.version.Store(in.Version)
		return in.Version
	}
	return s.version.Load()
}

// Prepare parses and plans text here (which reads no session), as
// goldfish.Session.Prepare; the server parses and plans it again when it
// runs.
func (s *Session) Prepare(text string) (isRecall bool, t goldfish.Timing, err error) {
	sc, err := s.c.scratchSession(s.name)
	if err != nil {
		return false, t, err
	}
	return sc.Prepare(text)
}

// IsRecall reports whether text is a Recall (goldfish.Session.IsRecall).
func (s *Session) IsRecall(text string) bool {
	sc, err := s.c.scratchSession(s.name)
	return err == nil && sc.IsRecall(text)
}

// Recall runs q on the server.
func (s *Session) Recall(ctx context.Context, q string, o goldfish.RecallOptions) (*goldfish.Shape, error) {
	sh, _, err := s.RecallTimed(ctx, q, o)
	return sh, err
}

// RecallTimed is Recall with its time: Execute is the whole round trip
// (the server's parse, plan and emit are inside it).
func (s *Session) RecallTimed(ctx context.Context, q string, o goldfish.RecallOptions) (*goldfish.Shape, goldfish.Timing, error) {
	var t goldfish.Timing
	ps, err := EncodeParams(o.Params)
	if err != nil {
		return nil, t, err
	}
	req := server.RecallRequest{Q: q, Params: ps, Agent: o.Agent, AtVersion: o.AtVersion, Options: server.RecallSettings{
		M: o.M, K: server.Hops(o.K), L: o.L, F: o.F, T: o.T, View: o.View, Depth: o.Depth, Only: o.Only,
		Pinned: o.Pinned, NoPeaks: o.NoPeaks, Exact: o.ExactTokens}}
	var out server.ShapeJSON
	start := time.Now()
	if err := s.c.query(ctx, sessionPath(s.name, "recall"), req, &out, q); err != nil {
		return nil, t, err
	}
	t.Execute = time.Since(start)
	if out.AtVersion == 0 {
		s.seen(out.Version)
	}
	return ShapeOf(out), t, nil
}

// ShapeOf is the Shape a server's answer describes.
func ShapeOf(out server.ShapeJSON) *goldfish.Shape {
	return &goldfish.Shape{Text: out.GQL, Attention: out.Attention, Version: out.Version, AsOf: out.AtVersion != 0, Tokens: out.Tokens,
		Rows: out.Rows, Seeds: out.Seeds, Truncated: out.Truncated, Trimmed: out.Trimmed, Elided: out.Elided,
		Status: goldfish.Code(out.Status), Cue: goldfish.Cue(out.Cue), Matched: out.Matched, MatchedAtLeast: out.MatchedAtLeast,
		Notices: NoticesOf(out.Notices)}
}

// Commit applies text as one atomic Commit on the server.
func (s *Session) Commit(ctx context.Context, text string, params map[string]any) (*goldfish.CommitResult, error) {
	return s.CommitWith(ctx, text, params, goldfish.CommitOptions{})
}

// CommitWith is Commit as agent o.Agent; o.Timing, when set, gets the
// round trip as Execute.
func (s *Session) CommitWith(ctx context.Context, text string, params map[string]any, o goldfish.CommitOptions) (*goldfish.CommitResult, error) {
	ps, err := EncodeParams(params)
	if err != nil {
		return nil, err
	}
	var out server.CommitJSON
	start := time.Now()
	if err := s.c.call(ctx, "POST", sessionPath(s.name, "commit"), server.CommitRequest{Text: text, Params: ps, Agent: o.Agent}, &out, text); err != nil {
		return nil, err
	}
	if o.Timing != nil {
		*o.Timing = goldfish.Timing{Execute: time.Since(start)}
	}
	s.seen(out.Version)
	return CommitResultOf(out), nil
}

// CommitResultOf is the Commit a server's answer describes.
func CommitResultOf(c server.CommitJSON) *goldfish.CommitResult {
	res := &goldfish.CommitResult{Status: goldfish.Code(c.Status), Version: c.Version, Applied: c.Applied, Total: c.Counts}
	for _, st := range c.Results {
		res.Stmts = append(res.Stmts, goldfish.StmtResult{Index: st.Statement, Status: st.Status, Action: st.Action,
			Defined: st.Defined, Counts: st.Counts, Notices: NoticesOf(st.Notices)})
	}
	if len(c.Results) == 0 {
		// One statement: the answer's lists are its own.
		st := goldfish.StmtResult{Index: 1, Status: c.Status, Counts: c.Counts, Notices: NoticesOf(c.Notices)}
		if len(c.Actions) > 0 {
			st.Action = c.Actions[0]
		}
		if len(c.Defined) > 0 {
			st.Defined = c.Defined[0]
		}
		res.Stmts = []goldfish.StmtResult{st}
	}
	return res
}

// NoticesOf are the notices of a server's answer.
func NoticesOf(ns []server.Notice) []goldfish.Notice {
	var out []goldfish.Notice
	for _, n := range ns {
		out = append(out, goldfish.Notice{Code: goldfish.Code(n.Code), Msg: n.Message, Pos: gqlstatus.Pos{Line: n.Line, Col: n.Column}})
	}
	return out
}

// EncodeParams gives parameter values as the server reads them: a FLOAT
// with an integral value keeps a fraction (JSON would make it an
// INTEGER), a DATE is {"date": "…"} and a DATETIME {"datetime": "…"}.
func EncodeParams(p map[string]any) (server.Params, error) {
	if len(p) == 0 {
		return nil, nil
	}
	out := make(server.Params, len(p))
	for k, v := range p {
		enc, err := encodeParam(k, v)
		if err != nil {
			return nil, err
		}
		out[k] = enc
	}
	return out, nil
}

func encodeParam(name string, v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string, int, int64, int32:
		return x, nil
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if strings.ContainsAny(s, "nN") { // NaN and ±Inf: JSON has none
			return nil, gqlstatus.Errorf(gqlstatus.InvalidValueType, "parameter $%s is %s, which a server's JSON cannot carry", name, s).
				WithHint("compute it in the statement instead")
		}
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return json.RawMessage(s), nil
	case goldfish.Date:
		return map[string]string{"date": x.String()}, nil
	case time.Time:
		return map[string]string{"datetime": x.Format(time.RFC3339Nano)}, nil
	case []any:
		list := make([]any, len(x))
		for i, e := range x {
			var err error
			if list[i], err = encodeParam(name, e); err != nil {
				return nil, err
			}
		}
		return list, nil
	}
	return nil, gqlstatus.Errorf(gqlstatus.InvalidValueType, "parameter $%s is a %T, which goldfish has no value for", name, v).
		WithHint("pass an integer, float, string, boolean, null, DATE, DATETIME or a list of them")
}

// AbsorbWith absorbs a slice on the server.
func (s *Session) AbsorbWith(ctx context.Context, slice string, policy goldfish.AbsorbPolicy, o goldfish.CommitOptions) (*goldfish.AbsorbResult, error) {
	var out server.AbsorbJSON
	if err := s.c.call(ctx, "POST", sessionPath(s.name, "absorb"), server.AbsorbRequest{Slice: slice, Policy: string(policy), Agent: o.Agent}, &out, slice); err != nil {
		return nil, err
	}
	s.seen(out.Version)
	res := &goldfish.AbsorbResult{CommitResult: *CommitResultOf(out.CommitJSON), Policy: goldfish.AbsorbPolicy(out.Policy),
		Unchanged: out.Unchanged, Reminted: out.Reminted}
	for _, k := range out.Skipped {
		res.Skipped = append(res.Skipped, goldfish.SkippedElement{Element: k.Element, Reason: k.Reason, Line: k.Line, Column: k.Column})
	}
	return res, nil
}

// ExportSlice cuts a slice on the server.
func (s *Session) ExportSlice(ctx context.Context, q string, o goldfish.SliceOptions) (*goldfish.Slice, error) {
	ps, err := EncodeParams(o.Params)
	if err != nil {
		return nil, err
	}
	req := server.ExportRequest{Q: q, Params: ps, Nicks: o.Nicks}
	req.Options.M, req.Options.K, req.Options.L, req.Options.F = o.M, server.Hops(o.K), o.L, o.F
	var out server.SliceJSON
	if err := s.c.query(ctx, sessionPath(s.name, "export"), req, &out, q); err != nil {
		return nil, err
	}
	return &goldfish.Slice{Text: out.Slice, Anchors: out.Anchors, Nodes: out.Nodes, Edges: out.Edges, Rows: out.Rows,
		Bound: out.Bound, Version: out.Version, Truncated: out.Truncated, Notices: NoticesOf(out.Notices), Status: goldfish.Code(out.Status)}, nil
}

// Diff is what changed from version from to version to, bounded by the
// server's default rows (o.MaxRows is not sent).
func (s *Session) Diff(ctx context.Context, from, to uint64, o goldfish.DiffOptions) (*goldfish.Diff, error) {
	q := url.Values{"from": {strconv.FormatUint(from, 10)}, "to": {strconv.FormatUint(to, 10)}, "nick": o.Nicks, "kind": o.Kinds}
	var out server.DiffJSON
	if err := s.c.call(ctx, "GET", sessionPath(s.name, "diff")+"?"+q.Encode(), nil, &out, ""); err != nil {
		return nil, err
	}
	return &out, nil
}

// History is the changes to node nick, newest first.
func (s *Session) History(ctx context.Context, nick string, limit int) (*goldfish.History, error) {
	q := url.Values{"nick": {nick}}
	if limit != 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var out server.HistoryJSON
	if err := s.c.call(ctx, "GET", sessionPath(s.name, "history")+"?"+q.Encode(), nil, &out, ""); err != nil {
		return nil, err
	}
	h := &goldfish.History{Nick: out.Nick, More: out.More, Oldest: out.Oldest}
	for _, e := range out.Entries {
		at, _ := time.Parse(time.RFC3339Nano, e.Time)
		change := e.Change
		h.Entries = append(h.Entries, goldfish.HistoryEntry{Version: e.Version, How: e.How, Agent: e.Agent, Time: at, Change: &change})
	}
	return h, nil
}

// Kinds is what the nodes of each kind (or of kind alone) hold.
func (s *Session) Kinds(ctx context.Context, kind string) ([]goldfish.KindSchema, error) {
	p := sessionPath(s.name, "kinds")
	if kind != "" {
		p += "?" + url.Values{"kind": {kind}}.Encode()
	}
	var out server.KindsJSON
	if err := s.c.call(ctx, "GET", p, nil, &out, ""); err != nil {
		return nil, err
	}
	ks := make([]goldfish.KindSchema, len(out.Kinds))
	for i, k := range out.Kinds {
		ks[i] = goldfish.KindSchema{Kind: k.Kind, Nodes: k.Nodes, Keys: nameCounts(k.Keys), Out: nameCounts(k.Out), In: nameCounts(k.In)}
	}
	return ks, nil
}

func nameCounts(in []server.NameCount) []goldfish.NameCount {
	out := make([]goldfish.NameCount, len(in))
	for i, c := range in {
		out[i] = goldfish.NameCount{Name: c.Name, Count: c.Count}
	}
	return out
}

// Names are the session's labels, edge types, property keys and nicks.
func (s *Session) Names(ctx context.Context) (goldfish.Names, error) {
	var out server.NamesJSON
	err := s.c.call(ctx, "GET", sessionPath(s.name, "names"), nil, &out, "")
	return goldfish.Names{Labels: out.Labels, EdgeTypes: out.EdgeTypes, Keys: out.Keys, Nicks: out.Nicks}, err
}

// Vocabulary is the session's views and actions.
func (s *Session) Vocabulary(ctx context.Context) (*goldfish.Vocabulary, error) {
	var out server.VocabularyJSON
	if err := s.c.call(ctx, "GET", sessionPath(s.name, "vocabulary"), nil, &out, ""); err != nil {
		return nil, err
	}
	return VocabularyOf(out), nil
}

// VocabularyOf is the vocabulary a server's answer describes.
func VocabularyOf(out server.VocabularyJSON) *goldfish.Vocabulary {
	v := &goldfish.Vocabulary{Version: out.Version}
	for _, x := range out.Views {
		v.Views = append(v.Views, goldfish.View{Name: x.Name, Intent: x.Intent, Expr: x.Expr, Text: x.Text, Error: x.Error,
			Agent: x.Agent, Registered: x.Registered, Revised: x.Revised, Revisions: x.Revisions,
			Salience: x.Salience, LowSalience: x.LowSalience})
	}
	for _, a := range out.Actions {
		v.Actions = append(v.Actions, goldfish.Action{Name: a.Name, Intent: a.Intent, Signature: a.Signature, If: a.If,
			Agent: a.Agent, Registered: a.Registered, Revised: a.Revised, Revisions: a.Revisions,
			Invocations: a.Invocations, LastInvoked: a.LastInvoked, Salience: a.Salience, LowSalience: a.LowSalience,
			FailedCalls: a.FailedCalls, LastFailure: a.LastFailure})
	}
	return v
}

// Agents lists the agents that read the session (a token bound to
// agents sees only its own).
func (s *Session) Agents(ctx context.Context) ([]goldfish.AgentInfo, error) {
	var out server.AgentsJSON
	if err := s.c.call(ctx, "GET", sessionPath(s.name, "agents"), nil, &out, ""); err != nil {
		return nil, err
	}
	list := make([]goldfish.AgentInfo, len(out.Agents))
	for i, a := range out.Agents {
		list[i] = goldfish.AgentInfo{Name: a.Name, LastRead: a.LastRead, Reads: a.Reads}
	}
	return list, nil
}

// ForgetAgent drops what the session remembers of agent name's reads.
func (s *Session) ForgetAgent(ctx context.Context, name string) error {
	var out server.AgentsJSON
	return s.c.call(ctx, "DELETE", sessionPath(s.name, "agents/"+url.PathEscape(name)), nil, &out, "")
}

// AttentionSettings are the session's attention settings.
func (s *Session) AttentionSettings(ctx context.Context) (goldfish.AttentionSettings, error) {
	var out goldfish.AttentionSettings
	err := s.c.call(ctx, "GET", sessionPath(s.name, "settings"), nil, &out, "")
	return out, err
}

// SetAttentionSettings replaces the session's attention settings.
func (s *Session) SetAttentionSettings(ctx context.Context, set goldfish.AttentionSettings) error {
	req := server.SettingsRequest{StaleReads: &set.StaleReads, Decay: &set.Decay, SalienceThreshold: &set.SalienceThreshold,
		GapRatio: &set.GapRatio, GapMin: &set.GapMin, GapWindow: &set.GapWindow, History: &set.History}
	var out goldfish.AttentionSettings
	return s.c.call(ctx, "POST", sessionPath(s.name, "settings"), req, &out, "")
}

// PinnedKinds are the kinds every Recall of the session pins.
func (s *Session) PinnedKinds(ctx context.Context) ([]string, error) {
	var out server.SettingsJSON
	if err := s.c.call(ctx, "GET", sessionPath(s.name, "settings"), nil, &out, ""); err != nil {
		return nil, err
	}
	if len(out.Pinned) == 0 {
		return nil, nil
	}
	return out.Pinned, nil
}

// SetPinnedKinds replaces the session's pinned kinds (none: no kind).
func (s *Session) SetPinnedKinds(ctx context.Context, kinds []string) error {
	list := server.Sections(kinds)
	if list == nil {
		list = server.Sections{}
	}
	var out server.SettingsJSON
	return s.c.call(ctx, "POST", sessionPath(s.name, "settings"), server.SettingsRequest{Pinned: &list}, &out, "")
}

// Purge removes the session's recycled elements and says how many.
func (s *Session) Purge(ctx context.Context) (int, error) {
	var out server.PurgeJSON
	if err := s.c.call(ctx, "POST", sessionPath(s.name, "purge"), struct{}{}, &out, ""); err != nil {
		return 0, err
	}
	s.seen(out.Version)
	return out.Purged, nil
}

// Dump is the session's whole graph as GQL INSERT text.
func (s *Session) Dump(ctx context.Context) (string, error) {
	return s.dump(ctx, "")
}

// DumpAt is the session's graph as it was at version v.
func (s *Session) DumpAt(ctx context.Context, v uint64) (string, error) {
	return s.dump(ctx, "?at="+strconv.FormatUint(v, 10))
}

func (s *Session) dump(ctx context.Context, query string) (string, error) {
	var out server.DumpJSON
	if err := s.c.call(ctx, "GET", sessionPath(s.name, "dump")+query, nil, &out, ""); err != nil {
		return "", err
	}
	return out.Dump, nil
}
