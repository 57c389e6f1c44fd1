package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestReadyWhileReplaying: after a stop without a flush (a kill), the
// sessions' logs hold their Commits, and the first request to each used
// to wait for its replay while /readyz said ready. Warm replays them in
// the background: /readyz is 503 "replaying" (how many are left, with
// Retry-After) until it ends, /healthz 200 throughout, and once /readyz
// says ready every one of them is in memory.
func TestReadyWhileReplaying(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.gf")
	ctx := context.Background()
	db, err := goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"a", "b", "c"}
	for _, name := range names {
		sess, err := db.Session(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 20 {
			if _, err := sess.Commit(ctx, fmt.Sprintf("INSERT (:N {nick: 'n%d'})", i), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := db.Close(); err != nil { // no Flush: the logs hold every Commit
		t.Fatal(err)
	}
	db, err = goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := New(db, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	get := func(path string) (int, string, ReadyJSON) {
		t.Helper()
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r ReadyJSON
		json.NewDecoder(resp.Body).Decode(&r)
		return resp.StatusCode, resp.Header.Get("Retry-After"), r
	}

	paused, resume := make(chan int), make(chan struct{})
	s.warm.step = func(done, total int) {
		if done == 1 {
			paused <- total
			<-resume
		}
	}
	finished := s.Warm(ctx)
	if total := <-paused; total != len(names) {
		t.Errorf("%d sessions to replay, want %d", total, len(names))
	}
	if status, retry, r := get("/readyz"); status != http.StatusServiceUnavailable || retry == "" || r.Status != "replaying" || r.Replaying != 2 {
		t.Errorf("while replaying: /readyz %d %+v, Retry-After %q", status, r, retry)
	}
	if status, _, _ := get("/healthz"); status != http.StatusOK {
		t.Errorf("while replaying: /healthz %d", status)
	}
	close(resume)
	<-finished
	if status, _, r := get("/readyz"); status != http.StatusOK || r.Status != "ok" {
		t.Errorf("after the replay: /readyz %d %+v", status, r)
	}
	if st := db.MemoryStats(); st.ResidentSessions != len(names) {
		t.Errorf("ready with %d sessions in memory, want %d", st.ResidentSessions, len(names))
	}
}
