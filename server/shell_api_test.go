package server_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/server"
	"github.com/goldfish-gql/goldfish/wire"
)

// TestShellEndpoints: the endpoints the shell on a server uses (one
// session's info, its agents, kinds and names, a purge, a drop, a flush,
// a backup) answer under the token's scope: reading needs read, a change
// needs write, the backup needs every session, and a token bound to
// agents sees only its own.
func TestShellEndpoints(t *testing.T) {
	tokens, toks := tokenSet(t, map[string][2]string{"reader": {"a", ""}, "writer": {"", "a,b"}, "all": {"*", "*"}})
	db, _, ts := newServer(t, server.Options{Tokens: tokens})
	w, r, all := toks["writer"], toks["reader"], toks["all"]
	must := func(method, path, token, body string, want int) string {
		t.Helper()
		code, out := call(t, ts, method, path, token, body)
		if code != want {
			t.Fatalf("%s %s: %d, want %d: %s", method, path, code, want, out)
		}
		return out
	}
	decode := func(body string, v any) {
		t.Helper()
		if err := json.Unmarshal([]byte(body), v); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
	}
	must("POST", "/v1/sessions/a/commit", w, `{"text": "INSERT (:TSK {nick: 'TSK_a', due: $d})-[:blocks]->(:TSK {nick: 'TSK_b'}); MATCH (t:TSK {nick: 'TSK_b'}) DETACH DELETE t", "params": {"d": {"date": "2026-01-31"}}}`, 200)
	must("POST", "/v1/sessions/a/recall", w, `{"q": "MATCH (t:TSK)", "agent": "ana"}`, 200)
	// A read token bound to no agent reads as nobody: acting as ana would
	// move her last read.
	must("POST", "/v1/sessions/a/recall", r, `{"q": "MATCH (t:TSK)", "agent": "ana"}`, 403)
	must("POST", "/v1/sessions/a/recall", r, `{"q": "MATCH (t:TSK)"}`, 200)

	var info wire.Session
	decode(must("GET", "/v1/sessions/a", r, "", 200), &info)
	if info.Name != "a" || info.Version != 1 || info.Nodes != 1 || info.Recycled == 0 {
		t.Errorf("GET /v1/sessions/a: %+v", info)
	}
	decode(must("GET", "/v1/sessions/never", all, "", 200), &info)
	if info.Name != "never" || info.Version != 0 {
		t.Errorf("a session not made yet: %+v", info)
	}
	must("GET", "/v1/sessions/b", r, "", http.StatusForbidden)

	var agents wire.Agents
	decode(must("GET", "/v1/sessions/a/agents", r, "", 200), &agents)
	if len(agents.Agents) != 1 || agents.Agents[0].Name != "ana" || agents.Agents[0].Reads != 1 {
		t.Errorf("agents: %+v", agents)
	}
	must("DELETE", "/v1/sessions/a/agents/ana", r, "", http.StatusForbidden)
	must("DELETE", "/v1/sessions/a/agents/ana", w, "", 200)
	decode(must("GET", "/v1/sessions/a/agents", r, "", 200), &agents)
	if len(agents.Agents) != 0 {
		t.Errorf("ana forgotten, still: %+v", agents)
	}

	var kinds wire.Kinds
	decode(must("GET", "/v1/sessions/a/kinds?kind=TSK", r, "", 200), &kinds)
	if len(kinds.Kinds) != 1 || kinds.Kinds[0].Nodes != 1 || len(kinds.Kinds[0].Keys) != 2 {
		t.Errorf("kinds: %+v", kinds)
	}
	var names wire.Names
	decode(must("GET", "/v1/sessions/a/names", r, "", 200), &names)
	if strings.Join(names.Labels, ",") != "TSK" || strings.Join(names.Nicks, ",") != "TSK_a" || names.EdgeTypes == nil {
		t.Errorf("names: %+v", names)
	}

	must("POST", "/v1/sessions/a/purge", r, "{}", http.StatusForbidden)
	var purged wire.Purge
	decode(must("POST", "/v1/sessions/a/purge", w, "{}", 200), &purged)
	if purged.Purged == 0 || purged.Version != 2 {
		t.Errorf("purge: %+v", purged)
	}

	must("POST", "/v1/sessions/b/commit", w, `{"text": "INSERT (:X)"}`, 200)
	must("DELETE", "/v1/sessions/b", r, "", http.StatusForbidden)
	var ej wire.Error
	decode(must("DELETE", "/v1/sessions/nothing", all, "", 400), &ej)
	if ej.GQLStatus != "42002" {
		t.Errorf("drop of nothing: %+v", ej)
	}
	decode(must("DELETE", "/v1/sessions/catalog", all, "", 400), &ej)
	if ej.GQLStatus != "42Q02" {
		t.Errorf("drop of the catalogue: %+v", ej)
	}
	var dropped wire.Dropped
	decode(must("DELETE", "/v1/sessions/b", w, "", 200), &dropped)
	if dropped.Dropped.Name != "b" || dropped.Dropped.Version != 1 || dropped.Dropped.Nodes != 1 {
		t.Errorf("drop: %+v", dropped)
	}
	if infos := db.SessionInfos(); len(infos) != 1 || infos[0].Name != "a" {
		t.Errorf("after the drop: %+v", infos)
	}

	var fl wire.Flush
	decode(must("POST", "/v1/flush", w, "{}", 200), &fl)
	if fl.Cabinet != "" {
		t.Errorf("a flush in memory names %q", fl.Cabinet)
	}
	must("GET", "/v1/backup", w, "", http.StatusForbidden)
	decode(must("GET", "/v1/backup", all, "", 400), &ej)
	if !strings.Contains(ej.Message, "nothing to back up: the sessions are in memory") {
		t.Errorf("a backup in memory: %+v", ej)
	}
	decode(must("POST", "/v1/sessions/a/commit", w, `{"text": "INSERT (:A {d: $d})", "params": {"d": {"date": "2026-02-30"}}}`, 400), &ej)
	if ej.GQLStatus != "22007" || !strings.Contains(ej.Message, `{"date": "2026-02-30"}`) {
		t.Errorf("a day that does not exist: %+v", ej)
	}
	decode(must("POST", "/v1/sessions/a/commit", w, `{"text": "INSERT (:A {d: $d})", "params": {"d": {"day": "2026-02-03"}}}`, 400), &ej)
	if ej.GQLStatus != "22G03" {
		t.Errorf("an object that is no DATE: %+v", ej)
	}
}

