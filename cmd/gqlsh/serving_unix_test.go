//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitFile waits until path exists (or, gone, until it does not).
func waitFile(t *testing.T, path string, gone bool) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		_, err := os.Stat(path)
		if gone == os.IsNotExist(err) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: still %v", path, map[bool]string{true: "there", false: "missing"}[gone])
}

// TestInUseByServer: while gqlsh serve holds a cabinet, a gqlsh on the
// file (read-only or not) is refused with an error that names the
// server's URL; once SIGTERM stops it, its record is gone and the file
// opens. A record left by a server killed outright names a process that
// is gone: it is ignored, and the file opens, read-only too.
func TestInUseByServer(t *testing.T) {
	dir := t.TempDir()
	cab := makeCabinet(t, dir)
	record := cab + servingSuffix
	cmd, url, stderr := startServe(t, "--cabinet", cab)
	waitFile(t, record, false)
	want := fmt.Sprintf("gqlsh: the cabinet %s is in use by gqlsh serve (pid %d) at %s: run gqlsh --url %s to use it through that server (add --token T if it has --tokens)\n",
		cab, cmd.Process.Pid, url, url)
	for _, ro := range []bool{false, true} {
		args := []string{"-c", ":sessions", "--cabinet", cab}
		if ro {
			args = append([]string{"--read-only"}, args...)
		}
		out, errOut, code := gqlshProcess(t, args...)
		if code != 1 || out != "" || errOut != want {
			t.Errorf("read-only %v beside gqlsh serve: exit %d, %q\n%q\nwant\n%q", ro, code, out, errOut, want)
		}
	}
	// What the message says to run works.
	if out, errOut, code := gqlshProcess(t, "--url", url, "-c", "MATCH (t:TSK) LIMIT 4"); code != 0 || !strings.Contains(out, `"kept"`) {
		t.Errorf("gqlsh --url %s beside the cabinet's server: exit %d, %q %q", url, code, out, errOut)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("gqlsh serve after SIGTERM: %v\n%s", err, stderr.String())
	}
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Fatalf("the record outlived gqlsh serve: %v", err)
	}
	if _, errOut, code := gqlshProcess(t, "--cabinet", cab, "-c", ":sessions"); code != 0 {
		t.Fatalf("after gqlsh serve: exit %d, %s", code, errOut)
	}

	cmd, _, _ = startServe(t, "--cabinet", cab)
	waitFile(t, record, false)
	cmd.Process.Kill()
	cmd.Wait()
	for _, args := range [][]string{{"--read-only"}, {}} {
		out, errOut, code := gqlshProcess(t, append(args, "--cabinet", cab, "-c", "MATCH (t:TSK) LIMIT 4")...)
		if code != 0 || !strings.Contains(out, `"kept"`) {
			t.Fatalf("%v after gqlsh serve was killed, its record left: exit %d, %s", args, code, errOut)
		}
	}
}

// TestInUseByMCP: while gqlsh mcp holds a cabinet, a gqlsh on the file
// is told it has no address; the record goes when it ends.
func TestInUseByMCP(t *testing.T) {
	dir := t.TempDir()
	cab := makeCabinet(t, dir)
	record := cab + servingSuffix
	cmd := exec.Command(gqlshBinary(t), "mcp", "--cabinet", cab)
	cmd.Env = processEnvFor(t)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitFile(t, record, false)
	want := fmt.Sprintf("gqlsh: the cabinet %s is in use by gqlsh mcp (pid %d), which has no address: stop it, or run it as gqlsh serve and use gqlsh --url\n", cab, cmd.Process.Pid)
	if _, errOut, code := gqlshProcess(t, "--cabinet", cab, "-c", ":sessions"); code != 1 || errOut != want {
		t.Errorf("beside gqlsh mcp: exit %d\n%q\nwant\n%q", code, errOut, want)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("gqlsh mcp: %v\n%s", err, stderr.String())
	}
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Fatalf("the record outlived gqlsh mcp: %v", err)
	}
}
