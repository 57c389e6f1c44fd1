package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/server"
	"github.com/goldfish-gql/goldfish/wire"
)

// boundTokens makes tokens from lines of the tokens file after their
// hash ("write=team-* agent=ana"), as gqlsh token --agent writes them.
func boundTokens(t *testing.T, specs map[string]string) (*server.Tokens, map[string]string) {
	t.Helper()
	var file strings.Builder
	toks := map[string]string{}
	for name, spec := range specs {
		tok, line, err := server.NewToken(nil, []string{"unused"})
		if err != nil {
			t.Fatal(err)
		}
		hash, _, _ := strings.Cut(line, " ")
		toks[name] = tok
		file.WriteString(hash + " " + spec + "\n")
	}
	parsed, err := server.ParseTokens(strings.NewReader(file.String()))
	if err != nil {
		t.Fatalf("the tokens file:\n%s\n%v", file.String(), err)
	}
	return parsed, toks
}

// TestTokensBoundToAgents: a token bound to agents reads and commits
// only as them, over HTTP (Recall, Commit, Absorb) and MCP alike: a
// request naming another agent is 403 (42Q07) and the message names
// the agents it may use; a request naming none acts as the token's
// agent when it is bound to exactly one name, and is refused when it is
// bound to several or to a pattern. An unbound token names any agent or
// none, as before.
func TestTokensBoundToAgents(t *testing.T) {
	tokens, toks := boundTokens(t, map[string]string{
		"ana":   "write=team-* agent=ana",
		"read":  "read=team-* agent=ana",
		"pair":  "write=team-* agent=ana agent=bob", // repeated keys add up
		"comma": "agent=ana,bob write=team-*",
		"glob":  "write=team-* agent=bot-*",
		"free":  "write=team-*",
	})
	db, _, ts := newServer(t, server.Options{Tokens: tokens})
	ctx := context.Background()
	if s, err := db.Session(ctx, "team-a"); err != nil {
		t.Fatal(err)
	} else if _, err := s.Commit(ctx, "INSERT (:T {nick: 'first'})", nil); err != nil {
		t.Fatal(err) // a read never makes a session: a write made this one
	}
	recall := func(agent string) string {
		b, _ := json.Marshal(wire.RecallRequest{Q: "MATCH ()", Agent: agent})
		return string(b)
	}
	commit := func(agent, text string) string {
		b, _ := json.Marshal(wire.CommitRequest{Text: text, Agent: agent})
		return string(b)
	}
	cases := []struct {
		token, verb, body string
		status            int
		names             []string // in the refusal's message
	}{
		{"ana", "recall", recall("ana"), 200, nil},
		{"ana", "recall", recall(""), 200, nil},
		{"ana", "recall", recall("bob"), 403, []string{`"bob"`, `agent "ana"`}},
		{"ana", "recall", recall("Ana"), 403, []string{`"Ana"`, `agent "ana"`}},
		{"ana", "commit", commit("ana", "INSERT (:T {nick: 'by_ana'})"), 200, nil},
		{"ana", "commit", commit("", "INSERT (:T {nick: 'by_none'})"), 200, nil},
		{"ana", "commit", commit("bob", "INSERT (:T {nick: 'by_bob'})"), 403, []string{`"bob"`, `agent "ana"`}},
		{"ana", "absorb", `{"slice": "x", "policy": "keep", "agent": "bob"}`, 403, []string{`"bob"`, `agent "ana"`}},
		{"read", "recall", recall("mallory"), 403, []string{`"mallory"`, `agent "ana"`}},
		{"read", "recall", recall(""), 200, nil},
		{"pair", "recall", recall("bob"), 200, nil},
		{"pair", "recall", recall(""), 403, []string{`"ana"`, `"bob"`}},
		{"pair", "commit", commit("", "INSERT (:T)"), 403, []string{`"ana"`, `"bob"`}},
		{"pair", "recall", recall("carl"), 403, []string{`"carl"`, `"ana"`, `"bob"`}},
		{"comma", "recall", recall("bob"), 200, nil},
		{"comma", "recall", recall("carl"), 403, []string{`"ana"`, `"bob"`}},
		{"glob", "recall", recall("bot-7"), 200, nil},
		{"glob", "recall", recall(""), 403, []string{`"bot-*"`}},
		{"glob", "commit", commit("ana", "INSERT (:T)"), 403, []string{`"ana"`, `"bot-*"`}},
		{"free", "recall", recall("anyone"), 200, nil},
		{"free", "recall", recall(""), 200, nil},
		{"free", "commit", commit("", "INSERT (:T {nick: 'free'})"), 200, nil},
	}
	for _, c := range cases {
		status, body := call(t, ts, "POST", "/v1/sessions/team-a/"+c.verb, toks[c.token], c.body)
		m := decodeMap(t, body)
		if status != c.status || c.status == 403 && m["gqlstatus"] != "42Q07" {
			t.Errorf("token %s, %s %s: %d %s, want %d", c.token, c.verb, c.body, status, body, c.status)
			continue
		}
		for _, n := range c.names {
			if msg, _ := m["message"].(string); !strings.Contains(msg, n) {
				t.Errorf("token %s, %s %s: the message does not name %s: %s", c.token, c.verb, c.body, n, body)
			}
		}
	}
	// The Recalls were counted as the agents they acted as: no Recall of
	// the bound tokens as nobody, none as an agent refused.
	sess, err := db.Session(ctx, "team-a")
	if err != nil {
		t.Fatal(err)
	}
	agents, err := sess.Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, a := range agents {
		got[a.Name] = a.Reads
	}
	if want := map[string]uint64{"ana": 3, "bob": 2, "bot-7": 1, "anyone": 1}; !sameReads(got, want) {
		t.Errorf("agents %v, want %v", got, want)
	}
	if strings.Contains(sess.Dump(), "by_bob") {
		t.Errorf("a refused Commit applied:\n%s", sess.Dump())
	}
	// A Commit without an agent from the one-agent token is ana's: the
	// view it registers says so.
	if status, body := call(t, ts, "POST", "/v1/sessions/team-a/commit", toks["ana"], commit("", "CREATE VIEW n AS 'count(\"T\")'")); status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	v, err := sess.Vocabulary(ctx)
	if err != nil || len(v.Views) != 1 || v.Views[0].Agent != "ana" {
		t.Errorf("the view of a Commit without an agent: %+v %v", v, err)
	}

	// MCP: the recall and commit tools go through the same check.
	dial := func(token string) *mcp.ClientSession {
		tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: withToken(token)}, MaxRetries: -1}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	cs := dial(toks["ana"])
	for _, c := range []struct {
		tool  string
		args  map[string]any
		error bool
	}{
		{"recall", map[string]any{"session": "team-a", "q": "MATCH ()", "agent": "bob"}, true},
		{"commit", map[string]any{"session": "team-a", "text": "INSERT (:T {nick: 'mcp_bob'})", "agent": "bob"}, true},
		{"recall", map[string]any{"session": "team-a", "q": "MATCH ()"}, false},
		{"commit", map[string]any{"session": "team-a", "text": "INSERT (:T {nick: 'mcp_ana'})"}, false},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatal(err)
		}
		var text string
		for _, x := range res.Content {
			if tc, ok := x.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		if res.IsError != c.error || c.error && (!strings.Contains(text, "42Q07") || !strings.Contains(text, `agent "ana"`)) {
			t.Errorf("%s %v: error %v: %s", c.tool, c.args, res.IsError, text)
		}
	}
	if d := sess.Dump(); strings.Contains(d, "mcp_bob") || !strings.Contains(d, "mcp_ana") {
		t.Errorf("MCP Commits:\n%s", d)
	}
	if a, _ := sess.Agents(ctx); len(a) != 4 || a[0].Name != "ana" || a[0].Reads != 4 {
		t.Errorf("agents after MCP: %+v", a)
	}
}