// TestBackupEndpoint: GET /v1/backup sends the server's cabinet whole: the
// copy opens as a cabinet and holds the sessions.
func TestBackupEndpoint(t *testing.T) {
	dir := t.TempDir()
	db, err := goldfish.Open(goldfish.WithCabinet(filepath.Join(dir, "c.gf")))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv, err := server.New(db, server.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	if code, body := call(t, ts, "POST", "/v1/sessions/a/commit", "", `{"text": "INSERT (:TSK {nick: 'kept'})"}`); code != 200 {
		t.Fatal(body)
	}
	code, body := call(t, ts, "GET", "/v1/backup", "", "")
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	copyPath := filepath.Join(dir, "copy.gf")
	if err := os.WriteFile(copyPath, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cp, err := goldfish.Open(goldfish.WithCabinet(copyPath))
	if err != nil {
		t.Fatalf("the copy does not open: %v", err)
	}
	defer cp.Close()
	s, err := cp.Session(t.Context(), "a")
	if err != nil {
		t.Fatal(err)
	}
	sh, err := s.Recall(t.Context(), "MATCH (t:TSK {nick: 'kept'})", goldfish.RecallOptions{})
	if err != nil || !strings.Contains(sh.Text, `nick: "kept"`) {
		t.Fatalf("the copy lacks the session: %v %v", sh, err)
	}
}
