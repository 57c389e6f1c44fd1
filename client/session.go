package client

import (
	"context"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/goldfish-gql/goldfish/parser"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/wire"
)

// Session is one session of the server, with the calls of the root
// package's Session that the server's API offers.
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

// Prepare parses text here, as the root package's Session.Prepare
// parses and plans it: a syntax error comes back with its place, the
// parse takes Timing.Parse, and isRecall is IsRecall's. Planning needs
// the session's vocabulary and the server's limits, so it is left to
// the server, which plans the text when it runs it (Timing.Plan is 0).
func (s *Session) Prepare(text string) (isRecall bool, t values.Timing, err error) {
	start := time.Now()
	_, err = parser.Parse(text)
	t.Parse = time.Since(start)
	if err != nil {
		return false, t, err
	}
	return IsRecall(text), t, nil
}

// IsRecall reports whether text is a Recall (the root package's
// Session.IsRecall): see the package function IsRecall.
func (s *Session) IsRecall(text string) bool { return IsRecall(text) }

// IsRecall reports whether text is a Recall (one MATCH of node patterns
// with optional WHERE and LIMIT) rather than a Δ, by the parser's
// classification (parser.IsRecall), which mirrors the planner's. A text
// over the default R byte budget is no Recall, as a database with the
// default budget classifies it: sent to Commit, it is refused there
// unparsed (22Q02).
func IsRecall(text string) bool {
	return len(text) <= values.DefaultBudget.Bytes && parser.IsRecall(text)
}

// Recall runs q on the server.
func (s *Session) Recall(ctx context.Context, q string, o values.RecallOptions) (*values.Shape, error) {
	sh, _, err := s.RecallTimed(ctx, q, o)
	return sh, err
}

// RecallTimed is Recall with its time: Execute is the whole round trip
// (the server's parse, plan and emit are inside it). The Shape carries
// its rows (Nodes, Edges, Outline) and the facts of its header as the
// embedded Recall's does: the request asks for them ("rows": true). A
// Shape whose rows would take the answer over the server's 4 MiB frame
// comes without them (Nodes and Edges nil), its text whole.
func (s *Session) RecallTimed(ctx context.Context, q string, o values.RecallOptions) (*values.Shape, values.Timing, error) {
	var t values.Timing
	req, err := wire.NewRecallRequest(q, o, true)
	if err != nil {
		return nil, t, err
	}
	var out wire.Shape
	start := time.Now()
	if err := s.c.query(ctx, sessionPath(s.name, "recall"), req, &out, q); err != nil {
		return nil, t, err
	}
	t.Execute = time.Since(start)
	if out.AtVersion == 0 {
		s.seen(out.Version)
	}
	return out.Value(), t, nil
}

// Commit applies text as one atomic Commit on the server.
func (s *Session) Commit(ctx context.Context, text string, params map[string]any) (*values.CommitResult, error) {
	return s.CommitWith(ctx, text, params, values.CommitOptions{})
}

// CommitWith is Commit as agent o.Agent; o.Timing, when set, gets the
// round trip as Execute.
func (s *Session) CommitWith(ctx context.Context, text string, params map[string]any, o values.CommitOptions) (*values.CommitResult, error) {
	return s.commit(ctx, text, params, o, "")
}

// Ingest is Commit with ids from kind and loc (the root package's
// Session.Ingest): re-sending the same artefact updates its nodes
// instead of duplicating them.
func (s *Session) Ingest(ctx context.Context, text string, params map[string]any) (*values.CommitResult, error) {
	return s.IngestWith(ctx, text, params, values.CommitOptions{})
}

// IngestWith is Ingest as agent o.Agent, timed as CommitWith.
func (s *Session) IngestWith(ctx context.Context, text string, params map[string]any, o values.CommitOptions) (*values.CommitResult, error) {
	return s.commit(ctx, text, params, o, "ingest")
}

func (s *Session) commit(ctx context.Context, text string, params map[string]any, o values.CommitOptions, mint string) (*values.CommitResult, error) {
	ps, err := wire.EncodeParams(params)
	if err != nil {
		return nil, err
	}
	var out wire.Commit
	start := time.Now()
	if err := s.c.call(ctx, "POST", sessionPath(s.name, "commit"), wire.CommitRequest{Text: text, Params: ps, Agent: o.Agent, Mint: mint}, &out, text); err != nil {
		return nil, err
	}
	if o.Timing != nil {
		*o.Timing = values.Timing{Execute: time.Since(start)}
	}
	s.seen(out.Version)
	return out.Value(), nil
}

// AbsorbWith absorbs a slice on the server.
func (s *Session) AbsorbWith(ctx context.Context, slice string, policy values.AbsorbPolicy, o values.CommitOptions) (*values.AbsorbResult, error) {
	var out wire.Absorb
	if err := s.c.call(ctx, "POST", sessionPath(s.name, "absorb"), wire.AbsorbRequest{Slice: slice, Policy: string(policy), Agent: o.Agent}, &out, slice); err != nil {
		return nil, err
	}
	s.seen(out.Version)
	return out.Value(), nil
}

