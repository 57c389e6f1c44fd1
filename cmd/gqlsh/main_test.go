package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain points HOME, the XDG directories, %AppData% and GQLSH_HISTORY
// of the whole test binary into a temp dir and unsets GOLDFISH_CABINET, as
// a safety net: a test that forgets its own environment still never reads
// or writes the user's files. Tests give gqlsh their own environment
// (tempEnv) so that they never share a cabinet either.
func TestMain(m *testing.M) {
	// the go command that TestTerminal runs keeps the user's build and
	// module caches (under $HOME by default)
	goEnv = os.Environ()
	dir, err := os.MkdirTemp("", "gqlsh-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for k, v := range map[string]string{"HOME": dir, "XDG_DATA_HOME": filepath.Join(dir, "data"),
		"XDG_CONFIG_HOME": filepath.Join(dir, "config"), "AppData": filepath.Join(dir, "appdata"),
		"GQLSH_HISTORY": filepath.Join(dir, "history")} {
		os.Setenv(k, v)
	}
	os.Unsetenv("GOLDFISH_CABINET")
	os.Unsetenv("GOLDFISH_POSTGRES")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// goEnv is the environment before TestMain changed it, for running go.
var goEnv []string

// tempEnv is an environment for gqlsh with a fresh, empty HOME and
// XDG_DATA_HOME in a temp dir (and no GOLDFISH_CABINET), plus vars; its
// lookup never reads the process environment.
func tempEnv(t *testing.T, vars map[string]string) func(string) (string, bool) {
	t.Helper()
	dir := t.TempDir()
	m := map[string]string{"HOME": filepath.Join(dir, "home"), "XDG_DATA_HOME": filepath.Join(dir, "data")}
	for k, v := range vars {
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// gqlsh runs gqlsh with stdin and args in a fresh environment (tempEnv):
// without --mem or --cabinet its cabinet is a new file in a temp dir.
func gqlsh(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return gqlshEnv(t, tempEnv(t, nil), stdin, args...)
}

func gqlshEnv(t *testing.T, lookup func(string) (string, bool), stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = runEnv(args, env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, lookupEnv: lookup})
	return out.String(), errOut.String(), code
}

func TestCommandLine(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.gql")
	if err := os.WriteFile(script, []byte("INSERT (:A {nick: 'a'});\n\nINSERT (:A {nick: 'a', n: 1});\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		args     []string
		stdin    string
		out, err string // substrings; "" means must be empty
		code     int
	}{
		{name: "-c", args: []string{"--mem", "-c", "INSERT (:A); INSERT (:B)"}, out: "ok v=1 +1 node\nok v=2 +1 node\n"},
		{name: "stdin", args: []string{"--session", "s1"}, stdin: "INSERT (:A {x: 1})", out: "ok v=1 +1 node 1 property set\n"},
		{name: "json", args: []string{"--format", "json", "-c", "INSERT (:A)"}, out: `"status":"00001","version":1,"applied":true,"nodes_created":1`},
		{name: "-f with error", args: []string{"-f", script}, out: "ok v=1 +1 node 1 property set\n",
			err: script + ":3:8: GQLSTATUS 40002: statement 2: nick \"a\" is already used by another live node; choose another nick, or MATCH the existing node and SET what changed\n  INSERT (:A {nick: 'a', n: 1});\n         ^\n", code: 1},
		{name: "missing file", args: []string{"-f", filepath.Join(dir, "nope.gql")}, err: "no such file", code: 1},
		{name: "syntax error", args: []string{"-c", "INSERT (:A"}, err: "GQLSTATUS 42001: ", code: 1},
		{name: "bad format", args: []string{"--format", "csv", "-c", "INSERT (:A)"}, err: "unknown format", code: 2},
		{name: "bad session", args: []string{"--session", "no/slash", "-c", "INSERT (:A)"}, err: "GQLSTATUS 42Q03", code: 2},
		{name: "bad agent", args: []string{"--mem", "--agent", "no/slash", "-c", "INSERT (:A)"}, err: "gqlsh: --agent: GQLSTATUS 42Q03: agent name \"no/slash\"", code: 2},
		{name: "-c and -f run in order", args: []string{"--mem", "-c", "INSERT (:B)", "-f", script}, out: "ok v=1 +1 node\nok v=2 +1 node 1 property set\n",
			err: script + ":3:8: GQLSTATUS 40002: statement 2: ", code: 1},
		{name: "stray argument", args: []string{"INSERT (:A)"}, err: "unexpected argument", code: 2},
		{name: "version", args: []string{"--version"}, out: "gqlsh "},
		{name: "help", args: []string{"--help"}, out: "Usage:"},
		{name: "unknown flag", args: []string{"--nope"}, err: "flag provided but not defined", code: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := gqlsh(t, c.stdin, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, out, errOut)
			}
			check := func(what, got, want string) {
				if want == "" && got != "" {
					t.Errorf("%s: want nothing, got %q", what, got)
				}
				if !strings.Contains(got, want) {
					t.Errorf("%s: %q does not contain %q", what, got, want)
				}
			}
			check("stdout", out, c.out)
			check("stderr", errOut, c.err)
		})
	}
}

func TestConformanceCommand(t *testing.T) {
	out, errOut, code := gqlsh(t, "", "conformance")
	if code != 0 || !strings.HasSuffix(out, " passed, 0 failed\n") || errOut != "" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}

	dir := t.TempDir()
	bad := "commit\nINSERT (:A)\n----\nok v=9\n\ndump\n----\nversion 1\nnodes 1, edges 0, recycled 0\n(:A)\n"
	if err := os.WriteFile(filepath.Join(dir, "bad.txt"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code = gqlsh(t, "", "conformance", dir)
	want := "FAIL bad.txt:1 commit: output differs\n1 passed, 1 failed\n"
	if code != 1 || out != want {
		t.Fatalf("exit %d\nstdout: %q\nwant:   %q", code, out, want)
	}
	out, _, _ = gqlsh(t, "", "conformance", "-v", dir)
	if !strings.Contains(out, "  want:\n    ok v=9\n  got:\n    ok v=1 +1 node\n") {
		t.Fatalf("-v output:\n%s", out)
	}
	_, errOut, code = gqlsh(t, "", "conformance", t.TempDir())
	if code != 1 || !strings.Contains(errOut, "no *.txt") {
		t.Fatalf("empty dir: exit %d, stderr %q", code, errOut)
	}
}

func TestNonInteractiveExtras(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.gql")
	os.WriteFile(script, []byte(":set M 1\n:use work\nINSERT (:A {nick: 'a'})-[:r]->(:B);\nMATCH (a:A);\n"), 0o644)
	out, errOut, code := gqlsh(t, "", "-f", script)
	if code != 0 || errOut != "" || !strings.Contains(out, "using session work") || !strings.Contains(out, "rows=1/1") {
		t.Fatalf("meta-commands in -f: exit %d\n%s\n%s", code, out, errOut)
	}
	// --fail-at-end runs everything, then fails
	out, _, code = gqlsh(t, "INSERT (:A {x: }); INSERT (:B);", "--fail-at-end")
	if code != 1 || !strings.Contains(out, "ok v=1") {
		t.Fatalf("--fail-at-end: exit %d, %q", code, out)
	}
	// piped input never prompts
	out, _, _ = gqlsh(t, "INSERT (:A);\n", "--session", "x")
	if strings.Contains(out, "> ") {
		t.Fatalf("prompt on piped input: %q", out)
	}
}

func TestColor(t *testing.T) {
	var out, errOut bytes.Buffer
	code := runEnv([]string{"-c", "INSERT (:A); INSERT (:B {x: })"}, env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, color: true, lookupEnv: tempEnv(t, nil)})
	if code != 1 || !strings.Contains(out.String(), "\x1b[32mok v=1") || !strings.Contains(errOut.String(), "\x1b[31mGQLSTATUS 42001") {
		t.Fatalf("colour on: %q %q", out.String(), errOut.String())
	}
	o, e, _ := gqlsh(t, "", "-c", "INSERT (:A); INSERT (:B {x: })")
	if strings.Contains(o+e, "\x1b") {
		t.Fatalf("colour off: %q %q", o, e)
	}
	t.Setenv("NO_COLOR", "")
	if processEnv().color {
		t.Fatal("NO_COLOR set (even empty) must turn colour off")
	}
}

// fakeTerm is a terminal for runEnv: lines typed, no real tty.
type fakeTerm struct {
	lines    []string
	out, err bytes.Buffer
	closed   bool
}

func (f *fakeTerm) Next(context.Context, string) (string, error) {
	if len(f.lines) == 0 {
		return "", io.EOF
	}
	l := f.lines[0]
	f.lines = f.lines[1:]
	return l, nil
}
func (f *fakeTerm) Stdout() io.Writer { return &f.out }
func (f *fakeTerm) Stderr() io.Writer { return &f.err }
func (f *fakeTerm) Interactive() bool { return true }
func (f *fakeTerm) Close() error      { f.closed = true; return nil }

func TestInteractiveChoice(t *testing.T) {
	t.Setenv("GQLSH_HISTORY", filepath.Join(t.TempDir(), "h"))
	ft := &fakeTerm{lines: []string{"INSERT (:A {x: });", "INSERT", "(:A);"}}
	var gotHistory string
	e := env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, terminal: true,
		newTerm: func(h string) (termIO, error) { gotHistory = h; return ft, nil }, lookupEnv: tempEnv(t, nil)}
	if code := runEnv(nil, e); code != 0 {
		t.Fatalf("interactive exit %d", code)
	}
	if !ft.closed || !strings.HasSuffix(gotHistory, "/h") {
		t.Fatalf("closed %v history %q", ft.closed, gotHistory)
	}
	if !strings.Contains(ft.out.String(), "gqlsh ") || !strings.Contains(ft.out.String(), "ok v=1 +1 node") || !strings.Contains(ft.err.String(), "42001") {
		t.Fatalf("stdout %q stderr %q", ft.out.String(), ft.err.String())
	}
	// -c on a terminal is not interactive
	e.newTerm = func(string) (termIO, error) { t.Fatal("terminal opened for -c"); return nil, nil }
	var out bytes.Buffer
	e.stdout = &out
	e.lookupEnv = tempEnv(t, nil)
	if code := runEnv([]string{"-c", "INSERT (:A)"}, e); code != 0 || out.String() != "ok v=1 +1 node\n" {
		t.Fatalf("-c: %d %q", code, out.String())
	}
}
