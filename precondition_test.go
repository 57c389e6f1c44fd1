package goldfish_test

import (
	"context"
	"errors"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestPreconditionOverCost: a precondition stopped at its cost limit
// answers the cost budget's code (22Q04), as the README's table says,
// not a data exception.
func TestPreconditionOverCost(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
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
		if _, err := s.Commit(ctx, `INSERT (:N {v: 1, i: $i}), (:N {v: 2, i: $i}), (:N {v: 3, i: $i})`, map[string]any{"i": i}); err != nil {
			t.Fatal(err)
		}
	}
	all := `nodes("N").all(a, nodes("N").all(b, nodes("N").all(c, nodes("N").all(d, nodes("N").all(e, nodes("N").all(f, a.v + b.v + c.v + d.v + e.v + f.v > 0))))))`
	if _, err := s.Commit(ctx, `CREATE ACTION heavy(x INTEGER) INTENT 'check everything' IF '`+all+`' { INSERT (:M {x: $x}) }`, nil); err != nil {
		t.Fatal(err)
	}
	_, err = s.Commit(ctx, `CALL heavy(1)`, nil)
	var ge *goldfish.Error
	if !errors.As(err, &ge) || ge.Code != goldfish.CodeCostBudget {
		t.Fatalf("a precondition over its cost: %v, want %s", err, goldfish.CodeCostBudget)
	}
}
