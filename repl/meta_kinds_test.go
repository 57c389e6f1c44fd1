package repl

import (
	"context"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
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

// TestHabitsInScripts: in a script, piped or given with -c, the habits
// answer as they do at a prompt (and help is :help, with or without ';'),
// at the start of a statement only: a line inside a statement is the
// statement's, and \q ends the script.
func TestHabitsInScripts(t *testing.T) {
	db, s := newDB(t)
	out, errOut, code := runText(t, s, "INSERT (t:TSK {nick: \"a\"})-[:touches]->(:MOD {loc: \"x.go\"});\n"+
		".tables\n\\d MOD;\nHELP;\nhelp\nMATCH (t:TSK)\n  WHERE t.nick = \"a\";\n\\q\nINSERT (:NOTE {nick: \"never\"});\n", Options{DB: db})
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"TSK  1 node\n", "MOD  1 node\n  keys  loc (1)\n  in    touches (1)\n", "Meta-commands start with ':'", `(tsk1:TSK {nick: "a"})`} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{"(.tables is :kinds in gqlsh)", `(\d MOD; is :kinds MOD in gqlsh)`, "(HELP; is :help in gqlsh)", "(help is :help in gqlsh)"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Count(out, "Meta-commands start with ':'") != 2 {
		t.Errorf("help ran %d times, want 2", strings.Count(out, "Meta-commands start with ':'"))
	}
	if sh, _ := s.Recall(context.Background(), `MATCH (n:NOTE)`, goldfish.RecallOptions{}); sh != nil && strings.Contains(sh.Text, "never") {
		t.Error("the statement after \\q ran")
	}
}
