package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/server"
	"github.com/goldfish-gql/goldfish/wire"
)

// tokenSet makes tokens for the scopes given as "read=…" / "write=…"
// specs and returns the file they make and the tokens by name.
func tokenSet(t *testing.T, specs map[string][2]string) (*server.Tokens, map[string]string) {
	t.Helper()
	var file strings.Builder
	toks := map[string]string{}
	for name, sp := range specs {
		tok, line, err := server.NewToken(server.SplitGlobs(sp[0]), server.SplitGlobs(sp[1]))
		if err != nil {
			t.Fatal(err)
		}
		toks[name] = tok
		file.WriteString(line + "\n")
	}
	parsed, err := server.ParseTokens(strings.NewReader(file.String()))
	if err != nil {
		t.Fatal(err)
	}
	return parsed, toks
}

// secretServer holds sessions a token for "alpha" must never see: each
// holds a marker only it has.
func secretServer(t *testing.T) (*httptest.Server, map[string]string) {
	t.Helper()
	tokens, toks := tokenSet(t, map[string][2]string{
		"alpha": {"", "alpha"},       // read and write alpha
		"proj":  {"proj.*", ""},      // read proj.*
		"beta":  {"", "beta"},        // write (and so read) beta
		"all":   {"*", ""},           // read everything
		"multi": {"proj.a,beta", ""}, // read two
	})
	db, _, ts := newServer(t, server.Options{Tokens: tokens})
	ctx := context.Background()
	for name, marker := range map[string]string{"alpha": "ALPHAMARK", "ALPHA": "UPPERSECRET", "alphabet": "ALPHABETSECRET",
		"secret": "TOPSECRET", "beta": "BETAMARK", "proj.a": "PROJMARK", "proja": "PROJASECRET"} {
		s, err := db.Session(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Commit(ctx, `INSERT (:NOTE {nick: "n", text: $m, name: "secret"})`, map[string]any{"m": marker}); err != nil {
			t.Fatal(err)
		}
	}
	return ts, toks
}

// TestTokensRefuse: a request without a valid token is 401, but 403 on
// /mcp, where an MCP client would take a 401 for an OAuth flow; a token
// outside its scope is 403, the same for a session that exists and one
// that does not; health and metrics need no token, and OAuth's discovery
// documents answer that there is no OAuth, without a token.
func TestTokensRefuse(t *testing.T) {
	ts, toks := secretServer(t)
	recall := `{"q": "MATCH (n)"}`
	commit := `{"text": "INSERT (:X)"}`
	cases := []struct {
		name, method, path, header, body string
		status                           int
		code                             string
	}{
		{"no token", "POST", "/v1/sessions/alpha/recall", "", recall, 401, "08Q02"},
		{"no token, sessions", "GET", "/v1/sessions", "", "", 401, "08Q02"},
		{"no token, mcp", "POST", "/mcp", "", `{}`, 403, "08Q02"},
		{"unknown token, mcp", "POST", "/mcp", "Bearer gf_nothing", `{}`, 403, "08Q02"},
		{"OAuth's resource metadata", "GET", "/.well-known/oauth-protected-resource", "", "", 404, "42002"},
		{"OAuth's resource metadata of /mcp", "GET", "/.well-known/oauth-protected-resource/mcp", "", "", 404, "42002"},
		{"OAuth's server metadata", "GET", "/.well-known/oauth-authorization-server", "", "", 404, "42002"},
		{"unknown token", "POST", "/v1/sessions/alpha/recall", "Bearer gf_nothing", recall, 401, "08Q02"},
		{"a hash is not a token", "POST", "/v1/sessions/alpha/recall", "Bearer sha256:00", recall, 401, "08Q02"},
		{"not bearer", "POST", "/v1/sessions/alpha/recall", "Basic " + toks["alpha"], recall, 401, "08Q02"},
		{"bearer alone", "POST", "/v1/sessions/alpha/recall", "Bearer", recall, 401, "08Q02"},
		{"token with a tail", "POST", "/v1/sessions/alpha/recall", "Bearer " + toks["alpha"] + "x", recall, 401, "08Q02"},
		{"another session", "POST", "/v1/sessions/secret/recall", "Bearer " + toks["alpha"], recall, 403, "42Q07"},
		{"a session that does not exist", "POST", "/v1/sessions/nosuch/recall", "Bearer " + toks["alpha"], recall, 403, "42Q07"},
		{"case", "POST", "/v1/sessions/ALPHA/recall", "Bearer " + toks["alpha"], recall, 403, "42Q07"},
		{"prefix", "POST", "/v1/sessions/alphabet/recall", "Bearer " + toks["alpha"], recall, 403, "42Q07"},
		{"glob is not a prefix match", "POST", "/v1/sessions/proja/recall", "Bearer " + toks["proj"], recall, 403, "42Q07"},
		{"read token commits", "POST", "/v1/sessions/proj.a/commit", "Bearer " + toks["proj"], commit, 403, "42Q07"},
		{"read-all token commits", "POST", "/v1/sessions/alpha/commit", "Bearer " + toks["all"], commit, 403, "42Q07"},
		{"write token on the catalogue", "POST", "/v1/sessions/catalog/commit", "Bearer " + toks["alpha"], commit, 403, "42Q07"},
		{"lower-case scheme", "POST", "/v1/sessions/alpha/recall", "bearer " + toks["alpha"], recall, 200, ""},
		{"write implies read", "POST", "/v1/sessions/beta/recall", "Bearer " + toks["beta"], recall, 200, ""},
		{"glob", "POST", "/v1/sessions/proj.a/recall", "Bearer " + toks["proj"], recall, 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, ts.URL+c.path, strings.NewReader(c.body))
			if c.header != "" {
				req.Header.Set("Authorization", c.header)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var m map[string]any
			json.NewDecoder(resp.Body).Decode(&m)
			if resp.StatusCode != c.status || c.code != "" && m["gqlstatus"] != c.code {
				t.Errorf("%d %v, want %d %s", resp.StatusCode, m, c.status, c.code)
			}
			if c.status == 401 && resp.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("401 without WWW-Authenticate")
			}
		})
	}
	for _, path := range []string{"/healthz", "/metrics"} {
		if status, body := call(t, ts, "GET", path, "", ""); status != 200 {
			t.Errorf("%s without a token: %d %s", path, status, body)
		}
	}
}

