package golang_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/ingest/golang"
)

const rec = "example.com/recursive/rec."

// TestRecursiveCalls: a function that calls itself has a calls edge to
// itself, whether it calls itself by name, through its receiver or as a
// generic function; functions that call each other have an edge each way
// and none to themselves.
func TestRecursiveCalls(t *testing.T) {
	g, err := golang.LoadGraph("testdata/recursive", golang.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Stats.Resolve != golang.ModeTyped {
		t.Fatalf("resolve %q (%s)", g.Stats.Resolve, g.Stats.TypeNote)
	}
	want := []string{
		rec + "Depth -> " + rec + "Depth",
		rec + "Even -> " + rec + "odd",
		rec + "Fact -> " + rec + "Fact",
		rec + "Sum -> " + rec + "Depth",
		rec + "Sum -> " + rec + "Fact",
		rec + "Tree.Size -> " + rec + "Tree.Size",
		rec + "odd -> " + rec + "Even",
	}
	if got := edgesOf(g, "calls"); !slices.Equal(got, want) {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if g.Stats.Calls != len(want) {
		t.Errorf("stats count %d calls; want %d", g.Stats.Calls, len(want))
	}

	// By syntax only, a call of a package-level function by its name is
	// resolved, its own name too; a method's call through its receiver is
	// not.
	g, err = golang.LoadGraph("testdata/recursive", golang.Options{NoTypes: true})
	if err != nil {
		t.Fatal(err)
	}
	got := edgesOf(g, "calls")
	for _, self := range []string{"Fact", "Depth"} {
		if !slices.Contains(got, rec+self+" -> "+rec+self) {
			t.Errorf("syntax only: no self-loop on %s in %q", self, got)
		}
	}
	if slices.Contains(got, rec+"Tree.Size -> "+rec+"Tree.Size") {
		t.Errorf("syntax only resolved a call through a receiver: %q", got)
	}
}

// TestRecursiveIngest: ingested, the self-loop is one edge of the
// function's node (re-ingesting changes nothing), and a Recall of the
// function shows it as (fn1)-[:calls]->(fn1).
func TestRecursiveIngest(t *testing.T) {
	first, _, dump := ingestTwice(t, "testdata/recursive", golang.Options{})
	if first.Calls != 7 {
		t.Errorf("%d calls ingested; want 7", first.Calls)
	}
	fact := `(:FN {at: "rec/rec.go:5", doc: "Fact is n!: it calls itself.", loc: "` + rec + `Fact", name: "Fact", sig: "func Fact(n int) int"})`
	if !strings.Contains(dump, fact+"-[:calls]->"+fact) {
		t.Errorf("the dump lacks Fact's self-loop:\n%s", dump)
	}

	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session(ctx, "code")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := golang.IngestDir(ctx, s, "testdata/recursive", golang.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, fn := range []string{"Fact", "Tree.Size", "Depth"} {
		sh, err := s.Recall(ctx, `MATCH (f:FN {loc: $loc})`, goldfish.RecallOptions{Params: map[string]any{"loc": rec + fn}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(sh.Text, "(fn1)-[:calls]->(fn1)") || !strings.Contains(sh.Text, `(fn1:FN {`) ||
			!strings.Contains(sh.Text, `loc: "`+rec+fn+`"`) {
			t.Errorf("the Recall of %s lacks its self-loop:\n%s", fn, sh.Text)
		}
	}
	// Even and odd call each other: no self-loop.
	sh, err := s.Recall(ctx, `MATCH (f:FN {loc: $loc})`, goldfish.RecallOptions{Params: map[string]any{"loc": rec + "Even"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sh.Text, "(fn1)-[:calls]->(fn2)") || !strings.Contains(sh.Text, "(fn2)-[:calls]->(fn1)") ||
		strings.Contains(sh.Text, "(fn1)-[:calls]->(fn1)") {
		t.Errorf("the Recall of Even:\n%s", sh.Text)
	}
}
