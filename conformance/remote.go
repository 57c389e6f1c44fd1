package conformance

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/client"
	"github.com/goldfish-gql/goldfish/repl"
	"github.com/goldfish-gql/goldfish/tokens"
)

// A run over a server (RemoteOptions) sends every directive to the
// server's HTTP/JSON API through the Go client (package client), and
// keeps the files and the runs apart on a server others use too: each file, and each "reset" in it, works on
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
	c    *client.Client
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
	c, err := client.New(o.URL, client.Options{Token: o.Token, HTTP: o.Client})
	if err != nil {
		return nil, err
	}
	rs := &remoteServer{c: c, used: map[string]bool{}}
	// The sessions the server has already are no fresh names.
	list, err := c.Sessions(ctx)
	if err != nil {
		return nil, fmt.Errorf("the server at %s: %w", o.URL, err)
	}
	for _, name := range list {
		rs.used[name] = true
	}
	// The suite writes fresh sessions of its own: a token that may not
	// write them all would fail every case, so say so once, up front.
	// (An empty Δ applies nothing; the name is used up, as the suite's
	// own sessions are.)
	probe, _, err := rs.fresh("probe")
	if err != nil {
		return nil, err
	}
	s, err := c.Session(ctx, probe)
	if err == nil {
		_, err = s.Commit(ctx, "", nil)
	}
	if err != nil {
		var re *client.Refusal
		if errors.As(err, &re) && re.Status == http.StatusForbidden {
			return nil, fmt.Errorf("the server at %s: this token may not write every session, and the suite runs on fresh sessions of its own: give a token made with gqlsh token --write '*' (%w)", o.URL, err)
		}
		return nil, fmt.Errorf("the server at %s: %w", o.URL, err)
	}
	return rs, nil
}

// outcome sorts an error of the client for the runner: the server's
// refusal of a call is the case's output (printed as the database's
// error), but a token the server does not take (401) or that may not
// use the session (403) is the run's fault, as is every failure to get
// the server's answer (a *client.TransportError): those are a *failure,
// which fails the directive. An error the client raised before any
// request (a parameter JSON cannot carry) is output too, as the
// embedded API's would be.
func outcome(err error) error {
	var re *client.Refusal
	var te *client.TransportError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &re) && (re.Status == http.StatusUnauthorized || re.Status == http.StatusForbidden):
		// Not wrapped: the directive fails; no case prints it.
		return &failure{fmt.Errorf("status %d: %v", re.Status, err)}
	case errors.As(err, &te):
		return &failure{err}
	}
	return err
}

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
	// sessions are the client's sessions, by the server's name.
	sessions map[string]*client.Session
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
		return &remote{rs: rs, names: map[string]string{}, back: map[string]string{}, inexact: map[string]bool{},
			sessions: map[string]*client.Session{}}, nil
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

// session is the client's session of the server's name for session.
func (t *remote) session(ctx context.Context, session string) (*client.Session, error) {
	name, err := t.name(session)
	if err != nil {
		return nil, err
	}
	if s, ok := t.sessions[name]; ok {
		return s, nil
	}
	s, err := t.rs.c.Session(ctx, name)
	if err != nil {
		return nil, outcome(err)
	}
	if name != goldfish.CatalogName {
		// The embedded run opens each session (goldfish.DB.Session), so a
		// Recall before its first Commit reads an empty session. A server
		// opens a session only for a write, and refuses a read of a name
		// no write made (42002): its settings, written unchanged, open it
		// (a write, which lists nothing until a Commit makes a version).
		set, err := s.AttentionSettings(ctx)
		if err == nil {
			err = s.SetAttentionSettings(ctx, set)
		}
		if err != nil {
			return nil, outcome(err)
		}
	}
	t.sessions[name] = s
	return s, nil
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
	return t.commit(ctx, session, text, nil, mint, agent)
}