func sameReads(a, b map[string]uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestTokensFileAgents: the tokens file keeps its old lines (no agent=:
// unbound) beside bound ones, and refuses an agent glob that could match
// no agent name.
func TestTokensFileAgents(t *testing.T) {
	const h = "sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	toks, err := server.ParseTokens(strings.NewReader(h + " read=proj.*,notes write=notes\n"))
	if err != nil || toks.Len() != 1 {
		t.Fatalf("an old file: %v", err)
	}
	for _, bad := range []string{"agent=", "agent=a/b", "agent=[a", "agent=-x", "agent=" + strings.Repeat("a", goldfish.MaxAgentName+1), "agents=ana"} {
		if _, err := server.ParseTokens(strings.NewReader(h + " read=x " + bad + "\n")); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := server.ParseTokens(strings.NewReader(h + " agent=ana\n")); err == nil {
		t.Errorf("a token with agents and no sessions: no error")
	}
}

// withToken is a transport that sends the bearer token.
type withToken string

func (tok withToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(tok))
	return http.DefaultTransport.RoundTrip(r)
}

// TestMemoryToolsAsBoundAgent: the memory server's tools read and write
// as the agent a token is bound to, as the recall and commit tools do.
func TestMemoryToolsAsBoundAgent(t *testing.T) {
	tokens, toks := boundTokens(t, map[string]string{"ana": "write=team-* agent=ana"})
	db, _, ts := newServer(t, server.Options{Tokens: tokens, MemorySession: "team-m"})
	ctx := context.Background()
	tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: withToken(toks["ana"])}, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, c := range []*mcp.CallToolParams{
		{Name: "create_entities", Arguments: map[string]any{"entities": []any{map[string]any{"name": "alice", "entityType": "person", "observations": []any{"likes tea"}}}}},
		{Name: "open_nodes", Arguments: map[string]any{"names": []any{"alice"}}},
	} {
		res, err := cs.CallTool(ctx, c)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", c.Name, err, res)
		}
	}
	sess, err := db.Session(ctx, "team-m")
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := sess.Agents(ctx); len(a) != 1 || a[0].Name != "ana" {
		t.Fatalf("the memory tools read as %+v, want ana", a)
	}
}
