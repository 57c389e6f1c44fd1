package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/store/cabinet/postgres/pgtest"
)

// TestPostgres: --postgres URL and $GOLDFISH_POSTGRES keep the sessions
// in PostgreSQL, in the schema --postgres-schema names, where another
// gqlsh finds them; --cabinet and --mem override the variable, and go
// with --postgres no more than with each other; an unreachable server
// is a clean 08Q04.
func TestPostgres(t *testing.T) {
	url := pgtest.URL(t)
	schema := pgtest.Schema(t, url)
	lookup := tempEnv(t, nil)
	out, errOut, code := gqlshEnv(t, lookup, "", "--postgres", url, "--postgres-schema", schema, "--session", "work", "-c", "INSERT (:A {nick: 'a'})")
	if code != 0 || errOut != "" || !strings.Contains(out, "ok v=1") {
		t.Fatalf("--postgres: exit %d, %q, %q", code, out, errOut)
	}
	env := tempEnv(t, map[string]string{"GOLDFISH_POSTGRES": url})
	out, errOut, code = gqlshEnv(t, env, ":sessions\n", "--postgres-schema", schema)
	if code != 0 || !strings.Contains(out, "work v=1") {
		t.Fatalf("$GOLDFISH_POSTGRES: exit %d, %q, %q", code, out, errOut)
	}
	// --cabinet beats the variable
	cab := filepath.Join(t.TempDir(), "c.gf")
	if out, errOut, code = gqlshEnv(t, env, ":sessions\n", "--cabinet", cab, "--postgres-schema", schema); code != 0 || strings.Contains(out, "work") {
		t.Fatalf("--cabinet with $GOLDFISH_POSTGRES: exit %d, %q, %q", code, out, errOut)
	}
	if _, err := os.Stat(cab); err != nil {
		t.Fatalf("--cabinet with $GOLDFISH_POSTGRES made no file: %v", err)
	}
	for _, other := range [][]string{{"--mem"}, {"--cabinet", cab}} {
		_, errOut, code = gqlshEnv(t, lookup, "", append([]string{"--postgres", url}, append(other, "-c", "INSERT (:A)")...)...)
		if code != 2 || !strings.Contains(errOut, "only one") {
			t.Fatalf("--postgres %v: exit %d, %q", other, code, errOut)
		}
	}
	_, errOut, code = gqlshEnv(t, lookup, "", "--postgres", "postgres://nobody@127.0.0.1:1/none?connect_timeout=5", "-c", "INSERT (:A)")
	if code != 1 || !strings.Contains(errOut, "GQLSTATUS 08Q04") || !strings.Contains(errOut, "127.0.0.1:1") {
		t.Fatalf("an unreachable server: exit %d, %q", code, errOut)
	}
	// the suite, on the server
	dir := t.TempDir()
	suite := "commit\nINSERT (:A {n: 1})\n----\nok v=1 +1 node 1 property set\n\nreopen\n----\n\ndump\n----\nversion 1\nnodes 1, edges 0, recycled 0\n(:A {n: 1})\n"
	if err := os.WriteFile(filepath.Join(dir, "one.txt"), []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = gqlshEnv(t, lookup, "", "conformance", "--postgres", url, dir)
	if code != 0 || !strings.Contains(out, "3 passed, 0 failed") {
		t.Fatalf("conformance --postgres: exit %d, %q, %q", code, out, errOut)
	}
}
