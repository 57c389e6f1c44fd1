//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/server"
)

// TestServeReadyAfterKill: gqlsh serve killed leaves the sessions'
// Commits in their logs. Started again, it replays them in the
// background: /healthz answers at once, /readyz is 503 "replaying" until
// every one of them is in memory and 200 after, so the first request a
// load balancer sends does not wait for a replay. It logs how long the
// replay took and the first Recall after it.
func TestServeReadyAfterKill(t *testing.T) {
	cab := filepath.Join(t.TempDir(), "c.gf")
	cmd, url, _ := startServe(t, "--cabinet", cab)
	sessions := []string{"s1", "s2", "s3"}
	for _, name := range sessions {
		for i := range 50 {
			body := fmt.Sprintf(`{"text": "INSERT (:N {nick: 'n%d', text: 'a line of text to replay'})"}`, i)
			resp, err := http.Post(url+"/v1/sessions/"+name+"/commit", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("commit: %d", resp.StatusCode)
			}
		}
	}
	cmd.Process.Kill() // no flush: the logs hold every Commit
	cmd.Wait()

	start := time.Now()
	_, url, stderr := startServe(t, "--cabinet", cab)
	get := func(path string) (int, string) {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := get("/healthz"); status != 200 {
		t.Errorf("/healthz while replaying: %d %s", status, body)
	}
	replaying := 0
	for deadline := time.Now().Add(30 * time.Second); ; {
		status, body := get("/readyz")
		if status == 200 {
			break
		}
		var r server.ReadyJSON
		if json.Unmarshal([]byte(body), &r) != nil || status != 503 || r.Status != "replaying" {
			t.Fatalf("/readyz: %d %s", status, body)
		}
		replaying++
		if time.Now().After(deadline) {
			t.Fatalf("not ready after 30 s: %s\n%s", body, stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	ready := time.Since(start)
	_, metrics := get("/metrics")
	m := regexp.MustCompile(`(?m)^goldfish_resident_sessions (\d+)`).FindStringSubmatch(metrics)
	if m == nil || m[1] != strconv.Itoa(len(sessions)) {
		t.Fatalf("ready with resident sessions %v, want %d", m, len(sessions))
	}
	t0 := time.Now()
	resp, err := http.Post(url+"/v1/sessions/s3/recall", "application/json", strings.NewReader(`{"q": "MATCH (n {nick: 'n7'})"}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	t.Logf("ready %s after the start (%d answers \"replaying\"); the first Recall then took %s", ready.Round(time.Millisecond), replaying, time.Since(t0).Round(time.Microsecond))
}
