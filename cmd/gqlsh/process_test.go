package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests here run the gqlsh binary as a process: signals and pipes are
// the process's, not runEnv's.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// gqlshBinary builds gqlsh once for the test binary's run.
func gqlshBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gqlsh-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "gqlsh")
		build := exec.Command("go", "build", "-o", binPath, ".")
		build.Env = goEnv // the real caches, not the temp HOME of TestMain
		if out, err := build.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// processEnvFor is an environment for a gqlsh process with a temp HOME and
// XDG_DATA_HOME.
func processEnvFor(t *testing.T) []string {
	dir := t.TempDir()
	return []string{"HOME=" + filepath.Join(dir, "home"), "XDG_DATA_HOME=" + filepath.Join(dir, "data"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "PATH=" + os.Getenv("PATH")}
}

// lockedBuffer is a buffer a process writes to while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitOutput waits until b holds want; the deadline only keeps a broken
// gqlsh from hanging the test.
func waitOutput(t *testing.T, b *lockedBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(b.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("never printed %q; printed:\n%s", want, b.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestInterruptProcess: SIGINT stops a non-interactive gqlsh reading a
// pipe that stays open, with exit status 130 and a line that says so,
// after what ran before; it does not kill it mid-statement.
func TestInterruptProcess(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send")
	}
	cmd := exec.Command(gqlshBinary(t), "--mem")
	cmd.Env = processEnvFor(t)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var out, errOut lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, "INSERT (:A);\n")
	waitOutput(t, &out, "ok v=1 +1 node\n")
	cmd.Process.Signal(os.Interrupt)
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 || !strings.Contains(errOut.String(), "gqlsh: interrupted (Ctrl-C)") {
		t.Fatalf("after SIGINT: %v (exit code %d)\nstderr: %s", err, exit.ExitCode(), errOut.String())
	}
}

// TestBrokenPipe: gqlsh … | head -1 ends at once and quietly, as other
// commands do: killed by SIGPIPE when it may be, else with status 141; in
// both cases with nothing on stderr, without reading the rest of its
// input (here 50 MB of statements from a pipe), and with the cabinet
// closed properly.
func TestBrokenPipe(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil || runtime.GOOS == "windows" {
		t.Skip("needs bash and SIGPIPE")
	}
	// long lines, so that the first chunk read holds few durable Commits
	stmt := "INSERT (:A {x: 1}); // " + strings.Repeat("-", 4000)
	for _, c := range []struct{ name, trap string }{{"SIGPIPE kills", ""}, {"SIGPIPE ignored", "trap '' PIPE; "}} {
		t.Run(c.name, func(t *testing.T) {
			cab := filepath.Join(t.TempDir(), "c.gf")
			// timeout only keeps a gqlsh that reads on from hanging the test
			line := fmt.Sprintf("%syes %q 2>/dev/null | head -c 50000000 2>/dev/null | timeout 120 %q --cabinet %q | head -1; echo \"status ${PIPESTATUS[2]}\" >&2",
				c.trap, stmt, gqlshBinary(t), cab)
			cmd := exec.Command(bash, "-c", line)
			cmd.Env = processEnvFor(t)
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			if err := cmd.Run(); err != nil {
				t.Fatal(err)
			}
			if out.String() != "ok v=1 +1 node 1 property set\n" || errOut.String() != "status 141\n" {
				t.Fatalf("stdout %q\nstderr %q", out.String(), errOut.String())
			}
			sessions, errs, code := gqlsh(t, "", "--cabinet", cab, "-c", ":sessions")
			var v int
			if _, err := fmt.Sscanf(sessions, "* main v=%d", &v); err != nil || code != 0 || v > 100 {
				t.Fatalf("after the pipe closed: exit %d, %q %q", code, sessions, errs)
			}
		})
	}
}

// TestCommandLineInputs: -c and -f repeat and run in order, -f - is
// standard input, a byte-order mark is skipped, files are named in errors.
func TestCommandLineInputs(t *testing.T) {
	dir := t.TempDir()
	bom := filepath.Join(dir, "bom.gql")
	os.WriteFile(bom, []byte("\ufeffINSERT (:B);\nMATCH (b:B);\n"), 0o644)
	bad := filepath.Join(dir, "bad.gql")
	os.WriteFile(bad, []byte("-- a comment\nINSERT (:C {x: });\n"), 0o644)
	cases := []struct {
		name     string
		args     []string
		stdin    string
		out, err string
		code     int
	}{
		{name: "repeated -c run in order", args: []string{"--mem", "-c", "INSERT (:A);", "-c", "MATCH (a:A);"},
			out: "ok v=1 +1 node\n// goldfish session=main version=1 cue=match seeds=1 k=2 rows=1/50 tokens=36\nINSERT\n  (a1:A)\n"},
		{name: "each -c is its own input", args: []string{"--mem", "-c", "INSERT (:A", "-c", ");"}, out: "",
			err: "GQLSTATUS 42001: statement 1: unexpected end of input; close the node pattern with ')' (line 1, column 11)\n  INSERT (:A\n            ^\n", code: 1},
		{name: "a transaction across -c", args: []string{"--mem", "-c", "START TRANSACTION; INSERT (:A);", "-c", "INSERT (:B); COMMIT;"},
			out: "ok transaction started\nok v=1 +2 nodes\n"},
		{name: "a byte-order mark", args: []string{"--mem", "-f", bom}, out: "ok v=1 +1 node\n"},
		{name: "-f - is standard input", args: []string{"--mem", "-c", "INSERT (:A);", "-f", "-", "-c", "MATCH ();"}, stdin: "INSERT (:B);",
			out: "ok v=1 +1 node\nok v=2 +1 node\n// goldfish session=main version=2 cue=outline"},
		{name: "a file named in its error", args: []string{"--mem", "-f", bad},
			err: bad + ":2:16: GQLSTATUS 42001: statement 1: unexpected \"}\"", code: 1},
		{name: "a missing file, said once", args: []string{"--mem", "-f", filepath.Join(dir, "nope.gql")},
			err: "gqlsh: GQLSTATUS 42Q05: cannot read " + filepath.Join(dir, "nope.gql") + ": no such file or directory; check the path; relative paths start in gqlsh's working directory\n", code: 1},
		{name: "a directory", args: []string{"--mem", "-f", dir}, err: "gqlsh: GQLSTATUS 42Q05: cannot read " + dir + ": it is a directory, not a file; give a file of statements\n", code: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := gqlsh(t, c.stdin, c.args...)
			if code != c.code || !strings.Contains(out, c.out) || !strings.Contains(errOut, c.err) || (c.err == "" && errOut != "") {
				t.Errorf("exit %d, want %d\nstdout: %q\nwant:   %q\nstderr: %q\nwant:   %q", code, c.code, out, c.out, errOut, c.err)
			}
		})
	}
}

// TestCabinetMessages: a directory given as the cabinet is not a file,
// and a path appears once in a message.
func TestCabinetMessages(t *testing.T) {
	dir := t.TempDir()
	_, errOut, code := gqlsh(t, "", "--cabinet", dir, "-c", "INSERT (:A)")
	want := "gqlsh: the cabinet " + dir + " is a directory, not a file: give the cabinet file's path (a new name creates it), e.g. " + filepath.Join(dir, "cabinet.gf") + "\n"
	if code != 1 || errOut != want {
		t.Errorf("a directory: exit %d\n%q\nwant\n%q", code, errOut, want)
	}
	missing := filepath.Join(dir, "no", "such", "cabinet.gf")
	_, errOut, code = gqlsh(t, "", "--cabinet", missing, "-c", "INSERT (:A)")
	if code != 1 || strings.Count(errOut, missing) != 1 || !strings.Contains(errOut, "no such file or directory") ||
		!strings.Contains(errOut, filepath.Join(dir, "no", "such")+" does not exist") {
		t.Errorf("a missing directory: exit %d, %q", code, errOut)
	}
	if os.Geteuid() != 0 && runtime.GOOS != "windows" {
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o500)
		_, errOut, code = gqlsh(t, "", "--cabinet", filepath.Join(ro, "c.gf"), "-c", "INSERT (:A)")
		if code != 1 || strings.Count(errOut, ro) != 1 || !strings.Contains(errOut, "permission denied") {
			t.Errorf("a read-only directory: exit %d, %q", code, errOut)
		}
	}
}
