package server_test

import (
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/server"
)

// TestSettingsPinned: the settings endpoint sets and shows the session's
// pinned kinds (a list or one string of them; [] clears; left out keeps
// them), and every Recall then carries those kinds' nodes.
func TestSettingsPinned(t *testing.T) {
	_, _, ts := newServer(t, server.Options{})
	if status, body := call(t, ts, "POST", "/v1/sessions/main/commit", "",
		`{"text": "INSERT (:LAW {nick: 'LAW_a'}), (:RULE {nick: 'RULE_b'}), (:TSK {nick: 'TSK_alone'})"}`); status != 200 {
		t.Fatalf("commit: %d %s", status, body)
	}
	pinned := func(body string) string {
		t.Helper()
		m := decodeMap(t, body)
		list, ok := m["pinned"].([]any)
		if !ok {
			t.Fatalf("no pinned list: %s", body)
		}
		var out []string
		for _, k := range list {
			out = append(out, k.(string))
		}
		return strings.Join(out, ",")
	}
	recallRows := func() float64 {
		t.Helper()
		_, body := call(t, ts, "POST", "/v1/sessions/main/recall", "", `{"q": "MATCH (t:TSK {nick: 'TSK_alone'})"}`)
		return decodeMap(t, body)["rows"].(float64)
	}
	if status, body := call(t, ts, "GET", "/v1/sessions/main/settings", "", ""); status != 200 || pinned(body) != "" || decodeMap(t, body)["stale_reads"] != 10.0 {
		t.Fatalf("GET: %d %s", status, body)
	}
	if status, body := call(t, ts, "POST", "/v1/sessions/main/settings", "", `{"pinned": ["RULE", "LAW"]}`); status != 200 || pinned(body) != "LAW,RULE" {
		t.Fatalf("POST a list: %d %s", status, body)
	}
	if rows := recallRows(); rows != 3 {
		t.Errorf("pinned LAW,RULE: %v rows, want 3", rows)
	}
	// Other settings leave the kinds as they are.
	if status, body := call(t, ts, "POST", "/v1/sessions/main/settings", "", `{"stale_reads": 3}`); status != 200 || pinned(body) != "LAW,RULE" || decodeMap(t, body)["stale_reads"] != 3.0 {
		t.Fatalf("POST stale_reads: %d %s", status, body)
	}
	if status, body := call(t, ts, "POST", "/v1/sessions/main/settings", "", `{"pinned": "LAW"}`); status != 200 || pinned(body) != "LAW" {
		t.Fatalf("POST a string: %d %s", status, body)
	}
	if rows := recallRows(); rows != 2 {
		t.Errorf("pinned LAW: %v rows, want 2", rows)
	}
	// A refused setting changes neither.
	if status, body := call(t, ts, "POST", "/v1/sessions/main/settings", "", `{"pinned": ["RULE"], "decay": 5}`); status != 400 || decodeMap(t, body)["gqlstatus"] != "22Q06" {
		t.Fatalf("POST a bad decay: %d %s", status, body)
	}
	if _, body := call(t, ts, "GET", "/v1/sessions/main/settings", "", ""); pinned(body) != "LAW" {
		t.Errorf("after a refusal: %s", body)
	}
	if status, body := call(t, ts, "POST", "/v1/sessions/main/settings", "", `{"pinned": ["A","B","C","D","E","F","G","H","I","J","K","L","M","N","O","P","Q"]}`); status != 400 || decodeMap(t, body)["gqlstatus"] != "22Q06" {
		t.Fatalf("POST too many: %d %s", status, body)
	}
	if status, body := call(t, ts, "POST", "/v1/sessions/main/settings", "", `{"pinned": []}`); status != 200 || pinned(body) != "" {
		t.Fatalf("POST []: %d %s", status, body)
	}
	if rows := recallRows(); rows != 1 {
		t.Errorf("cleared: %v rows, want 1", rows)
	}
}
