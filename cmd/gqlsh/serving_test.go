package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// deadPID is the pid of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestInUseByRecord: the record beside a cabinet words who holds it when
// it names a running gqlsh serve (its URL) or gqlsh mcp (no address);
// a record missing, of a process that ended, of this process, of another
// command, not JSON, too long, or with a URL that is not a plain http
// URL (a terminal escape, a space, a quote) is ignored.
func TestInUseByRecord(t *testing.T) {
	alive := os.Getppid() // the go command that runs the test
	dead := deadPID(t)
	rec := func(url string, pid int, cmd string) string {
		data, _ := json.Marshal(map[string]any{"url": url, "pid": pid, "command": cmd})
		return string(data)
	}
	for _, c := range []struct {
		name, record string // "": no record
		want         string
	}{
		{"serve", rec("http://127.0.0.1:7717", alive, "gqlsh serve"),
			fmt.Sprintf("the cabinet CAB is in use by gqlsh serve (pid %d) at http://127.0.0.1:7717: run gqlsh --url http://127.0.0.1:7717 to use it through that server (add --token T if it has --tokens)", alive)},
		{"serve on IPv6", rec("http://[::1]:7717", alive, "gqlsh serve"), "at http://[::1]:7717: run gqlsh --url http://[::1]:7717"},
		{"mcp", fmt.Sprintf(`{"pid":%d,"command":"gqlsh mcp"}`, alive),
			fmt.Sprintf("the cabinet CAB is in use by gqlsh mcp (pid %d), which has no address: stop it, or run it as gqlsh serve and use gqlsh --url", alive)},
		{"mcp with a URL", rec("http://x\x1b[2J", alive, "gqlsh mcp"), "which has no address"},
		{"none", "", ""},
		{"ended", rec("http://127.0.0.1:7717", dead, "gqlsh serve"), ""},
		{"this process", rec("http://127.0.0.1:7717", os.Getpid(), "gqlsh serve"), ""},
		{"no pid", `{"url":"http://127.0.0.1:7717","command":"gqlsh serve"}`, ""},
		{"negative pid", rec("http://127.0.0.1:7717", -1, "gqlsh serve"), ""},
		{"another command", rec("http://127.0.0.1:7717", alive, "rm -rf"), ""},
		{"garbage", "\x1b[31mnot json", ""},
		{"truncated", rec("http://127.0.0.1:7717", alive, "gqlsh serve")[:20], ""},
		{"empty", " ", ""},
		{"escape in the URL", rec("http://127.0.0.1:7717/\x1b[31mred", alive, "gqlsh serve"), ""},
		{"newline in the URL", rec("http://127.0.0.1:7717\nrun rm", alive, "gqlsh serve"), ""},
		{"space in the URL", rec("http://a b", alive, "gqlsh serve"), ""},
		{"quote in the URL", rec(`http://a"b`, alive, "gqlsh serve"), ""},
		{"not http", rec("file:///etc/passwd", alive, "gqlsh serve"), ""},
		{"no host", rec("http://", alive, "gqlsh serve"), ""},
		{"user in the URL", rec("http://u:p@127.0.0.1:1", alive, "gqlsh serve"), ""},
		{"no URL", fmt.Sprintf(`{"pid":%d,"command":"gqlsh serve"}`, alive), ""},
		{"huge", rec("http://127.0.0.1:7717/"+strings.Repeat("a", 5000), alive, "gqlsh serve"), ""},
		{"array", "[1,2]", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			cab := filepath.Join(t.TempDir(), "c.gf")
			if c.record != "" {
				if err := os.WriteFile(cab+servingSuffix, []byte(c.record), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got := inUseBy(cab)
			want := strings.ReplaceAll(c.want, "CAB", cab)
			if want == "" && got != "" || !strings.Contains(got, want) {
				t.Fatalf("inUseBy:\n%q\nwant\n%q", got, want)
			}
			if strings.ContainsFunc(got, func(r rune) bool { return r < ' ' || r == 0x7f }) {
				t.Fatalf("a control character in %q", got)
			}
			// cabinetError words ErrInUse so, and it stays ErrInUse.
			inUse := fmt.Errorf("%w: %s (close the other goldfish or gqlsh using it, or pick another file)", goldfish.ErrInUse, cab)
			err := cabinetError(cab, inUse)
			if !errors.Is(err, goldfish.ErrInUse) {
				t.Fatalf("cabinetError is not ErrInUse: %v", err)
			}
			if want == "" && err.Error() != inUse.Error() || want != "" && err.Error() != got {
				t.Fatalf("cabinetError: %q", err)
			}
		})
	}
}

// TestWriteServing: the record is written whole (no temporary file
// left) and read back; removing it removes only this process's record.
func TestWriteServing(t *testing.T) {
	cab := filepath.Join(t.TempDir(), "c.gf")
	r := servingRecord{URL: "http://127.0.0.1:7717", PID: os.Getpid(), Command: servingServe}
	remove, err := writeServing(cab, r)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := readServingFile(cab + servingSuffix); !ok || got != r {
		t.Fatalf("read back %+v, %v", got, ok)
	}
	names, _ := filepath.Glob(filepath.Join(filepath.Dir(cab), "*"))
	if len(names) != 1 {
		t.Fatalf("files beside the cabinet: %v", names)
	}
	remove()
	if _, err := os.Stat(cab + servingSuffix); !os.IsNotExist(err) {
		t.Fatalf("the record is still there: %v", err)
	}
	// Another process's record (written over this one's) stays.
	remove, err = writeServing(cab, r)
	if err != nil {
		t.Fatal(err)
	}
	other := fmt.Sprintf(`{"pid":%d,"command":"gqlsh mcp"}`, os.Getppid())
	os.WriteFile(cab+servingSuffix, []byte(other), 0o600)
	remove()
	if data, err := os.ReadFile(cab + servingSuffix); err != nil || string(data) != other {
		t.Fatalf("another process's record went: %q, %v", data, err)
	}
	// In memory, or where the record cannot be written, there is none
	// and nothing fails.
	var errOut strings.Builder
	serving(env{stderr: &errOut}, "memory", "", servingServe, "")()
	serving(env{stderr: &errOut}, "cabinet x", filepath.Join(cab, "under-a-file"), servingServe, "http://127.0.0.1:1")()
	if !strings.Contains(errOut.String(), "cannot record the address") || strings.Count(errOut.String(), "\n") != 1 {
		t.Fatalf("stderr %q", errOut.String())
	}
}

// TestListenURL: a listener on every interface is reached on loopback.
func TestListenURL(t *testing.T) {
	for _, c := range []struct{ addr, want string }{
		{"127.0.0.1:7717", "http://127.0.0.1:7717"},
		{"0.0.0.0:7717", "http://127.0.0.1:7717"},
		{"[::]:7717", "http://[::1]:7717"},
		{"[::1]:7717", "http://[::1]:7717"},
		{"192.0.2.1:80", "http://192.0.2.1:80"},
	} {
		a, err := net.ResolveTCPAddr("tcp", c.addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := listenURL(a); got != c.want {
			t.Errorf("listenURL(%s) = %s, want %s", c.addr, got, c.want)
		}
	}
}
