package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/goldfish-gql/goldfish/server"
	"github.com/goldfish-gql/goldfish/wire"
)

// TestSessionEndpoints: a Δ of several statements answers what each
// did; the vocabulary, the attention settings, the dump and slices are
// served on /v1/sessions/{name}/…, each under the token's scope (reading
// needs read, changing needs write), and a wrong method answers 405.
func TestSessionEndpoints(t *testing.T) {
	tokens, toks := tokenSet(t, map[string][2]string{"reader": {"a", ""}, "writer": {"", "a,b"}})
	_, _, ts := newServer(t, server.Options{Tokens: tokens})
	w, r := toks["writer"], toks["reader"]
	decode := func(body string, v any) {
		t.Helper()
		if err := json.Unmarshal([]byte(body), v); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
	}
	code, body := call(t, ts, "POST", "/v1/sessions/a/commit", w, `{"text": "INSERT (:TSK {nick: 'TSK_a', status: 'open'});\nMATCH (t:TSK {nick: 'nobody'}) SET t.x = 1;\nCREATE VIEW open AS 'count(\"TSK\")'"}`)
	var cj wire.Commit
	decode(body, &cj)
	if code != 200 || len(cj.Results) != 3 || cj.Results[0].NodesCreated != 1 || cj.Results[1].Status != "02000" ||
		len(cj.Results[1].Notices) != 1 || cj.Results[1].Notices[0].Line != 2 || cj.Results[2].Defined == "" {
		t.Fatalf("a Δ of three statements: %d %s", code, body)
	}
	code, body = call(t, ts, "POST", "/v1/sessions/a/commit", w, `{"text": "INSERT (:TSK {nick: 'TSK_b'})"}`)
	var one wire.Commit
	if decode(body, &one); code != 200 || one.Results != nil {
		t.Fatalf("one statement has no results list: %d %s", code, body)
	}

	code, body = call(t, ts, "GET", "/v1/sessions/a/vocabulary", r, "")
	var vj wire.Vocabulary
	if decode(body, &vj); code != 200 || len(vj.Views) != 1 || vj.Views[0].Name != "open" || vj.Views[0].Text != "2" {
		t.Fatalf("vocabulary: %d %s", code, body)
	}

	if code, body = call(t, ts, "GET", "/v1/sessions/a/settings", r, ""); code != 200 || !strings.Contains(body, `"stale_reads":10`) {
		t.Fatalf("settings: %d %s", code, body)
	}
	if code, _ = call(t, ts, "POST", "/v1/sessions/a/settings", r, `{"stale_reads": 3}`); code != http.StatusForbidden {
		t.Fatalf("a reader sets the settings: %d", code)
	}
	if code, body = call(t, ts, "POST", "/v1/sessions/a/settings", w, `{"stale_reads": 3}`); code != 200 || !strings.Contains(body, `"stale_reads":3,"decay":0.9`) {
		t.Fatalf("setting stale_reads: %d %s", code, body)
	}
	var ej wire.Error
	code, body = call(t, ts, "POST", "/v1/sessions/a/settings", w, `{"decay": 0}`)
	if decode(body, &ej); code != 400 || ej.GQLStatus != "22Q06" {
		t.Fatalf("decay 0: %d %s", code, body)
	}

	code, body = call(t, ts, "GET", "/v1/sessions/a/dump", r, "")
	var dj wire.Dump
	if decode(body, &dj); code != 200 || dj.Version != 2 || !strings.HasPrefix(dj.Dump, "version 2\nnodes 2, edges 0") {
		t.Fatalf("dump: %d %s", code, body)
	}

	code, body = call(t, ts, "POST", "/v1/sessions/a/export", r, `{"nicks": ["TSK_a"]}`)
	var sj wire.Slice
	if decode(body, &sj); code != 200 || sj.Anchors != 1 || !strings.HasPrefix(sj.Slice, "// goldfish slice session=a version=2 ") {
		t.Fatalf("export: %d %s", code, body)
	}
	req, _ := json.Marshal(wire.AbsorbRequest{Slice: sj.Slice, Policy: "keep"})
	if code, _ = call(t, ts, "POST", "/v1/sessions/b/absorb", r, string(req)); code != http.StatusForbidden {
		t.Fatalf("a reader of a absorbs into b: %d", code)
	}
	code, body = call(t, ts, "POST", "/v1/sessions/b/absorb", w, string(req))
	var aj wire.Absorb
	if decode(body, &aj); code != 200 || aj.Version != 1 || aj.NodesCreated != 1 || aj.Policy != "keep" {
		t.Fatalf("absorb: %d %s", code, body)
	}
	code, body = call(t, ts, "POST", "/v1/sessions/b/absorb", w, string(req))
	if decode(body, &aj); code != 200 || aj.Applied || aj.Unchanged != 1 {
		t.Fatalf("absorbing again: %d %s", code, body)
	}

	for _, p := range []string{"/v1/sessions/a/export", "/v1/sessions/a/absorb", "/v1/sessions/a/commit"} {
		if code, _ = call(t, ts, "GET", p, w, ""); code != http.StatusMethodNotAllowed {
			t.Errorf("GET %s: %d, want 405", p, code)
		}
	}
	for _, p := range []string{"/v1/sessions/a/dump", "/v1/sessions/a/vocabulary"} {
		if code, _ = call(t, ts, "POST", p, w, "{}"); code != http.StatusMethodNotAllowed {
			t.Errorf("POST %s: %d, want 405", p, code)
		}
	}
	if code, _ = call(t, ts, "GET", "/v1/sessions/a/nothing", w, ""); code != http.StatusNotFound {
		t.Errorf("an unknown verb: %d, want 404", code)
	}
}

// TestSettingsConcurrent: requests that change different attention
// settings at once all hold: none is lost to another's read-change-write.
func TestSettingsConcurrent(t *testing.T) {
	_, _, ts := newServer(t, server.Options{})
	call(t, ts, "POST", "/v1/sessions/s/commit", "", `{"text": "INSERT (:N)"}`)
	for round := range 200 {
		bodies := []string{
			fmt.Sprintf(`{"stale_reads": %d}`, 100+round),
			fmt.Sprintf(`{"gap_min": %d}`, 200+round),
			fmt.Sprintf(`{"decay": %v}`, float64(10+round%90)/100),
			fmt.Sprintf(`{"gap_ratio": %d.5}`, 1+round),
		}
		var wg sync.WaitGroup
		for _, b := range bodies {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if code, body := call(t, ts, "POST", "/v1/sessions/s/settings", "", b); code != 200 {
					t.Errorf("%s: %d %s", b, code, body)
				}
			}()
		}
		wg.Wait()
		_, body := call(t, ts, "GET", "/v1/sessions/s/settings", "", "")
		for _, want := range []string{
			fmt.Sprintf(`"stale_reads":%d`, 100+round), fmt.Sprintf(`"gap_min":%d`, 200+round),
			fmt.Sprintf(`"decay":%v`, float64(10+round%90)/100), fmt.Sprintf(`"gap_ratio":%d.5`, 1+round),
		} {
			if !strings.Contains(body, want) {
				t.Fatalf("round %d: %s lost: %s", round, want, body)
			}
		}
	}
}
