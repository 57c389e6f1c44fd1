package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/server"
)

// connect opens an MCP client session to srv over in-memory transports.
func connect(t *testing.T, srv *server.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// callTool calls a tool and returns its text and structured content; a
// tool error fails the test unless wantErr.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, wantErr bool) (string, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError != wantErr {
		t.Fatalf("%s(%v): IsError %v, want %v: %s", name, args, res.IsError, wantErr, text.String())
	}
	var sc map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &sc)
	}
	return text.String(), sc
}

func mcpServer(t *testing.T, o server.Options, opts ...goldfish.Option) (*goldfish.DB, *server.Server) {
	t.Helper()
	db, err := goldfish.Open(opts...)
	if err != nil {
		t.Fatal(err)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	srv, err := server.New(db, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, srv
}

// TestMCPTools: recall, commit and sessions answer with the Shape, the
// Commit summary and the list as text, and the JSON objects of the HTTP
// endpoints as structured content.
func TestMCPTools(t *testing.T) {
	_, srv := mcpServer(t, server.Options{})
	cs := connect(t, srv)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	want := []string{"add_observations", "commit", "create_entities", "create_relations", "delete_entities", "delete_observations",
		"delete_relations", "open_nodes", "read_graph", "recall", "search_nodes", "sessions"}
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	text, sc := callTool(t, cs, "commit", map[string]any{"session": "work", "text": `INSERT (:TSK {nick: $n, title: "Fix login"})-[:touches]->(:MOD {loc: "auth/login.go"})`,
		"params": map[string]any{"n": "TSK_login"}, "agent": "planner"}, false)
	if text != "ok v=1 +2 nodes +1 edge 3 properties set" || sc["version"] != float64(1) || sc["nodes_created"] != float64(2) {
		t.Errorf("commit: %q %v", text, sc)
	}
	text, sc = callTool(t, cs, "recall", map[string]any{"session": "work", "q": "MATCH (t:TSK {nick: $n})", "params": map[string]any{"n": "TSK_login"},
		"options": map[string]any{"M": 10, "k": 1}, "agent": "planner"}, false)
	if !strings.HasPrefix(text, "// goldfish session=work version=1 cue=match seeds=1 k=1 rows=3/10") || sc["gql"] != text || sc["rows"] != float64(3) {
		t.Errorf("recall: %q %v", text, sc)
	}
	if att, _ := sc["attention"].(map[string]any); att["first_read"] != true {
		t.Errorf("an agent's first read: no first_read in %v", sc["attention"])
	}
	text, _ = callTool(t, cs, "recall", map[string]any{"session": "work", "q": "MATCH (t:TSK) RETURN t"}, true)
	if !strings.Contains(text, "GQLSTATUS 42001") || !strings.Contains(text, "^") {
		t.Errorf("a refused recall reads %q", text)
	}
	// A title that disagrees: a second TSK_login, not an echo of it.
	text, _ = callTool(t, cs, "commit", map[string]any{"session": "work", "text": `INSERT (:TSK {nick: "TSK_login", title: "Other"})`}, true)
	if !strings.Contains(text, "GQLSTATUS 40002") {
		t.Errorf("a nick taken reads %q", text)
	}
	text, sc = callTool(t, cs, "sessions", nil, false)
	if text != "work v=1 nodes=2 edges=1" || len(sc["sessions"].([]any)) != 1 {
		t.Errorf("sessions: %q %v", text, sc)
	}
	// Parameters keep integers and floats apart, over MCP as over HTTP.
	callTool(t, cs, "commit", map[string]any{"session": "p", "text": `INSERT (:A {i: $i, f: $f, l: $l})`,
		"params": map[string]any{"i": 3, "f": 2.5, "l": []any{1, "x"}}}, false)
	if text, _ = callTool(t, cs, "recall", map[string]any{"session": "p", "q": "MATCH (a:A)"}, false); !strings.Contains(text, `{f: 2.5, i: 3, l: [1, "x"]}`) {
		t.Errorf("parameters over MCP:\n%s", text)
	}
	// recall and commit without a session use --session.
	callTool(t, cs, "commit", map[string]any{"text": `INSERT (:NOTE {text: "x"})`}, false)
	if text, _ = callTool(t, cs, "recall", map[string]any{"q": "MATCH (n:NOTE)"}, false); !strings.Contains(text, "session=memory") {
		t.Errorf("recall without a session: %q", text)
	}
}

// bearer adds a token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestMCPOverHTTP: /mcp serves the tools behind the same tokens: a token
// reads only its sessions, through recall and sessions alike.
func TestMCPOverHTTP(t *testing.T) {
	tokens, toks := tokenSet(t, map[string][2]string{"mine": {"", "mine,memory"}, "all": {"", "*"}})
	db, _, ts := newServer(t, server.Options{Tokens: tokens})
	ctx := context.Background()
	for _, name := range []string{"mine", "theirs"} {
		s, _ := db.Session(ctx, name)
		s.Commit(ctx, `INSERT (:NOTE {text: $t})`, map[string]any{"t": strings.ToUpper(name) + "MARK"})
	}
	dial := func(token string) *mcp.ClientSession {
		tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}, MaxRetries: -1}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, nil)
		if err != nil {
			t.Fatalf("connect with %q: %v", token, err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	cs := dial(toks["mine"])
	if text, _ := callTool(t, cs, "recall", map[string]any{"session": "mine", "q": "MATCH (n)"}, false); !strings.Contains(text, "MINEMARK") {
		t.Errorf("own session: %q", text)
	}
	if text, _ := callTool(t, cs, "recall", map[string]any{"session": "theirs", "q": "MATCH (n)"}, true); !strings.Contains(text, "42Q07") || strings.Contains(text, "THEIRSMARK") {
		t.Errorf("another session: %q", text)
	}
	if text, _ := callTool(t, cs, "commit", map[string]any{"session": "theirs", "text": "INSERT (:X)"}, true); !strings.Contains(text, "42Q07") {
		t.Errorf("a commit to another session: %q", text)
	}
	if text, _ := callTool(t, cs, "sessions", nil, false); text != "mine v=1 nodes=1 edges=0" {
		t.Errorf("sessions: %q", text)
	}
	callTool(t, cs, "create_entities", map[string]any{"entities": []any{map[string]any{"name": "Ann", "entityType": "person", "observations": []any{"x"}}}}, false)
	if text, _ := callTool(t, dial(toks["all"]), "sessions", nil, false); text != "memory v=1 nodes=1 edges=0\nmine v=1 nodes=1 edges=0\ntheirs v=1 nodes=1 edges=0" {
		t.Errorf("sessions for *: %q", text)
	}
	// Without a token, or with one the file does not hold, no session.
	for _, tok := range []string{"", "gf_wrong"} {
		tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{tok, http.DefaultTransport}}, MaxRetries: -1}
		if _, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, nil); err == nil {
			t.Errorf("connected with token %q", tok)
		}
	}
}

