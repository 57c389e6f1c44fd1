//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// shellScript is what TestShellOverURL runs both ways: Commits, Recalls,
// a transaction, parameters, history and the meta-commands that manage
// sessions.
var shellScript = []string{
	"INSERT (:TSK {nick: 'login', title: 'fix login', status: 'open'})-[:blocks]->(:TSK {nick: 'db', status: 'done'});",
	"MATCH (t:TSK {nick: 'login'});",
	":param d DATE '2026-01-31'",
	":param f 2.0",
	"START TRANSACTION; INSERT (:NOTE {nick: 'n1', on: $d, weight: $f}); MATCH (t:TSK {nick: 'db'}) SET t.status = 'open'; COMMIT;",
	"MATCH (n:NOTE);",
	":kinds",
	":history db",
	":diff 1 2",
	":use other",
	"INSERT (:X {nick: 'x'});",
	":sessions",
	":use main",
	":drop other",
	":set at 1",
	"MATCH (t:TSK);",
	":set at 0",
	"MATCH (t:TSK {nick: $missing});",
	"INSERT (:A {x: });",
}

// TestShellOverURL: the shell on a gqlsh serve (gqlsh --url) prints what
// the shell on a cabinet of its own prints, for the same statements and
// meta-commands, errors included; and it exits as it does.
func TestShellOverURL(t *testing.T) {
	dir := t.TempDir()
	args := func(head ...string) []string {
		out := head
		for _, c := range shellScript {
			out = append(out, "-c", c)
		}
		return append(out, "--fail-at-end")
	}
	var embOut, embErr strings.Builder
	embCode := run(args("--cabinet", filepath.Join(dir, "own.gf")), strings.NewReader(""), &embOut, &embErr)

	_, url, _ := startServe(t, "--cabinet", filepath.Join(dir, "served.gf"))
	var remOut, remErr strings.Builder
	remCode := run(args("--url", url), strings.NewReader(""), &remOut, &remErr)

	if embCode != 1 || remCode != embCode {
		t.Errorf("exit status: embedded %d, over --url %d (want 1: the script ends with errors)", embCode, remCode)
	}
	// History entries carry the time of their Commit: the same to the
	// minute, not to the second.
	clock := func(s string) string {
		out := []string{}
		for _, l := range strings.Split(s, "\n") {
			if i := strings.Index(l, " at 20"); i >= 0 && strings.HasPrefix(l, "-- version") {
				l = l[:i] + " at TIME"
			}
			out = append(out, l)
		}
		return strings.Join(out, "\n")
	}
	if a, b := clock(embOut.String()), clock(remOut.String()); a != b {
		t.Errorf("standard output differs:\n--- embedded\n%s\n--- over --url\n%s", a, b)
	}
	if embErr.String() != remErr.String() {
		t.Errorf("standard error differs:\n--- embedded\n%s\n--- over --url\n%s", embErr.String(), remErr.String())
	}
	if !strings.Contains(embOut.String(), "dropped session other") || !strings.Contains(embErr.String(), "42001") {
		t.Errorf("the script did not run as meant:\n%s\n%s", embOut.String(), embErr.String())
	}
}

// TestShellOverURLRefusals: a server that does not answer, a URL that is
// not one, a missing or narrow token, and a server that stops under the
// shell: each one line with its GQLSTATUS, and exit status 1 (2 for flags
// that do not go together).
func TestShellOverURLRefusals(t *testing.T) {
	var out, errs strings.Builder
	file := filepath.Join(t.TempDir(), "tokens")
	if code := run([]string{"token", "--read", "mine"}, strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatal(errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if err := os.WriteFile(file, []byte(lines[1]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd, url, _ := startServe(t, "--mem", "--tokens", file)
	cases := []struct {
		name string
		args []string
		env  string // GOLDFISH_TOKEN
		code int
		err  string
	}{
		{name: "no token", args: []string{"--url", url, "--session", "mine", "-c", ":sessions"}, code: 1, err: "GQLSTATUS 08Q02: the request carries no token; give a token of the server's tokens file (gqlsh --token"},
		{name: "the token", args: []string{"--url", url, "--token", lines[0], "--session", "mine", "-c", ":sessions"}, code: 0},
		// The token is taken: the read reaches the server, which says no
		// write has made the session (a read makes none).
		{name: "the token from the environment", args: []string{"--url", url, "--session", "mine", "-c", "MATCH ();"}, env: lines[0], code: 1, err: "there is no session \"mine\": no write has made it"},
		{name: "a session it may not read", args: []string{"--url", url, "--token", lines[0], "-c", ":sessions"}, code: 1, err: "GQLSTATUS 42Q07: this token may not read session \"main\""},
		{name: "a write with a read token", args: []string{"--url", url, "--token", lines[0], "--session", "mine", "-c", "INSERT (:A);"}, code: 1, err: "GQLSTATUS 42Q07: statement 1: this token may not write session \"mine\""},
		{name: "not a URL", args: []string{"--url", "ftp://x", "-c", ":sessions"}, code: 1, err: "GQLSTATUS 22Q06"},
		{name: "nobody there", args: []string{"--url", "http://127.0.0.1:1", "-c", ":sessions"}, code: 1, err: "GQLSTATUS 08000: cannot reach the server at http://127.0.0.1:1"},
		{name: "url and cabinet", args: []string{"--url", url, "--mem", "-c", ":sessions"}, code: 2, err: "--url runs the shell on the server's sessions"},
		{name: "token without url", args: []string{"--token", "x", "--mem", "-c", ":sessions"}, code: 2, err: "--token goes with --url"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errs strings.Builder
			e := env{stdin: strings.NewReader(""), stdout: &out, stderr: &errs,
				lookupEnv: func(k string) (string, bool) {
					if k == "GOLDFISH_TOKEN" && c.env != "" {
						return c.env, true
					}
					return "", false
				}}
			code := runEnv(c.args, e)
			if code != c.code || !strings.Contains(errs.String(), c.err) {
				t.Errorf("exit %d, want %d; stderr %q, want %q", code, c.code, errs.String(), c.err)
			}
		})
	}

	// The server stops under a shell reading a pipe: the next statement
	// says so (08000) and the shell exits 1, without hanging.
	shell := exec.Command(gqlshBinary(t), "--url", url, "--token", lines[0], "--session", "mine")
	shell.Env = processEnvFor(t)
	stdin, err := shell.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var sout, serr lockedBuffer
	shell.Stdout, shell.Stderr = &sout, &serr
	if err := shell.Start(); err != nil {
		t.Fatal(err)
	}
	stdin.Write([]byte(":kinds\n"))
	waitOutput(t, &sout, "holds no node yet")
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	stdin.Write([]byte("MATCH ();\n"))
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- shell.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(serr.String(), "GQLSTATUS 08000") {
			t.Errorf("after the server stopped: %v; stderr %q", err, serr.String())
		}
	case <-time.After(30 * time.Second):
		shell.Process.Kill()
		t.Fatalf("the shell hangs after its server stopped; stderr %q", serr.String())
	}
}
