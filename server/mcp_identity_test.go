package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/server"
)

// connectionAgent is the agent a connection acts as when it names none:
// "mcp-" and hex(sha256(token id NUL connection id))[:12], the token id
// the first 12 hex digits of the token's SHA-256 ("" without tokens).
func connectionAgent(token, connection string) string {
	id := ""
	if token != "" {
		h := sha256.Sum256([]byte(token))
		id = hex.EncodeToString(h[:])[:12]
	}
	h := sha256.Sum256([]byte(id + "\x00" + connection))
	return "mcp-" + hex.EncodeToString(h[:])[:12]
}

// dialMCP connects the Go SDK's client to ts's /mcp with the token (""
// for none).
func dialMCP(t *testing.T, ts *httptest.Server, token string) *mcp.ClientSession {
	t.Helper()
	var rt http.RoundTripper = http.DefaultTransport
	if token != "" {
		rt = withToken(token)
	}
	tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: rt}, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// attentionOf is the attention of a recall's structured content.
func attentionOf(sc map[string]any) map[string]any {
	a, _ := sc["attention"].(map[string]any)
	return a
}

// firstReadAgent is the agent a first read's note names, or "".
var firstReadAgent = regexp.MustCompile(`first Recall of agent (\S+) in this session`)

func firstReader(att map[string]any) string {
	if att["first_read"] != true {
		return ""
	}
	note, _ := att["note"].(string)
	if m := firstReadAgent.FindStringSubmatch(note); m != nil {
		return m[1]
	}
	return ""
}

// agentNames are the agents the session keeps.
func agentNames(t *testing.T, db *goldfish.DB, session string) []string {
	t.Helper()
	ctx := context.Background()
	sess, err := db.Session(ctx, session)
	if err != nil {
		t.Fatal(err)
	}
	list, err := sess.Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range list {
		names = append(names, a.Name)
	}
	return names
}

// rawRecall POSTs a recall tools/call to /mcp as a client that keeps no
// connection id would, with the Mcp-Session-Id header connection ("":
// none), and returns the answer and the header it issued.
func rawRecall(t *testing.T, ts *httptest.Server, token, connection, session string) (string, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "recall", "arguments": map[string]any{"session": session, "q": "MATCH ()"}}})
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if connection != "" {
		req.Header.Set("Mcp-Session-Id", connection)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("POST /mcp: %d %s", resp.StatusCode, b)
	}
	return string(b), resp.Header.Get("Mcp-Session-Id")
}

