package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/server"
)

// TestSingleFlags: -1 and --single-transaction are one flag; it needs
// -c or -f, and refuses what cannot go with one transaction.
func TestSingleFlags(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		out  string // stdout, whole
		err  string // in stderr
	}{
		{name: "-1", args: []string{"--mem", "-1", "-c", "INSERT (:A);", "-c", "INSERT (:B);"}, out: "ok v=1 +2 nodes\n"},
		{name: "--single-transaction", args: []string{"--mem", "--single-transaction", "-c", "INSERT (:A); INSERT (:B);"}, out: "ok v=1 +2 nodes\n"},
		{name: "-single-transaction", args: []string{"--mem", "-single-transaction", "-c", "INSERT (:A);"}, out: "ok v=1 +1 node\n"},
		{name: "-1=false runs each statement on its own", args: []string{"--mem", "-1=false", "-c", "INSERT (:A); INSERT (:B);"}, out: "ok v=1 +1 node\nok v=2 +1 node\n"},
		{name: "standard input with -f -", args: []string{"--mem", "-1", "-f", "-"}, out: "ok v=1 +1 node\n"},
		{name: "without -c or -f", args: []string{"--mem", "-1"}, code: 2, err: "gqlsh: -1 runs the statements of -c and -f as one transaction: give at least one (-f - reads standard input)\n"},
		{name: "with --fail-at-end", args: []string{"--mem", "-1", "--fail-at-end", "-c", "INSERT (:A);"}, code: 2, err: "gqlsh: give -1 or --fail-at-end, not both"},
		{name: "with --read-only", args: []string{"--single-transaction", "--read-only", "-c", "INSERT (:A);"}, code: 2, err: "gqlsh: -1 commits the script: not with --read-only"},
		{name: "an error applies nothing", args: []string{"--mem", "-1", "-c", "INSERT (:A);", "-c", "INSERT (:B {x: });"}, code: 1,
			err: "gqlsh: the single transaction (-1) is dropped: nothing applied\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := gqlsh(t, "INSERT (:A);", c.args...)
			if code != c.code || c.out != "" && out != c.out || !strings.Contains(errOut, c.err) || c.err == "" && errOut != "" {
				t.Errorf("exit %d, want %d\nstdout %q, want %q\nstderr %q, want it to hold %q", code, c.code, out, c.out, errOut, c.err)
			}
		})
	}
	out, _, _ := gqlsh(t, "", "--help")
	for _, w := range []string{"\n  -1\trun the whole input of every -c and -f as one transaction", "\n  -single-transaction\n", "-1 (--single-transaction) runs"} {
		if !strings.Contains(out, w) {
			t.Errorf("--help lacks %q:\n%s", w, out)
		}
	}
}

// inserts writes a script of n one-node INSERTs (nicks n1 … nN) to a
// file, last being the text of the last statement when it is not "".
func inserts(t testing.TB, n int, last string) string {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i == n && last != "" {
			b.WriteString(last + "\n")
			continue
		}
		fmt.Fprintf(&b, "INSERT (:N {nick: 'n%d'});\n", i)
	}
	path := filepath.Join(t.TempDir(), "load.gql")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// cabinetInfo opens the cabinet file and describes its session main.
func cabinetInfo(t *testing.T, path string) goldfish.SessionInfo {
	t.Helper()
	db, err := goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session(context.Background(), "main")
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// TestSingleLoadsOneVersion: 10,000 INSERTs, twenty times the default
// Commit budget, load into a cabinet with -1 as one Δ: one version.
func TestSingleLoadsOneVersion(t *testing.T) {
	cab := filepath.Join(t.TempDir(), "cabinet.gf")
	script := inserts(t, 10000, "")
	out, errOut, code := gqlsh(t, "", "--cabinet", cab, "-1", "-f", script)
	if code != 0 || out != "ok v=1 +10000 nodes 10000 properties set\n" || errOut != "" {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	if info := cabinetInfo(t, cab); info.Version != 1 || info.Nodes != 10000 {
		t.Fatalf("version %d with %d nodes, want 1 with 10000", info.Version, info.Nodes)
	}
}

// TestSingleErrorAtTheEnd: a nick clash at the last of 10,000 statements
// leaves the cabinet as it was, and says where, in the file, it is.
func TestSingleErrorAtTheEnd(t *testing.T) {
	cab := filepath.Join(t.TempDir(), "cabinet.gf")
	if _, errOut, code := gqlsh(t, "", "--cabinet", cab, "-c", "INSERT (:N {nick: 'taken', x: 1});"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	script := inserts(t, 10000, "INSERT (:N {nick: 'taken', x: 2});")
	out, errOut, code := gqlsh(t, "", "--cabinet", cab, "-1", "-f", script)
	want := script + ":10000:8: GQLSTATUS 40002: statement 10000: nick \"taken\" is already used by another live node"
	if code != 1 || out != "" || !strings.HasPrefix(errOut, want) || !strings.HasSuffix(errOut, "gqlsh: the single transaction (-1) is dropped: nothing applied\n") {
		t.Fatalf("exit %d\nstdout %q\nstderr %q\nwant it to start %q", code, out, errOut, want)
	}
	if info := cabinetInfo(t, cab); info.Version != 1 || info.Nodes != 1 {
		t.Fatalf("version %d with %d nodes, want 1 with 1 (as before the script)", info.Version, info.Nodes)
	}
}

// TestSingleOverServer: over --url the server's Commit budget holds: a
// script within it is one version, one over it is refused whole, saying
// how to load it.
func TestSingleOverServer(t *testing.T) {
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv, err := server.New(db, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	version := func() uint64 {
		s, err := db.Session(context.Background(), "main")
		if err != nil {
			t.Fatal(err)
		}
		return s.Version()
	}

	script := inserts(t, 600, "")
	out, errOut, code := gqlsh(t, "", "--url", ts.URL, "-1", "-f", script)
	for _, w := range []string{
		script + ":501:1: GQLSTATUS 22Q02: statement 501: the single transaction (-1) is over the Commit budget of the server at " + ts.URL + ": Δ writes or binds more than 500 elements",
		"or load it into a database gqlsh opens itself (gqlsh --cabinet PATH -1 -f FILE)",
		"gqlsh: the single transaction (-1) is dropped: nothing applied\n",
	} {
		if code != 1 || !strings.Contains(errOut, w) {
			t.Errorf("exit %d, stdout %q; stderr lacks %q:\n%s", code, out, w, errOut)
		}
	}
	if v := version(); v != 0 {
		t.Fatalf("the server's session is at version %d after a refused script, want 0", v)
	}

	// over the budget's bytes: refused before the server parses it
	long := inserts(t, 10000, "")
	if _, errOut, code := gqlsh(t, "", "--url", ts.URL, "-1", "-f", long); code != 1 || !strings.Contains(errOut, "GQLSTATUS 22Q02: statement 10000: the single transaction (-1) is over the Commit budget of the server") || version() != 0 {
		t.Errorf("exit %d, version %d, stderr:\n%s", code, version(), errOut)
	}

	if out, errOut, code := gqlsh(t, "", "--url", ts.URL, "-1", "-f", inserts(t, 400, "")); code != 0 || out != "ok v=1 +400 nodes 400 properties set\n" || version() != 1 {
		t.Errorf("exit %d, version %d\nstdout %q\nstderr %q", code, version(), out, errOut)
	}
}
