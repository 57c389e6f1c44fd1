package server_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/goldfish-gql/goldfish/server"
)

// TestCatalogueVersionNotLeaked: a token scoped to one session learns
// nothing of the other tenants' Commits from the catalogue: a Recall of
// the catalogue at a version is refused without naming the catalogue's
// version, which counts every session's Commits.
func TestCatalogueVersionNotLeaked(t *testing.T) {
	tokens, toks := tokenSet(t, map[string][2]string{"mine": {"", "mine"}, "other": {"", "other"}})
	_, _, ts := newServer(t, server.Options{Tokens: tokens})
	for i := range 3 {
		if code, body := call(t, ts, "POST", "/v1/sessions/other/commit", toks["other"], fmt.Sprintf(`{"text": "INSERT (:A {v: %d})"}`, i)); code != 200 {
			t.Fatalf("%d %s", code, body)
		}
	}
	if code, body := call(t, ts, "POST", "/v1/sessions/mine/commit", toks["mine"], `{"text": "INSERT (:A)"}`); code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	code, body := call(t, ts, "POST", "/v1/sessions/catalog/recall", toks["mine"], `{"q": "MATCH ()", "at_version": 1}`)
	if code < 400 || regexp.MustCompile(`version [0-9]`).MatchString(body) {
		t.Errorf("the catalogue at a version, for a token of one session: %d %s", code, body)
	}
}
