package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/client"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/wire"
)

// verb is one call of the client and the answer a goldfish server gives
// it.
type verb struct {
	name, method, path string
	// ok is a server's answer to the call; need are keys without which
	// the answer says nothing of what the call did.
	ok   any
	need []string
	call func(ctx context.Context, c *client.Client, s *client.Session) error
}

const sessionOK = `{"name": "s", "version": 3, "nodes": 1, "edges": 0}`

func verbs() []verb {
	shape := &values.Shape{Text: "// goldfish session=s version=3 cue=match seeds=1 k=2 rows=1/50 tokens=9\nINSERT\n  (a:A)\n",
		Cue: values.CueMatch, Seeds: 1, Rows: 1, Tokens: 9, Version: 3, Status: gqlstatus.Success}
	shape.SetRows([]values.ShapeNode{{Var: "a", Labels: []string{"A"}}}, nil)
	commit := wire.CommitOf(&values.CommitResult{Status: gqlstatus.Success, Version: 4, Applied: true, Total: values.Counts{NodesCreated: 1},
		Stmts: []values.StmtResult{{Index: 1, Status: "00000", Counts: values.Counts{NodesCreated: 1}}}}, 1)
	diff := &values.Diff{From: 1, To: 3, NodesCreated: 1, Rows: 1, Bound: 1000, Text: "// goldfish diff session=s from=1 to=3 nodes=+1-0~0 edges=+0-0 rows=1/1000\nINSERT (:A)\n"}
	settings := wire.SettingsOf(values.AttentionSettings{StaleReads: 3, Decay: 0.9}, nil)
	return []verb{
		{"sessions", "GET", "/v1/sessions", wire.Sessions{Sessions: []wire.Session{{Name: "s", Version: 3}}}, []string{"sessions"},
			func(ctx context.Context, c *client.Client, _ *client.Session) error {
				_, err := c.Sessions(ctx)
				return err
			}},
		{"session", "GET", "/v1/sessions/s", json.RawMessage(sessionOK), []string{"name", "version"},
			func(ctx context.Context, c *client.Client, _ *client.Session) error {
				_, err := c.Session(ctx, "s")
				return err
			}},
		{"drop", "DELETE", "/v1/sessions/s", wire.Dropped{Dropped: wire.Session{Name: "s", Version: 3}}, []string{"dropped"},
			func(ctx context.Context, c *client.Client, _ *client.Session) error { return c.Drop(ctx, "s") }},
		{"flush", "POST", "/v1/flush", wire.Flush{Cabinet: "/tmp/c.gf"}, []string{"cabinet"},
			func(ctx context.Context, c *client.Client, _ *client.Session) error {
				_, err := c.Flush(ctx)
				return err
			}},
		{"recall", "POST", "/v1/sessions/s/recall", wire.ShapeOf(shape, true), []string{"gql", "status", "version"},
			func(ctx context.Context, _ *client.Client, s *client.Session) error {
				_, err := s.Recall(ctx, "MATCH (n)", values.RecallOptions{})
				return err
			}},
		{"commit", "POST", "/v1/sessions/s/commit", commit, []string{"version", "applied", "nodes_created", "status"},
			func(ctx context.Context, _ *client.Client, s *client.Session) error {
				_, err := s.Commit(ctx, "INSERT (:X)", nil)
				return err
			}},
		{"ingest", "POST", "/v1/sessions/s/commit", commit, []string{"applied"},
			func(ctx context.Context, _ *client.Client, s *client.Session) error {
				_, err := s.Ingest(ctx, "INSERT (:X {loc: 'a'})", nil)
				return err
			}},
		{"absorb", "POST", "/v1/sessions/s/absorb", wire.Absorb{Commit: commit, Policy: "keep"}, []string{"applied", "policy"},
			func(ctx context.Context, _ *client.Client, s *client.Session) error {
				_, err := s.AbsorbWith(ctx, "// goldfish slice …", values.AbsorbKeep, values.CommitOptions{})
				return err
			}},
		{"export", "POST", "/v1/sessions/s/export", wire.SliceOf(&values.Slice{Text: "// goldfish slice session=s version=3\n", Status: gqlstatus.Success, Version: 3}),
			[]string{"slice", "version"},
			func(ctx context.Context, _ *client.Client, s *client.Session) error {
				_, err := s.ExportSlice(ctx, "MATCH (n)", values.SliceOptions{})
				return err
			}},
		{"diff", "GET", "/v1/sessions/s/diff", diff, []string{"diff", "from", "to"},
			func(ctx context.Context, _ *client.Client, s *client.Session) error {
				_, err := s.Diff(ctx, 1, 3, values.DiffOptions{})
				return err
			}},
		{"history", "GET", "/v1/sessions/s/history", wire.HistoryOf(&values.History{Nick: "a", Entries: []values.HistoryEntry{{Version: 3, How: "commit", Change: diff}}}),
			[]string{"entries", "nick"},
			func(ctx context.Context, _ *client.Client, s *client.Session) error {
				_, err := s.History(ctx, "a", 0)
				return err
			}},
		{"kinds", "GET", "/v1/sessions/s/kinds", wire.Kinds{Kinds: []wire.Kind{wire.KindOf(values.KindSchema{Kind: "A", Nodes: 1})}}, []string{"kinds"},
			func(ctx context.Context, _ *client.Client, s *client.Session) error {
				_, err := s.Kinds(ctx, "")
				return err
			}},
		{"names", "GET", "/v1/sessions/s/names", wire.NamesOf(values.Names{Labels: []string{"A"}}), []string{"labels", "nicks"},
			func(ctx context.Context, _ *client.Client, s *client.Session) error {
				_, err := s.Names(ctx)
				return err
			}},
		{"vocabulary", "GET", "/v1/sessions/s/vocabulary", wire.VocabularyOf(&values.Vocabulary{Version: 3}), []string{"views", "actions"},
			func(ctx context.Context, _ *client.Client, s *client.Session) error {
				_, err := s.Vocabulary(ctx)
				return err
			}},
		{"agents", "GET", "/v1/sessions/s/agents", wire.Agents{Agents: []wire.Agent{{Name: "planner", LastRead: 3, Reads: 1}}}, []string{"agents"},
			func(ctx context.Context, _ *client.Client, s *client.Session) error {
				_, err := s.Agents(ctx)
				return err
			}},
		{"forget agent", "DELETE", "/v1/sessions/s/agents/planner", wire.Agents{Agents: []wire.Agent{}}, []string{"agents"},
			func(ctx context.Context, _ *client.Client, s *client.Session) error {
				return s.ForgetAgent(ctx, "planner")
			}},
		{"settings", "GET", "/v1/sessions/s/settings", settings, []string{"stale_reads", "pinned"},
			func(ctx context.Context, _ *client.Client, s *client.Session) error {
				_, err := s.AttentionSettings(ctx)
				return err
			}},
		{"set settings", "POST", "/v1/sessions/s/settings", settings, []string{"decay"},
			func(ctx context.Context, _ *client.Client, s *client.Session) error {
				return s.SetAttentionSettings(ctx, values.AttentionSettings{StaleReads: 3, Decay: 0.9})
			}},
		{"pinned", "GET", "/v1/sessions/s/settings", settings, []string{"pinned"},
			func(ctx context.Context, _ *client.Client, s *client.Session) error {
				_, err := s.PinnedKinds(ctx)
				return err
			}},
		{"set pinned", "POST", "/v1/sessions/s/settings", settings, []string{"pinned"},
			func(ctx context.Context, _ *client.Client, s *client.Session) error {
				return s.SetPinnedKinds(ctx, []string{"A"})
			}},
		{"purge", "POST", "/v1/sessions/s/purge", wire.Purge{Purged: 2, Version: 4}, []string{"purged", "version"},
			func(ctx context.Context, _ *client.Client, s *client.Session) error {
				_, err := s.Purge(ctx)
				return err
			}},
		{"dump", "GET", "/v1/sessions/s/dump", wire.Dump{Version: 3, Dump: "version 3\nINSERT (:A)\n"}, []string{"dump"},
			func(ctx context.Context, _ *client.Client, s *client.Session) error {
				_, err := s.Dump(ctx)
				return err
			}},
		{"dump at", "GET", "/v1/sessions/s/dump", wire.Dump{Version: 2, Dump: "version 2\n"}, []string{"dump"},
			func(ctx context.Context, _ *client.Client, s *client.Session) error {
				_, err := s.DumpAt(ctx, 2)
				return err
			}},
	}
}

