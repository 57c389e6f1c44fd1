package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
)

// The tests of vocabulary.go: what registering a view or an action says,
// and a CALL whose precondition is over its cost.

// TestPreconditionOverCost: a precondition stopped at its cost limit
// answers the cost budget's code (22Q04), as the README's table says,
// not a data exception.
func TestPreconditionOverCost(t *testing.T) {
	ctx := context.Background()
	db, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		// i tells the rounds apart: a round equal to the one before would
		// be echoes, and create nothing (docs/design.md#commit).
		if _, err := s.commitText(ctx, `INSERT (:N {v: 1, i: $i}), (:N {v: 2, i: $i}), (:N {v: 3, i: $i})`, map[string]any{"i": i}); err != nil {
			t.Fatal(err)
		}
	}
	all := `nodes("N").all(a, nodes("N").all(b, nodes("N").all(c, nodes("N").all(d, nodes("N").all(e, nodes("N").all(f, a.v + b.v + c.v + d.v + e.v + f.v > 0))))))`
	if _, err := s.commitText(ctx, `CREATE ACTION heavy(x INTEGER) INTENT 'check everything' IF '`+all+`' { INSERT (:M {x: $x}) }`, nil); err != nil {
		t.Fatal(err)
	}
	_, err = s.commitText(ctx, `CALL heavy(1)`, nil)
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) || ge.Code != gqlstatus.CostBudget {
		t.Fatalf("a precondition over its cost: %v, want %s", err, gqlstatus.CostBudget)
	}
}

// TestRegistrationNotice: CREATE [OR REPLACE] VIEW and CREATE ACTION
// evaluate what they register once on the state their Commit made; a
// failure is registered all the same and named, with its error, in a
// 01000 notice of the statement. An IF whose parameters lack defaults is
// not evaluated; a name the Δ drops again is not; a Δ that defines a
// name twice is checked for its last definition.
func TestRegistrationNotice(t *testing.T) {
	ctx := context.Background()
	db, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, _ := db.Session(ctx, "main")
	commit := func(text string) *values.CommitResult {
		t.Helper()
		res, err := s.commitText(ctx, text, nil)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		return res
	}
	notices := func(res *values.CommitResult) []string {
		var out []string
		for _, st := range res.Stmts {
			for _, n := range st.Notices {
				out = append(out, string(n.Code)+" stmt "+string(rune('0'+st.Index))+": "+n.Msg)
			}
		}
		return out
	}
	res := commit(`CREATE VIEW top AS 'nodes("TSK")[0].nick'`)
	if got := notices(res); len(got) != 1 || !strings.HasPrefix(got[0], "01000 stmt 1: view top is broken: index out of bounds: 0") {
		t.Errorf("broken view: %q", got)
	}
	if res.Status != "01000" || !res.Applied {
		t.Errorf("broken view: status %s applied %v; want 01000, applied", res.Status, res.Applied)
	}
	// The data a later statement of the Δ inserts is there when the view
	// is evaluated; the Δ's second definition is the one checked.
	res = commit(`START TRANSACTION; CREATE OR REPLACE VIEW top AS 'nodes("TSK")[5].nick'; INSERT (:TSK {nick: "a"});
		CREATE OR REPLACE VIEW top AS 'nodes("TSK")[0].nick'; COMMIT`)
	if got := notices(res); len(got) != 0 {
		t.Errorf("fixed in the Δ: %q", got)
	}
	// Created and dropped in one Δ: nothing to check.
	if got := notices(commit(`START TRANSACTION; CREATE VIEW gone AS 'nodes("X")[0]'; DROP VIEW gone; COMMIT`)); len(got) != 0 {
		t.Errorf("dropped in the Δ: %q", got)
	}
	// An IF whose parameters all have defaults is evaluated with them.
	got := notices(commit(`CREATE ACTION mark(n STRING = 'a', w INTEGER = 2) INTENT 'weigh' IF 'nodes("TSK").filter(t, t.nick == n)[0].weight > w'
		{ MATCH (t:TSK {nick: $n}) SET t.weight = $w }`))
	if len(got) != 1 || !strings.Contains(got[0], "the precondition of action mark cannot be evaluated with its parameters' defaults: no such key: weight") {
		t.Errorf("IF with defaults: %q", got)
	}
	// A false IF is no failure; nor is an IF whose parameter has no default.
	if got := notices(commit(`CREATE ACTION none() INTENT 'x' IF 'count("TSK") > 5' { MATCH (t:TSK) SET t.x = 1 }`)); len(got) != 0 {
		t.Errorf("a false IF: %q", got)
	}
	if got := notices(commit(`CREATE ACTION pick(n STRING) INTENT 'y' IF 'nodes("TSK").filter(t, t.nick == n)[0].weight > 0' { MATCH (t:TSK {nick: $n}) SET t.y = 1 }`)); len(got) != 0 {
		t.Errorf("an IF without defaults: %q", got)
	}
	// Registered all the same: the view is broken in the vocabulary.
	v, err := s.Vocabulary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Actions) != 3 {
		t.Errorf("actions %d, want 3", len(v.Actions))
	}
}

// TestWorkedAroundKeptAcrossReopen: failed CALLs of an action, then a
// raw Commit that writes what the action writes, are noticed (the
// envelope's worked_around line, a degenerating signal), and the notice
// is kept in the attention record across a close and a reopen; a
// revision of the action ends it.
func TestWorkedAroundKeptAcrossReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.gf")
	db, err := openTest(WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := db.Session(ctx, "s")
	for _, text := range []string{
		`INSERT (:TSK {nick: "a", status: "open"})`,
		`CREATE ACTION close_task(nick STRING) IF 'size(nodes("NOTE")) > 0' { MATCH (t:TSK {nick: $nick}) SET t.status = "closed" }`,
	} {
		if _, err := s.commitText(ctx, text, nil); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if _, err := s.commitText(ctx, `CALL close_task('a')`, nil); err == nil {
			t.Fatal("the CALL applied")
		}
	}
	recall := func(s *Session) *values.Shape {
		t.Helper()
		sh, err := s.recallShape(ctx, `MATCH (t:TSK {nick: "a"})`, values.RecallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return sh
	}
	if sh := recall(s); sh.Attention != nil && len(sh.Attention.WorkedAround) > 0 {
		t.Fatalf("worked around before any raw Commit: %+v", sh.Attention.WorkedAround)
	}
	if _, err := s.commitText(ctx, `MATCH (t:TSK {nick: "a"}) SET t.status = "closed"`, nil); err != nil {
		t.Fatal(err)
	}
	check := func(s *Session, when string) {
		t.Helper()
		sh := recall(s)
		if sh.Attention == nil || len(sh.Attention.WorkedAround) != 1 || sh.Attention.WorkedAround[0] != (values.WorkedAround{Action: "close_task", FailedCalls: 2, Target: "TSK.status"}) ||
			!strings.Contains(sh.Text, "// attention worked_around: close_task") || sh.Attention.VocabularyHealth != "degenerating" {
			t.Fatalf("%s: %+v\n%s", when, sh.Attention, sh.Text)
		}
	}
	check(s, "live")
	db, s = reopen(t, db, path, "s")
	check(s, "reopened")
	if _, err := s.commitText(ctx, `CREATE OR REPLACE ACTION close_task(nick STRING) { MATCH (t:TSK {nick: $nick}) SET t.status = "closed" }`, nil); err != nil {
		t.Fatal(err)
	}
	if sh := recall(s); sh.Attention != nil && len(sh.Attention.WorkedAround) > 0 {
		t.Fatalf("still worked around after the revision: %+v", sh.Attention.WorkedAround)
	}
}
