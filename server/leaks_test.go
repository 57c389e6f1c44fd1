package server_test

import (
	"fmt"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/server"
)

// TestTokensLearnNothingOfOthers: what a token that reads only some
// sessions is answered, on every endpoint, does not depend on what other
// tokens do to other sessions: Commits, Recalls of the catalogue (which
// apply its changes and move its version), agents reading, views,
// settings, new sessions. Two servers see the same requests of the
// token, on its own session, on the catalogue and on sessions outside
// its scope; on one, another token works on other sessions between
// them. The answers are the same bytes (but for the times of the
// token's own Commits).
func TestTokensLearnNothingOfOthers(t *testing.T) {
	tokens, toks := tokenSet(t, map[string][2]string{"alpha": {"", "alpha"}, "all": {"", "*"}})
	alpha, all := toks["alpha"], toks["all"]
	others := func(ts *httptest.Server, round int) {
		for _, name := range []string{"secret", "beta", fmt.Sprintf("new%d", round)} {
			for _, c := range []struct{ method, path, body string }{
				{"POST", "/v1/sessions/" + name + "/commit", fmt.Sprintf(`{"text": "INSERT (:S {n: %d})", "agent": "x"}`, round)},
				{"POST", "/v1/sessions/" + name + "/commit", fmt.Sprintf(`{"text": "CREATE OR REPLACE VIEW v AS '%d'", "agent": "x"}`, round)},
				{"POST", "/v1/sessions/" + name + "/settings", fmt.Sprintf(`{"stale_reads": %d}`, round+2)},
				{"POST", "/v1/sessions/" + name + "/recall", `{"q": "MATCH ()", "agent": "x"}`},
				{"POST", "/v1/sessions/catalog/recall", `{"q": "MATCH (s:SESSION)", "agent": "x", "options": {"L": 32}}`},
				{"POST", "/v1/sessions/catalog/recall", `{"q": "MATCH ()", "agent": "y"}`},
				{"POST", "/v1/sessions/catalog/recall", fmt.Sprintf(`{"q": "MATCH ()", "agent": "z%d"}`, round)},
				{"GET", "/v1/sessions/catalog/vocabulary", ""},
			} {
				if status, body := call(t, ts, c.method, c.path, all, c.body); status != 200 {
					t.Fatalf("%s %s: %d %s", c.method, c.path, status, body)
				}
			}
		}
	}
	asks := []struct{ method, path, body string }{
		{"GET", "/v1/sessions", ""},
		{"POST", "/v1/sessions/alpha/recall", `{"q": "MATCH ()", "agent": "x"}`},
		{"POST", "/v1/sessions/alpha/recall", `{"q": "MATCH (n:NOTE)", "agent": "y", "options": {"depth": "full"}}`},
		{"POST", "/v1/sessions/alpha/commit", `{"text": "MATCH (n:NOTE {nick: 'nobody'}) SET n.x = 1", "agent": "x"}`},
		{"GET", "/v1/sessions/alpha/vocabulary", ""},
		{"GET", "/v1/sessions/alpha/settings", ""},
		{"GET", "/v1/sessions/alpha/dump", ""},
		{"POST", "/v1/sessions/alpha/export", `{"nicks": ["a"]}`},
		{"POST", "/v1/sessions/catalog/recall", `{"q": "MATCH ()"}`},
		{"POST", "/v1/sessions/catalog/recall", `{"q": "MATCH ()", "agent": "x"}`},
		{"POST", "/v1/sessions/catalog/recall", `{"q": "MATCH (s:SESSION)", "agent": "y", "options": {"depth": "full", "L": 32}}`},
		{"POST", "/v1/sessions/catalog/recall", `{"q": "MATCH (s:SESSION {name: 'secret'})", "agent": "z1"}`},
		{"GET", "/v1/sessions/catalog/vocabulary", ""},
		{"GET", "/v1/sessions/catalog/settings", ""},
		{"GET", "/v1/sessions/catalog/dump", ""},
		{"POST", "/v1/sessions/catalog/export", `{"q": "MATCH (s:SESSION)"}`},
		{"POST", "/v1/sessions/catalog/commit", `{"text": "INSERT (:X)"}`},
		{"POST", "/v1/sessions/catalog/settings", `{"stale_reads": 1}`},
		{"POST", "/v1/sessions/secret/recall", `{"q": "MATCH ()"}`},
		{"POST", "/v1/sessions/secret/commit", `{"text": "INSERT (:X)"}`},
		{"GET", "/v1/sessions/secret/vocabulary", ""},
		{"GET", "/v1/sessions/secret/settings", ""},
		{"GET", "/v1/sessions/secret/dump", ""},
		{"POST", "/v1/sessions/secret/export", `{"nicks": ["a"]}`},
		{"POST", "/v1/sessions/secret/absorb", `{"slice": "x", "policy": "keep"}`},
		{"POST", "/v1/sessions/nosuch/recall", `{"q": "MATCH ()"}`},
		{"GET", "/v1/sessions/nosuch/vocabulary", ""},
	}
	times := regexp.MustCompile(`DATETIME '[^']*'|"last_commit":"[^"]*"`)
	run := func(busy bool) []string {
		_, _, ts := newServer(t, server.Options{Tokens: tokens})
		var out []string
		for round := 0; round < 4; round++ {
			if busy {
				others(ts, round)
			}
			if round == 0 {
				if status, body := call(t, ts, "POST", "/v1/sessions/alpha/commit", alpha, `{"text": "INSERT (:NOTE {nick: 'a', text: 'mine'}); CREATE VIEW n AS 'count(\"NOTE\")'"}`); status != 200 {
					t.Fatal(status, body)
				}
			}
			for _, a := range asks {
				status, body := call(t, ts, a.method, a.path, alpha, a.body)
				out = append(out, fmt.Sprintf("round %d: %s %s %s\n-> %d %s", round, a.method, a.path, a.body, status, times.ReplaceAllString(body, "TIME")))
			}
		}
		return out
	}
	quiet, busy := run(false), run(true)
	for i := range quiet {
		if quiet[i] != busy[i] {
			t.Errorf("the answer depends on other sessions' work:\nalone:  %s\nbusy:   %s", quiet[i], busy[i])
		}
	}
}

