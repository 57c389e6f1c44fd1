package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/goldfish-gql/goldfish/client"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
)

// TestRedirects: a redirect to another origin (another port of the same
// host here) is not followed, for any redirect status and any call, so
// neither the request's body nor its token reaches the other server; the
// error shows the status and where it pointed, quoted. A redirect on the
// server's own origin is followed, the body sent again on a 307.
func TestRedirects(t *testing.T) {
	ctx := context.Background()
	var reached atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		b, _ := io.ReadAll(r.Body)
		t.Errorf("the other server got %s %s (token %q): %s", r.Method, r.URL, r.Header.Get("Authorization"), b)
	}))
	defer other.Close()
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.Method == "GET" && r.URL.Path == "/v1/sessions/s":
				w.Write([]byte(sessionOK))
			case r.URL.Path == "/v1/sessions/s/commit":
				w.Header().Set("Location", other.URL+"/v1/sessions/s/commit?\u202e")
				w.WriteHeader(status)
			default:
				http.Redirect(w, r, other.URL+r.URL.Path, status)
			}
		}))
		c, _ := client.New(ts.URL, client.Options{Token: "secret"})
		s, err := c.Session(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		calls := map[string]func() error{
			"commit":   func() error { _, err := s.Commit(ctx, "INSERT (:X {secret: 1})", nil); return err },
			"recall":   func() error { _, err := s.Recall(ctx, "MATCH (n)", values.RecallOptions{}); return err },
			"sessions": func() error { _, err := c.Sessions(ctx); return err },
			"drop":     func() error { return c.Drop(ctx, "t") },
		}
		for name, call := range calls {
			err := call()
			var te *client.TransportError
			if !errors.As(err, &te) || te.Status != status || codeOf(err) != gqlstatus.Internal ||
				!strings.Contains(err.Error(), other.URL) || !strings.Contains(err.Error(), "another server") || strings.Contains(err.Error(), "\u202e") {
				t.Errorf("%d %s: %v", status, name, err)
			}
		}
		ts.Close()
	}
	if reached.Load() != 0 {
		t.Errorf("the other server was reached %d times", reached.Load())
	}

	// On the server's own origin a redirect is followed, as before, and
	// the caller's own CheckRedirect still has its say.
	var bodies []string
	same := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/sessions/s":
			w.Write([]byte(sessionOK))
		case "/v1/sessions/s/commit":
			http.Redirect(w, r, "/v1/sessions/s/commit/", http.StatusTemporaryRedirect)
		default:
			b, _ := io.ReadAll(r.Body)
			bodies = append(bodies, string(b))
			w.Write([]byte(`{"status":"00000","version":4,"applied":true,"nodes_created":1,"edges_created":0,"properties_set":0,` +
				`"labels_added":0,"labels_removed":0,"nodes_recycled":0,"edges_recycled":0,"notices":[]}`))
		}
	}))
	defer same.Close()
	asked := 0
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { asked++; return nil }}
	c, _ := client.New(same.URL, client.Options{HTTP: hc})
	s, err := c.Session(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if res, err := s.Commit(ctx, "INSERT (:X)", nil); err != nil || res.Version != 4 {
		t.Fatalf("%+v %v", res, err)
	}
	if len(bodies) != 1 || !strings.Contains(bodies[0], "INSERT (:X)") || asked != 1 {
		t.Errorf("followed with %q, the caller's CheckRedirect asked %d times", bodies, asked)
	}
}
