package server_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish/server"
)

func resourceText(t *testing.T, cs *mcp.ClientSession, uri string) (string, error) {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return "", err
	}
	if len(res.Contents) != 1 {
		t.Fatalf("%s: %d contents", uri, len(res.Contents))
	}
	return res.Contents[0].Text, nil
}

func completions(t *testing.T, cs *mcp.ClientSession, ref *mcp.CompleteReference, arg, value string, ctxArgs map[string]string) []string {
	t.Helper()
	p := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}}
	if ctxArgs != nil {
		p.Context = &mcp.CompleteContext{Arguments: ctxArgs}
	}
	res, err := cs.Complete(context.Background(), p)
	if err != nil {
		t.Fatalf("complete %s=%q: %v", arg, value, err)
	}
	if res.Completion.Values == nil {
		t.Errorf("complete %s=%q: values is null", arg, value)
	}
	return res.Completion.Values
}

// TestMCPResources: each session is a resource whose text is its
// outline, as recall gives MATCH (); a node is one by its nick; a session
// or node that is not there is not found; names and nicks complete.
func TestMCPResources(t *testing.T) {
	_, srv := mcpServer(t, server.Options{})
	cs := connect(t, srv)
	odd := "O'Brien \"the\" / 城市\nline two"
	callTool(t, cs, "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "alice", "entityType": "person", "observations": []any{"likes tea"}},
		map[string]any{"name": "alan", "entityType": "person", "observations": []any{}},
		map[string]any{"name": odd, "entityType": "person", "observations": []any{"odd"}},
	}}, false)
	callTool(t, cs, "commit", map[string]any{"session": "work", "text": `INSERT (:TSK {nick: "fix_login", status: "open"})`}, false)

	list, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list.Resources {
		if strings.HasPrefix(r.URI, "goldfish://sessions/") { // beside the help topics (help_test.go)
			uris = append(uris, r.URI)
		}
	}
	if !slices.Equal(uris, []string{"goldfish://sessions/memory", "goldfish://sessions/work"}) {
		t.Errorf("resources: %v", uris)
	}
	tmpl, err := cs.ListResourceTemplates(context.Background(), nil)
	if err != nil || len(tmpl.ResourceTemplates) != 2 {
		t.Fatalf("templates: %v %v", tmpl, err)
	}

	outline, _ := callTool(t, cs, "recall", map[string]any{"session": "work", "q": "MATCH ()"}, false)
	if text, err := resourceText(t, cs, "goldfish://sessions/work"); err != nil || text != outline {
		t.Errorf("the resource of work: %v\n%s\nwant the outline\n%s", err, text, outline)
	}
	if text, err := resourceText(t, cs, "goldfish://sessions/memory/nodes/alice"); err != nil || !strings.Contains(text, `nick: "alice", observations: ["likes tea"]`) {
		t.Errorf("alice: %v\n%s", err, text)
	}
	if text, err := resourceText(t, cs, "goldfish://sessions/memory/nodes/"+url.PathEscape(odd)); err != nil || !strings.Contains(text, `observations: ["odd"]`) {
		t.Errorf("an odd nick: %v\n%s", err, text)
	}
	for _, uri := range []string{"goldfish://sessions/nothere", "goldfish://sessions/memory/nodes/nobody", "goldfish://sessions/..",
		"goldfish://sessions/memory/nodes/", "goldfish://sessions/a/b", "goldfish://other/memory"} {
		if text, err := resourceText(t, cs, uri); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("%s: %v %q", uri, err, text)
		}
	}

	name := &mcp.CompleteReference{Type: "ref/resource", URI: "goldfish://sessions/{name}"}
	node := &mcp.CompleteReference{Type: "ref/resource", URI: "goldfish://sessions/{name}/nodes/{nick}"}
	if got := completions(t, cs, name, "name", "w", nil); !slices.Equal(got, []string{"work"}) {
		t.Errorf("names w: %v", got)
	}
	if got := completions(t, cs, name, "name", "zz", nil); len(got) != 0 {
		t.Errorf("names zz: %v", got)
	}
	if got := completions(t, cs, node, "nick", "al", map[string]string{"name": "memory"}); !slices.Equal(got, []string{"alan", "alice"}) {
		t.Errorf("nicks al: %v", got)
	}
	if got := completions(t, cs, node, "nick", "O", map[string]string{"name": "memory"}); len(got) != 1 || got[0] != url.PathEscape(odd) {
		t.Errorf("nicks O: %v", got)
	}
	if got := completions(t, cs, node, "nick", "fix", map[string]string{"name": "work"}); !slices.Equal(got, []string{"fix_login"}) {
		t.Errorf("nicks of work: %v", got)
	}
	if got := completions(t, cs, node, "nick", "", map[string]string{"name": "nothere"}); len(got) != 0 {
		t.Errorf("nicks of a session that is not there: %v", got)
	}
	prompt := &mcp.CompleteReference{Type: "ref/prompt", Name: "use_goldfish"}
	if got := completions(t, cs, prompt, "session", "m", nil); !slices.Equal(got, []string{"memory"}) {
		t.Errorf("the prompt's session: %v", got)
	}

	res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "use_goldfish", Arguments: map[string]string{"session": "work"}})
	if err != nil || len(res.Messages) != 1 {
		t.Fatalf("use_goldfish: %v %v", res, err)
	}
	text := res.Messages[0].Content.(*mcp.TextContent).Text
	for _, want := range []string{`session "work"`, "recall", "commit", "MATCH (n {nick: 'fix_login'})", "MATCH (n:TSK) LIMIT 4", "INSERT (:TSK"} {
		if !strings.Contains(text, want) {
			t.Errorf("use_goldfish lacks %q:\n%s", want, text)
		}
	}
	if n := len(strings.Fields(text)); n > 250 {
		t.Errorf("use_goldfish is %d words", n)
	}
}

