package engine

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/values"
	"pgregory.net/rapid"
)

// The property tests of slice.go: a slice absorbed with keep recalls the same.

// sliceGraph draws a small graph as one INSERT: every node has a nick of
// its own when nicks is set, and no node more than six incident edges,
// so no Recall with F ≥ 6 clamps, and the whole graph (at most 12 nodes
// and 20 edges) is under M=50 rows, so none is cut. It returns the text
// and each node's kind and nick.
func sliceGraph(t *rapid.T, nicks bool) (text string, kinds, names []string) {
	n := rapid.IntRange(1, 12).Draw(t, "nodes")
	var parts []string
	for i := 0; i < n; i++ {
		kind := rapid.SampledFrom([]string{"TSK", "MOD", "NOTE"}).Draw(t, "kind")
		v := rapid.IntRange(0, 2).Draw(t, "v")
		kinds = append(kinds, kind)
		if nicks {
			names = append(names, fmt.Sprintf("%s_%d", strings.ToLower(kind), i))
			parts = append(parts, fmt.Sprintf(`(n%d:%s {nick: "%s", v: %d})`, i, kind, names[i], v))
		} else {
			parts = append(parts, fmt.Sprintf(`(n%d:%s {v: %d, i: %d})`, i, kind, v, i))
		}
	}
	degree := make([]int, n)
	for i, m := 0, rapid.IntRange(0, 20).Draw(t, "edges"); i < m; i++ {
		from, to := rapid.IntRange(0, n-1).Draw(t, "from"), rapid.IntRange(0, n-1).Draw(t, "to")
		if degree[from] >= 5 || degree[to] >= 5 {
			continue
		}
		degree[from]++
		degree[to]++
		typ := rapid.SampledFrom([]string{"touches", "refs"}).Draw(t, "type")
		props := ""
		if rapid.Bool().Draw(t, "weighted") {
			props = fmt.Sprintf(" {w: %d}", rapid.IntRange(0, 3).Draw(t, "w"))
		}
		parts = append(parts, fmt.Sprintf("(n%d)-[:%s%s]->(n%d)", from, typ, props, to))
	}
	return "INSERT " + strings.Join(parts, ",\n  "), kinds, names
}

// withoutSession drops the session's name from a Shape's header, which is
// all that may differ between two sessions holding the same graph at the
// same version.
var sessionField = regexp.MustCompile(`^// goldfish session=\S+ `)

func withoutSession(text string) string {
	return sessionField.ReplaceAllString(text, "// goldfish session=_ ")
}

