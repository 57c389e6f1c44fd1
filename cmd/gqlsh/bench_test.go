package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkShellVsSQLite runs 50,000 one-line statements through the
// gqlsh binary (gqlsh --mem -f FILE: single-node INSERTs, each its own
// Commit) and the same number of one-row INSERTs through the sqlite3
// shell (sqlite3 :memory: < FILE, each its own transaction), one after
// the other in each iteration, and reports both times per run and their
// ratio. Both are whole processes, start-up included. It skips when
// sqlite3 is not installed.
//
//	go test ./cmd/gqlsh -run '^$' -bench ShellVsSQLite -benchtime 3x
func BenchmarkShellVsSQLite(b *testing.B) {
	sqlite, err := exec.LookPath("sqlite3")
	if err != nil {
		b.Skip("sqlite3 not installed")
	}
	bin := gqlshBinary(b)
	dir := b.TempDir()
	const n = 50000
	var gq, sq strings.Builder
	sq.WriteString("CREATE TABLE a(x);\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&gq, "INSERT (:A {x: %d});\n", i)
		fmt.Fprintf(&sq, "INSERT INTO a VALUES (%d);\n", i)
	}
	gqFile, sqFile := filepath.Join(dir, "inserts.gql"), filepath.Join(dir, "inserts.sql")
	os.WriteFile(gqFile, []byte(gq.String()), 0o644)
	os.WriteFile(sqFile, []byte(sq.String()), 0o644)
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devnull.Close()
	run := func(name string, args []string, stdin string) time.Duration {
		cmd := exec.Command(name, args...)
		cmd.Stdout = devnull
		var errOut strings.Builder
		cmd.Stderr = &errOut
		if stdin != "" {
			f, err := os.Open(stdin)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			cmd.Stdin = f
		}
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s: %v\n%s", name, err, errOut.String())
		}
		return time.Since(t0)
	}
	var gqTotal, sqTotal time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		gqTotal += run(bin, []string{"--mem", "-f", gqFile}, "")
		sqTotal += run(sqlite, []string{":memory:"}, sqFile)
	}
	b.StopTimer()
	b.ReportMetric(gqTotal.Seconds()/float64(b.N), "gqlsh-s/run")
	b.ReportMetric(sqTotal.Seconds()/float64(b.N), "sqlite3-s/run")
	b.ReportMetric(gqTotal.Seconds()/sqTotal.Seconds(), "ratio")
}

// BenchmarkScriptLoad loads 10,000 one-node INSERTs (INSERT (:N {nick:
// 'n1'}); …) with gqlsh -f into a new cabinet file per run, in process:
// per-statement is each its own Commit (one version and one fsync each),
// single-transaction is -1 (one Δ, one version, one fsync), and mem is
// each its own Commit with --mem, for scale. It reports the statements
// loaded per second.
//
//	go test ./cmd/gqlsh -run '^$' -bench ScriptLoad -benchtime 3x
func BenchmarkScriptLoad(b *testing.B) {
	const n = 10000
	script := inserts(b, n, "")
	// every run names its database, so gqlsh reads no environment
	lookup := func(string) (string, bool) { return "", false }
	for _, c := range []struct {
		name string
		args []string
	}{
		{"per-statement", nil},
		{"single-transaction", []string{"-1"}},
		{"mem", []string{"--mem"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				args := append([]string{"-f", script}, c.args...)
				if c.name != "mem" {
					args = append(args, "--cabinet", filepath.Join(dir, fmt.Sprintf("load%d.gf", i)))
				}
				var out, errOut strings.Builder
				if code := runEnv(args, env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, lookupEnv: lookup}); code != 0 {
					b.Fatalf("exit %d: %s", code, errOut.String())
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "statements/s")
		})
	}
}