// TestMCPResourcesForToken: a token scoped to one session lists that one
// alone, reads no other (the same not-found as a session that does not
// exist), completes no other name and is taught no other.
func TestMCPResourcesForToken(t *testing.T) {
	tokens, toks := tokenSet(t, map[string][2]string{"mine": {"", "mine"}, "reader": {"mine", ""}})
	db, _, ts := newServer(t, server.Options{Tokens: tokens})
	ctx := context.Background()
	for _, name := range []string{"mine", "theirs"} {
		s, _ := db.Session(ctx, name)
		s.Commit(ctx, `INSERT (:NOTE {nick: $n, text: $t})`, map[string]any{"n": name + "_note", "t": strings.ToUpper(name) + "MARK"})
	}
	dial := func(token string) *mcp.ClientSession {
		tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}, MaxRetries: -1}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, nil)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	cs := dial(toks["mine"])
	list, err := cs.ListResources(ctx, nil)
	if err == nil { // the sessions, after the help topics every token reads (help_test.go)
		list.Resources = slices.DeleteFunc(list.Resources, func(r *mcp.Resource) bool { return !strings.HasPrefix(r.URI, "goldfish://sessions/") })
	}
	if err != nil || len(list.Resources) != 1 || list.Resources[0].URI != "goldfish://sessions/mine" {
		t.Fatalf("resources for mine: %v %v", list, err)
	}
	if text, err := resourceText(t, cs, "goldfish://sessions/mine"); err != nil || !strings.Contains(text, "MINEMARK") {
		t.Errorf("mine: %v %s", err, text)
	}
	_, errTheirs := resourceText(t, cs, "goldfish://sessions/theirs")
	_, errNone := resourceText(t, cs, "goldfish://sessions/nothere")
	if errTheirs == nil || errNone == nil || strings.Contains(errTheirs.Error(), "MARK") ||
		strings.ReplaceAll(errTheirs.Error(), "theirs", "X") != strings.ReplaceAll(errNone.Error(), "nothere", "X") {
		t.Errorf("another session: %v; one that is not there: %v", errTheirs, errNone)
	}
	if _, err := resourceText(t, cs, "goldfish://sessions/theirs/nodes/theirs_note"); err == nil {
		t.Error("a node of another session was read")
	}
	name := &mcp.CompleteReference{Type: "ref/resource", URI: "goldfish://sessions/{name}"}
	if got := completions(t, cs, name, "name", "", nil); !slices.Equal(got, []string{"mine"}) {
		t.Errorf("names: %v", got)
	}
	node := &mcp.CompleteReference{Type: "ref/resource", URI: "goldfish://sessions/{name}/nodes/{nick}"}
	if got := completions(t, cs, node, "nick", "", map[string]string{"name": "theirs"}); len(got) != 0 {
		t.Errorf("nicks of theirs: %v", got)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "use_goldfish", Arguments: map[string]string{"session": "theirs"}}); err == nil {
		t.Error("use_goldfish taught another session")
	}
	res, err := dial(toks["reader"]).GetPrompt(ctx, &mcp.GetPromptParams{Name: "use_goldfish", Arguments: map[string]string{"session": "mine"}})
	if err != nil || !strings.Contains(res.Messages[0].Content.(*mcp.TextContent).Text, "read only") {
		t.Errorf("use_goldfish for a reader: %v %v", res, err)
	}
}
