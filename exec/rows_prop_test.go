package exec

import (
	"context"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// TestRapidRowsRenderTheText: the INSERT a Shape's text ends with is, byte
// for byte, the GQL rendering of its rows (values.Shape.AppendInsert),
// whatever the graph, the token and the budgets: trimmed by T, elided
// seeds, view=shell, clamps, pinned kinds, the outline. The text is
// written from the records' kept renderings for speed; every other
// surface reads the rows, so the two must never tell a reader different
// things. It also checks what the rows say of themselves: Rows counts
// them, a seed is at hop 0, an edge's ends are in the Shape, a clamp's
// count is on its node, and BetweenSeeds joins two seeds.
func TestRapidRowsRenderTheText(t *testing.T) {
	kinds := []string{"TSK", "MOD", "Note", "x-y", "A1"}
	types := []string{"touches", "contains", "has note"}
	long := strings.Repeat("a long observation that a small token target elides ", 4)
	vals := []values.Value{values.String("a"), values.String(long), values.String("quote \" and \\ slash\nline"), values.Int(-7),
		values.Float(2.5), values.Bool(true), values.DateValue("2026-11-30"), values.List(values.String("x"), values.Int(1))}
	keys := []string{"name", "title", "w", "obs", "loc"}
	tokens := []string{"MATCH (n:TSK)", "MATCH (n:MOD)", "MATCH (n) WHERE n CONTAINS 'a'", "MATCH ()", "MATCH (n:Nope)", "MATCH (n:Note) LIMIT 1"}
	rapid.Check(t, func(t *rapid.T) {
		g := store.New()
		tx := g.Begin()
		var ids []store.ID
		for i := range rapid.IntRange(1, 20).Draw(t, "nodes") {
			m := map[string]values.Value{}
			for range rapid.IntRange(0, 4).Draw(t, "props") {
				m[rapid.SampledFrom(keys).Draw(t, "key")] = rapid.SampledFrom(vals).Draw(t, "value")
			}
			if rapid.Bool().Draw(t, "nick") {
				m["nick"] = values.String("n" + string(rune('a'+i)))
			}
			labels := []string{rapid.SampledFrom(kinds).Draw(t, "kind")}
			if rapid.IntRange(0, 3).Draw(t, "extra") == 0 {
				labels = append(labels, "Settled", "Hot")
			}
			if _, taken := m["loc"]; taken {
				m["loc"] = values.String("f" + string(rune('a'+i)) + ".go") // a locator names one node
			}
			n, err := tx.InsertNode(tx.NewID(), labels, values.MakeProps(m))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, n.ID)
		}
		for range rapid.IntRange(0, 40).Draw(t, "edges") {
			var props values.Props
			if rapid.IntRange(0, 4).Draw(t, "eprops") == 0 {
				props = values.MakeProps(map[string]values.Value{"w": rapid.SampledFrom(vals).Draw(t, "ev"), "title": values.String("t")})
			}
			_, _ = tx.InsertEdge(tx.NewID(), rapid.SampledFrom(types).Draw(t, "type"), rapid.SampledFrom(ids).Draw(t, "from"),
				rapid.SampledFrom(ids).Draw(t, "to"), props)
		}
		snap := tx.Commit()
		o := values.RecallOptions{M: rapid.IntRange(1, 60).Draw(t, "M"), K: rapid.IntRange(0, 3).Draw(t, "K"),
			L: rapid.IntRange(1, 6).Draw(t, "L"), F: rapid.IntRange(1, 8).Draw(t, "F"),
			T: rapid.SampledFrom([]int{0, 20, 60, 200, 4000}).Draw(t, "T"), View: rapid.SampledFrom([]string{values.ViewInterior, values.ViewShell}).Draw(t, "view")}
		if rapid.IntRange(0, 3).Draw(t, "pin") == 0 {
			o.Pinned = []string{rapid.SampledFrom(kinds).Draw(t, "pinned")}
		}
		q := rapid.SampledFrom(tokens).Draw(t, "q")
		plan, err := planText(q)
		if err != nil {
			t.Fatal(err)
		}
		sh, err := Recall(context.Background(), snap, plan, nil, RecallOptions{RecallOptions: o, MaxL: 32, Session: "s"})
		if err != nil {
			t.Fatal(err)
		}
		text := sh.rest[sh.notesLen:]
		if got := string(sh.AppendInsert(nil)); got != text {
			t.Fatalf("%s %+v: the rows render\n%s\nthe text writes\n%s", q, o, got, text)
		}
		if sh.Rows != len(sh.Nodes())+len(sh.Edges()) {
			t.Fatalf("Rows %d, %d node and %d edge rows", sh.Rows, len(sh.Nodes()), len(sh.Edges()))
		}
		seeds, clamped := 0, 0
		for _, n := range sh.Nodes() {
			if n.Seed != (n.Hop == 0) {
				t.Fatalf("node %s: seed %v at hop %d", n.Var, n.Seed, n.Hop)
			}
			if n.Seed {
				seeds++
			}
			clamped += n.More
		}
		total := 0
		for _, c := range sh.Clamps {
			total += clampCount(c)
		}
		if clamped != total {
			t.Fatalf("the rows hold %d clamped neighbours, the notes %d", clamped, total)
		}
		if seeds > sh.Seeds || (!sh.Truncated && seeds != sh.Seeds) {
			t.Fatalf("%d seed rows, the header says seeds=%d", seeds, sh.Seeds)
		}
		for _, e := range sh.Edges() {
			if e.BetweenSeeds != (sh.Nodes()[e.From].Seed && sh.Nodes()[e.To].Seed) {
				t.Fatalf("edge %+v: BetweenSeeds %v", e, e.BetweenSeeds)
			}
		}
	})
}

// clampCount reads N of a clamp note "clamp: v has N more neighbours …".
func clampCount(note string) int {
	_, rest, _ := strings.Cut(note, " has ")
	n := 0
	for _, c := range rest {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}
