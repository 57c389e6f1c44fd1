package goldfish_test

import (
	"context"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestRegistrationNotice: CREATE [OR REPLACE] VIEW and CREATE ACTION
// evaluate what they register once on the state their Commit made; a
// failure is registered all the same and named, with its error, in a
// 01000 notice of the statement. An IF whose parameters lack defaults is
// not evaluated; a name the Δ drops again is not; a Δ that defines a
// name twice is checked for its last definition.
func TestRegistrationNotice(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, _ := db.Session(ctx, "main")
	commit := func(text string) *goldfish.CommitResult {
		t.Helper()
		res, err := s.Commit(ctx, text, nil)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		return res
	}
	notices := func(res *goldfish.CommitResult) []string {
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
