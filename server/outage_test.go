package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/postgres"
	"github.com/goldfish-gql/goldfish/server"
	"github.com/goldfish-gql/goldfish/store/cabinet/postgres/pgtest"
	"github.com/goldfish-gql/goldfish/wire"
)

// pingPostgres is a readiness probe: a connection of its own, pinged.
func pingPostgres(url string) func(context.Context) error {
	return func(ctx context.Context) error {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer c.Close(context.Background())
		return c.Ping(ctx)
	}
}

// answer is a response's status, Retry-After and body.
type answer struct {
	status int
	retry  string
	body   map[string]any
	raw    string
}

func ask(t *testing.T, ts *httptest.Server, method, path, body string) answer {
	t.Helper()
	req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, retry: resp.Header.Get("Retry-After"), raw: string(b)}
	json.Unmarshal(b, &a.body)
	return a
}

// TestCabinetUnreachable: with the cabinet's PostgreSQL server stopped,
// every request that needs it answers 503 with 08Q04 and Retry-After,
// each time it is sent: a Commit and a Recall of a session in use, and
// the first use of a session through every endpoint (whose hydration
// fails), and a settings change, which saves the agents' record.
// /healthz stays 200 (the process serves); /readyz answers 503 with a
// body that says the cabinet is unreachable, from its probe or, without
// one, from a request that found it so; once the server is back, so is
// everything.
func TestCabinetUnreachable(t *testing.T) {
	if testing.Short() {
		t.Skip("stops a PostgreSQL server")
	}
	pg := pgtest.Start(t)
	schema := pgtest.Schema(t, pg.URL)
	db, err := goldfish.Open(postgres.Cabinet(pg.URL, postgres.Options{Schema: schema, PollInterval: 50 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	probed, err := server.New(db, server.Options{Logger: quiet, Ready: pingPostgres(pg.URL)})
	if err != nil {
		t.Fatal(err)
	}
	passive, err := server.New(db, server.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ts, ts2 := httptest.NewServer(probed), httptest.NewServer(passive)
	t.Cleanup(ts.Close)
	t.Cleanup(ts2.Close)
	for _, s := range []*httptest.Server{ts, ts2} {
		if a := ask(t, s, "GET", "/readyz", ""); a.status != 200 || a.body["status"] != "ok" {
			t.Fatalf("readyz while PostgreSQL is up: %d %s", a.status, a.raw)
		}
	}
	if a := ask(t, ts, "POST", "/v1/sessions/a/commit", `{"text": "INSERT (:A {nick: 'x'})", "agent": "ana"}`); a.status != 200 {
		t.Fatalf("%d %s", a.status, a.raw)
	}
	if a := ask(t, ts, "POST", "/v1/sessions/a/recall", `{"q": "MATCH ()", "agent": "ana"}`); a.status != 200 {
		t.Fatalf("%d %s", a.status, a.raw)
	}
	exported := ask(t, ts, "POST", "/v1/sessions/a/export", `{"nicks": ["x"]}`)
	slice, _ := exported.body["slice"].(string)
	if exported.status != 200 || slice == "" {
		t.Fatalf("%d %s", exported.status, exported.raw)
	}
	absorb, _ := json.Marshal(wire.AbsorbRequest{Slice: slice, Policy: "remint"})

	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // past the poll interval: a Recall reads the server first
	unreachable := func(s *httptest.Server, method, path, body string) {
		t.Helper()
		for range 2 {
			a := ask(t, s, method, path, body)
			if a.status != http.StatusServiceUnavailable || a.body["gqlstatus"] != "08Q04" || a.retry == "" {
				t.Errorf("%s %s with PostgreSQL down: %d %q %s, want 503 08Q04 with Retry-After", method, path, a.status, a.retry, a.raw)
				return
			}
		}
	}
	unreachable(ts, "POST", "/v1/sessions/a/commit", `{"text": "INSERT (:A)"}`)
	unreachable(ts, "POST", "/v1/sessions/a/recall", `{"q": "MATCH ()"}`)
	unreachable(ts, "POST", "/v1/sessions/a/settings", `{"stale_reads": 3}`)
	unreachable(ts, "POST", "/v1/sessions/a/absorb", string(absorb))
	for _, e := range []struct{ method, verb, body string }{
		{"POST", "recall", `{"q": "MATCH ()"}`}, {"POST", "commit", `{"text": "INSERT (:A)"}`},
		{"GET", "vocabulary", ""}, {"GET", "settings", ""}, {"POST", "settings", `{"stale_reads": 3}`}, {"GET", "dump", ""},
		{"POST", "export", `{"nicks": ["x"]}`}, {"POST", "absorb", `{"slice": "x", "policy": "keep"}`},
	} {
		unreachable(ts, e.method, "/v1/sessions/new-"+e.verb+"-"+strings.ToLower(e.method)+"/"+e.verb, e.body)
	}
	if a := ask(t, ts, "GET", "/healthz", ""); a.status != 200 {
		t.Errorf("healthz with PostgreSQL down: %d %s", a.status, a.raw)
	}
	// The probe's answer stands for a second; the request that found the
	// cabinet unreachable stands for one too.
	deadline := time.Now().Add(5 * time.Second)
	for {
		a := ask(t, ts, "GET", "/readyz", "")
		if a.status == http.StatusServiceUnavailable {
			if a.body["status"] != "unavailable" || a.body["cabinet"] != "unreachable" || a.body["gqlstatus"] != "08Q04" || a.retry == "" ||
				strings.Contains(a.raw, schema) {
				t.Errorf("readyz with PostgreSQL down: %d %q %s", a.status, a.retry, a.raw)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readyz with PostgreSQL down: %d %s", a.status, a.raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
	unreachable(ts2, "POST", "/v1/sessions/a/recall", `{"q": "MATCH ()"}`)
	if a := ask(t, ts2, "GET", "/readyz", ""); a.status != http.StatusServiceUnavailable || a.body["cabinet"] != "unreachable" {
		t.Errorf("readyz without a probe, after a request found the cabinet unreachable: %d %s", a.status, a.raw)
	}

	if err := pg.Restart(); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		c := ask(t, ts, "POST", "/v1/sessions/a/commit", `{"text": "INSERT (:A)"}`)
		r := ask(t, ts, "GET", "/readyz", "")
		if c.status == 200 && r.status == 200 && r.body["status"] == "ok" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("PostgreSQL is back: commit %d %s, readyz %d %s", c.status, c.raw, r.status, r.raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The names whose first use failed were never made: a read of one
	// is refused as any unknown name's, and none is listed.
	if a := ask(t, ts, "POST", "/v1/sessions/new-recall-post/recall", `{"q": "MATCH ()"}`); a.status != 400 || a.body["gqlstatus"] != "42002" {
		t.Errorf("a session whose first use failed, once PostgreSQL is back: %d %s, want 400 42002", a.status, a.raw)
	}
	if a := ask(t, ts, "GET", "/v1/sessions", ""); strings.Contains(a.raw, "new-") {
		t.Errorf("sessions whose first use failed are listed: %s", a.raw)
	}
}
