package engine

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
)

// TestDiffRefused: what a caller gets wrong is refused with its code,
// never a panic: versions out of order, not made, huge; the catalogue.
func TestDiffRefused(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest()
	s, _ := db.Session(ctx, "d")
	for _, q := range []string{`INSERT (:A {nick: "a"})`, `MATCH (a {nick: "a"}) SET a.v = 1`} {
		if _, err := s.commitText(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	cat, _ := db.Session(ctx, CatalogName)
	for _, c := range []struct {
		s        *Session
		from, to uint64
		code     gqlstatus.Code
	}{
		{s, 2, 1, gqlstatus.InvalidOption},
		{s, 0, 3, gqlstatus.VersionNotKept},
		{s, 1, math.MaxUint64, gqlstatus.VersionNotKept},
		{s, math.MaxUint64, math.MaxUint64, gqlstatus.VersionNotKept},
		{cat, 0, 1, gqlstatus.ReadOnlySession},
	} {
		_, err := c.s.Diff(ctx, c.from, c.to, values.DiffOptions{})
		if got := gqlstatus.CodeOf(err, ""); got != c.code {
			t.Errorf("Diff(%d, %d) on %s: %v, want %s", c.from, c.to, c.s.name, err, c.code)
		}
	}
	for _, v := range []uint64{0, 2} {
		if d, err := s.Diff(ctx, v, v, values.DiffOptions{}); err != nil || !d.Empty() {
			t.Errorf("Diff(%d, %d): %v %+v", v, v, err, d)
		}
	}
	if _, err := cat.History(ctx, "a", 0); gqlstatus.CodeOf(err, "") != gqlstatus.ReadOnlySession {
		t.Errorf("values.History of the catalogue: %v", err)
	}
}

// TestHistoryLimit: History lists the newest first, at most its limit,
// and says when there are more.
func TestHistoryLimit(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest()
	s, _ := db.Session(ctx, "h")
	if _, err := s.commitWith(ctx, `INSERT (:A {nick: "a", v: 0})`, nil, values.CommitOptions{Agent: "ana"}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 25; i++ {
		if _, err := s.commitWith(ctx, `MATCH (a {nick: "a"}) SET a.v = a.v + 1`, nil, values.CommitOptions{Agent: "bob"}); err != nil {
			t.Fatal(err)
		}
	}
	h, err := s.History(ctx, "a", 0)
	if err != nil || len(h.Entries) != DefaultHistory || !h.More || h.Entries[0].Version != 26 || h.Entries[0].Agent != "bob" {
		t.Fatalf("History: %v %+v", err, h)
	}
	h, err = s.History(ctx, "a", 100)
	if err != nil || len(h.Entries) != 26 || h.More || h.Entries[25].Agent != "ana" || !strings.Contains(h.Entries[25].Change.Text, "INSERT") {
		t.Fatalf("values.History limit 100: %v %+v", err, h)
	}
}
