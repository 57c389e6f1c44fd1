package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/repl"
	"github.com/goldfish-gql/goldfish/server"
	"github.com/goldfish-gql/goldfish/wire"
)

// raw reports whether out holds a character that acts on a terminal.
func raw(out string) bool { return repl.Visible(out) != out }

// TestURLUntrustedServer: gqlsh --url reads nothing from what is not a
// goldfish server's answer and exits 1 saying what answered: a server
// answering {} to everything (even to the session's check), or only to
// the Recall and the Commit, never prints "ok" or an empty Shape. A
// redirect to another server is not followed. What a server sends
// (errors, hints, names in a Shape) prints with its control characters
// escaped.
func TestURLUntrustedServer(t *testing.T) {
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }))
	defer empty.Close()
	emptyVerbs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/sessions/main" {
			w.Write([]byte(`{"name": "main", "version": 0, "nodes": 0, "edges": 0}`))
			return
		}
		w.Write([]byte("{}"))
	}))
	defer emptyVerbs.Close()
	var reached atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) }))
	defer elsewhere.Close()
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/sessions/main" {
			w.Write([]byte(`{"name": "main", "version": 0, "nodes": 0, "edges": 0}`))
			return
		}
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	for _, c := range []struct {
		name, url, says string
	}{
		{"{} to everything", empty.URL, `lacks "name"`},
		{"{} to the verbs", emptyVerbs.URL, "lacks"},
		{"a redirect elsewhere", redirecting.URL, "another server"},
	} {
		for _, stmt := range []string{"INSERT (:X);", "MATCH (n);"} {
			out, errOut, code := gqlsh(t, "", "--url", c.url, "-c", stmt)
			if code == 0 || out != "" || !strings.Contains(errOut, "not a goldfish server's") && !strings.Contains(errOut, "redirects") ||
				!strings.Contains(errOut, c.says) || !strings.Contains(errOut, c.url) {
				t.Errorf("%s, %s: exit %d, stdout %q, stderr %q", c.name, stmt, code, out, errOut)
			}
		}
	}
	if reached.Load() != 0 {
		t.Errorf("the server redirected to was reached %d times", reached.Load())
	}

	const evil = "\x1b[2J\x1b]0;pwned\x07\u009b31m\u202e"
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ge := &gqlstatus.Error{Code: gqlstatus.AccessDenied, Msg: "no " + evil, Hint: "hint " + evil}
		w.WriteHeader(wire.HTTPStatus(ge))
		b, _ := wire.Marshal(wire.ErrorOf(ge))
		w.Write(b)
	}))
	defer refusing.Close()
	for _, color := range []bool{false, true} {
		var out, errOut bytes.Buffer
		code := runEnv([]string{"--url", refusing.URL, "-c", "MATCH (n);"}, env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut,
			color: color, lookupEnv: tempEnv(t, nil)})
		if code == 0 || raw(errOut.String()) || !strings.Contains(errOut.String(), `no \x1b[2J\x1b]0;pwned\x07\u009b31m\u202e`) ||
			!strings.Contains(errOut.String(), `hint \x1b[2J`) {
			t.Errorf("a refusal's text (colour %v): exit %d, %q", color, code, errOut.String())
		}
	}

	// Names holding control characters, on a goldfish server: its Shape
	// shows them escaped, as GQL the parser reads back.
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv, err := server.New(db, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	out, errOut, code := gqlsh(t, "", "--url", ts.URL, "-c", "INSERT (:`\x1b[2J`:`a\x00b` {nick: 'n', `k\u009b`: 1})-[:`\x07` {`\x1b]0;x\x07`: 2}]->(:B);", "-c", "MATCH (n {nick: 'n'});")
	if code != 0 || raw(out+errOut) || !strings.Contains(out, ":`\\u001B[2J`:`a\\u0000b` {`k\\u009B`: 1, nick: \"n\"})") ||
		!strings.Contains(out, "-[:`\\u0007` {`\\u001B]0;x\\u0007`: 2}]->") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
