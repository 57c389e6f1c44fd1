//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gqlshProcess runs the gqlsh binary with args to its end.
func gqlshProcess(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(gqlshBinary(t), args...)
	cmd.Env = processEnvFor(t)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("gqlsh %v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}

// holder is a gqlsh process kept running on its standard input.
type holder struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *lockedBuffer
	stderr *lockedBuffer
}

// startHolder starts gqlsh ARGS… reading statements from a pipe, runs
// first on it and waits for want on its standard output: it then holds
// the cabinet until finish.
func startHolder(t *testing.T, first, want string, args ...string) *holder {
	t.Helper()
	cmd := exec.Command(gqlshBinary(t), args...)
	cmd.Env = processEnvFor(t)
	h := &holder{cmd: cmd, stdout: &lockedBuffer{}, stderr: &lockedBuffer{}}
	cmd.Stdout, cmd.Stderr = h.stdout, h.stderr
	var err error
	if h.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	io.WriteString(h.stdin, first+"\n")
	waitOutput(t, h.stdout, want)
	return h
}

// finish ends the holder's input and returns its exit status.
func (h *holder) finish(t *testing.T) int {
	t.Helper()
	h.stdin.Close()
	h.cmd.Wait()
	return h.cmd.ProcessState.ExitCode()
}

// makeCabinet writes a cabinet with one session "main" holding a node.
func makeCabinet(t *testing.T, dir string) string {
	t.Helper()
	cab := filepath.Join(dir, "c.gf")
	if _, errOut, code := gqlshProcess(t, "--cabinet", cab, "-c", `INSERT (:TSK {nick: "kept"})`); code != 0 {
		t.Fatalf("making the cabinet: exit %d, %s", code, errOut)
	}
	return cab
}

// TestReadOnlyProcesses: two gqlsh --read-only on one cabinet at once
// both read it; a gqlsh that would write it meanwhile is refused (in
// use); a Commit through --read-only is 25006 with its message; neither
// reader changes the file, in a directory and of a file not writable.
func TestReadOnlyProcesses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ro")
	os.Mkdir(dir, 0o755)
	cab := makeCabinet(t, dir)
	os.Chmod(cab, 0o444)
	os.Chmod(dir, 0o555)
	t.Cleanup(func() { os.Chmod(dir, 0o755); os.Chmod(cab, 0o644) })
	time.Sleep(10 * time.Millisecond)
	before, _ := os.ReadFile(cab)
	fi, _ := os.Stat(cab)

	first := startHolder(t, `MATCH (t:TSK) LIMIT 4;`, `"kept"`, "--read-only", "--cabinet", cab, "-f", "-")
	out, errOut, code := gqlshProcess(t, "--read-only", "--cabinet", cab, "-c", "MATCH (t:TSK) LIMIT 4", "-c", ":sessions")
	if code != 0 || !strings.Contains(out, `"kept"`) || !strings.Contains(out, "main") {
		t.Fatalf("a second reader: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, errOut, code := gqlshProcess(t, "--cabinet", cab, "-c", ":sessions"); code != 1 || !strings.Contains(errOut, "in use") {
		t.Fatalf("a writer beside readers: exit %d, %s", code, errOut)
	}
	_, errOut, code = gqlshProcess(t, "--read-only", "--cabinet", cab, "-c", `INSERT (:TSK {nick: "new"})`)
	if code != 1 || !strings.Contains(errOut, "25006") || !strings.Contains(errOut, "is open read-only (gqlsh --read-only)") ||
		!strings.Contains(errOut, "without --read-only") {
		t.Fatalf("a Commit through --read-only: exit %d, %s", code, errOut)
	}
	if code := first.finish(t); code != 0 {
		t.Fatalf("the first reader: exit %d, %s", code, first.stderr.String())
	}
	after, _ := os.ReadFile(cab)
	fa, _ := os.Stat(cab)
	if !bytes.Equal(before, after) || !fi.ModTime().Equal(fa.ModTime()) {
		t.Fatal("a read-only gqlsh changed the cabinet file")
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Fatalf("files in the cabinet's directory: %v", names)
	}
}

// TestReadOnlyFlag: --read-only beside a writer is in use; of a path
// with no file it makes none and says so; with --mem or --postgres it
// is one line and exit 2.
func TestReadOnlyFlag(t *testing.T) {
	dir := t.TempDir()
	cab := makeCabinet(t, dir)
	w := startHolder(t, `MATCH (t:TSK) LIMIT 4;`, `"kept"`, "--cabinet", cab, "-f", "-")
	if _, errOut, code := gqlshProcess(t, "--read-only", "--cabinet", cab, "-c", ":sessions"); code != 1 || !strings.Contains(errOut, "in use") {
		t.Fatalf("--read-only beside a writer: exit %d, %s", code, errOut)
	}
	w.finish(t)
	missing := filepath.Join(dir, "none.gf")
	_, errOut, code := gqlshProcess(t, "--read-only", "--cabinet", missing, "-c", ":sessions")
	if code != 1 || !strings.Contains(errOut, "no cabinet at "+missing) {
		t.Fatalf("--read-only of no file: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Fatalf("--read-only made %s", missing)
	}
	for _, args := range [][]string{{"--read-only", "--mem"}, {"--read-only", "--postgres", "postgres://nowhere"}} {
		out, errOut, code := gqlshProcess(t, append(args, "-c", ":sessions")...)
		if code != 2 || out != "" || errOut != "gqlsh: --read-only opens a cabinet file: not with --mem or --postgres\n" {
			t.Errorf("%v: exit %d, %q, %q", args, code, out, errOut)
		}
	}
}
