package goldfish_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestWorkedAroundKeptAcrossReopen: failed CALLs of an action, then a
// raw Commit that writes what the action writes, are noticed (the
// envelope's worked_around line, a degenerating signal), and the notice
// is kept in the attention record across a close and a reopen; a
// revision of the action ends it.
func TestWorkedAroundKeptAcrossReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.gf")
	db, err := goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := db.Session(ctx, "s")
	for _, text := range []string{
		`INSERT (:TSK {nick: "a", status: "open"})`,
		`CREATE ACTION close_task(nick STRING) IF 'size(nodes("NOTE")) > 0' { MATCH (t:TSK {nick: $nick}) SET t.status = "closed" }`,
	} {
		if _, err := s.Commit(ctx, text, nil); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if _, err := s.Commit(ctx, `CALL close_task('a')`, nil); err == nil {
			t.Fatal("the CALL applied")
		}
	}
	recall := func(s *goldfish.Session) *goldfish.Shape {
		t.Helper()
		sh, err := s.Recall(ctx, `MATCH (t:TSK {nick: "a"})`, goldfish.RecallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return sh
	}
	if sh := recall(s); sh.Attention != nil && len(sh.Attention.WorkedAround) > 0 {
		t.Fatalf("worked around before any raw Commit: %+v", sh.Attention.WorkedAround)
	}
	if _, err := s.Commit(ctx, `MATCH (t:TSK {nick: "a"}) SET t.status = "closed"`, nil); err != nil {
		t.Fatal(err)
	}
	check := func(s *goldfish.Session, when string) {
		t.Helper()
		sh := recall(s)
		if sh.Attention == nil || len(sh.Attention.WorkedAround) != 1 || sh.Attention.WorkedAround[0] != (goldfish.WorkedAround{Action: "close_task", FailedCalls: 2, Target: "TSK.status"}) ||
			!strings.Contains(sh.Text, "// attention worked_around: close_task") || sh.Attention.VocabularyHealth != "degenerating" {
			t.Fatalf("%s: %+v\n%s", when, sh.Attention, sh.Text)
		}
	}
	check(s, "live")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, _ = db.Session(ctx, "s")
	check(s, "reopened")
	if _, err := s.Commit(ctx, `CREATE OR REPLACE ACTION close_task(nick STRING) { MATCH (t:TSK {nick: $nick}) SET t.status = "closed" }`, nil); err != nil {
		t.Fatal(err)
	}
	if sh := recall(s); sh.Attention != nil && len(sh.Attention.WorkedAround) > 0 {
		t.Fatalf("still worked around after the revision: %+v", sh.Attention.WorkedAround)
	}
}
