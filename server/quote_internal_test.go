package server

import (
	"context"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestQuoteNameReadsBack: a kind or relation type the memory tools write
// into a Commit's text is read back as the same name, whatever it holds:
// a reserved word, a back-quote, a control character, a backslash before
// a u (which a quoted name would otherwise read as an escape).
func TestQuoteNameReadsBack(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, _ := db.Session(ctx, "q")
	for i, name := range []string{"person", "MATCH", "a b", "x`y", "e\x1b[2J", `a\u0041`, `C:\Users`, "é", "1st"} {
		if _, err := s.Commit(ctx, "INSERT (:"+quoteName(name)+" {nick: $n})", map[string]any{"n": name + string(rune('0'+i))}); err != nil {
			t.Errorf("%q written as %s: %v", name, quoteName(name), err)
			continue
		}
		n, _, ok, err := s.NodeByNick(ctx, name+string(rune('0'+i)))
		if err != nil || !ok || len(n.Labels) != 1 || n.Labels[0] != name {
			t.Errorf("%q written as %s reads back as %v (%v)", name, quoteName(name), n.Labels, err)
		}
	}
}
