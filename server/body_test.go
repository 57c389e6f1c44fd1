package server_test

import (
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/server"
)

// TestBodyRefusedNotChanged: a body encoding/json would take and change
// silently is refused, and nothing is stored: bytes that are not UTF-8
// and escapes of a lone surrogate (it would store U+FFFD) with 22G03, as
// the embedding API refuses a string that is not UTF-8; a body of null
// (it would leave every field unset: a Commit of nothing, a Recall of "")
// with 22Q06, as an empty body. Pairs, escaped or not, pass.
func TestBodyRefusedNotChanged(t *testing.T) {
	_, _, ts := newServer(t, server.Options{})
	cases := []struct {
		name, verb, body string
		status           int
		code             string
	}{
		{"not UTF-8 in the text", "commit", "{\"text\": \"INSERT (:A {s: 'a\xffb'})\"}", 400, "22G03"},
		{"not UTF-8 in a parameter", "commit", "{\"text\": \"INSERT (:A {s: $s})\", \"params\": {\"s\": \"\xc3\"}}", 400, "22G03"},
		{"an overlong encoding", "commit", "{\"text\": \"INSERT (:A {s: '\xc0\xaf'})\"}", 400, "22G03"},
		{"not UTF-8 in a Recall", "recall", "{\"q\": \"MATCH (a {s: '\xfe'})\"}", 400, "22G03"},
		{"not UTF-8 in a field name", "commit", "{\"te\xffxt\": \"INSERT (:A)\"}", 400, "22G03"},
		{"a lone high surrogate", "commit", `{"text": "INSERT (:A {s: $s})", "params": {"s": "x\ud800y"}}`, 400, "22G03"},
		{"a lone low surrogate", "commit", `{"text": "INSERT (:A {s: '\udc00'})"}`, 400, "22G03"},
		{"a high surrogate at the end", "commit", `{"text": "INSERT (:A {s: $s})", "params": {"s": "\ud83d"}}`, 400, "22G03"},
		{"two high surrogates", "commit", `{"text": "INSERT (:A {s: $s})", "params": {"s": "\ud83d\ud83d"}}`, 400, "22G03"},
		{"null", "commit", `null`, 400, "22Q06"},
		{"null with spaces", "commit", " \n null \t", 400, "22Q06"},
		{"null to Recall", "recall", `null`, 400, "22Q06"},
		{"empty", "commit", ``, 400, "22Q06"},
		{"spaces", "commit", " \r\n", 400, "22Q06"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body := call(t, ts, "POST", "/v1/sessions/u/"+c.verb, "", c.body)
			if m := decodeMap(t, body); status != c.status || m["gqlstatus"] != c.code {
				t.Errorf("%d %s, want %d %s", status, body, c.status, c.code)
			}
		})
	}
	// Nothing was stored; what is well formed passes as it was sent.
	if _, body := call(t, ts, "POST", "/v1/sessions/u/recall", "", `{"q": "MATCH (a:A)"}`); strings.Contains(body, "\ufffd") || strings.Contains(body, "(a") {
		t.Fatalf("a refused body was stored: %s", body)
	}
	for _, ok := range []string{
		`{"text": "INSERT (:A {nick: 'p', s: $s})", "params": {"s": "\ud83d\ude00 \u00e9 \\ud800"}}`,
		"{\"text\": \"INSERT (:A {nick: 'q', s: '\xf0\x9f\x98\x80 \xc3\xa9'})\"}",
	} {
		if status, body := call(t, ts, "POST", "/v1/sessions/u/commit", "", ok); status != 200 {
			t.Fatalf("%s: %d %s", ok, status, body)
		}
	}
	_, body := call(t, ts, "POST", "/v1/sessions/u/recall", "", `{"q": "MATCH (a:A)"}`)
	if strings.Contains(body, "\ufffd") || strings.Count(body, "😀 é") != 2 || !strings.Contains(body, `\\ud800`) {
		t.Fatalf("the values are not as sent: %s", body)
	}
}
