package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/parser"
)

// TestLogReplaysPastNewerBounds: a Δ logged when the parser accepted it
// replays after the pre-scan's bounds narrowed (a list's items), so a
// cabinet written before them still opens.
func TestLogReplaysPastNewerBounds(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.db")
	db, err := openTest(WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := db.Session(ctx, "old")
	list := "[" + strings.Repeat("1, ", 199) + "1]"
	if _, err := s.commitText(ctx, `INSERT (:A {nick: "a", v: `+list+`})`, nil); err != nil {
		t.Fatal(err)
	}
	db.Close() // no flush: the Δ is in the log only

	defer func(l parser.Limits) { parser.DefaultLimits = l }(parser.DefaultLimits)
	parser.DefaultLimits.MaxItems = 100
	if _, err := parser.Parse(`INSERT (:A {v: ` + list + `})`); err == nil {
		t.Fatal("the narrowed bound does not refuse the list")
	}
	db, err = openTest(WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err = db.Session(ctx, "old")
	if err != nil {
		t.Fatalf("a logged Δ over today's bounds does not replay: %v", err)
	}
	if n, ok := s.snapshot().NodeByNick("a"); !ok || len(n.Props) != 2 {
		t.Fatalf("replayed: %v %v", n, ok)
	}
}
