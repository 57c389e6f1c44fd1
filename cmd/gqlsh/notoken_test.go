package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMCPNoTokenNode: the official TypeScript client without a token,
// against gqlsh serve --tokens (notoken.mjs), is told in words what to
// send, plain or with an OAuth provider as the MCP Inspector gives one;
// the provider is asked for nothing an OAuth flow would need beyond the
// tokens it holds, and no authorization is started.
func TestMCPNoTokenNode(t *testing.T) {
	node := needNode(t)
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	out, err := exec.Command(gqlshBinary(t), "token", "--write", "*").Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err := os.WriteFile(tokens, []byte(lines[len(lines)-1]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, base, stderr := startServe(t, "--mem", "--tokens", tokens)
	for i := 0; ; i++ {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		if i == 1000 {
			t.Fatalf("gqlsh serve did not start:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd := exec.Command(node, "notoken.mjs", base)
	cmd.Dir = nodeDir
	cmd.Env = processEnvFor(t)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("node notoken.mjs: %v\n%s", err, e.String())
	}
	type attempt struct {
		Connected bool
		Message   string
	}
	var run struct {
		Plain, WithOAuth attempt
		Steps            []string
	}
	if err := json.Unmarshal(o.Bytes(), &run); err != nil {
		t.Fatalf("%v\n%s", err, o.String())
	}
	for name, a := range map[string]attempt{"plain": run.Plain, "with an OAuth provider": run.WithOAuth} {
		if a.Connected || !strings.Contains(a.Message, "gqlsh token") || !strings.Contains(a.Message, "Authorization: Bearer TOKEN") {
			t.Errorf("%s: connected %v, message %q; want the words that say what token to send", name, a.Connected, a.Message)
		}
	}
	for _, s := range run.Steps {
		if s != "tokens" {
			t.Errorf("the client went into OAuth: its provider was asked for %v", run.Steps)
			break
		}
	}
}
