//go:build unix

package main

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/server"
	"github.com/goldfish-gql/goldfish/store/cabinet/postgres/pgtest"
)

// TestServeReadyPostgres: gqlsh serve --postgres probes the server for
// /readyz: 200 while it is up, 503 saying the cabinet is unreachable
// (with Retry-After) soon after it stops, 200 again once it is back;
// /healthz stays 200 throughout.
func TestServeReadyPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("stops a PostgreSQL server")
	}
	pg := pgtest.Start(t)
	_, url, _ := startServe(t, "--postgres", pg.URL, "--postgres-schema", pgtest.Schema(t, pg.URL))
	get := func(path string) (int, string, server.ReadyJSON) {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r server.ReadyJSON
		json.NewDecoder(resp.Body).Decode(&r)
		return resp.StatusCode, resp.Header.Get("Retry-After"), r
	}
	until := func(what string, want int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			status, retry, r := get("/readyz")
			if status == want {
				if want == 503 && (r.Cabinet != "unreachable" || retry == "") {
					t.Errorf("%s: %+v, Retry-After %q", what, r, retry)
				}
				if h, _, _ := get("/healthz"); h != 200 {
					t.Errorf("%s: healthz %d", what, h)
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: readyz %d %+v, want %d", what, status, r, want)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	until("PostgreSQL up", 200)
	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	until("PostgreSQL stopped", 503)
	if err := pg.Restart(); err != nil {
		t.Fatal(err)
	}
	until("PostgreSQL back", 200)
}