// ExportSlice cuts a slice on the server.
func (s *Session) ExportSlice(ctx context.Context, q string, o values.SliceOptions) (*values.Slice, error) {
	req, err := wire.NewExportRequest(q, o)
	if err != nil {
		return nil, err
	}
	var out wire.Slice
	if err := s.c.query(ctx, sessionPath(s.name, "export"), req, &out, q); err != nil {
		return nil, err
	}
	return out.Value(), nil
}

// Diff is what changed from version from to version to, bounded by the
// server's default rows (o.MaxRows is not sent).
func (s *Session) Diff(ctx context.Context, from, to uint64, o values.DiffOptions) (*values.Diff, error) {
	q := url.Values{"from": {strconv.FormatUint(from, 10)}, "to": {strconv.FormatUint(to, 10)}, "nick": o.Nicks, "kind": o.Kinds}
	var out wire.Diff
	if err := s.c.call(ctx, "GET", sessionPath(s.name, "diff")+"?"+q.Encode(), nil, &out, ""); err != nil {
		return nil, err
	}
	return &out, nil
}

// History is the changes to node nick, newest first.
func (s *Session) History(ctx context.Context, nick string, limit int) (*values.History, error) {
	q := url.Values{"nick": {nick}}
	if limit != 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var out wire.History
	if err := s.c.call(ctx, "GET", sessionPath(s.name, "history")+"?"+q.Encode(), nil, &out, ""); err != nil {
		return nil, err
	}
	return out.Value(), nil
}

// Kinds is what the nodes of each kind (or of kind alone) hold.
func (s *Session) Kinds(ctx context.Context, kind string) ([]values.KindSchema, error) {
	p := sessionPath(s.name, "kinds")
	if kind != "" {
		p += "?" + url.Values{"kind": {kind}}.Encode()
	}
	var out wire.Kinds
	if err := s.c.call(ctx, "GET", p, nil, &out, ""); err != nil {
		return nil, err
	}
	ks := make([]values.KindSchema, len(out.Kinds))
	for i, k := range out.Kinds {
		ks[i] = k.Value()
	}
	return ks, nil
}

// Names are the session's labels, edge types, property keys and nicks.
func (s *Session) Names(ctx context.Context) (values.Names, error) {
	var out wire.Names
	err := s.c.call(ctx, "GET", sessionPath(s.name, "names"), nil, &out, "")
	return out.Value(), err
}

// Vocabulary is the session's views and actions.
func (s *Session) Vocabulary(ctx context.Context) (*values.Vocabulary, error) {
	var out wire.Vocabulary
	if err := s.c.call(ctx, "GET", sessionPath(s.name, "vocabulary"), nil, &out, ""); err != nil {
		return nil, err
	}
	return out.Value(), nil
}

// Agents lists the agents that read the session (a token bound to
// agents sees only its own).
func (s *Session) Agents(ctx context.Context) ([]values.AgentInfo, error) {
	var out wire.Agents
	if err := s.c.call(ctx, "GET", sessionPath(s.name, "agents"), nil, &out, ""); err != nil {
		return nil, err
	}
	list := make([]values.AgentInfo, len(out.Agents))
	for i, a := range out.Agents {
		list[i] = a.Value()
	}
	return list, nil
}

// ForgetAgent drops what the session remembers of agent name's reads.
func (s *Session) ForgetAgent(ctx context.Context, name string) error {
	var out wire.Agents
	return s.c.call(ctx, "DELETE", sessionPath(s.name, "agents/"+url.PathEscape(name)), nil, &out, "")
}

// AttentionSettings are the session's attention settings.
func (s *Session) AttentionSettings(ctx context.Context) (values.AttentionSettings, error) {
	var out wire.Settings
	err := s.c.call(ctx, "GET", sessionPath(s.name, "settings"), nil, &out, "")
	return out.AttentionSettings, err
}

// SetAttentionSettings replaces the session's attention settings.
func (s *Session) SetAttentionSettings(ctx context.Context, set values.AttentionSettings) error {
	var out wire.Settings
	return s.c.call(ctx, "POST", sessionPath(s.name, "settings"), wire.SettingsRequestOf(set), &out, "")
}

// PinnedKinds are the kinds every Recall of the session pins.
func (s *Session) PinnedKinds(ctx context.Context) ([]string, error) {
	var out wire.Settings
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
	var out wire.Settings
	return s.c.call(ctx, "POST", sessionPath(s.name, "settings"), wire.PinnedRequest(kinds), &out, "")
}

// Purge removes the session's recycled elements and says how many.
func (s *Session) Purge(ctx context.Context) (int, error) {
	var out wire.Purge
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
	var out wire.Dump
	if err := s.c.call(ctx, "GET", sessionPath(s.name, "dump")+query, nil, &out, ""); err != nil {
		return "", err
	}
	return out.Dump, nil
}
