package repl

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// runScript runs in through a shell on a fresh in-memory database and
// returns its standard output and error.
func runScript(t *testing.T, in string) (*Shell, string, string) {
	t.Helper()
	db, s := newDB(t)
	var out, errOut bytes.Buffer
	sh := newShell(t, s, &ReaderIO{R: strings.NewReader(in), Out: &out, Err: &errOut}, Options{DB: db})
	sh.Loop(context.Background())
	return sh, out.String(), errOut.String()
}

// TestSetKZero: :set k 0 walks no hop (the seeds alone) and :set shows
// it so; :set k alone and :set k default take the default walk again.
func TestSetKZero(t *testing.T) {
	const graph = "INSERT (:A {nick: 'a'})-[:r]->(:B {nick: 'b'})-[:r]->(:C {nick: 'c'});\n"
	sh, out, errOut := runScript(t, graph+":set k 0\n:set\nMATCH (a:A);\n")
	if errOut != "" {
		t.Fatalf("stderr: %s", errOut)
	}
	for _, w := range []string{"k = 0 (no walk: the seeds alone)\n", "k      0 (no walk: the seeds alone)  (ceiling 4)\n", "seeds=1 k=0 rows=1/50"} {
		if !strings.Contains(out, w) {
			t.Errorf("stdout lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, `nick: "b"`) {
		t.Errorf("k 0 walked a hop:\n%s", out)
	}
	if sh.Runner().Recall.K != goldfish.NoWalk {
		t.Errorf("K = %d, want NoWalk", sh.Runner().Recall.K)
	}
	for _, reset := range []string{":set k", ":set k default", ":set k=default"} {
		sh, out, errOut = runScript(t, graph+":set k 0\n"+reset+"\n:set\nMATCH (a:A);\n")
		if errOut != "" {
			t.Fatalf("%s: stderr: %s", reset, errOut)
		}
		for _, w := range []string{"k = (default)\n", "k      2 (default)  (ceiling 4)\n", "seeds=1 k=2 rows=5/50"} {
			if !strings.Contains(out, w) {
				t.Errorf("%s: stdout lacks %q:\n%s", reset, w, out)
			}
		}
		if sh.Runner().Recall.K != 0 {
			t.Errorf("%s: K = %d, want 0 (the default)", reset, sh.Runner().Recall.K)
		}
	}
	// The other budgets keep their meaning: 0 is their default.
	_, out, _ = runScript(t, graph+":set M 0\n:set\n")
	if !strings.Contains(out, "M      50 (default)") {
		t.Errorf(":set M 0:\n%s", out)
	}
	_, out, _ = runScript(t, graph+":set M 3\n:set M default\n:set\n")
	if !strings.Contains(out, "M      50 (default)") {
		t.Errorf(":set M default:\n%s", out)
	}
	_, _, errOut = runScript(t, ":set k -1\n")
	if !strings.Contains(errOut, "GQLSTATUS 22Q06: k takes a whole number ≥ 0 (0: no walk, the seeds alone) or default") {
		t.Errorf(":set k -1: %s", errOut)
	}
	_, _, errOut = runScript(t, ":set k 9\n")
	if !strings.Contains(errOut, "GQLSTATUS 22Q01: k=9 is above its ceiling 4") {
		t.Errorf(":set k 9: %s", errOut)
	}
}

// TestSetPinned: :set pinned LAW,RULE is kept with the session and every
// Recall carries those kinds' nodes; :set shows it; :set pinned alone
// clears it.
func TestSetPinned(t *testing.T) {
	const graph = "INSERT (:LAW {nick: 'LAW_a'}), (:RULE {nick: 'RULE_b'}), (:TSK {nick: 'TSK_alone'});\n"
	sh, out, errOut := runScript(t, graph+":set pinned RULE,LAW\n:set\nMATCH (t:TSK {nick: 'TSK_alone'});\n")
	if errOut != "" {
		t.Fatalf("stderr: %s", errOut)
	}
	for _, w := range []string{"session main: pinned LAW,RULE\n", "session main: pinned LAW,RULE\n", `(law1:LAW {nick: "LAW_a"})`, `(rule1:RULE {nick: "RULE_b"})`, `(tsk1:TSK {nick: "TSK_alone"})`} {
		i := strings.Index(out, w)
		if i < 0 {
			t.Fatalf("stdout lacks %q (in order):\n%s", w, out)
		}
		out = out[i+len(w):]
	}
	if kinds, err := sh.Runner().Session.PinnedKinds(context.Background()); err != nil || strings.Join(kinds, ",") != "LAW,RULE" {
		t.Errorf("session pins %v, %v", kinds, err)
	}
	_, out, errOut = runScript(t, graph+":set pinned LAW, RULE\n:set pinned\n:set\nMATCH (t:TSK {nick: 'TSK_alone'});\n")
	if errOut != "" {
		t.Fatalf("stderr: %s", errOut)
	}
	if !strings.Contains(out, "session main: pinned LAW,RULE\nsession main: pinned (none)\n") || strings.Contains(out, "law1") {
		t.Errorf(":set pinned alone:\n%s", out)
	}
	_, _, errOut = runScript(t, ":use catalog\n:set pinned SESSION\n")
	if !strings.Contains(errOut, "GQLSTATUS 42Q02") {
		t.Errorf("catalogue: %s", errOut)
	}
}