// TestTokensIsolate: nothing a token for alpha can send (text, parameters,
// session names, paths, headers, the catalogue) shows anything of another
// session. Every answer is scanned for the other sessions' markers.
func TestTokensIsolate(t *testing.T) {
	ts, toks := secretServer(t)
	alpha := toks["alpha"]
	leaks := []string{"UPPERSECRET", "ALPHABETSECRET", "TOPSECRET", "BETAMARK", "PROJMARK", "PROJASECRET"}
	check := func(what string, status int, body string) {
		t.Helper()
		for _, l := range leaks {
			if strings.Contains(body, l) {
				t.Errorf("%s: the answer (%d) shows another session (%s):\n%s", what, status, l, body)
			}
		}
	}
	texts := []string{
		"MATCH (n)", "MATCH ()", "MATCH (n) WHERE n CONTAINS 'SECRET'", "MATCH (n) WHERE n CONTAINS 'MARK'",
		"USE secret MATCH (n)", "USE GRAPH secret MATCH (n)", "SESSION SET GRAPH secret", "MATCH (n) IN secret",
		"MATCH (s:SESSION)", "CALL db.sessions()", "MATCH (n {name: $s})",
	}
	for _, q := range texts {
		body, _ := json.Marshal(wire.RecallRequest{Q: q, Params: wire.Params{"s": "secret"}, Agent: "secret"})
		status, out := call(t, ts, "POST", "/v1/sessions/alpha/recall", alpha, string(body))
		check("recall "+q, status, out)
		cbody, _ := json.Marshal(wire.CommitRequest{Text: q, Params: wire.Params{"s": "secret"}})
		status, out = call(t, ts, "POST", "/v1/sessions/alpha/commit", alpha, string(cbody))
		check("commit "+q, status, out)
	}
	paths := []string{
		"/v1/sessions/alpha/../secret/recall", "/v1/sessions/alpha%2F..%2Fsecret/recall", "/v1/sessions/%2E%2E/secret/recall",
		"/v1/sessions/secret%00/recall", "/v1/sessions/alpha/recall/../../secret/recall", "/v1/sessions//secret/recall",
		"/v1/sessions/alpha,secret/recall", "/v1/sessions/al*/recall", "/v1/sessions/*/recall", "/v1/sessions/secret?session=alpha",
		"/v1/sessions/catalog/recall", "/v1/sessions",
	}
	for _, p := range paths {
		method := "POST"
		if p == "/v1/sessions" {
			method = "GET"
		}
		req, err := http.NewRequest(method, ts.URL+"/", strings.NewReader(`{"q": "MATCH (n)"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.URL.Opaque = p // sent as written, not cleaned by the client
		if u, err := url.Parse(ts.URL + p); err == nil {
			req.URL.RawQuery = u.RawQuery
			req.URL.Opaque = strings.SplitN(p, "?", 2)[0]
		}
		req.Header.Set("Authorization", "Bearer "+alpha)
		req.Header.Set("X-Session", "secret")
		req.Header.Set("X-Forwarded-For", "127.0.0.1")
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		fmt.Fprint(&b, resp.Header)
		buf := make([]byte, 1<<16)
		n, _ := resp.Body.Read(buf)
		resp.Body.Close()
		b.Write(buf[:n])
		check("path "+p, resp.StatusCode, b.String())
	}
	// The session endpoints, on the catalogue and on another session,
	// show nothing of the others: not their contents, not their names.
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/v1/sessions/catalog/dump", ""}, {"GET", "/v1/sessions/catalog/vocabulary", ""},
		{"GET", "/v1/sessions/catalog/settings", ""}, {"POST", "/v1/sessions/catalog/export", `{"q": "MATCH (s:SESSION)"}`},
		{"GET", "/v1/sessions/secret/dump", ""}, {"GET", "/v1/sessions/secret/vocabulary", ""},
		{"GET", "/v1/sessions/secret/settings", ""}, {"POST", "/v1/sessions/secret/export", `{"q": "MATCH (n)"}`},
		{"POST", "/v1/sessions/alpha/export", `{"q": "MATCH (n)", "nicks": ["secret"]}`},
		{"POST", "/v1/sessions/alpha/absorb", `{"slice": "// goldfish slice session=secret version=1", "policy": "keep"}`},
	} {
		status, out := call(t, ts, c.method, c.path, alpha, c.body)
		check(c.method+" "+c.path, status, out)
		// (An answer may repeat a name the request gave; the catalogue's
		// must name no session but alpha.)
		if strings.Contains(c.path, "/catalog/") && (strings.Contains(out, `secret`) || strings.Contains(out, "beta")) {
			t.Errorf("%s %s (%d) names another session: %s", c.method, c.path, status, out)
		}
	}
	// The catalogue and the list show alpha alone, and the catalogue's
	// version tells nothing of the others' Commits.
	status, body := call(t, ts, "POST", "/v1/sessions/catalog/recall", alpha, `{"q": "MATCH (s:SESSION)", "options": {"L": 32}}`)
	m := decodeMap(t, body)
	if status != 200 || m["seeds"] != float64(1) || m["version"] != float64(1) || !strings.Contains(m["gql"].(string), `name: "alpha"`) {
		t.Errorf("the catalogue for alpha's token: %d %s", status, body)
	}
	if strings.Contains(body, "secret\"") || strings.Contains(body, "beta") || strings.Contains(body, "ALPHA\"") {
		t.Errorf("the catalogue names another session: %s", body)
	}
	status, body = call(t, ts, "GET", "/v1/sessions", alpha, "")
	if status != 200 || body != `{"sessions":[{"name":"alpha","version":1,"nodes":1,"edges":0,"kinds":{"NOTE":1},"last_commit":`+body[strings.Index(body, `"last_commit":`)+14:] {
		t.Errorf("the sessions of alpha's token: %s", body)
	}
	var list wire.Sessions
	for tok, want := range map[string][]string{"multi": {"beta", "proj.a"}, "all": {"ALPHA", "alpha", "alphabet", "beta", "proj.a", "proja", "secret"}} {
		_, body = call(t, ts, "GET", "/v1/sessions", toks[tok], "")
		json.Unmarshal([]byte(body), &list)
		var got []string
		for _, s := range list.Sessions {
			got = append(got, s.Name)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("token %s lists %v, want %v", tok, got, want)
		}
	}
	// A token reading everything sees the catalogue as it is.
	_, body = call(t, ts, "POST", "/v1/sessions/catalog/recall", toks["all"], `{"q": "MATCH (s:SESSION)", "options": {"L": 32}}`)
	if m := decodeMap(t, body); m["seeds"] != float64(7) {
		t.Errorf("the catalogue for a token reading *: %s", body)
	}
	// The markers are there to be seen by a token that may.
	if _, body := call(t, ts, "POST", "/v1/sessions/secret/recall", toks["all"], `{"q": "MATCH (n)"}`); !strings.Contains(body, "TOPSECRET") {
		t.Errorf("a token reading * does not see secret: %s", body)
	}
}
