package goldfish_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/postgres"
)

const pinnedGraph = `INSERT (:LAW {nick: "LAW_review", title: "Two reviewers"}),
	(:LAW {nick: "LAW_tests", title: "Every fix has a test"}),
	(:RULE {nick: "RULE_fridays", text: "no deploy on Fridays"}),
	(:TSK {nick: "TSK_alone", status: "open"})`

// pinnedAcrossReopen: the session's pinned kinds hold across a reopen of
// the database open makes, and every Recall of the session carries their
// nodes: an isolated TSK comes with the LAW nodes.
func pinnedAcrossReopen(t *testing.T, open func() *goldfish.DB) {
	ctx := context.Background()
	const q = `MATCH (t:TSK {nick: "TSK_alone"})`
	db := open()
	s := mustSession(t, db, "work")
	// Set before the first Commit: kept in memory, saved with it.
	if err := s.SetPinnedKinds(ctx, []string{"LAW"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, pinnedGraph, nil); err != nil {
		t.Fatal(err)
	}
	recall := func(s *goldfish.Session, o goldfish.RecallOptions) *goldfish.Shape {
		t.Helper()
		sh, err := s.Recall(ctx, q, o)
		if err != nil {
			t.Fatal(err)
		}
		return sh
	}
	sh := recall(s, goldfish.RecallOptions{})
	if sh.Rows != 3 || !strings.Contains(sh.Text, "LAW_review") || !strings.Contains(sh.Text, "LAW_tests") || strings.Contains(sh.Text, "RULE") {
		t.Fatalf("pinned LAW:\n%s", sh.Text)
	}
	want := sh.Text
	// A call's own kinds replace the session's.
	if sh := recall(s, goldfish.RecallOptions{Pinned: []string{"RULE"}}); sh.Rows != 2 || !strings.Contains(sh.Text, "RULE_fridays") || strings.Contains(sh.Text, "LAW") {
		t.Fatalf("per call RULE:\n%s", sh.Text)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = open()
	s = mustSession(t, db, "work")
	if kinds, err := s.PinnedKinds(ctx); err != nil || !slices.Equal(kinds, []string{"LAW"}) {
		t.Fatalf("after reopen: %v %v", kinds, err)
	}
	if got := recall(s, goldfish.RecallOptions{}).Text; got != want {
		t.Fatalf("after reopen:\n%s\nwant\n%s", got, want)
	}
	// Changed after the Commit, sorted and kept once; the cached Shape
	// of the old kinds is not served.
	if err := s.SetPinnedKinds(ctx, []string{"RULE", "LAW", "RULE"}); err != nil {
		t.Fatal(err)
	}
	if sh := recall(s, goldfish.RecallOptions{}); sh.Rows != 4 {
		t.Fatalf("LAW,RULE:\n%s", sh.Text)
	}
	if err := db.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = open()
	s = mustSession(t, db, "work")
	if kinds, err := s.PinnedKinds(ctx); err != nil || !slices.Equal(kinds, []string{"LAW", "RULE"}) {
		t.Fatalf("after flush and reopen: %v %v", kinds, err)
	}
	if err := s.SetPinnedKinds(ctx, nil); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = open()
	defer db.Close()
	s = mustSession(t, db, "work")
	if kinds, err := s.PinnedKinds(ctx); err != nil || kinds != nil {
		t.Fatalf("cleared, after reopen: %v %v", kinds, err)
	}
	if sh := recall(s, goldfish.RecallOptions{}); sh.Rows != 1 {
		t.Fatalf("cleared:\n%s", sh.Text)
	}
}

func TestPinnedKindsAcrossReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pinned.gf")
	pinnedAcrossReopen(t, func() *goldfish.DB {
		db, err := goldfish.Open(goldfish.WithCabinet(path))
		if err != nil {
			t.Fatal(err)
		}
		return db
	})
}

func TestPostgresPinnedKindsAcrossReopen(t *testing.T) {
	url, schema := pgSchema(t)
	pinnedAcrossReopen(t, func() *goldfish.DB { return openPG(t, url, schema, postgres.Options{}) })
}

// TestPinnedKindsRefused: too many kinds, an empty one and the catalogue
// are refused, each with its code and a hint.
func TestPinnedKindsRefused(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := mustSession(t, db, "work")
	many := make([]string, goldfish.MaxPinnedKinds+1)
	for i := range many {
		many[i] = string(rune('A' + i))
	}
	cat := mustSession(t, db, goldfish.CatalogName)
	for _, c := range []struct {
		name  string
		s     *goldfish.Session
		kinds []string
		code  goldfish.Code
	}{
		{"too many", s, many, goldfish.CodeInvalidOption},
		{"empty kind", s, []string{"LAW", ""}, goldfish.CodeInvalidOption},
		{"too long", s, []string{strings.Repeat("K", 129)}, goldfish.CodeInvalidOption},
		{"catalogue", cat, []string{"SESSION"}, goldfish.CodeReadOnlySession},
	} {
		var ge *goldfish.Error
		if err := c.s.SetPinnedKinds(ctx, c.kinds); !errors.As(err, &ge) || ge.Code != c.code || ge.Hint == "" {
			t.Errorf("%s: %v, want %s with a hint", c.name, err, c.code)
		}
	}
	if kinds, _ := s.PinnedKinds(ctx); kinds != nil {
		t.Errorf("a refusal changed the kinds: %v", kinds)
	}
	if got := goldfish.ParseKinds(" LAW, ,RULE "); !slices.Equal(got, []string{"LAW", "RULE"}) {
		t.Errorf("ParseKinds: %v", got)
	}
}