// TestMCPConnectionAgent: over /mcp, a client that names no agent reads
// and commits as its connection's own agent, named by its first read:
// its second read says what changed since its first; a second connection
// is another agent, with a first read of its own. A request without the
// connection's id (a raw client that never echoes the header it was
// given), with one that is not 1 to 128 printable characters, or on the
// HTTP API reads as nobody and makes no agent.
func TestMCPConnectionAgent(t *testing.T) {
	db, _, ts := newServer(t, server.Options{})
	ctx := context.Background()
	if s, err := db.Session(ctx, "team"); err != nil {
		t.Fatal(err)
	} else if _, err := s.Commit(ctx, "INSERT (:TSK {nick: 't1'})", nil); err != nil {
		t.Fatal(err)
	}
	recall := func(cs *mcp.ClientSession) map[string]any {
		t.Helper()
		_, sc := callTool(t, cs, "recall", map[string]any{"session": "team", "q": "MATCH ()"}, false)
		return attentionOf(sc)
	}
	one := dialMCP(t, ts, "")
	att := recall(one)
	name := firstReader(att)
	if name == "" || name != connectionAgent("", one.ID()) {
		t.Fatalf("the first read of a connection naming no agent: agent %q (connection %q), want %q: %v", name, one.ID(), connectionAgent("", one.ID()), att)
	}
	callTool(t, one, "commit", map[string]any{"session": "team", "text": "CREATE ACTION close(nick STRING) { MATCH (t {nick: $nick}) SET t:Settled }"}, false)
	att = recall(one)
	since, _ := att["since_your_last_read"].(map[string]any)
	if att["first_read"] != nil || since == nil || since["versions"] != 1.0 || !slices.Contains(anyStrings(since["actions_registered"]), "close") {
		t.Errorf("the second read of the connection: %v", att)
	}
	two := dialMCP(t, ts, "")
	other := firstReader(recall(two))
	if other == "" || other == name || other != connectionAgent("", two.ID()) {
		t.Errorf("a second connection reads as %q, the first as %q", other, name)
	}
	want := []string{name, other}
	slices.Sort(want)
	if got := agentNames(t, db, "team"); !slices.Equal(got, want) {
		t.Fatalf("agents %v, want %v", got, want)
	}
	v, _ := db.Session(ctx, "team")
	if vocab, err := v.Vocabulary(ctx); err != nil || len(vocab.Actions) != 1 || vocab.Actions[0].Agent != name {
		t.Errorf("the action the connection registered: %+v %v", vocab, err)
	}

	// Without the id, or with one not to take, nobody; the answer issues
	// an id only to a request that carries none.
	for _, id := range []string{"", strings.Repeat("x", 129), "tab\there", "é"} {
		body, issued := rawRecall(t, ts, "", id, "team")
		if strings.Contains(body, "first_read") || strings.Contains(body, "since_your_last_read") {
			t.Errorf("a raw call with id %q reads as an agent: %s", id, body)
		}
		if id == "" && !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(issued) || id != "" && issued != "" {
			t.Errorf("a raw call with id %q was issued %q", id, issued)
		}
	}
	if code, body := call(t, ts, "POST", "/v1/sessions/team/recall", "", `{"q": "MATCH ()"}`); code != 200 || strings.Contains(body, "first_read") {
		t.Errorf("/v1 without an agent: %d %s", code, body)
	}
	if got := agentNames(t, db, "team"); !slices.Equal(got, want) {
		t.Errorf("agents after reads as nobody: %v, want %v", got, want)
	}
	// An id of 128 printable characters is one; a client echoing it is
	// its connection's agent.
	id := "~" + strings.Repeat(" ~", 63) + "x"
	body, issued := rawRecall(t, ts, "", id, "team")
	if issued != "" || !strings.Contains(body, connectionAgent("", id)) {
		t.Errorf("a raw call echoing id %q: issued %q: %s", id, issued, body)
	}
}

func anyStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// TestMCPConnectionAgentTokens: with tokens, a connection's agent is
// its token's: a read token acts as it (as it may not as a named agent),
// and a token presenting another token's connection id is another agent.
// 65 connections of one write token in one session are never refused:
// the oldest connection's agent gives up its slot (the session forgets
// it, so its next read is a first read), and at most 64 connection agents
// stay. A named agent takes a connection agent's slot too, but never the
// other way: with 64 named agents a connection's agent is refused as a
// 65th named one is. A token bound to one agent acts as it, as before.
func TestMCPConnectionAgentTokens(t *testing.T) {
	tokens, toks := boundTokens(t, map[string]string{
		"writer": "write=team,crowd,full",
		"reader": "read=team",
		"ana":    "write=team agent=ana",
		"pair":   "write=team agent=ana agent=bob",
	})
	db, _, ts := newServer(t, server.Options{Tokens: tokens})
	for _, name := range []string{"team", "crowd", "full"} {
		if code, body := call(t, ts, "POST", "/v1/sessions/"+name+"/commit", toks["writer"], `{"text": "INSERT (:TSK {nick: 't'})"}`); code != 200 {
			t.Fatalf("%d %s", code, body)
		}
	}
	recall := func(cs *mcp.ClientSession, session string) map[string]any {
		t.Helper()
		_, sc := callTool(t, cs, "recall", map[string]any{"session": session, "q": "MATCH ()"}, false)
		return attentionOf(sc)
	}

	// A read token's connection: its own agent, since its last read.
	rd := dialMCP(t, ts, toks["reader"])
	if got := firstReader(recall(rd, "team")); got != connectionAgent(toks["reader"], rd.ID()) {
		t.Errorf("the read token's connection reads as %q, want %q", got, connectionAgent(toks["reader"], rd.ID()))
	}
	call(t, ts, "POST", "/v1/sessions/team/commit", toks["writer"], `{"text": "INSERT (:TSK {nick: 'u'})"}`)
	if att := recall(rd, "team"); att["since_your_last_read"] == nil || att["first_read"] != nil {
		t.Errorf("the read token's second read: %v", att)
	}
	if text, _ := callTool(t, rd, "recall", map[string]any{"session": "team", "q": "MATCH ()", "agent": "mallory"}, true); !strings.Contains(text, "42Q07") {
		t.Errorf("a read token naming an agent: %s", text)
	}
	// One connection id under two tokens: two agents, neither the other's.
	rawRecall(t, ts, toks["reader"], "shared-id", "team")
	rawRecall(t, ts, toks["writer"], "shared-id", "team")
	names := agentNames(t, db, "team")
	for _, tok := range []string{"reader", "writer"} {
		if !slices.Contains(names, connectionAgent(toks[tok], "shared-id")) {
			t.Errorf("the %s's agent for a shared id is not kept: %v", tok, names)
		}
	}
	// A token bound to one agent acts as it; one bound to two is refused.
	an := dialMCP(t, ts, toks["ana"])
	if got := firstReader(recall(an, "team")); got != "ana" {
		t.Errorf("a bound token's connection reads as %q, want ana", got)
	}
	if text, _ := callTool(t, dialMCP(t, ts, toks["pair"]), "recall", map[string]any{"session": "team", "q": "MATCH ()"}, true); !strings.Contains(text, "42Q07") {
		t.Errorf("a token bound to two agents naming none: %s", text)
	}
	if n := len(agentNames(t, db, "team")); n != 4 {
		t.Errorf("team keeps %d agents, want 4: %v", n, agentNames(t, db, "team"))
	}

	// 65 connections of one token in one session.
	conns := make([]*mcp.ClientSession, 65)
	for i := range conns {
		conns[i] = dialMCP(t, ts, toks["writer"])
		if got := firstReader(recall(conns[i], "crowd")); got != connectionAgent(toks["writer"], conns[i].ID()) {
			t.Fatalf("connection %d reads as %q", i, got)
		}
	}
	mcpAgents := func(session string) []string {
		var out []string
		for _, n := range agentNames(t, db, session) {
			if strings.HasPrefix(n, "mcp-") {
				out = append(out, n)
			}
		}
		return out
	}
	kept := mcpAgents("crowd")
	if len(kept) != 64 || slices.Contains(kept, connectionAgent(toks["writer"], conns[0].ID())) {
		t.Errorf("after 65 connections the session keeps %d connection agents, the first's among them: %v",
			len(kept), slices.Contains(kept, connectionAgent(toks["writer"], conns[0].ID())))
	}
	// The second connection, used last of all, is kept; the first, back,
	// is a first read again, and takes the slot of the third.
	recall(conns[1], "crowd")
	if got := firstReader(recall(conns[0], "crowd")); got != connectionAgent(toks["writer"], conns[0].ID()) {
		t.Errorf("the recycled connection's next read is not a first read (%q)", got)
	}
	kept = mcpAgents("crowd")
	if len(kept) != 64 || !slices.Contains(kept, connectionAgent(toks["writer"], conns[1].ID())) || slices.Contains(kept, connectionAgent(toks["writer"], conns[2].ID())) {
		t.Errorf("the least recently used connection agent was not the one recycled: %v", kept)
	}
	// A named agent takes a connection agent's slot.
	if code, body := call(t, ts, "POST", "/v1/sessions/crowd/recall", toks["writer"], `{"q": "MATCH ()", "agent": "ana"}`); code != 200 {
		t.Errorf("a named agent beside 64 connection agents: %d %s", code, body)
	}
	if kept = mcpAgents("crowd"); len(kept) != 63 {
		t.Errorf("%d connection agents beside a named one, want 63", len(kept))
	}

	// 64 named agents leave no slot to a connection.
	for i := range 64 {
		if code, body := call(t, ts, "POST", "/v1/sessions/full/recall", toks["writer"], fmt.Sprintf(`{"q": "MATCH ()", "agent": "a%d"}`, i)); code != 200 {
			t.Fatalf("named agent %d: %d %s", i, code, body)
		}
	}
	text, _ := callTool(t, conns[3], "recall", map[string]any{"session": "full", "q": "MATCH ()"}, true)
	if !strings.Contains(text, "42Q07") || !strings.Contains(text, "64 agents") {
		t.Errorf("a connection beside 64 named agents: %s", text)
	}
}

