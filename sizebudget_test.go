package goldfish_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestOversizedTextRefusedBeforeParse: a Recall token or a Δ text over
// the R byte budget is refused before it is parsed, so refusing a 1 MB
// text allocates a few KiB, not the hundreds of MiB its parse would
// (a 1 MB WHERE n.v IN [1,1,…] cost 2–3 s and +515 MiB before its
// refusal), with the budget's code.
func TestOversizedTextRefusedBeforeParse(t *testing.T) {
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
	list := strings.TrimSuffix(strings.Repeat("1,", 500_000), ",")
	recall := "MATCH (n:N) WHERE n.v IN [" + list + "]"
	commit := "MATCH (n:N) WHERE n.v IN [" + list + "] SET n.w = 1"
	for _, c := range []struct {
		name string
		call func() error
		code goldfish.Code
	}{
		{"Recall", func() error { _, err := s.Recall(ctx, recall, goldfish.RecallOptions{}); return err }, goldfish.CodeTextLimit},
		{"Commit", func() error { _, err := s.Commit(ctx, commit, nil); return err }, goldfish.CodeCommitBudget},
		// the shell asks IsRecall first, then commits what is not a Recall
		{"IsRecall", func() error {
			if s.IsRecall(recall) {
				return nil
			}
			_, err := s.Commit(ctx, recall, nil)
			return err
		}, goldfish.CodeCommitBudget},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := c.call()
		runtime.ReadMemStats(&after)
		var ge *goldfish.Error
		if !errors.As(err, &ge) || ge.Code != c.code {
			t.Errorf("%s of a 1 MB text: %v, want %s", c.name, err, c.code)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
			t.Errorf("%s: refusing a 1 MB text allocated %d bytes", c.name, n)
		}
	}
}
