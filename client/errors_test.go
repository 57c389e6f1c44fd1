package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/client"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/server"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/wire"
)

// TestErrorKinds: a call's error says whose it is. The server's refusal
// is a *client.Refusal with its HTTP status and the server's caret; no
// answer of the server's (nobody there, something else answering) is a
// *client.TransportError; a name refused before any request is neither.
// All three hold the *gqlstatus.Error with the code.
func TestErrorKinds(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tok, line, err := server.NewToken(nil, []string{"mine"})
	if err != nil {
		t.Fatal(err)
	}
	toks, err := server.ParseTokens(strings.NewReader(line + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(db, server.Options{Tokens: toks})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c, _ := client.New(ts.URL, client.Options{Token: tok})
	s, err := c.Session(ctx, "mine")
	if err != nil {
		t.Fatal(err)
	}
	refused := func(err error, status int, code gqlstatus.Code) *client.Refusal {
		t.Helper()
		var re *client.Refusal
		var te *client.TransportError
		if !errors.As(err, &re) || errors.As(err, &te) || re.Status != status || re.Err.Code != code || codeOf(err) != code {
			t.Fatalf("%v: want a refusal %d %s", err, status, code)
		}
		return re
	}
	_, err = s.Commit(ctx, "INSERT (:A);\nINSERT (:B {x: })", nil)
	re := refused(err, http.StatusBadRequest, gqlstatus.Syntax)
	if re.Caret != "  INSERT (:B {x: })\n                 ^" || re.Err.Caret() != re.Caret {
		t.Errorf("the caret: server %q, here %q", re.Caret, re.Err.Caret())
	}
	if _, err := s.Commit(ctx, "INSERT (:A {nick: 'a'})", nil); err != nil {
		t.Fatal(err)
	}
	_, err = s.Commit(ctx, "INSERT (:A {nick: 'a', x: 1})", nil)
	refused(err, http.StatusConflict, gqlstatus.IntegrityViolation)
	_, err = c.Session(ctx, "others")
	refused(err, http.StatusForbidden, gqlstatus.AccessDenied)
	anon, _ := client.New(ts.URL, client.Options{})
	_, err = anon.Sessions(ctx)
	if re := refused(err, http.StatusUnauthorized, gqlstatus.Unauthenticated); !strings.Contains(re.Err.Hint, "--token") {
		t.Errorf("401's hint: %q", re.Err.Hint)
	}

	// A session dropped under a call: the cause crosses the wire.
	dropped := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/sessions/s" {
			w.Write([]byte(`{"name": "s", "version": 1, "nodes": 0, "edges": 0}`))
			return
		}
		ge := &gqlstatus.Error{Code: gqlstatus.InvalidReference, Msg: "session s was dropped", Cause: values.ErrDropped}
		w.WriteHeader(wire.HTTPStatus(ge))
		json.NewEncoder(w).Encode(wire.ErrorOf(ge))
	}))
	defer dropped.Close()
	c, _ = client.New(dropped.URL, client.Options{})
	s, err = c.Session(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Recall(ctx, "MATCH ()", values.RecallOptions{})
	if refused(err, http.StatusConflict, gqlstatus.InvalidReference); !errors.Is(err, values.ErrDropped) || !errors.Is(err, goldfish.ErrDropped) {
		t.Errorf("a dropped session: %v does not unwrap to ErrDropped", err)
	}

	transport := func(err error, status int, code gqlstatus.Code) {
		t.Helper()
		var re *client.Refusal
		var te *client.TransportError
		if !errors.As(err, &te) || errors.As(err, &re) || te.Status != status || codeOf(err) != code {
			t.Errorf("%v: want a transport error %d %s", err, status, code)
		}
	}
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	c, _ = client.New(gone.URL, client.Options{})
	_, err = c.Sessions(ctx)
	transport(err, 0, gqlstatus.ConnectionException)
	for status, body := range map[int]string{http.StatusOK: "<html>hello</html>", http.StatusBadGateway: "<html>bad gateway</html>", http.StatusNotFound: `{"error": "no"}`} {
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			w.Write([]byte(body))
		}))
		c, _ = client.New(other.URL, client.Options{})
		_, err = c.Sessions(ctx)
		transport(err, status, gqlstatus.Internal)
		other.Close()
	}

	_, err = c.Session(ctx, "no/such")
	var re2 *client.Refusal
	var te *client.TransportError
	if codeOf(err) != gqlstatus.InvalidName || errors.As(err, &re2) || errors.As(err, &te) {
		t.Errorf("a bad name: %v", err)
	}
}
