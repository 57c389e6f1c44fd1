package conformance

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"github.com/goldfish-gql/goldfish/client"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/repl"
	"github.com/goldfish-gql/goldfish/server"
	"github.com/goldfish-gql/goldfish/tokens"
)

// A run over a server (RemoteOptions) sends every directive to the
// server's HTTP/JSON API, and keeps the files and the runs apart on a
// server others use too: each file, and each "reset" in it, works on
// sessions of names no one has used, and a name is never used twice.
//
// The suite's texts name the sessions, so a run over a server maps its
// names back: the header line of a Shape and of a slice shows the
// file's name. A fresh name is chosen so that the header's token counts
// are the file name's: its estimate (same byte classes, the same count
// of tokens: see package tokens), which keeps every tokens= of the suite
// as it is, and its exact o200k count, which keeps a Recall with the
// exact count as it is; a slice's checksum covers its header, so it is
// verified as the server wrote it and computed again over the header
// that names the file's session. A script's statements go to the server
// as gqlsh's statement loop sends them (replay.go), so what follows it
// is judged; its own output, printed by the shell, is not. A reopen is
// skipped: only the server's process can close and open its database.

// RemoteOptions say which server a run goes to.
type RemoteOptions struct {
	// URL is the server's base URL (http://127.0.0.1:7717).
	URL string
	// Token is sent as "Authorization: Bearer TOKEN" when set; it needs
	// the write scope on every session name (the names are fresh).
	Token string
	// Client makes the requests (nil: a client with a 2-minute timeout).
	Client *http.Client
}

// remoteServer is what the files of one run share: the client and the
// names used.
type remoteServer struct {
	o    RemoteOptions
	base string
	mu   sync.Mutex
	used map[string]bool
}

func newRemoteServer(ctx context.Context, o RemoteOptions) (*remoteServer, error) {
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--url %q is not a server's http:// or https:// URL", o.URL)
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 2 * time.Minute}
	}
	rs := &remoteServer{o: o, base: strings.TrimSuffix(o.URL, "/"), used: map[string]bool{}}
	// The sessions the server has already are no fresh names.
	var list server.SessionsJSON
	if err := rs.call(ctx, "GET", "/v1/sessions", nil, &list); err != nil {
		return nil, fmt.Errorf("the server at %s: %w", o.URL, err)
	}
	for _, s := range list.Sessions {
		rs.used[s.Name] = true
	}
	// The suite writes fresh sessions of its own: a token that may not
	// write them all would fail every case, so say so once, up front.
	// (An empty Δ applies nothing; the name is used up, as the suite's
	// own sessions are.)
	probe, _, err := rs.fresh("probe")
	if err != nil {
		return nil, err
	}
	var res server.CommitJSON
	if err := rs.call(ctx, "POST", "/v1/sessions/"+probe+"/commit", server.CommitRequest{Text: ""}, &res); err != nil {
		if strings.Contains(err.Error(), "status 403") {
			return nil, fmt.Errorf("the server at %s: this token may not write every session, and the suite runs on fresh sessions of its own: give a token made with gqlsh token --write '*' (%w)", o.URL, err)
		}
		return nil, fmt.Errorf("the server at %s: %w", o.URL, err)
	}
	return rs, nil
}

// call sends one request and decodes the answer into out; an answer
// that is the server's error object comes back as a *remoteError, and
// anything else that went wrong as a *failure.
func (rs *remoteServer) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(body); err != nil {
			return &failure{err}
		}
		rd = &buf
	}
	req, err := http.NewRequestWithContext(ctx, method, rs.base+path, rd)
	if err != nil {
		return &failure{err}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if rs.o.Token != "" {
		req.Header.Set("Authorization", "Bearer "+rs.o.Token)
	}
	resp, err := rs.o.Client.Do(req)
	if err != nil {
		return &failure{err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, server.MaxFrame+1))
	if err != nil {
		return &failure{fmt.Errorf("%s %s: reading the answer: %w", method, path, err)}
	}
	if resp.StatusCode != http.StatusOK {
		var ej server.ErrorJSON
		if err := json.Unmarshal(b, &ej); err != nil || ej.GQLStatus == "" {
			return &failure{fmt.Errorf("%s %s: status %d: %s", method, path, resp.StatusCode, strings.TrimSpace(string(b)))}
		}
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			return &failure{fmt.Errorf("%s %s: status %d: GQLSTATUS %s: %s", method, path, resp.StatusCode, ej.GQLStatus, ej.Message)}
		}
		return &remoteError{ge: &gqlstatus.Error{Code: gqlstatus.Code(ej.GQLStatus), Msg: ej.Message, Hint: ej.Hint,
			Stmt: ej.Statement, Pos: gqlstatus.Pos{Line: ej.Line, Col: ej.Column}}, caret: ej.Caret}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return &failure{fmt.Errorf("%s %s: the answer is not the JSON expected: %w", method, path, err)}
	}
	return nil
}