// TestMemoryTools: the drop-in's tools on the memory session, as the
// original's do: what each write keeps, and what each read shows.
func TestMemoryTools(t *testing.T) {
	db, srv := mcpServer(t, server.Options{})
	cs := connect(t, srv)
	ent := func(name, typ string, obs ...string) map[string]any {
		o := []any{}
		for _, x := range obs {
			o = append(o, x)
		}
		return map[string]any{"name": name, "entityType": typ, "observations": o}
	}
	rel := func(from, typ, to string) map[string]any {
		return map[string]any{"from": from, "to": to, "relationType": typ}
	}
	text, sc := callTool(t, cs, "create_entities", map[string]any{"entities": []any{
		ent("Ann", "person", "likes coffee", "works remotely"), ent("Bob", "person"), ent("Acme Corp", "organization type", "makes anvils"),
		ent("Ann", "person", "a duplicate in the same call"),
	}}, false)
	if !strings.HasPrefix(text, `[{"name":"Ann","entityType":"person","observations":["likes coffee","works remotely"]},{"name":"Bob",`) ||
		!strings.HasSuffix(text, "\n// version 1\n// already there, left as they are: [\"Ann\"]") || len(sc["entities"].([]any)) != 3 {
		t.Errorf("create_entities: %q %v", text, sc)
	}
	text, _ = callTool(t, cs, "create_entities", map[string]any{"entities": []any{ent("Ann", "robot", "no"), ent("Cid", "person")}}, false)
	if text != `[{"name":"Cid","entityType":"person","observations":[]}]`+"\n// version 2\n// already there, left as they are: [\"Ann\"]" {
		t.Errorf("create_entities again: %q", text)
	}
	text, sc = callTool(t, cs, "create_relations", map[string]any{"relations": []any{
		rel("Ann", "works at", "Acme Corp"), rel("Bob", "knows", "Ann"), rel("Bob", "knows", "Ann"), rel("Ann", "knows", "Nobody"),
	}}, false)
	if text != `[{"from":"Ann","to":"Acme Corp","relationType":"works at"},{"from":"Bob","to":"Ann","relationType":"knows"}]`+
		"\n// version 3\n// not made, an entity is missing (create it first): Ann -knows-> Nobody" || len(sc["relations"].([]any)) != 2 {
		t.Errorf("create_relations: %q %v", text, sc)
	}
	if text, _ = callTool(t, cs, "create_relations", map[string]any{"relations": []any{rel("Bob", "knows", "Ann")}}, false); text != "[]\n// version 3" {
		t.Errorf("create_relations again: %q", text)
	}
	text, sc = callTool(t, cs, "add_observations", map[string]any{"observations": []any{
		map[string]any{"entityName": "Ann", "contents": []any{"likes coffee", "speaks Dutch"}},
		map[string]any{"entityName": "Bob", "contents": []any{"plays chess"}},
	}}, false)
	if !strings.HasSuffix(text, "\n// version 4") || fmt.Sprint(sc["results"]) != "[map[addedObservations:[speaks Dutch] entityName:Ann] map[addedObservations:[plays chess] entityName:Bob]]" {
		t.Errorf("add_observations: %q %v", text, sc)
	}
	if text, _ = callTool(t, cs, "add_observations", map[string]any{"observations": []any{
		map[string]any{"entityName": "Bob", "contents": []any{"x"}}, map[string]any{"entityName": "Nobody", "contents": []any{"x"}},
	}}, true); !strings.Contains(text, "Entity with name Nobody not found") {
		t.Errorf("add_observations to nobody: %q", text)
	}
	text, _ = callTool(t, cs, "open_nodes", map[string]any{"names": []any{"Ann", "Nobody"}}, false)
	for _, w := range []string{`nick: "Ann", observations: ["likes coffee", "works remotely", "speaks Dutch"]`, "`works at`", ":knows]", `nick: "Bob"`, `nick: "Acme Corp"`} {
		if !strings.Contains(text, w) {
			t.Errorf("open_nodes Ann lacks %s:\n%s", w, text)
		}
	}
	if strings.Contains(text, `"x"`) {
		t.Errorf("a failed add_observations left a trace:\n%s", text)
	}
	if text, _ = callTool(t, cs, "search_nodes", map[string]any{"query": "CHESS"}, false); !strings.Contains(text, `nick: "Bob"`) || strings.Contains(text, "//") {
		t.Errorf("search_nodes chess:\n%s", text)
	}
	if text, _ = callTool(t, cs, "search_nodes", map[string]any{"query": "organization"}, false); !strings.Contains(text, `nick: "Acme Corp"`) {
		t.Errorf("search_nodes by type:\n%s", text)
	}
	if text, _ = callTool(t, cs, "search_nodes", map[string]any{"query": "zebra"}, false); text != "no entity matches" {
		t.Errorf("search_nodes of nothing:\n%s", text)
	}
	if text, _ = callTool(t, cs, "read_graph", nil, false); !strings.HasPrefix(text, "INSERT\n") || !strings.Contains(text, `nick: "Cid"`) {
		t.Errorf("read_graph:\n%s", text)
	}
	callTool(t, cs, "delete_observations", map[string]any{"deletions": []any{
		map[string]any{"entityName": "Ann", "observations": []any{"likes coffee"}}, map[string]any{"entityName": "Nobody", "observations": []any{"x"}}}}, false)
	callTool(t, cs, "delete_relations", map[string]any{"relations": []any{rel("Bob", "knows", "Ann")}}, false)
	text, _ = callTool(t, cs, "delete_entities", map[string]any{"entityNames": []any{"Acme Corp", "Nobody"}}, false)
	if text != "Entities deleted successfully\n// version 7, 1 found" {
		t.Errorf("delete_entities: %q", text)
	}
	s, _ := db.Session(context.Background(), "memory")
	if got := s.Dump(); got != "version 7\nnodes 3, edges 0, recycled 3\n"+
		`(:person {nick: "Ann", observations: ["works remotely", "speaks Dutch"]})`+"\n"+
		`(:person {nick: "Bob", observations: ["plays chess"]})`+"\n"+
		`(:person {nick: "Cid", observations: []})`+"\n" {
		t.Errorf("the memory session:\n%s", got)
	}
	// Names and types are data, whatever they hold.
	odd := "O'Brien \"the\" \\ `x` 城市 // not a comment"
	callTool(t, cs, "create_entities", map[string]any{"entities": []any{ent(odd, "type with `ticks` and spaces", "MATCH (n) DETACH DELETE n")}}, false)
	callTool(t, cs, "create_relations", map[string]any{"relations": []any{rel(odd, "rel ` type", "Bob")}}, false)
	if text, _ = callTool(t, cs, "open_nodes", map[string]any{"names": []any{odd}}, false); !strings.Contains(text, `nick: "O'Brien \"the\" \\ `+"`x`"+` 城市 // not a comment"`) || !strings.Contains(text, "[:`rel `` type`]->") {
		t.Errorf("an odd name:\n%s", text)
	}
	callTool(t, cs, "delete_entities", map[string]any{"entityNames": []any{odd}}, false)
	// A deleted entity's name may be used again.
	if text, _ = callTool(t, cs, "create_entities", map[string]any{"entities": []any{ent("Acme Corp", "organization type")}}, false); text != `[{"name":"Acme Corp","entityType":"organization type","observations":[]}]`+"\n// version 11" {
		t.Errorf("create_entities after delete: %q", text)
	}
}