// answerer serves sessionOK to the session's GET and body, with status
// 200, to the request of v.
func answerer(t *testing.T, v verb, body []byte) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == v.method && r.URL.Path == v.path:
			w.Write(body)
		case r.Method == "GET" && r.URL.Path == "/v1/sessions/s":
			w.Write([]byte(sessionOK))
		default:
			t.Errorf("%s: unexpected %s %s", v.name, r.Method, r.URL.Path)
			w.WriteHeader(http.StatusTeapot)
		}
	}))
	t.Cleanup(ts.Close)
	return ts
}

// without is the object b with key left out (null: its value null).
func without(t *testing.T, b []byte, key string, null bool) []byte {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		t.Fatal(err)
	}
	if _, ok := obj[key]; !ok {
		t.Fatalf("%s: no key %q to leave out", b, key)
	}
	if null {
		obj[key] = json.RawMessage("null")
	} else {
		delete(obj, key)
	}
	out, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAnswerShape: every call the client makes refuses an answer that is
// not the one a goldfish server gives it (not JSON, not an object, an
// object without a key the call's answer always holds, or with null for
// it, more after the object) with a transport error (40Q01) naming the
// server and what is wrong, and takes the server's own answer.
func TestAnswerShape(t *testing.T) {
	ctx := context.Background()
	for _, v := range verbs() {
		good, err := wire.Marshal(v.ok)
		if err != nil {
			t.Fatal(err)
		}
		bad := map[string][]byte{
			"{}": []byte(`{}`), "[]": []byte(`[]`), "null": []byte(`null`), "a string": []byte(`"ok"`), "a number": []byte(`0`),
			"empty": nil, "html": []byte("<html>hello</html>"), "two objects": append(append([]byte{}, good...), good...),
			"another object": []byte(`{"ok": true, "result": {"version": 1}}`),
		}
		for _, key := range v.need {
			bad["without "+key] = without(t, good, key, false)
			bad[key+" null"] = without(t, good, key, true)
		}
		ts := answerer(t, v, good)
		c, _ := client.New(ts.URL, client.Options{})
		s, err := c.Session(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		if err := v.call(ctx, c, s); err != nil {
			t.Errorf("%s: the server's own answer %s was refused: %v", v.name, good, err)
		}
		for what, body := range bad {
			ts := answerer(t, v, body)
			c, _ := client.New(ts.URL, client.Options{})
			var s *client.Session
			if v.name != "session" {
				if s, err = c.Session(ctx, "s"); err != nil {
					t.Fatal(err)
				}
			}
			err := v.call(ctx, c, s)
			var te *client.TransportError
			if !errors.As(err, &te) || te.Status != http.StatusOK || codeOf(err) != gqlstatus.Internal ||
				!strings.Contains(err.Error(), ts.URL) || !strings.Contains(err.Error(), "not a goldfish server's") {
				t.Errorf("%s answered %s (%s): %v", v.name, body, what, err)
			}
		}
	}
}

// TestAnswerValues: an answer with every key but a value no goldfish
// server writes is refused as well, saying which.
func TestAnswerValues(t *testing.T) {
	ctx := context.Background()
	byName := map[string]verb{}
	for _, v := range verbs() {
		byName[v.name] = v
	}
	for _, c := range []struct {
		verb, body, says string
	}{
		{"commit", `{"status":"00000","version":0,"applied":true,"nodes_created":1,"edges_created":0,"properties_set":0,"labels_added":0,"labels_removed":0,"nodes_recycled":0,"edges_recycled":0,"notices":[]}`,
			"applied, at version 0"},
		{"commit", `{"status":"ok","version":1,"applied":true,"nodes_created":1,"edges_created":0,"properties_set":0,"labels_added":0,"labels_removed":0,"nodes_recycled":0,"edges_recycled":0,"notices":[]}`,
			`status "ok"`},
		{"commit", `{"status":"00000","version":1,"applied":true,"nodes_created":-1,"edges_created":0,"properties_set":0,"labels_added":0,"labels_removed":0,"nodes_recycled":0,"edges_recycled":0,"notices":[]}`,
			"counts -1"},
		{"commit", `{"status":"00000","version":1,"applied":true,"nodes_created":1,"edges_created":0,"properties_set":0,"labels_added":0,"labels_removed":0,"nodes_recycled":0,"edges_recycled":0,"notices":[{"code":"\u001b[2J","message":"x"}]}`,
			"notice's code"},
		{"recall", `{"status":"00000","cue":"match","seeds":0,"rows":0,"tokens":0,"version":1,"notices":[],"gql":"INSERT (:A)"}`,
			`"// goldfish session= …"`},
		{"recall", `{"status":"00000","cue":"match","seeds":-1,"rows":0,"tokens":0,"version":1,"notices":[],"gql":"// goldfish session=s"}`,
			"seeds=-1"},
		{"sessions", `{"sessions":[{"name":"s","version":1,"nodes":0,"edges":0},{"name":"\u001b]0;x\u0007","version":1,"nodes":0,"edges":0}]}`,
			"names a session"},
		{"session", `{"name":"t","version":1,"nodes":0,"edges":0}`, `session "t"'s`},
		{"agents", `{"agents":[{"name":"a\u202eb","last_read":1,"reads":1}]}`, "names an agent"},
		{"diff", `{"from":1,"to":2,"nodes_created":0,"nodes_deleted":0,"nodes_changed":0,"edges_created":0,"edges_deleted":0,"rows":0,"bound":1,"diff":""}`,
			`"// goldfish diff …"`},
		{"export", `{"status":"00000","version":1,"anchors":0,"nodes":0,"edges":0,"rows":0,"bound":0,"notices":[],"slice":"x"}`,
			`"// goldfish slice …"`},
		{"purge", `{"purged":-2,"version":1}`, "purged -2"},
	} {
		v := byName[c.verb]
		ts := answerer(t, v, []byte(c.body))
		cl, _ := client.New(ts.URL, client.Options{})
		var s *client.Session
		if c.verb != "session" {
			var err error
			if s, err = cl.Session(ctx, "s"); err != nil {
				t.Fatal(err)
			}
		}
		err := v.call(ctx, cl, s)
		var te *client.TransportError
		if !errors.As(err, &te) || codeOf(err) != gqlstatus.Internal || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s answered %s: %v; want a transport error saying %s", c.verb, c.body, err, c.says)
		}
	}
}

// TestRefusalShape: a refusal whose error object is not the server's (no
// GQLSTATUS code, a negative position) is a transport error too.
func TestRefusalShape(t *testing.T) {
	for _, body := range []string{`{"gqlstatus":"\u001b[2J","message":"x","line":0,"column":0}`, `{"gqlstatus":"22000","message":"x","line":-1,"column":0}`} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(body))
		}))
		c, _ := client.New(ts.URL, client.Options{})
		_, err := c.Sessions(context.Background())
		var te *client.TransportError
		if !errors.As(err, &te) || te.Status != http.StatusBadRequest || codeOf(err) != gqlstatus.Internal {
			t.Errorf("%s: %v", body, err)
		}
		ts.Close()
	}
}
