package values_test

import (
	"context"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestControlNamesRoundTrip: names holding control characters show none
// raw in a Shape, a dump or a diff, and the Shape's INSERT and the diff
// from the empty graph committed again on a fresh session make the same
// graph.
func TestControlNamesRoundTrip(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src, _ := db.Session(ctx, "src")
	// The names are typed raw once, and once as the escapes a Shape writes.
	if _, err := src.Commit(ctx, "INSERT (a:`\x1b[2J`:`x\x00y` {nick: 'a', `k\u009b\u0085`: '\x1b]0;t\x07', `C:\\u005Cu0041`: 1})"+
		"-[:`\x07bell` {`\t`: 2}]->(b:`\\u001B[1m` {nick: 'b'})", nil); err != nil {
		t.Fatal(err)
	}
	dump := src.Dump()
	sh, err := src.Recall(ctx, "MATCH (n {nick: 'a'})", goldfish.RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	diff, err := src.Diff(ctx, 0, src.Version(), goldfish.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{dump, sh.Text, diff.Text} {
		for _, c := range text {
			if (c < 0x20 && c != '\n') || (c >= 0x7f && c <= 0x9f) {
				t.Fatalf("%U raw in:\n%s", c, text)
			}
		}
	}
	_, insert, _ := strings.Cut(sh.Text, "\nINSERT")
	for i, text := range []string{"INSERT" + insert, diff.Text} {
		s, _ := db.Session(ctx, []string{"fromshape", "fromdiff"}[i])
		if _, err := s.Commit(ctx, text, nil); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if got := s.Dump(); got != dump {
			t.Errorf("%s committed again:\n%s\nwant:\n%s", text, got, dump)
		}
	}
}
