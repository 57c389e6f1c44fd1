package repl

import (
	"context"
	"strings"
	"testing"
)

// TestKindsAndHabits: :kinds lists each kind's nodes, keys and edge
// types with counts; what psql and sqlite3 users type by habit (.tables,
// \d KIND, \q) answers with the meta-command that does the job, and \q
// leaves (what follows it is not run).
func TestKindsAndHabits(t *testing.T) {
	db, s := newDB(t)
	in := &linesIO{lines: []string{
		`INSERT (t:TSK {nick: "a", status: "open"})-[:touches]->(:MOD {loc: "x.go"}), (:TSK {nick: "b"});`,
		":kinds", ".tables", `\d MOD`, ".schema NOPE", `\q`, ":sessions"}}
	sh := newShell(t, s, in, Options{DB: db})
	if code := sh.Loop(context.Background()); code != 0 {
		t.Fatalf("exit %d\n%s", code, in.err.String())
	}
	kinds := "MOD  1 node\n  keys  loc (1)\n  in    touches (1)\n" +
		"TSK  2 nodes\n  keys  nick (2), status (1)\n  out   touches (1)\n"
	want := "ok v=1 +3 nodes +1 edge 4 properties set\n" + kinds + kinds +
		"MOD  1 node\n  keys  loc (1)\n  in    touches (1)\n" +
		"no node of kind NOPE in session main (kinds are case-sensitive; :kinds lists them)\n"
	if got := in.out.String(); !strings.HasPrefix(got, want) || strings.Contains(got, "* main") {
		t.Errorf("stdout:\n%s\nwant:\n%s", got, want)
	}
	if e := in.err.String(); strings.Contains(e, "unfinished") || !strings.Contains(e, "(.tables is :kinds in gqlsh)") || !strings.Contains(e, `(\d MOD is :kinds MOD in gqlsh)`) {
		t.Errorf("stderr:\n%s", e)
	}
}

// TestMissingParamNamesParam: in the shell, a parameter not given says
// how to give it here (:param), not how the Go API does.
func TestMissingParamNamesParam(t *testing.T) {
	db, s := newDB(t)
	_, errOut, code := runText(t, s, "MATCH (t:TSK {nick: $n});\n", Options{DB: db})
	if code != 1 || !strings.Contains(errOut, "parameter $n is not given; :param n VALUE gives it a value") {
		t.Errorf("exit %d: %q", code, errOut)
	}
}
