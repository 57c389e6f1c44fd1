package goldfish_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestMatchedStopsAtTheBudget: past MatchCountWork matches the count of
// what the token matched stops, and says it is a lower bound
// (matched=≥1024); below, it is exact whichever index lists the
// candidates.
func TestMatchedStopsAtTheBudget(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := mustSession(t, db, "big")
	for from := 0; from < 1500; from += 300 {
		var b strings.Builder
		b.WriteString("INSERT ")
		for i := from; i < from+300; i++ {
			if i > from {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "(:A {n: %d, even: %v})", i, i%2 == 0)
		}
		if _, err := s.Commit(ctx, b.String(), nil); err != nil {
			t.Fatalf("%.200s", err)
		}
	}
	for _, c := range []struct {
		q       string
		matched int
		atLeast bool
		header  string
	}{
		{`MATCH (a:A)`, goldfish.MatchCountWork, true, " seeds=4 matched=≥1024 "},
		{`MATCH (a:A {even: true})`, 750, false, " seeds=4 matched=750 "},
		// The same condition as a WHERE: another index lists the
		// candidates, and the count is the same, to the byte.
		{`MATCH (a:A) WHERE a.even = true`, 750, false, " seeds=4 matched=750 "},
		// Sparse matches: the count scans to the end, as the seeds of a
		// token matching fewer than L would.
		{`MATCH (a:A) WHERE a.n < 10`, 10, false, " seeds=4 matched=10 "},
		{`MATCH (a:A) WHERE a.n > 1495`, 4, false, " seeds=4 k="},
	} {
		sh, err := s.Recall(ctx, c.q, goldfish.RecallOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		want := c.matched
		if want == sh.Seeds {
			want = 0 // nothing left out: nothing said
		}
		if sh.Matched != want || sh.MatchedAtLeast != c.atLeast || !strings.Contains(sh.Text, c.header) {
			t.Errorf("%s: matched %d (at least %v), want %d (%v), header %q:\n%.300s", c.q, sh.Matched, sh.MatchedAtLeast, want, c.atLeast, c.header, sh.Text)
		}
	}
}