// TestMCPConnectionAgentReadOnly: a read-only database cannot forget an
// agent, so a token's 65th connection there is refused as a 65th named
// agent is, rather than taking a slot it cannot free.
func TestMCPConnectionAgentReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.gf")
	ctx := context.Background()
	rw, err := goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	if s, err := rw.Session(ctx, "team"); err != nil {
		t.Fatal(err)
	} else if _, err := s.Commit(ctx, "INSERT (:TSK {nick: 't'})", nil); err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	tokens, toks := boundTokens(t, map[string]string{"writer": "write=team"})
	_, srv := mcpServer(t, server.Options{Tokens: tokens}, goldfish.WithCabinet(path), goldfish.WithReadOnly())
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	for i := range 64 {
		if body, _ := rawRecall(t, ts, toks["writer"], fmt.Sprint("c", i), "team"); !strings.Contains(body, "first_read") {
			t.Fatalf("connection %d: %s", i, body)
		}
	}
	if body, _ := rawRecall(t, ts, toks["writer"], "c64", "team"); !strings.Contains(body, "42Q07") {
		t.Errorf("the 65th connection on a read-only database: %s", body)
	}
	if body, _ := rawRecall(t, ts, toks["writer"], "c0", "team"); strings.Contains(body, "42Q07") {
		t.Errorf("the first connection again: %s", body)
	}
}

// TestMCPStdioConnectionAgent: over stdio each connection is one agent
// of its own, named by its first read, the same on every call.
func TestMCPStdioConnectionAgent(t *testing.T) {
	db, srv := mcpServer(t, server.Options{})
	ctx := context.Background()
	if s, err := db.Session(ctx, "team"); err != nil {
		t.Fatal(err)
	} else if _, err := s.Commit(ctx, "INSERT (:TSK {nick: 't'})", nil); err != nil {
		t.Fatal(err)
	}
	dial := func() *mcp.ClientSession {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ss, err := srv.MCP().Connect(ctx, srv.StdioTransport(inR, outW), nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close(); ss.Close(); outW.Close() })
		return cs
	}
	recall := func(cs *mcp.ClientSession) map[string]any {
		_, sc := callTool(t, cs, "recall", map[string]any{"session": "team", "q": "MATCH ()"}, false)
		return attentionOf(sc)
	}
	one, two := dial(), dial()
	a, b := firstReader(recall(one)), firstReader(recall(two))
	if !regexp.MustCompile(`^mcp-[0-9a-f]{12}$`).MatchString(a) || !regexp.MustCompile(`^mcp-[0-9a-f]{12}$`).MatchString(b) || a == b {
		t.Fatalf("two stdio connections read as %q and %q", a, b)
	}
	callTool(t, one, "commit", map[string]any{"session": "team", "text": "INSERT (:TSK {nick: 'u'})"}, false)
	if att := recall(one); att["first_read"] != nil || att["since_your_last_read"] == nil {
		t.Errorf("the stdio connection's second read: %v", att)
	}
	want := []string{a, b}
	slices.Sort(want)
	if got := agentNames(t, db, "team"); !slices.Equal(got, want) {
		t.Errorf("agents %v, want %v", got, want)
	}
}
