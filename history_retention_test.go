package goldfish_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	goldfish "github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// notKept reports whether err is 22Q08.
func notKept(err error) bool {
	var ge *gqlstatus.Error
	return errors.As(err, &ge) && ge.Code == gqlstatus.VersionNotKept
}

// TestHistoryRetention: with automatic flushes every few Commits, a
// counted history keeps the versions it counts readable, byte for byte,
// across the rebases that move its start, a reopen and a memory budget
// that unloads the session between every call; the versions before it
// are refused; a Purge cuts it for good, across a reopen.
func TestHistoryRetention(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "keep.gf")
	open := func(opts ...goldfish.Option) *goldfish.DB {
		db, err := goldfish.Open(append([]goldfish.Option{goldfish.WithCabinet(path), goldfish.WithAutoFlush(7, 0)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	s, _ := db.Session(ctx, "h")
	set, _ := s.AttentionSettings(ctx)
	set.History = 20
	if err := s.SetAttentionSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	const token = `MATCH (t:TSK {nick: "t"})`
	seen := map[uint64]string{}
	for i := range 300 {
		text := fmt.Sprintf(`INSERT (:TSK {nick: "t", n: %d})`, i)
		if i > 0 {
			text = fmt.Sprintf(`MATCH (t:TSK {nick: "t"}) SET t.n = %d INSERT (t)-[:has]->(:NOTE {text: "n%d"})`, i, i)
		}
		res, err := s.Commit(ctx, text, nil)
		if err != nil {
			t.Fatal(err)
		}
		sh, err := s.Recall(ctx, token, goldfish.RecallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		seen[res.Version] = body(sh.Text)
	}
	check := func(s *goldfish.Session, when string) {
		t.Helper()
		newest := s.Version()
		for v := uint64(1); v <= newest; v++ {
			sh, err := s.Recall(ctx, token, goldfish.RecallOptions{AtVersion: v})
			switch {
			case v+20 < newest:
				if !notKept(err) || !strings.Contains(err.Error(), fmt.Sprintf("keeps versions %d to %d", newest-20, newest)) {
					t.Fatalf("%s: version %d of %d: %v, want 22Q08", when, v, newest, err)
				}
			case err != nil:
				t.Fatalf("%s: version %d of %d: %v", when, v, newest, err)
			case body(sh.Text) != seen[v]:
				t.Fatalf("%s: version %d:\n%s\nwhen it was the newest:\n%s", when, v, body(sh.Text), seen[v])
			}
		}
	}
	check(s, "live")
	db.Close()
	db = open(goldfish.WithMemoryBudget(1))
	s, _ = db.Session(ctx, "h")
	check(s, "reopened, unloaded after every call")
	// The rebases kept the history bounded: with 20 to keep, a rebase
	// at least every 20+64 versions past twice that.
	db.Close()
	db = open()
	s, _ = db.Session(ctx, "h")
	set.History = goldfish.HistoryAll
	if err := s.SetAttentionSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	// A rebase moves the start once the history holds 2×20+64 versions,
	// at a flush (every 7 Commits): never more than that is kept.
	bound := s.Version() - (20 + 20 + 64 + 7)
	if _, err := s.Recall(ctx, token, goldfish.RecallOptions{AtVersion: bound - 1}); !notKept(err) {
		t.Fatalf("version %d, before what the rebases keep, read with history=all: %v", bound-1, err)
	}
	if _, err := s.Recall(ctx, token, goldfish.RecallOptions{AtVersion: s.Version() - 20}); err != nil {
		t.Fatalf("the oldest version counted: %v", err)
	}
	// A Purge cuts the history at its version, for good.
	if _, err := s.Commit(ctx, `MATCH (t:TSK {nick: "t"})-[:has]->(n:NOTE {text: "n299"}) DETACH DELETE n`, nil); err != nil {
		t.Fatal(err)
	}
	before := s.Version()
	if n, err := s.Purge(ctx); err != nil || n == 0 {
		t.Fatal(n, err)
	}
	db.Close()
	db = open()
	defer db.Close()
	s, _ = db.Session(ctx, "h")
	if _, err := s.Recall(ctx, token, goldfish.RecallOptions{AtVersion: before}); !notKept(err) ||
		!strings.Contains(err.Error(), fmt.Sprintf("keeps versions %d to %d", before+1, before+1)) {
		t.Fatalf("a version before a purge, after a reopen: %v", err)
	}
}
