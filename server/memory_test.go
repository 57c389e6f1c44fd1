package server_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/server"
)

// TestMemoryBudgetMetrics: a server whose database has a memory budget
// unloads the sessions its requests left idle, a request hydrates one
// again, and /metrics reports the resident sessions, their estimate, the
// budget and the unloads.
func TestMemoryBudgetMetrics(t *testing.T) {
	db, err := goldfish.Open(goldfish.WithCabinet(filepath.Join(t.TempDir(), "c.gf")), goldfish.WithMemoryBudget(1))
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
	for _, name := range []string{"a", "b", "c"} {
		if status, body := call(t, ts, "POST", "/v1/sessions/"+name+"/commit", "", `{"text": "INSERT (:TSK {nick: \"t\"})"}`); status != 200 {
			t.Fatal(status, body)
		}
	}
	status, body := call(t, ts, "POST", "/v1/sessions/a/recall", "", `{"q": "MATCH (t:TSK {nick: \"t\"})"}`)
	if status != 200 || !strings.Contains(body, `nick: \"t\"`) {
		t.Fatalf("Recall of an unloaded session: %d %s", status, body)
	}
	_, body = call(t, ts, "GET", "/metrics", "", "")
	for _, want := range []string{"goldfish_resident_sessions 1", "goldfish_memory_budget_bytes 1", "goldfish_session_unloads_total 3",
		"goldfish_session_rehydrations_total 1", "goldfish_sessions 3"} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("metrics without %q:\n%s", want, grepLines(body, "goldfish_"))
		}
	}
	if !strings.Contains(body, "goldfish_resident_bytes ") {
		t.Errorf("no goldfish_resident_bytes:\n%s", grepLines(body, "goldfish_"))
	}
}

func grepLines(s, prefix string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestFlushLeavesUnloadedSessions: the shutdown flush compacts what is in
// memory and hydrates no unloaded session to do it (each one's Commits
// are in the cabinet already); every Commit is there after a reopen.
func TestFlushLeavesUnloadedSessions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.gf")
	db, err := goldfish.Open(goldfish.WithCabinet(path), goldfish.WithMemoryBudget(1))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(db, server.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	for _, name := range names {
		if status, body := call(t, ts, "POST", "/v1/sessions/"+name+"/commit", "", `{"text": "INSERT (:TSK {nick: \"t\"})"}`); status != 200 {
			t.Fatal(status, body)
		}
	}
	ts.Close()
	before := db.MemoryStats().Rehydrations
	if err := srv.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := db.MemoryStats().Rehydrations - before; n != 0 {
		t.Errorf("the flush hydrated %d unloaded sessions again", n)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, name := range names {
		s, err := db.Session(context.Background(), name)
		if err != nil || s.Version() != 1 {
			t.Fatalf("session %s after a reopen: %v", name, err)
		}
	}
}