// TestMemoryConcurrentWrites: 40 concurrent create_entities and
// add_observations calls, none lost, on a cabinet that is opened again.
func TestMemoryConcurrentWrites(t *testing.T) {
	path := t.TempDir() + "/c.gf"
	db, srv := mcpServer(t, server.Options{}, goldfish.WithCabinet(path))
	cs := connect(t, srv)
	callTool(t, cs, "create_entities", map[string]any{"entities": []any{map[string]any{"name": "hub", "entityType": "T", "observations": []any{}}}}, false)
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := 0; i < n; i++ {
		wg.Add(2)
		go func(i int) {
			defer wg.Done()
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "create_entities", Arguments: map[string]any{
				"entities": []any{map[string]any{"name": fmt.Sprintf("e%02d", i), "entityType": "T", "observations": []any{fmt.Sprint("obs ", i)}}}}})
			errs <- err
		}(i)
		go func(i int) {
			defer wg.Done()
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add_observations", Arguments: map[string]any{
				"observations": []any{map[string]any{"entityName": "hub", "contents": []any{fmt.Sprint("seen by ", i)}}}}})
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	cs.Close()
	db.Close()
	db2, err := goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	s, _ := db2.Session(context.Background(), "memory")
	for i := 0; i < n; i++ {
		if _, _, ok, _ := s.NodeByNick(context.Background(), fmt.Sprintf("e%02d", i)); !ok {
			t.Errorf("entity e%02d was lost", i)
		}
	}
	hub, _, _, _ := s.NodeByNick(context.Background(), "hub")
	if obs := hub.Props["observations"].([]any); len(obs) != n {
		t.Errorf("hub keeps %d of %d observations", len(obs), n)
	}
}

var _ = httptest.NewServer
