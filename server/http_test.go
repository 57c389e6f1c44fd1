package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/repl"
	"github.com/goldfish-gql/goldfish/server"
	"github.com/goldfish-gql/goldfish/wire"
)

// newServer serves a fresh in-memory database.
func newServer(t *testing.T, o server.Options) (*goldfish.DB, *server.Server, *httptest.Server) {
	t.Helper()
	db, err := goldfish.Open()
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
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.Close()
		db.Close()
	})
	return db, srv, ts
}

// call sends one request and returns the status and the body.
func call(t *testing.T, ts *httptest.Server, method, path, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func decodeMap(t *testing.T, body string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, body)
	}
	return m
}

// TestAnswersAreTheShellsJSON: the server's answers to Recall and Commit
// are the objects gqlsh --format json prints, byte for byte, for the same
// statements on the same database state.
func TestAnswersAreTheShellsJSON(t *testing.T) {
	steps := []struct {
		verb, text string
		params     map[string]any
	}{
		{"commit", `INSERT (:TSK {nick: "TSK_login", title: "Fix login redirect", status: "open"})-[:touches]->(:MOD {loc: "auth/login.go"})`, nil},
		{"commit", `MATCH (t:TSK {nick: "TSK_login"}) SET t.status = "done" INSERT (t)-[:has]->(:NOTE {text: "cookie path"})`, nil},
		{"commit", `MATCH (t:TSK {nick: "nobody"}) SET t.x = 1`, nil},
		{"commit", `INSERT (:NOTE {text: "cookie path"})`, nil}, // an echo: a notice
		{"commit", `CREATE VIEW open_tasks INTENT 'work left' AS 'size(nodes("TSK").filter(t, t.status == "open"))'`, nil},
		{"recall", `MATCH (t:TSK)`, nil},
		{"recall", `MATCH (n) WHERE n CONTAINS "cookie"`, nil},
		{"recall", `MATCH ()`, nil},
		{"recall", `MATCH (x:NOPE {a: 1})`, nil},
	}
	// The shell, on a database of its own.
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sess, err := db.Session(context.Background(), "main")
	if err != nil {
		t.Fatal(err)
	}
	var inputs []repl.Input // one each, as gqlsh -c TEXT -c TEXT …
	for _, st := range steps {
		inputs = append(inputs, repl.Input{R: strings.NewReader(st.text)})
	}
	var out, errs bytes.Buffer
	sh := repl.NewShell(sess, &repl.ReaderIO{Inputs: inputs, Out: &out, Err: &errs},
		repl.Options{Format: repl.FormatJSON, DB: db})
	if code := sh.Loop(context.Background()); code != 0 {
		t.Fatalf("shell exit %d: %s", code, errs.String())
	}
	want := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(want) != len(steps) {
		t.Fatalf("the shell printed %d lines for %d statements:\n%s", len(want), len(steps), out.String())
	}
	_, _, ts := newServer(t, server.Options{})
	for i, st := range steps {
		var body []byte
		if st.verb == "commit" {
			body, _ = json.Marshal(wire.CommitRequest{Text: st.text})
		} else {
			body, _ = json.Marshal(wire.RecallRequest{Q: st.text})
		}
		code, got := call(t, ts, "POST", "/v1/sessions/main/"+st.verb, "", string(body))
		if code != http.StatusOK {
			t.Fatalf("step %d: status %d: %s", i, code, got)
		}
		if strings.TrimSuffix(got, "\n") != want[i] {
			t.Errorf("step %d (%s):\n server %s\n shell  %s", i, st.text, got, want[i])
		}
	}
}

