//go:build unix

package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestServeShutdown: SIGTERM while Commits are in flight ends the server
// with exit status 0, and every Commit it acknowledged is in the cabinet
// when it is opened again.
func TestServeShutdown(t *testing.T) {
	cab := filepath.Join(t.TempDir(), "c.gf")
	cmd, url, stderr := startServe(t, "--cabinet", cab)
	const writers = 8
	var (
		mu    sync.Mutex
		acked []string
		wg    sync.WaitGroup
	)
	first := make(chan struct{})
	var once sync.Once
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				nick := fmt.Sprintf("n%d_%d", w, i)
				body := fmt.Sprintf(`{"text": "INSERT (:N {nick: '%s'})"}`, nick)
				resp, err := http.Post(url+"/v1/sessions/s/commit", "application/json", strings.NewReader(body))
				if err != nil {
					return // the listener is closed: shutdown began
				}
				resp.Body.Close()
				if resp.StatusCode != 200 {
					return
				}
				mu.Lock()
				acked = append(acked, nick)
				mu.Unlock()
				once.Do(func() { close(first) })
			}
		}(w)
	}
	<-first
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	wg.Wait()
	if err != nil {
		t.Fatalf("gqlsh serve after SIGTERM: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "stopped") {
		t.Errorf("no stop message:\n%s", stderr.String())
	}
	db, err := goldfish.Open(goldfish.WithCabinet(cab))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	for _, nick := range acked {
		if _, _, ok, err := s.NodeByNick(context.Background(), nick); err != nil || !ok {
			t.Fatalf("acknowledged Commit of %s is not in the cabinet (%v)", nick, err)
		}
	}
	if len(acked) == 0 || s.Version() < uint64(len(acked)) {
		t.Errorf("%d Commits acknowledged, session at version %d", len(acked), s.Version())
	}
}

// TestServeTokens: gqlsh token's lines make a tokens file that gqlsh
// serve --tokens holds requests to.
func TestServeTokens(t *testing.T) {
	var out, errs strings.Builder
	if code := run([]string{"token", "--write", "mine"}, strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatal(errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	file := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(file, []byte("# agents\n"+lines[1]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, url, _ := startServe(t, "--mem", "--tokens", file)
	post := func(token, session string) int {
		req, _ := http.NewRequest("POST", url+"/v1/sessions/"+session+"/commit", strings.NewReader(`{"text": "INSERT (:N)"}`))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(lines[0], "mine"); got != 200 {
		t.Errorf("the token on its session: %d", got)
	}
	if got := post(lines[0], "other"); got != 403 {
		t.Errorf("the token on another session: %d", got)
	}
	if got := post("", "mine"); got != 401 {
		t.Errorf("no token: %d", got)
	}
	var bad strings.Builder
	if code := run([]string{"serve", "--mem", "--tokens", file + ".missing"}, strings.NewReader(""), &out, &bad); code != 2 || !strings.Contains(bad.String(), "missing") {
		t.Errorf("a missing tokens file: exit %d: %s", code, bad.String())
	}
}