// commit sends text as a Commit (mint "ingest": an Ingest) with params.
func (t *remote) commit(ctx context.Context, session, text string, params map[string]any, mint, agent string) (*goldfish.CommitResult, error) {
	s, err := t.session(ctx, session)
	if err != nil {
		return nil, err
	}
	o := goldfish.CommitOptions{Agent: agent}
	var res *goldfish.CommitResult
	if mint == "ingest" {
		res, err = s.IngestWith(ctx, text, params, o)
	} else {
		res, err = s.CommitWith(ctx, text, params, o)
	}
	return res, outcome(err)
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
	s, err := t.session(ctx, session)
	if err != nil {
		return nil, err
	}
	sh, err := s.Recall(ctx, q, o)
	if err != nil {
		return nil, outcome(err)
	}
	sh.Text, _ = t.localHeader(sh.Text, "// goldfish session=")
	if sh.Session == name {
		sh.Session = session
	}
	return sh, nil
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
	s, err := t.session(ctx, session)
	if err != nil {
		return "", err
	}
	dump, err := s.Dump(ctx)
	return dump, outcome(err)
}

func (t *remote) Help(ctx context.Context, topic string) (string, error) {
	text, err := t.rs.c.Help(ctx, topic)
	return text, outcome(err)
}

func (t *remote) Vocabulary(ctx context.Context, session string) (*goldfish.Vocabulary, error) {
	s, err := t.session(ctx, session)
	if err != nil {
		return nil, err
	}
	v, err := s.Vocabulary(ctx)
	return v, outcome(err)
}

func (t *remote) AttentionSettings(ctx context.Context, session string) (goldfish.AttentionSettings, error) {
	s, err := t.session(ctx, session)
	if err != nil {
		return goldfish.AttentionSettings{}, err
	}
	set, err := s.AttentionSettings(ctx)
	return set, outcome(err)
}

func (t *remote) SetAttentionSettings(ctx context.Context, session string, set goldfish.AttentionSettings) error {
	s, err := t.session(ctx, session)
	if err != nil {
		return err
	}
	return outcome(s.SetAttentionSettings(ctx, set))
}

func (t *remote) PinnedKinds(ctx context.Context, session string) ([]string, error) {
	s, err := t.session(ctx, session)
	if err != nil {
		return nil, err
	}
	kinds, err := s.PinnedKinds(ctx)
	return kinds, outcome(err)
}

func (t *remote) SetPinnedKinds(ctx context.Context, session string, kinds []string) error {
	s, err := t.session(ctx, session)
	if err != nil {
		return err
	}
	return outcome(s.SetPinnedKinds(ctx, kinds))
}

func (t *remote) ExportSlice(ctx context.Context, session, q string, o goldfish.SliceOptions) (*goldfish.Slice, error) {
	s, err := t.session(ctx, session)
	if err != nil {
		return nil, err
	}
	sl, err := s.ExportSlice(ctx, q, o)
	if err != nil {
		return nil, outcome(err)
	}
	if sl.Text, err = t.localSlice(sl.Text); err != nil {
		return nil, &failure{err}
	}
	return sl, nil
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
	s, err := t.session(ctx, session)
	if err != nil {
		return nil, err
	}
	res, err := s.AbsorbWith(ctx, slice, policy, goldfish.CommitOptions{Agent: agent})
	return res, outcome(err)
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
	t.sessions = map[string]*client.Session{}
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
	s, err := t.session(ctx, session)
	if err != nil {
		return nil, err
	}
	d, err := s.Diff(ctx, from, to, o)
	if err != nil {
		return nil, outcome(err)
	}
	t.localDiff(d)
	return d, nil
}

// localDiff gives the server's diff the file's session name in its
// header.
func (t *remote) localDiff(d *goldfish.Diff) {
	d.Text, _ = t.localHeader(d.Text, "// goldfish diff session=")
}

func (t *remote) History(ctx context.Context, session, nick string, limit int) (*goldfish.History, error) {
	s, err := t.session(ctx, session)
	if err != nil {
		return nil, err
	}
	h, err := s.History(ctx, nick, limit)
	if err != nil {
		return nil, outcome(err)
	}
	for _, e := range h.Entries {
		t.localDiff(e.Change)
	}
	return h, nil
}

func (t *remote) DumpAt(ctx context.Context, session string, v uint64) (string, error) {
	s, err := t.session(ctx, session)
	if err != nil {
		return "", err
	}
	dump, err := s.DumpAt(ctx, v)
	return dump, outcome(err)
}
