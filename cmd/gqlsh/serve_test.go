package main

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/server"
)

// TestServeRefusesOpenListen: without --tokens, serve listens on loopback
// only.
func TestServeRefusesOpenListen(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:7717", "example.com:7717"} {
		var out, errs strings.Builder
		if code := run([]string{"serve", "--mem", "--listen", addr}, strings.NewReader(""), &out, &errs); code != 2 {
			t.Errorf("--listen %s without --tokens: exit %d, want 2", addr, code)
		}
		if !strings.Contains(errs.String(), "--tokens") {
			t.Errorf("--listen %s: the refusal does not say what to do: %s", addr, errs.String())
		}
	}
}

// TestToken: gqlsh token prints a token and a tokens-file line that
// holds its hash, not the token.
func TestToken(t *testing.T) {
	var out, errs strings.Builder
	if code := run([]string{"token", "--read", "proj.*,notes", "--write", "notes"}, strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", out.String())
	}
	token, line := lines[0], lines[1]
	if strings.Contains(line, token) || !strings.HasSuffix(line, " read=proj.*,notes write=notes") {
		t.Errorf("the file line %q", line)
	}
	toks, err := server.ParseTokens(strings.NewReader("# a comment\n\n" + line + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	sc, ok := toks.Lookup(token)
	if !ok || !sc.CanRead("proj.a") || sc.CanWrite("proj.a") || !sc.CanWrite("notes") || sc.CanRead("other") {
		t.Errorf("the token's scope: %+v %v", sc, ok)
	}
	for _, bad := range [][]string{{"token"}, {"token", "--read", "a/b"}, {"token", "--read", "[a"},
		{"token", "--read", "a", "--agent", "-x"}, {"token", "--read", "a", "--agent", "[a"}, {"token", "--agent", "ana"}} {
		if code := run(bad, strings.NewReader(""), &out, &errs); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

// TestTokenAgents: gqlsh token --agent binds the token to agents,
// repeatable and comma-separated (as --read and --write now are), and
// the line it prints reads back as that scope.
func TestTokenAgents(t *testing.T) {
	var out, errs strings.Builder
	if code := run([]string{"token", "--read", "team-*", "--read", "x", "--agent", "ana,bot-*", "--agent", "bob"}, strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[1], " read=team-*,x agent=ana,bot-*,bob") {
		t.Fatalf("%q", out.String())
	}
	toks, err := server.ParseTokens(strings.NewReader(lines[1] + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := toks.Lookup(lines[0])
	for agent, ok := range map[string]bool{"ana": true, "bob": true, "bot-1": true, "carl": false, "": false} {
		if _, err := sc.Agent(agent); (err == nil) != ok {
			t.Errorf("agent %q: %v", agent, err)
		}
	}
	out.Reset()
	if code := run([]string{"token", "--write", "w", "--agent", "ana"}, strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	lines = strings.Split(strings.TrimSpace(out.String()), "\n")
	toks, _ = server.ParseTokens(strings.NewReader(lines[1] + "\n"))
	sc, _ = toks.Lookup(lines[0])
	if a, err := sc.Agent(""); a != "ana" || err != nil {
		t.Errorf("a token of one agent, a request naming none: %q %v", a, err)
	}
}

// startServe runs gqlsh serve ARGS… on a free loopback port and returns
// the process, its base URL and its standard error.
func startServe(t *testing.T, args ...string) (*exec.Cmd, string, *lockedBuffer) {
	t.Helper()
	cmd := exec.Command(gqlshBinary(t), append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = processEnvFor(t)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := regexp.MustCompile(`listening on (http://[0-9.:]+)`)
	for i := 0; i < 1000; i++ { // until it says where it listens (10 s at most)
		if m := addr.FindStringSubmatch(stderr.String()); m != nil {
			return cmd, m[1], stderr
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("gqlsh serve did not start:\n%s", stderr.String())
	return nil, "", nil
}
