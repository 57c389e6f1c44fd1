package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/server"
)

// TestAnyBody: whatever a request body holds, the server answers with a
// status of the caller's side (or 200) and a JSON object, never a fault:
// bodies are valid requests with their fields' values drawn at random,
// then cut or spliced.
func TestAnyBody(t *testing.T) {
	_, srv, _ := newServer(t, server.Options{})
	fields := []string{`"q"`, `"text"`, `"params"`, `"agent"`, `"options"`, `"mint"`, `"M"`, `"k"`, `"only"`, `"view"`, `"depth"`}
	values := []string{`"MATCH (n)"`, `"INSERT (:A {x: $x})"`, `"MATCH ()"`, `{"x": 1}`, `{"x": [1, [2, [3]]]}`, `{"x": 1e400}`, `-1`, `9223372036854775808`,
		`null`, `true`, `[]`, `{}`, `"shape,views"`, `["x"]`, `"\u0000"`, `"\ud800"`, `"ingest"`, `{"M": 5, "k": 1}`, `"a\"b"`}
	rapid.Check(t, func(t *rapid.T) {
		var b strings.Builder
		b.WriteByte('{')
		for i, n := 0, rapid.IntRange(0, 5).Draw(t, "n"); i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(rapid.SampledFrom(fields).Draw(t, "field") + ":" + rapid.SampledFrom(values).Draw(t, "value"))
		}
		b.WriteByte('}')
		body := b.String()
		if rapid.Bool().Draw(t, "cut") {
			body = body[:rapid.IntRange(0, len(body)).Draw(t, "at")]
		}
		verb := rapid.SampledFrom([]string{"recall", "commit"}).Draw(t, "verb")
		name := rapid.SampledFrom([]string{"main", "catalog", "x.y", "%2e%2e", "a%00", strings.Repeat("a", 65)}).Draw(t, "session")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/sessions/"+name+"/"+verb, strings.NewReader(body)))
		if rec.Code >= 500 || rec.Code != http.StatusOK && rec.Code != 400 && rec.Code != 404 && rec.Code != 409 {
			t.Fatalf("%s %s: status %d: %s", verb, body, rec.Code, rec.Body.String())
		}
		var m map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatalf("%s %s: not JSON: %s", verb, body, rec.Body.String())
		}
		if rec.Code != http.StatusOK && (m["gqlstatus"] == nil || m["message"] == "") {
			t.Fatalf("%s %s: an error without its code: %s", verb, body, rec.Body.String())
		}
	})
}
