package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/server"
	"github.com/goldfish-gql/goldfish/wire"
)

// The topics the attention envelope names: each must be served.
var namedTopics = []string{"broken_views", "vocabulary"}

// TestHelpOverHTTP: GET /v1/help lists the topics and GET /v1/help/TOPIC
// gives goldfish.Help's text, to any token (help names no session), and
// a topic there is none of is a 404 that lists the topics.
func TestHelpOverHTTP(t *testing.T) {
	tokens, toks := tokenSet(t, map[string][2]string{"other": {"other", ""}})
	_, _, ts := newServer(t, server.Options{Tokens: tokens})
	tok := toks["other"] // reads a session that does not exist: nothing else

	status, body := call(t, ts, "GET", "/v1/help", tok, "")
	var list wire.HelpTopics
	if err := json.Unmarshal([]byte(body), &list); status != 200 || err != nil {
		t.Fatalf("GET /v1/help: %d %v %s", status, err, body)
	}
	if !slices.Equal(list.Topics, goldfish.HelpTopics()) || !slices.Equal(list.Topics, namedTopics) {
		t.Errorf("topics %v, want %v", list.Topics, namedTopics)
	}
	for _, topic := range list.Topics {
		status, body := call(t, ts, "GET", "/v1/help/"+topic, tok, "")
		var h wire.Help
		if err := json.Unmarshal([]byte(body), &h); status != 200 || err != nil {
			t.Fatalf("GET /v1/help/%s: %d %v %s", topic, status, err, body)
		}
		want, _ := goldfish.Help(topic)
		if h.Topic != topic || h.Text != want || want == "" {
			t.Errorf("GET /v1/help/%s: %+v, want the text\n%s", topic, h, want)
		}
	}

	status, body = call(t, ts, "GET", "/v1/help/nope", tok, "")
	e, ok := wire.ReadError([]byte(body))
	if status != http.StatusNotFound || !ok || e.GQLStatus != "42002" || !strings.Contains(e.Message, `"nope"`) ||
		!strings.Contains(e.Hint, "broken_views, vocabulary") {
		t.Errorf("an unknown topic: %d %s", status, body)
	}
	if status, body := call(t, ts, "GET", "/v1/help", "", ""); status != http.StatusUnauthorized {
		t.Errorf("without a token: %d %s", status, body)
	}
	if status, body := call(t, ts, "POST", "/v1/help/vocabulary", tok, "{}"); status != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d %s", status, body)
	}
}

// TestHelpOverMCP: each topic is a resource goldfish://help/TOPIC that
// resources/list shows and resources/read gives goldfish.Help's text of,
// over stdio's in-memory transport and over /mcp to a token that reads
// no session that exists.
func TestHelpOverMCP(t *testing.T) {
	_, srv := mcpServer(t, server.Options{})
	tokens, toks := tokenSet(t, map[string][2]string{"other": {"other", ""}})
	_, _, ts := newServer(t, server.Options{Tokens: tokens})
	ctx := context.Background()
	tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{toks["other"], http.DefaultTransport}}, MaxRetries: -1}
	overHTTP, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { overHTTP.Close() })

	for name, cs := range map[string]*mcp.ClientSession{"in memory": connect(t, srv), "over HTTP": overHTTP} {
		list, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		listed := map[string]*mcp.Resource{}
		for _, r := range list.Resources {
			listed[r.URI] = r
		}
		for _, topic := range namedTopics {
			uri := "goldfish://help/" + topic
			want, _ := goldfish.Help(topic)
			r := listed[uri]
			if r == nil || r.MIMEType != "text/plain" || r.Description == "" {
				t.Errorf("%s: resources/list lacks %s: %v", name, uri, list.Resources)
			}
			if text, err := resourceText(t, cs, uri); err != nil || text != want || want == "" {
				t.Errorf("%s: %s: %v\n%s\nwant\n%s", name, uri, err, text, want)
			}
		}
		if _, err := resourceText(t, cs, "goldfish://help/nope"); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("%s: an unknown topic: %v", name, err)
		}
	}
}

// TestBrokenViewsHelpFixes: what the broken_views text says holds. The
// view it revises is broken by the cause it names (a key no node has),
// the error is where it says (the attention line, whole at depth=full,
// the vocabulary endpoint), and its CREATE OR REPLACE, sent as written,
// leaves no view broken.
func TestBrokenViewsHelpFixes(t *testing.T) {
	_, _, ts := newServer(t, server.Options{})
	_, body := call(t, ts, "GET", "/v1/help/broken_views", "", "")
	var h wire.Help
	json.Unmarshal([]byte(body), &h)
	var fix string
	for _, line := range strings.Split(h.Text, "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "CREATE OR REPLACE VIEW late AS") {
			fix = strings.TrimSuffix(l, ";")
		}
	}
	for _, want := range []string{"// attention broken_views", "depth=full", "GET /v1/sessions/{name}/vocabulary",
		"has(", "view(\"x\")", "CREATE OR REPLACE VIEW name AS '…'", "DROP VIEW name"} {
		if !strings.Contains(h.Text, want) {
			t.Errorf("the broken_views help lacks %q:\n%s", want, h.Text)
		}
	}
	if fix == "" || len(strings.Split(h.Text, "\n")) > 15 {
		t.Fatalf("the broken_views help has no fix for late, or is long:\n%s", h.Text)
	}

	commit := func(text string) {
		t.Helper()
		b, _ := json.Marshal(wire.CommitRequest{Text: text})
		if status, body := call(t, ts, "POST", "/v1/sessions/work/commit", "", string(b)); status != 200 {
			t.Fatalf("%s: %d %s", text, status, body)
		}
	}
	recall := func(depth string) string {
		t.Helper()
		b, _ := json.Marshal(wire.RecallRequest{Q: "MATCH ()", Options: wire.RecallSettings{Depth: depth}})
		status, body := call(t, ts, "POST", "/v1/sessions/work/recall", "", string(b))
		var sh wire.Shape
		if err := json.Unmarshal([]byte(body), &sh); status != 200 || err != nil {
			t.Fatalf("recall: %d %v %s", status, err, body)
		}
		return sh.GQL
	}
	commit(`INSERT (:TSK {nick: "a", status: "open"}), (:TSK {nick: "b", status: "open", due: 1})`)
	commit(`CREATE VIEW late AS 'nodes("TSK").filter(t, t.due < version).size()'`)
	if text := recall(""); !strings.Contains(text, "// attention broken_views: late (no such key: due)") {
		t.Errorf("late is not named broken:\n%s", text)
	}
	if text := recall("full"); !strings.Contains(text, "no such key: due") {
		t.Errorf("depth=full does not give the error:\n%s", text)
	}
	if _, body := call(t, ts, "GET", "/v1/sessions/work/vocabulary", "", ""); !strings.Contains(body, `"error":"no such key: due"`) {
		t.Errorf("the vocabulary endpoint does not give the error: %s", body)
	}
	commit(fix)
	if text := recall(""); strings.Contains(text, "broken") || !strings.Contains(text, "// view late = 1") {
		t.Errorf("after %s:\n%s", fix, text)
	}
}
