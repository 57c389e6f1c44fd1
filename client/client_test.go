package client_test

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/client"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/server"
)

func codeOf(err error) gqlstatus.Code {
	var ge *gqlstatus.Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return ""
}

// serve serves a fresh in-memory database and returns a client of it.
func serve(t *testing.T) (*goldfish.DB, *client.Client) {
	t.Helper()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(db, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	c, err := client.New(ts.URL, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); ts.Close(); db.Close() })
	return db, c
}

// TestValuesRoundTrip: every value a parameter may take reaches the
// server as that value: integral FLOATs stay FLOAT, DATE and DATETIME
// arrive as such, lists keep their elements' types.
func TestValuesRoundTrip(t *testing.T) {
	_, c := serve(t)
	ctx := context.Background()
	s, err := c.Session(ctx, "v")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 10, 0, 0, 500, time.FixedZone("", 2*3600))
	p := map[string]any{"i": int64(3), "f": 2.0, "g": 1e300, "s": "x'\"\n", "b": false, "z": nil,
		"d": goldfish.Date{Year: 2026, Month: 1, Day: 31}, "t": at, "l": []any{int64(1), 2.0, "a", []any{goldfish.Date{Year: 2000, Month: 2, Day: 29}}}}
	res, err := s.Commit(ctx, "INSERT (:V {nick: 'v', i: $i, f: $f, g: $g, s: $s, b: $b, z: $z, d: $d, t: $t, l: $l})", p)
	if err != nil || res.Version != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	sh, err := s.Recall(ctx, "MATCH (v:V {nick: 'v'})", goldfish.RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`f: 2.0`, `i: 3`, `d: DATE '2026-01-31'`, `l: [1, 2.0, "a", [DATE '2000-02-29']]`, `s: "x'\"\n"`} {
		if !strings.Contains(sh.Text, want) {
			t.Errorf("the Shape lacks %s:\n%s", want, sh.Text)
		}
	}
	// The same Commit embedded gives the same Shape, byte for byte.
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	es, _ := db.Session(ctx, "v")
	if _, err := es.Commit(ctx, "INSERT (:V {nick: 'v', i: $i, f: $f, g: $g, s: $s, b: $b, z: $z, d: $d, t: $t, l: $l})", p); err != nil {
		t.Fatal(err)
	}
	esh, err := es.Recall(ctx, "MATCH (v:V {nick: 'v'})", goldfish.RecallOptions{})
	if err != nil || esh.Text != sh.Text {
		t.Errorf("embedded:\n%s\nover the server:\n%s (%v)", esh.Text, sh.Text, err)
	}
	for _, bad := range []any{math.NaN(), math.Inf(1), struct{}{}, map[string]any{"a": 1}} {
		if _, err := s.Commit(ctx, "INSERT (:V {x: $x})", map[string]any{"x": bad}); codeOf(err) != gqlstatus.InvalidValueType {
			t.Errorf("%v: %v", bad, err)
		}
	}
	if s.Version() != 1 {
		t.Errorf("version %d after refusals, want 1", s.Version())
	}
}

// TestTransportFailures: each way a call can fail without an answer of
// goldfish's has its code: nobody at the address (08000), an answer that
// is not goldfish's (an internal error naming --url), a read cut off
// (08000), a Recall cut off (08000: a POST that writes nothing), a write
// cut off or cancelled after it was sent (40003: it may
// have applied).
func TestTransportFailures(t *testing.T) {
	ctx := context.Background()
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	c, _ := client.New(deadURL, client.Options{})
	if _, err := c.Sessions(ctx); codeOf(err) != gqlstatus.ConnectionException {
		t.Errorf("nobody there: %v", err)
	}

	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html>hello</html>"))
	}))
	defer other.Close()
	c, _ = client.New(other.URL, client.Options{})
	if _, err := c.Sessions(ctx); codeOf(err) != gqlstatus.Internal || !strings.Contains(err.Error(), "--url") {
		t.Errorf("not goldfish: %v", err)
	}

	cut := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/sessions/s" {
			w.Write([]byte(`{"name": "s", "version": 0, "nodes": 0, "edges": 0}`))
			return
		}
		hj, _ := w.(http.Hijacker)
		conn, _, _ := hj.Hijack()
		conn.Close()
	}))
	defer cut.Close()
	c, _ = client.New(cut.URL, client.Options{})
	s, err := c.Session(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, "INSERT (:A)", nil); codeOf(err) != gqlstatus.CompletionUnknown {
		t.Errorf("a write cut off: %v", err)
	}
	// A Recall is sent as a POST but changes nothing: cut off, it is to
	// be retried, not a write of unknown outcome.
	if _, err := s.Recall(ctx, "MATCH ()", goldfish.RecallOptions{}); codeOf(err) != gqlstatus.ConnectionException {
		t.Errorf("a Recall cut off: %v", err)
	}
	if _, err := s.Kinds(ctx, ""); codeOf(err) != gqlstatus.ConnectionException {
		t.Errorf("a read cut off: %v", err)
	}

	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/sessions/s" {
			w.Write([]byte(`{"name": "s", "version": 0, "nodes": 0, "edges": 0}`))
			return
		}
		io.ReadAll(r.Body) // then the server sees the caller go away
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	defer slow.Close()
	c, _ = client.New(slow.URL, client.Options{})
	s, err = c.Session(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := s.Commit(short, "INSERT (:A)", nil); codeOf(err) != gqlstatus.CompletionUnknown || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a write cancelled: %v", err)
	}
}

// TestRefusalsKeepTheirPlace: a refusal of the server comes back with its
// code, its position and the line it points into; a name that is no
// session's is refused here, before any request.
func TestRefusalsKeepTheirPlace(t *testing.T) {
	_, c := serve(t)
	ctx := context.Background()
	s, err := c.Session(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Commit(ctx, "INSERT (:A);\nINSERT (:B {x: })", nil)
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) || ge.Code != gqlstatus.Syntax || ge.Pos.Line != 2 || ge.Line != "INSERT (:B {x: })" {
		t.Fatalf("%#v", err)
	}
	if _, err := c.Session(ctx, "no/such"); err == nil {
		t.Error("a bad session name was accepted")
	}
	for _, bad := range []string{"", "localhost:7717", "http://", "http://x/?q=1", "file:///tmp/x"} {
		if _, err := client.New(bad, client.Options{}); codeOf(err) != gqlstatus.InvalidOption {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