// TestSliceKeepRecallsTheSame: a slice of A around the seeds of q,
// absorbed with keep into an empty B, holds everything A's Recall of q
// reads: B's Recall of q is A's, byte for byte but for the session's name
// in the header. The graph's nodes have distinct observables (nicks), so
// the canonical order needs no structure from outside the slice, and no
// walk is clamped or cut, so the slice holds each anchor's whole
// neighbourhood (a walk cut by M or F, in A, would have counted
// neighbours the slice leaves out).
func TestSliceKeepRecallsTheSame(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ctx := context.Background()
		text, kinds, names := sliceGraph(t, true)
		db, _ := openTest()
		defer db.Close()
		a, _ := db.Session(ctx, "a")
		if _, err := a.commitText(ctx, text, nil); err != nil {
			t.Fatalf("building A: %v", err)
		}
		i := rapid.IntRange(0, len(names)-1).Draw(t, "node")
		q := rapid.SampledFrom([]string{
			fmt.Sprintf(`MATCH (n {nick: "%s"})`, names[i]),
			fmt.Sprintf(`MATCH (n:%s)`, kinds[i]),
			fmt.Sprintf(`MATCH (n:%s) WHERE n.v >= 1 OR n.nick = "%s" LIMIT 2`, kinds[i], names[i]),
			fmt.Sprintf(`MATCH (n:%s), (m {nick: "%s"}) LIMIT 3`, kinds[len(kinds)-1], names[0]),
		}).Draw(t, "q")
		k := rapid.IntRange(1, 3).Draw(t, "k")
		l := rapid.IntRange(1, 4).Draw(t, "L")
		sl, err := a.ExportSlice(ctx, q, values.SliceOptions{K: k, L: l})
		if err != nil {
			t.Fatalf("ExportSlice: %v", err)
		}
		b, _ := db.Session(ctx, "b")
		res, err := b.absorb(ctx, sl.Text, values.AbsorbKeep)
		if err != nil {
			t.Fatalf("Absorb: %v\n%s", err, sl.Text)
		}
		if !res.Applied || len(res.Skipped) > 0 || res.Version != a.Version() {
			t.Fatalf("Absorb into an empty session: %+v", res)
		}
		ro := values.RecallOptions{K: k, L: l}
		ra, err := a.recallShape(ctx, q, ro)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := b.recallShape(ctx, q, ro)
		if err != nil {
			t.Fatal(err)
		}
		if ra.Truncated || len(ra.Clamps) > 0 {
			t.Fatalf("the graph was drawn so no walk is cut or clamped:\n%s", ra.Text)
		}
		got, want := withoutSession(rb.Text), withoutSession(ra.Text)
		if ra.Matched > 0 {
			// A's token matched more than its seeds; B holds only what the
			// slice carried, so the headers differ in what was left out, and
			// the Shapes' bodies must agree.
			got, want = got[strings.Index(got, "\nINSERT"):], want[strings.Index(want, "\nINSERT"):]
		}
		if got != want {
			t.Fatalf("B's Recall differs from A's:\n%s\nwant\n%s\nslice:\n%s", got, want, sl.Text)
		}
		// And the slice of B is the slice of A, ids and all.
		again, err := b.ExportSlice(ctx, q, values.SliceOptions{K: k, L: l})
		if err != nil {
			t.Fatal(err)
		}
		cut := func(s string) string { return s[strings.Index(s, "\n"):] }
		if cut(again.Text) != cut(sl.Text) {
			t.Fatalf("B's slice differs from A's:\n%s\nwant\n%s", again.Text, sl.Text)
		}
	})
}

var sliceVar = regexp.MustCompile(`_([0-9]+)$`)

// TestSliceRemintDisjoint: two remint absorbs of one slice give their
// elements ids no element of the other has, and each copy is whole: the
// session holds the slice's nodes and edges twice over.
func TestSliceRemintDisjoint(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ctx := context.Background()
		text, kinds, _ := sliceGraph(t, false)
		db, _ := openTest()
		defer db.Close()
		a, _ := db.Session(ctx, "a")
		if _, err := a.commitText(ctx, text, nil); err != nil {
			t.Fatalf("building A: %v", err)
		}
		q := fmt.Sprintf(`MATCH (n:%s)`, rapid.SampledFrom(kinds).Draw(t, "kind"))
		sl, err := a.ExportSlice(ctx, q, values.SliceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := db.Session(ctx, "b")
		if rapid.Bool().Draw(t, "b holds a itself") {
			if _, err := b.absorb(ctx, sl.Text, values.AbsorbKeep); err != nil {
				t.Fatal(err)
			}
		}
		nodes0, edges0 := counts(b)
		seen := map[string]int{}
		for copy := 1; copy <= 2; copy++ {
			res, err := b.absorb(ctx, sl.Text, values.AbsorbRemint)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Reminted) != sl.Rows || len(res.Skipped) > 0 {
				t.Fatalf("copy %d: %d reminted, %d skipped, of %d rows", copy, len(res.Reminted), len(res.Skipped), sl.Rows)
			}
			for _, to := range res.Reminted {
				id := sliceVar.FindStringSubmatch(to)[1]
				if c, ok := seen[id]; ok {
					t.Fatalf("id %s given by copy %d and copy %d", id, c, copy)
				}
				seen[id] = copy
			}
		}
		if nodes, edges := counts(b); nodes != nodes0+2*sl.Nodes || edges != edges0+2*sl.Edges {
			t.Fatalf("after two copies of %d nodes and %d edges: %d nodes, %d edges (from %d, %d)", sl.Nodes, sl.Edges, nodes, edges, nodes0, edges0)
		}
	})
}

func counts(s *Session) (nodes, edges int) {
	var recycled int
	line := strings.SplitN(s.Dump(), "\n", 3)[1]
	fmt.Sscanf(line, "nodes %d, edges %d, recycled %d", &nodes, &edges, &recycled)
	return nodes, edges
}