// TestErrors: each kind of failure answers its status code and a
// GQLSTATUS error object with the position when there is text.
func TestErrors(t *testing.T) {
	_, srv, ts := newServer(t, server.Options{})
	call(t, ts, "POST", "/v1/sessions/main/commit", "", `{"text": "INSERT (:TSK {nick: 'a'})"}`)
	big := `{"text": "` + strings.Repeat("x", server.MaxFrame) + `"}`
	cases := []struct {
		name, method, path, body string
		status                   int
		code                     string
		line, column             int
	}{
		{"syntax", "POST", "/v1/sessions/main/recall", `{"q": "MATCH (t:TSK) RETURN t"}`, 400, "42001", 1, 15},
		{"wrong verb", "POST", "/v1/sessions/main/recall", `{"q": "INSERT (:A)"}`, 400, "42Q04", 0, 0},
		{"commit of a read", "POST", "/v1/sessions/main/commit", `{"text": "MATCH (t:TSK)"}`, 400, "42Q04", 0, 0},
		{"not JSON", "POST", "/v1/sessions/main/recall", `MATCH ()`, 400, "22Q06", 0, 0},
		{"empty body", "POST", "/v1/sessions/main/recall", ``, 400, "22Q06", 0, 0},
		{"unknown field", "POST", "/v1/sessions/main/recall", `{"query": "MATCH ()"}`, 400, "22Q06", 0, 0},
		{"two objects", "POST", "/v1/sessions/main/recall", `{"q": "MATCH ()"} {"q": "MATCH ()"}`, 400, "22Q06", 0, 0},
		{"unknown option", "POST", "/v1/sessions/main/recall", `{"q": "MATCH ()", "options": {"view": "x"}}`, 400, "22Q06", 0, 0},
		{"budget over its ceiling", "POST", "/v1/sessions/main/recall", `{"q": "MATCH ()", "options": {"M": 100000}}`, 400, "22Q01", 0, 0},
		{"bad mint", "POST", "/v1/sessions/main/commit", `{"text": "INSERT (:A)", "mint": "x"}`, 400, "22Q06", 0, 0},
		{"integer out of range", "POST", "/v1/sessions/main/recall", `{"q": "MATCH (t {n: $n})", "params": {"n": 99999999999999999999}}`, 400, "22003", 0, 0},
		{"parameter not given", "POST", "/v1/sessions/main/recall", `{"q": "MATCH (t {n: $n})"}`, 400, "42002", 1, 14},
		{"a map parameter", "POST", "/v1/sessions/main/commit", `{"text": "INSERT (:A {m: $m})", "params": {"m": {"a": 1}}}`, 400, "22G03", 0, 0},
		{"nick taken", "POST", "/v1/sessions/main/commit", `{"text": "INSERT (:TSK {nick: 'a', status: 'other'})"}`, 409, "40002", 1, 8},
		{"catalogue is read-only", "POST", "/v1/sessions/catalog/commit", `{"text": "INSERT (:A)"}`, 400, "42Q02", 0, 0},
		{"bad session name", "POST", "/v1/sessions/-x/recall", `{"q": "MATCH ()"}`, 400, "42Q03", 0, 0},
		{"frame", "POST", "/v1/sessions/main/commit", big, 413, "22Q07", 0, 0},
		{"no endpoint", "GET", "/v2/x", ``, 404, "42002", 0, 0},
		{"wrong method", "GET", "/v1/sessions/main/recall", ``, 405, "42002", 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body := call(t, ts, c.method, c.path, "", c.body)
			if status != c.status {
				t.Errorf("status %d, want %d: %s", status, c.status, body)
			}
			m := decodeMap(t, body)
			if m["gqlstatus"] != c.code {
				t.Errorf("gqlstatus %v, want %s: %s", m["gqlstatus"], c.code, body)
			}
			if m["message"] == "" {
				t.Errorf("no message: %s", body)
			}
			if c.line != 0 && (m["line"] != float64(c.line) || m["column"] != float64(c.column)) {
				t.Errorf("at line %v column %v, want %d, %d: %s", m["line"], m["column"], c.line, c.column, body)
			}
		})
	}
	t.Run("a browser's cross-site request", func(t *testing.T) {
		req, _ := http.NewRequest("POST", ts.URL+"/v1/sessions/main/commit", strings.NewReader(`{"text": "INSERT (:X)"}`))
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		req.Header.Set("Origin", "http://evil.example")
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 403 {
			t.Errorf("status %d, want 403", resp.StatusCode)
		}
	})
	t.Run("a rebound host", func(t *testing.T) {
		req, _ := http.NewRequest("POST", ts.URL+"/v1/sessions/main/recall", strings.NewReader(`{"q": "MATCH ()"}`))
		req.Host = "evil.example"
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if resp.StatusCode != 403 || m["gqlstatus"] != "42Q07" {
			t.Errorf("status %d %v, want 403", resp.StatusCode, m)
		}
	})
	t.Run("shutting down", func(t *testing.T) {
		srv.Drain()
		status, body := call(t, ts, "POST", "/v1/sessions/main/recall", "", `{"q": "MATCH ()"}`)
		if status != 503 || decodeMap(t, body)["gqlstatus"] != "08Q03" {
			t.Errorf("after Drain: %d %s", status, body)
		}
		if status, body := call(t, ts, "GET", "/healthz", "", ""); status != 503 {
			t.Errorf("healthz after Drain: %d %s", status, body)
		}
	})
}