// remoteError is an error the server answered with: its fields, and the
// caret lines the server rendered (it holds the source line).
type remoteError struct {
	ge    *gqlstatus.Error
	caret string
}

func (e *remoteError) Error() string { return e.ge.Error() }
func (e *remoteError) Unwrap() error { return e.ge }

// fresh returns a session name no one has used whose token estimate is
// local's, and, when exact is true, whose Shape header has local's exact
// o200k count as well: each run of letters becomes random letters, each
// run of digits random digits, and '-' and '.' stay. A run of up to six
// letters (the longest the estimate counts as one word) may become any
// of one to six letters (six once only the estimate is kept), a longer
// one as many as it has; o200k keeps
// only some of them as few tokens as local's, so candidates are drawn
// until one keeps both counts, and after many draws a name that keeps
// the estimate only is taken (exact false: a Recall with the exact count
// on it is skipped).
func (rs *remoteServer) fresh(local string) (name string, exact bool, err error) {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
	pick := func(n int) int {
		v, err := rand.Int(rand.Reader, big.NewInt(int64(n)))
		if err != nil {
			panic(err) // crypto/rand does not fail on the systems Go supports
		}
		return int(v.Int64())
	}
	isLetter := func(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	want, werr := headerTokens(local)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	const exactTries, tries = 400, 500
	for try := 0; try < tries; try++ {
		keepExact := werr == nil && try < exactTries
		var b []byte
		for i := 0; i < len(local); {
			j := i + 1
			switch c := local[i]; {
			case isLetter(c):
				for j < len(local) && isLetter(local[j]) {
					j++
				}
				n := max(j-i, 6)
				if keepExact && j-i <= 6 {
					n = 1 + pick(6)
				}
				for k := 0; k < n; k++ {
					b = append(b, letters[pick(len(letters))])
				}
			case isDigit(c):
				for j < len(local) && isDigit(local[j]) {
					j++
				}
				for k := i; k < j; k++ {
					b = append(b, byte('0'+pick(10)))
				}
			default:
				b = append(b, c)
			}
			i = j
		}
		name := string(b)
		if rs.used[name] || name == goldfish.CatalogName || len(name) > goldfish.MaxSessionName ||
			tokens.MilliString(name) != tokens.MilliString(local) || goldfish.ValidSessionName(name) != nil {
			continue
		}
		if keepExact {
			if n, err := headerTokens(name); err != nil || n != want {
				continue
			}
		}
		rs.used[name] = true
		return name, keepExact, nil
	}
	return "", false, fmt.Errorf("no fresh session name for %q keeps its token estimate", local)
}

// headerTokens is the exact o200k count of the part of a Shape's header
// that holds the session's name: o200k cuts its text into pieces at
// the '=' before the name and the blank after it, and counts each piece
// on its own, so the rest of the header counts the same whatever the
// name.
func headerTokens(name string) (int, error) {
	return tokens.Exact("// goldfish session=" + name + " version=")
}

// remote is the Transport of one file over a server.
type remote struct {
	rs *remoteServer
	// names maps the file's session names to the server's since the
	// last reset; back maps every server name given back; inexact holds
	// the server names whose Shape header counts other exact tokens
	// than the file's name.
	names   map[string]string
	back    map[string]string
	inexact map[string]bool
	// scratch parses and plans a script's statements, as gqlsh does
	// before it sends them (opened on first use).
	scratch *goldfish.DB
}

// NewRemote returns a run's transports over the server o names: each
// call of the function returned gives a transport of its own names for
// one file.
func NewRemote(ctx context.Context, o RemoteOptions) (func() (Transport, error), error) {
	rs, err := newRemoteServer(ctx, o)
	if err != nil {
		return nil, err
	}
	return func() (Transport, error) {
		return &remote{rs: rs, names: map[string]string{}, back: map[string]string{}, inexact: map[string]bool{}}, nil
	}, nil
}

// name is the server's name for the file's session.
func (t *remote) name(session string) (string, error) {
	if session == goldfish.CatalogName {
		return session, nil
	}
	if name, ok := t.names[session]; ok {
		return name, nil
	}
	name, exact, err := t.rs.fresh(session)
	if err != nil {
		return "", &failure{err}
	}
	t.names[session], t.back[name] = name, session
	if !exact {
		t.inexact[name] = true
	}
	return name, nil
}

// path is the endpoint of verb on the server's name for session.
func (t *remote) path(session, verb string) (string, error) {
	name, err := t.name(session)
	if err != nil {
		return "", err
	}
	return "/v1/sessions/" + url.PathEscape(name) + "/" + verb, nil
}

// localHeader gives text's header line (a Shape's or a slice's, after
// magic) the file's session name back.
func (t *remote) localHeader(text, magic string) (string, bool) {
	rest, ok := strings.CutPrefix(text, magic)
	if !ok {
		return text, false
	}
	name, after, ok := strings.Cut(rest, " ")
	if !ok {
		return text, false
	}
	local, ok := t.back[name]
	if !ok {
		return text, false
	}
	return magic + local + " " + after, true
}

func (t *remote) Commit(ctx context.Context, session, text, mint, agent string) (*goldfish.CommitResult, error) {
	return t.commit(ctx, session, server.CommitRequest{Text: text, Agent: agent, Mint: mint})
}

func (t *remote) commit(ctx context.Context, session string, req server.CommitRequest) (*goldfish.CommitResult, error) {
	p, err := t.path(session, "commit")
	if err != nil {
		return nil, err
	}
	var out server.CommitJSON
	if err := t.rs.call(ctx, "POST", p, req, &out); err != nil {
		return nil, err
	}
	return client.CommitResultOf(out), nil
}

func (t *remote) Recall(ctx context.Context, session, q string, o goldfish.RecallOptions) (*goldfish.Shape, error) {
	name, err := t.name(session)
	if err != nil {
		return nil, err
	}
	if o.ExactTokens && t.inexact[name] {
		return nil, &Skip{Reason: "the exact token count covers the Shape's header, which names the session, and no fresh name for " +
			session + " with its exact count was found"}
	}
	p, err := t.path(session, "recall")
	if err != nil {
		return nil, err
	}
	ps, err := client.EncodeParams(o.Params)
	if err != nil {
		return nil, err
	}
	req := server.RecallRequest{Q: q, Params: ps, Agent: o.Agent, Options: server.RecallSettings{
		M: o.M, K: server.Hops(o.K), L: o.L, F: o.F, T: o.T, View: o.View, Depth: o.Depth, Only: o.Only, Pinned: o.Pinned, NoPeaks: o.NoPeaks,
		Exact: o.ExactTokens}, AtVersion: o.AtVersion}
	var out server.ShapeJSON
	if err := t.rs.call(ctx, "POST", p, req, &out); err != nil {
		return nil, err
	}
	text, _ := t.localHeader(out.GQL, "// goldfish session=")
	return &goldfish.Shape{Text: text, Attention: out.Attention, Version: out.Version, AsOf: out.AtVersion != 0, Tokens: out.Tokens,
		Rows: out.Rows, Seeds: out.Seeds, Truncated: out.Truncated, Trimmed: out.Trimmed, Elided: out.Elided,
		Status: goldfish.Code(out.Status), Cue: goldfish.Cue(out.Cue), Matched: out.Matched, MatchedAtLeast: out.MatchedAtLeast,
		Notices: client.NoticesOf(out.Notices)}, nil
}

// SkippedOverServer reports whether a run over a server skips the case
// by its kind: a reopen (only the server's process can reopen its
// database), a script (its output is the shell's own) and a dump of the
// catalogue (a server's lists every session on it, not only the file's).
func SkippedOverServer(d Directive) bool {
	return d.Cmd == "reopen" || d.Cmd == "script" || d.Cmd == "dump" && d.Args["session"] == goldfish.CatalogName
}

func (t *remote) Dump(ctx context.Context, session string) (string, error) {
	if session == goldfish.CatalogName {
		return "", &Skip{Reason: "the server's catalogue lists every session on the server, not only the file's"}
	}
	p, err := t.path(session, "dump")
	if err != nil {
		return "", err
	}
	var out server.DumpJSON
	if err := t.rs.call(ctx, "GET", p, nil, &out); err != nil {
		return "", err
	}
	return out.Dump, nil
}

func (t *remote) Vocabulary(ctx context.Context, session string) (*goldfish.Vocabulary, error) {
	p, err := t.path(session, "vocabulary")
	if err != nil {
		return nil, err
	}
	var out server.VocabularyJSON
	if err := t.rs.call(ctx, "GET", p, nil, &out); err != nil {
		return nil, err
	}
	return client.VocabularyOf(out), nil
}

func (t *remote) AttentionSettings(ctx context.Context, session string) (goldfish.AttentionSettings, error) {
	var out goldfish.AttentionSettings
	p, err := t.path(session, "settings")
	if err != nil {
		return out, err
	}
	err = t.rs.call(ctx, "GET", p, nil, &out)
	return out, err
}

func (t *remote) SetAttentionSettings(ctx context.Context, session string, set goldfish.AttentionSettings) error {
	p, err := t.path(session, "settings")
	if err != nil {
		return err
	}
	req := server.SettingsRequest{StaleReads: &set.StaleReads, Decay: &set.Decay, SalienceThreshold: &set.SalienceThreshold,
		GapRatio: &set.GapRatio, GapMin: &set.GapMin, GapWindow: &set.GapWindow, History: &set.History}
	var out goldfish.AttentionSettings
	return t.rs.call(ctx, "POST", p, req, &out)
}

func (t *remote) PinnedKinds(ctx context.Context, session string) ([]string, error) {
	var out server.SettingsJSON
	p, err := t.path(session, "settings")
	if err != nil {
		return nil, err
	}
	if err := t.rs.call(ctx, "GET", p, nil, &out); err != nil {
		return nil, err
	}
	if len(out.Pinned) == 0 {
		return nil, nil
	}
	return out.Pinned, nil
}

func (t *remote) SetPinnedKinds(ctx context.Context, session string, kinds []string) error {
	p, err := t.path(session, "settings")
	if err != nil {
		return err
	}
	list := server.Sections(kinds)
	if list == nil {
		list = server.Sections{}
	}
	var out server.SettingsJSON
	return t.rs.call(ctx, "POST", p, server.SettingsRequest{Pinned: &list}, &out)
}

func (t *remote) ExportSlice(ctx context.Context, session, q string, o goldfish.SliceOptions) (*goldfish.Slice, error) {
	p, err := t.path(session, "export")
	if err != nil {
		return nil, err
	}
	ps, err := client.EncodeParams(o.Params)
	if err != nil {
		return nil, err
	}
	req := server.ExportRequest{Q: q, Params: ps, Nicks: o.Nicks}
	req.Options.M, req.Options.K, req.Options.L, req.Options.F = o.M, server.Hops(o.K), o.L, o.F
	var out server.SliceJSON
	if err := t.rs.call(ctx, "POST", p, req, &out); err != nil {
		return nil, err
	}
	text, err := t.localSlice(out.Slice)
	if err != nil {
		return nil, &failure{err}
	}
	return &goldfish.Slice{Text: text, Anchors: out.Anchors, Nodes: out.Nodes, Edges: out.Edges, Rows: out.Rows,
		Bound: out.Bound, Version: out.Version, Truncated: out.Truncated, Notices: client.NoticesOf(out.Notices), Status: goldfish.Code(out.Status)}, nil
}

// localSlice checks the checksum of a slice the server wrote, then gives
// its header the file's session name and the checksum of that header.
func (t *remote) localSlice(text string) (string, error) {
	const magic = "// goldfish slice session="
	first, rest, ok := strings.Cut(text, "\n")
	if !ok {
		return text, nil
	}
	head, sum, ok := strings.Cut(first, " sum=")
	if !ok {
		return text, nil
	}
	if sliceSum(head, rest) != sum {
		return "", fmt.Errorf("the server's slice has the checksum %s, but its text sums to %s:\n%s", sum, sliceSum(head, rest), text)
	}
	local, ok := t.localHeader(head, magic)
	if !ok {
		return text, nil
	}
	return local + " sum=" + sliceSum(local, rest) + "\n" + rest, nil
}

// sliceSum is a slice's checksum as package goldfish documents it:
// xxhash64 of the header before " sum=", a newline, and the text after
// the header line, in 16 hex digits.
func sliceSum(head, rest string) string {
	d := xxhash.New()
	d.WriteString(head)
	d.WriteString("\n")
	d.WriteString(rest)
	return fmt.Sprintf("%016x", d.Sum64())
}

func (t *remote) Absorb(ctx context.Context, session, slice string, policy goldfish.AbsorbPolicy, agent string) (*goldfish.AbsorbResult, error) {
	p, err := t.path(session, "absorb")
	if err != nil {
		return nil, err
	}
	var out server.AbsorbJSON
	if err := t.rs.call(ctx, "POST", p, server.AbsorbRequest{Slice: slice, Policy: string(policy), Agent: agent}, &out); err != nil {
		return nil, err
	}
	res := &goldfish.AbsorbResult{CommitResult: *client.CommitResultOf(out.CommitJSON), Policy: goldfish.AbsorbPolicy(out.Policy),
		Unchanged: out.Unchanged, Reminted: out.Reminted}
	for _, k := range out.Skipped {
		res.Skipped = append(res.Skipped, goldfish.SkippedElement{Element: k.Element, Reason: k.Reason, Line: k.Line, Column: k.Column})
	}
	return res, nil
}

// Script sends the script's statements to the server as gqlsh would
// (replay) and reports the case as skipped, with its effects made: the
// output is the shell's own, which runs in this process.
func (t *remote) Script(ctx context.Context, session, text string, format repl.Format) (string, int, error) {
	if err := t.replay(ctx, session, text, format); err != nil {
		return "", 0, err
	}
	return "", 0, &Skip{Reason: ScriptReason, Applied: true}
}

// ScriptReason is why a script is skipped over a server once its
// statements have gone there.
const ScriptReason = "the shell's own output: the script's statements went to the server as gqlsh sends them, and what follows is judged"

// Reset starts over on sessions of fresh names: the server keeps the old
// ones, which no later directive names.
func (t *remote) Reset(context.Context, bool) error {
	t.names = map[string]string{}
	return nil
}

func (t *remote) Reopen(context.Context, bool) error {
	return &Skip{Reason: "reopen closes the database and opens it again, which only the server's own process can do"}
}

// Close leaves the sessions on the server.
func (t *remote) Close() error {
	if t.scratch != nil {
		t.scratch.Close()
		t.scratch = nil
	}
	return nil
}

func (t *remote) Diff(ctx context.Context, session string, from, to uint64, o goldfish.DiffOptions) (*goldfish.Diff, error) {
	p, err := t.path(session, "diff")
	if err != nil {
		return nil, err
	}
	q := url.Values{"from": {strconv.FormatUint(from, 10)}, "to": {strconv.FormatUint(to, 10)}, "nick": o.Nicks, "kind": o.Kinds}
	var out server.DiffJSON
	if err := t.rs.call(ctx, "GET", p+"?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return t.diffOf(out), nil
}

// diffOf is the server's diff with the file's session name in its header.
func (t *remote) diffOf(out server.DiffJSON) *goldfish.Diff {
	out.Text, _ = t.localHeader(out.Text, "// goldfish diff session=")
	return &out
}

func (t *remote) History(ctx context.Context, session, nick string, limit int) (*goldfish.History, error) {
	p, err := t.path(session, "history")
	if err != nil {
		return nil, err
	}
	q := url.Values{"nick": {nick}}
	if limit != 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var out server.HistoryJSON
	if err := t.rs.call(ctx, "GET", p+"?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	h := &goldfish.History{Nick: out.Nick, More: out.More, Oldest: out.Oldest}
	for _, e := range out.Entries {
		at, _ := time.Parse(time.RFC3339Nano, e.Time)
		h.Entries = append(h.Entries, goldfish.HistoryEntry{Version: e.Version, How: e.How, Agent: e.Agent, Time: at, Change: t.diffOf(e.Change)})
	}
	return h, nil
}

func (t *remote) DumpAt(ctx context.Context, session string, v uint64) (string, error) {
	p, err := t.path(session, "dump")
	if err != nil {
		return "", err
	}
	var out server.DumpJSON
	if err := t.rs.call(ctx, "GET", p+"?at="+strconv.FormatUint(v, 10), nil, &out); err != nil {
		return "", err
	}
	return out.Dump, nil
}
