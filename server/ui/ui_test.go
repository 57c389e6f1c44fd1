package ui_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/server"
)

// TestAssets: the page and its assets are served without a token, with
// a Content-Security-Policy of their own origin, and name nothing on
// another host; /ui goes to /ui/; the API still asks for the token.
func TestAssets(t *testing.T) {
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, line, err := server.NewToken([]string{"*"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	toks, err := server.ParseTokens(strings.NewReader(line + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(db, server.Options{Tokens: toks, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	get := func(path string) (*http.Response, string) {
		t.Helper()
		resp, err := ts.Client().Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	remote := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//`)
	for _, p := range []string{"/ui/", "/ui/app.js", "/ui/gql.js", "/ui/graph.js", "/ui/style.css"} {
		resp, body := get(p)
		if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "script-src 'self'") || len(body) == 0 {
			t.Errorf("%s: %d %q", p, resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
		}
		if remote.MatchString(body) || strings.Contains(body, "innerHTML") {
			t.Errorf("%s loads from another host or writes markup", p)
		}
	}
	if resp, _ := get("/ui"); resp.Request.URL.Path != "/ui/" {
		t.Errorf("/ui ends at %s", resp.Request.URL.Path)
	}
	if resp, _ := get("/ui/nothing.js"); resp.StatusCode != 404 {
		t.Errorf("/ui/nothing.js: %d", resp.StatusCode)
	}
	if resp, _ := get("/v1/sessions"); resp.StatusCode != 401 {
		t.Errorf("/v1/sessions without a token: %d", resp.StatusCode)
	}
}
