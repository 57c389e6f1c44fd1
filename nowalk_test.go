package goldfish_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestNoWalk: K: NoWalk asks for k = 0, the seeds alone (with the edges
// between them); K's zero value keeps the default k = 2, and the other
// budgets' zero values their defaults. Each is its own Shape (the cache
// keeps them apart).
func TestNoWalk(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, `INSERT (:A {nick: "a"})-[:r]->(:B {nick: "b"})-[:r]->(:C {nick: "c"})`, nil); err != nil {
		t.Fatal(err)
	}
	const q = `MATCH (a:A)` // not a point token, which walks one hop by default
	for _, c := range []struct {
		name string
		o    goldfish.RecallOptions
		head string
		rows int
	}{
		{"zero value", goldfish.RecallOptions{}, " k=2 rows=5/50 ", 5},
		{"NoWalk", goldfish.RecallOptions{K: goldfish.NoWalk}, " k=0 rows=1/50 ", 1},
		{"zero value again", goldfish.RecallOptions{M: 10}, " k=2 rows=5/10 ", 5},
		{"NoWalk again", goldfish.RecallOptions{K: goldfish.NoWalk, M: 10}, " k=0 rows=1/10 ", 1},
		{"k=1", goldfish.RecallOptions{K: 1}, " k=1 rows=3/50 ", 3},
	} {
		sh, err := s.Recall(ctx, q, c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !strings.Contains(sh.Text, c.head) || sh.Rows != c.rows {
			t.Errorf("%s: rows %d, want %d (%q):\n%s", c.name, sh.Rows, c.rows, c.head, sh.Text)
		}
	}
	// Two seeds and no hop: the edge between them is kept.
	sh, err := s.Recall(ctx, `MATCH (n) WHERE n.nick IN ["a", "b"]`, goldfish.RecallOptions{K: goldfish.NoWalk})
	if err != nil || sh.Rows != 3 || strings.Contains(sh.Text, `"c"`) {
		t.Errorf("two seeds, no walk: %v\n%v", err, sh)
	}
	// A slice's anchors alone.
	sl, err := s.ExportSlice(ctx, "", goldfish.SliceOptions{K: goldfish.NoWalk, Nicks: []string{"a"}})
	if err != nil || sl.Nodes != 1 {
		t.Errorf("slice, no walk: %v %+v", err, sl)
	}
	// Any other negative k is refused, with its code and a hint.
	_, err = s.Recall(ctx, q, goldfish.RecallOptions{K: -2})
	var ge *goldfish.Error
	if !errors.As(err, &ge) || ge.Code != goldfish.CodeRecallBudget || !strings.Contains(ge.Hint, "NoWalk") {
		t.Errorf("K: -2: %v", err)
	}
}
