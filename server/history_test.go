package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/server"
	"github.com/goldfish-gql/goldfish/wire"
)

// TestDiffHistoryEndpoints: GET …/diff answers the Δ between two
// versions, …/history a node's versions with their agents, …/dump?at=N
// the dump at a version; what a caller gets wrong answers its GQLSTATUS
// with a 4xx.
func TestDiffHistoryEndpoints(t *testing.T) {
	_, _, ts := newServer(t, server.Options{})
	for _, c := range []string{
		`{"text": "INSERT (:TSK {nick: 'TSK_a', status: 'open'})", "agent": "ana"}`,
		`{"text": "MATCH (t:TSK {nick: 'TSK_a'}) SET t.status = 'done'", "agent": "bo"}`,
	} {
		if code, body := call(t, ts, "POST", "/v1/sessions/h/commit", "", c); code != 200 {
			t.Fatalf("commit: %d %s", code, body)
		}
	}
	code, body := call(t, ts, "GET", "/v1/sessions/h/diff?from=1&to=2", "", "")
	var dj wire.Diff
	if err := json.Unmarshal([]byte(body), &dj); code != 200 || err != nil || dj.NodesChanged != 1 || dj.From != 1 || dj.To != 2 {
		t.Fatalf("diff: %d %s", code, body)
	}
	code, body = call(t, ts, "GET", "/v1/sessions/h/history?nick=TSK_a", "", "")
	var hj wire.History
	if err := json.Unmarshal([]byte(body), &hj); code != 200 || err != nil || len(hj.Entries) != 2 ||
		hj.Entries[0].Agent != "bo" || hj.Entries[1].Agent != "ana" || hj.Entries[0].Version != 2 {
		t.Fatalf("history: %d %s", code, body)
	}
	code, body = call(t, ts, "GET", "/v1/sessions/h/dump?at=1", "", "")
	var dump wire.Dump
	if err := json.Unmarshal([]byte(body), &dump); code != 200 || err != nil || dump.Version != 1 {
		t.Fatalf("dump at 1: %d %s", code, body)
	}
	for _, c := range []struct{ path, status string }{
		{"/v1/sessions/h/diff?from=2&to=1", "22Q06"},
		{"/v1/sessions/h/diff?from=x&to=1", "22Q06"},
		{"/v1/sessions/h/diff?to=1", "22Q06"},
		{"/v1/sessions/h/diff?from=0&to=99", "22Q08"},
		{"/v1/sessions/h/diff?from=0&to=2&nick=nobody", "42002"},
		{"/v1/sessions/h/history?nick=nobody", "42002"},
		{"/v1/sessions/h/history?nick=TSK_a&limit=0", "22Q06"},
	} {
		code, body := call(t, ts, "GET", c.path, "", "")
		var ej wire.Error
		if err := json.Unmarshal([]byte(body), &ej); code < 400 || code >= 500 || err != nil || ej.GQLStatus != c.status {
			t.Errorf("%s: %d %s, want %s", c.path, code, body, c.status)
		}
	}
}

// TestVersionsEndpoint: GET …/versions lists the session's versions,
// newest first, with the agent that made each, when and what it
// changed; limit bounds
// the list and sets more.
func TestVersionsEndpoint(t *testing.T) {
	_, _, ts := newServer(t, server.Options{})
	for _, c := range []string{
		`{"text": "INSERT (:TSK {nick: 'TSK_a', status: 'open'})", "agent": "ana"}`,
		`{"text": "MATCH (t:TSK {nick: 'TSK_a'}) SET t.status = 'done'", "agent": "bo"}`,
		`{"text": "INSERT (:TSK {nick: 'TSK_b'})"}`,
	} {
		if code, body := call(t, ts, "POST", "/v1/sessions/v/commit", "", c); code != 200 {
			t.Fatalf("commit: %d %s", code, body)
		}
	}
	code, body := call(t, ts, "GET", "/v1/sessions/v/versions", "", "")
	var vj wire.Versions
	if err := json.Unmarshal([]byte(body), &vj); code != 200 || err != nil || vj.Version != 3 || len(vj.Versions) != 3 || vj.More ||
		vj.Versions[0].Version != 3 || vj.Versions[0].Agent != "" || vj.Versions[1].Agent != "bo" || vj.Versions[2].Agent != "ana" ||
		vj.Versions[2].How != "commit" || vj.Versions[2].Time == "" {
		t.Fatalf("versions: %d %s", code, body)
	}
	// Each says what it changed, as the Commit's summary did.
	for i, want := range []string{"+1 node 1 property set", "1 property set", "+1 node 2 properties set"} {
		if got := vj.Versions[i].Change; got != want {
			t.Errorf("version %d changed %q, want %q", vj.Versions[i].Version, got, want)
		}
	}
	code, body = call(t, ts, "GET", "/v1/sessions/v/versions?limit=2", "", "")
	vj = wire.Versions{}
	if err := json.Unmarshal([]byte(body), &vj); code != 200 || err != nil || len(vj.Versions) != 2 || !vj.More || vj.Versions[1].Version != 2 {
		t.Fatalf("versions?limit=2: %d %s", code, body)
	}
	for _, path := range []string{"/v1/sessions/v/versions?limit=0", "/v1/sessions/v/versions?limit=x"} {
		if code, body := call(t, ts, "GET", path, "", ""); code != 400 {
			t.Errorf("%s: %d %s", path, code, body)
		}
	}
	// A session no write made has no versions, and the read makes none:
	// the answer says so, with the names a small edit away, and the
	// list of sessions does not grow.
	for _, path := range []string{"/v1/sessions/empty/versions", "/v1/sessions/empty/history?nick=x", "/v1/sessions/w/versions"} {
		code, body = call(t, ts, "GET", path, "", "")
		if m := decodeMap(t, body); code != 400 || m["gqlstatus"] != "42002" {
			t.Errorf("%s: %d %s, want 400 and 42002", path, code, body)
		}
	}
	if _, body := call(t, ts, "GET", "/v1/sessions/w/versions", "", ""); !strings.Contains(body, `did you mean \"v\"`) {
		t.Errorf("versions of a name a letter from v: %s, want did you mean \"v\"", body)
	}
	if _, body := call(t, ts, "GET", "/v1/sessions", "", ""); strings.Contains(body, "empty") || strings.Contains(body, `"w"`) {
		t.Errorf("reads of unknown names listed them: %s", body)
	}
}