// TestDeadline: the server's deadline reaches the work through the
// context, and a call it stops answers 503 with 40000.
func TestDeadline(t *testing.T) {
	db, _, ts := newServer(t, server.Options{Deadline: time.Nanosecond})
	if s, err := db.Session(context.Background(), "main"); err != nil {
		t.Fatal(err)
	} else if _, err := s.Commit(context.Background(), "INSERT (:A)", nil); err != nil {
		t.Fatal(err)
	}
	status, body := call(t, ts, "POST", "/v1/sessions/main/recall", "", `{"q": "MATCH ()"}`)
	if status != 503 || decodeMap(t, body)["gqlstatus"] != "40000" {
		t.Errorf("a Recall over the deadline: %d %s", status, body)
	}
	status, body = call(t, ts, "POST", "/v1/sessions/main/commit", "", `{"text": "INSERT (:A)"}`)
	if status != 503 || decodeMap(t, body)["gqlstatus"] != "40000" {
		t.Errorf("a Commit over the deadline: %d %s", status, body)
	}
}

// TestParams: JSON integers are INTEGERs and other numbers FLOATs, in
// lists too; "only" takes a list or a comma-separated string.
func TestParams(t *testing.T) {
	_, _, ts := newServer(t, server.Options{})
	status, body := call(t, ts, "POST", "/v1/sessions/p/commit", "",
		`{"text": "INSERT (:A {i: $i, f: $f, e: $e, l: $l, s: $s, b: $b, z: $z})", "params": {"i": 3, "f": 3.0, "e": 1e2, "l": [1, 2.5, "x"], "s": "str", "b": true, "z": null}}`)
	if status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	for _, only := range []string{`"shape"`, `["shape"]`} {
		status, body = call(t, ts, "POST", "/v1/sessions/p/recall", "", `{"q": "MATCH (a:A)", "options": {"only": `+only+`, "M": 5, "k": 1}}`)
		if status != 200 {
			t.Fatalf("%d %s", status, body)
		}
		gql := decodeMap(t, body)["gql"].(string)
		if !strings.Contains(gql, `{b: true, e: 100.0, f: 3.0, i: 3, l: [1, 2.5, "x"], s: "str"}`) {
			t.Errorf("the values are not as sent:\n%s", gql)
		}
	}
}

// TestTokenTarget: options.T trims the nodes beyond the seeds to their
// identity properties, and the answer counts them in "trimmed".
func TestTokenTarget(t *testing.T) {
	_, _, ts := newServer(t, server.Options{})
	status, body := call(t, ts, "POST", "/v1/sessions/t/commit", "",
		`{"text": "INSERT (:A {nick: 'a', note: 'the seed keeps every property it has'})-[:r]->(:B {nick: 'b', note: 'a far node shows its nick alone'})"}`)
	if status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	for _, c := range []struct {
		opts    string
		trimmed float64
	}{{`{}`, 0}, {`{"T": 5}`, 1}} {
		status, body = call(t, ts, "POST", "/v1/sessions/t/recall", "", `{"q": "MATCH (a:A)", "options": `+c.opts+`}`)
		if status != 200 {
			t.Fatalf("%s: %d %s", c.opts, status, body)
		}
		m := decodeMap(t, body)
		got, _ := m["trimmed"].(float64)
		gql := m["gql"].(string)
		if got != c.trimmed || !strings.Contains(gql, "every property") || strings.Contains(gql, "its nick alone") != (c.trimmed == 0) {
			t.Errorf("%s: trimmed %v:\n%s", c.opts, m["trimmed"], gql)
		}
	}
	status, body = call(t, ts, "POST", "/v1/sessions/t/recall", "", `{"q": "MATCH (a:A)", "options": {"T": -1}}`)
	if status != 400 || decodeMap(t, body)["gqlstatus"] != "22Q01" {
		t.Errorf("a negative T: %d %s", status, body)
	}
}

// TestSessionsAndMetrics: GET /v1/sessions lists what exists; /metrics
// counts what was served.
func TestSessionsAndMetrics(t *testing.T) {
	_, _, ts := newServer(t, server.Options{})
	call(t, ts, "POST", "/v1/sessions/b/commit", "", `{"text": "INSERT (:X)"}`)
	call(t, ts, "POST", "/v1/sessions/a/commit", "", `{"text": "INSERT (:Y)-[:r]->(:Y)"}`)
	status, body := call(t, ts, "GET", "/v1/sessions", "", "")
	if status != 200 {
		t.Fatal(status, body)
	}
	var list wire.Sessions
	json.Unmarshal([]byte(body), &list)
	if len(list.Sessions) != 2 || list.Sessions[0].Name != "a" || list.Sessions[0].Nodes != 2 || list.Sessions[0].Kinds["Y"] != 2 || list.Sessions[1].Name != "b" {
		t.Errorf("sessions: %s", body)
	}
	status, body = call(t, ts, "GET", "/metrics", "", "")
	if status != 200 || !strings.Contains(body, `goldfish_commits_total{applied="true"} 2`) ||
		!strings.Contains(body, `goldfish_http_requests_total{code="200",endpoint="commit"} 2`) || !strings.Contains(body, "goldfish_sessions 2") {
		t.Errorf("metrics:\n%s", body)
	}
}