// TestMetricsPolicy: /metrics needs no token by default and shows
// totals only: no series names a session, a token or an agent. With
// PrivateMetrics it needs a token that may read every session.
func TestMetricsPolicy(t *testing.T) {
	tokens, toks := tokenSet(t, map[string][2]string{"alpha": {"", "alpha"}, "all": {"*", ""}})
	for _, private := range []bool{false, true} {
		_, _, ts := newServer(t, server.Options{Tokens: tokens, PrivateMetrics: private})
		call(t, ts, "POST", "/v1/sessions/alpha/commit", toks["alpha"], `{"text": "INSERT (:TOPSECRETKIND {nick: 'n'})", "agent": "agentsecret"}`)
		call(t, ts, "POST", "/v1/sessions/alpha/recall", toks["alpha"], `{"q": "MATCH ()", "agent": "agentsecret"}`)
		want := map[string]int{"": 200, "alpha": 200, "all": 200}
		if private {
			want = map[string]int{"": 401, "alpha": 403, "all": 200}
		}
		for who, status := range want {
			got, body := call(t, ts, "GET", "/metrics", toks[who], "")
			if got != status {
				t.Errorf("private %v, token %q: %d, want %d: %.200s", private, who, got, status, body)
			}
			if got != 200 {
				continue
			}
			if !strings.Contains(body, "goldfish_sessions 1") || !strings.Contains(body, `goldfish_commits_total{applied="true"} 1`) {
				t.Errorf("private %v: not the totals:\n%s", private, body)
			}
			for _, secret := range []string{"alpha", "TOPSECRETKIND", "agentsecret", toks["alpha"][3:15]} {
				if strings.Contains(body, secret) {
					t.Errorf("private %v: /metrics shows %q", private, secret)
				}
			}
		}
	}
}
