package exec

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/parser"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/shapewalk"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// seedsOf runs the seed step of a Recall of token q with LIMIT limit.
func seedsOf(t *rapid.T, snap *store.Snapshot, q string, limit int) seeds {
	script, err := parser.Parse(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	plan, err := planner.Build(script)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	x := &executor{plan: plan}
	x.meter.start(context.Background(), "Recall", 0)
	st := plan.Stmts[0]
	found, err := x.seed(snap, st, st.Recall, limit, true)
	if err != nil {
		t.Fatalf("%s LIMIT %d: %v", q, limit, err)
	}
	return found
}

// seedValue is a value a property or a token may hold, with its literal.
type seedValue struct {
	lit string
	v   values.Value
}

var seedValues = []seedValue{
	{"1500", values.Int(1500)}, {"1500.0", values.Float(1500)}, {"7", values.Int(7)},
	{"7.5", values.Float(7.5)}, {`"1500"`, values.String("1500")}, {"-0.0", values.Float(0)}, {"0", values.Int(0)},
}

// numEqual is GQL's = on the values above: numbers by value, else exact.
func numEqual(a, b values.Value) bool {
	num := func(v values.Value) (float64, bool) {
		switch v.Kind() {
		case values.KindInt:
			return float64(v.AsInt()), true
		case values.KindFloat:
			return v.AsFloat(), true
		}
		return 0, false
	}
	x, xok := num(a)
	y, yok := num(b)
	if xok && yok {
		return x == y
	}
	return a.Equal(b)
}

// seedPattern is one node pattern of a drawn token and the test a
// matching node passes, written apart from the engine's matcher.
type seedPattern struct {
	text  string
	where string
	match func(n *store.Node) bool
}

// TestRapidSeedsCanonicalPrefix: the seeds of LIMIT n are the first n of
// all the token's matches in canonical order (shapewalk.Sort over every
// match, found by brute force), so they are also a prefix of the seeds of
// LIMIT n+1, whatever the index scans that find them (an integer and its
// float twin live under different keys of the property index; keyword and
// label scans are single). Below MatchCountWork, the count of what the
// token matched is the brute-force count, however few seeds were taken.
func TestRapidSeedsCanonicalPrefix(t *testing.T) {
	kinds := []string{"A", "B", "C"}
	rapid.Check(t, func(t *rapid.T) {
		g := store.New()
		tx := g.Begin()
		var ids []store.ID
		for i := range rapid.IntRange(1, 24).Draw(t, "nodes") {
			labels := []string{rapid.SampledFrom(kinds).Draw(t, "kind")}
			if rapid.IntRange(0, 3).Draw(t, "extra") == 0 {
				labels = append(labels, "X")
			}
			props := map[string]values.Value{}
			if rapid.IntRange(0, 4).Draw(t, "hasF") > 0 {
				props["f"] = rapid.SampledFrom(seedValues).Draw(t, "f").v
			}
			if rapid.Bool().Draw(t, "hasG") {
				props["g"] = values.Int(int64(rapid.IntRange(0, 1).Draw(t, "g")))
			}
			if rapid.IntRange(0, 5).Draw(t, "hasText") == 0 {
				props["text"] = values.String(fmt.Sprintf("word%d", i%2))
			}
			n, err := tx.InsertNode(tx.NewID(), labels, values.MakeProps(props))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, n.ID)
		}
		// Edges tell look-alike nodes apart (the WL tie-break).
		for range rapid.IntRange(0, 12).Draw(t, "edges") {
			from, to := rapid.SampledFrom(ids).Draw(t, "from"), rapid.SampledFrom(ids).Draw(t, "to")
			if _, err := tx.InsertEdge(tx.NewID(), "rel", from, to, nil); err != nil {
				t.Fatal(err)
			}
		}
		if rapid.Bool().Draw(t, "recycle") {
			_ = tx.RecycleNode(rapid.SampledFrom(ids).Draw(t, "recycled"))
		}
		snap := tx.Commit()

		var pats []seedPattern
		for i := range rapid.IntRange(1, 2).Draw(t, "patterns") {
			v := fmt.Sprintf("n%d", i)
			val := rapid.SampledFrom(seedValues).Draw(t, "value")
			kind := rapid.SampledFrom(kinds).Draw(t, "label")
			hasF := func(n *store.Node) bool {
				f, ok := n.Props.Get("f")
				return ok && numEqual(f, val.v)
			}
			switch rapid.IntRange(0, 5).Draw(t, "form") {
			case 0:
				pats = append(pats, seedPattern{text: fmt.Sprintf("(%s {f: %s})", v, val.lit), match: hasF})
			case 1:
				pats = append(pats, seedPattern{text: fmt.Sprintf("(%s:%s {f: %s})", v, kind, val.lit),
					match: func(n *store.Node) bool { return n.HasLabel(kind) && hasF(n) }})
			case 2:
				pats = append(pats, seedPattern{text: fmt.Sprintf("(%s)", v), where: fmt.Sprintf("%s.f = %s", v, val.lit), match: hasF})
			case 3:
				pats = append(pats, seedPattern{text: fmt.Sprintf("(%s:%s)", v, kind), match: func(n *store.Node) bool { return n.HasLabel(kind) }})
			case 4:
				pats = append(pats, seedPattern{text: fmt.Sprintf("(%s {f: %s, g: 1})", v, val.lit),
					match: func(n *store.Node) bool {
						g, ok := n.Props.Get("g")
						return hasF(n) && ok && g.Equal(values.Int(1))
					}})
			default:
				pats = append(pats, seedPattern{text: fmt.Sprintf("(%s)", v), where: fmt.Sprintf("%s CONTAINS 'word1'", v),
					match: func(n *store.Node) bool { return planner.Keyword(n.Props, "word1") }})
			}
		}
		q := "MATCH "
		var where string
		for i, p := range pats {
			if i > 0 {
				q += ", "
			}
			q += p.text
			if p.where != "" {
				if where != "" {
					where += " AND "
				}
				where += p.where
			}
		}
		if where != "" {
			q += " WHERE " + where
		}

		var all []*store.Node
		snap.ScanNodes(func(n *store.Node) bool {
			for _, p := range pats {
				if p.match(n) {
					all = append(all, n)
					break
				}
			}
			return true
		})
		shapewalk.Sort(snap, all)

		prev := seedsOf(t, snap, q, 0).nodes
		for limit := 1; limit <= 6; limit++ {
			found := seedsOf(t, snap, q, limit)
			got := found.nodes
			if found.matched != len(all) || found.more {
				t.Fatalf("%s LIMIT %d: matched %d (more %v), want %d (brute force)", q, limit, found.matched, found.more, len(all))
			}
			// And the Shape's header says it, when it is more than the seeds.
			if limit == 3 {
				headerSaysMatched(t, snap, q, limit, len(all))
			}
			want := all[:min(limit, len(all))]
			if !sameNodes(got, want) {
				t.Fatalf("%s LIMIT %d: seeds %s, want the first %d of all matches in canonical order: %s",
					q, limit, nodeList(got), len(want), nodeList(want))
			}
			if !sameNodes(prev, got[:min(len(prev), len(got))]) {
				t.Fatalf("%s: LIMIT %d seeds %s are not a prefix of LIMIT %d seeds %s",
					q, limit-1, nodeList(prev), limit, nodeList(got))
			}
			prev = got
		}
	})
}

// headerSaysMatched recalls q with L = limit and checks the header's
// matched=N against the brute-force count want.
func headerSaysMatched(t *rapid.T, snap *store.Snapshot, q string, limit, want int) {
	script, err := parser.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := planner.Build(script)
	if err != nil {
		t.Fatal(err)
	}
	sh, err := Recall(context.Background(), snap, plan, nil, RecallOptions{RecallOptions: values.RecallOptions{M: 50, K: 1, L: limit, F: 8, NoPeaks: true}})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	text, _, _, _ := sh.Compose(nil, 0, true)
	head := text[:strings.IndexByte(text, '\n')]
	tag := fmt.Sprintf(" matched=%d ", want)
	if has := strings.Contains(head, " matched="); has != (want > sh.Seeds) || has && !strings.Contains(head, tag) {
		t.Fatalf("%s L=%d: header %q, brute force %d matches", q, limit, head, want)
	}
}

func sameNodes(a, b []*store.Node) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID {
			return false
		}
	}
	return true
}

func nodeList(ns []*store.Node) string {
	s := "["
	for i, n := range ns {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%d%v%s", n.ID, n.Labels, n.Props.Literal())
	}
	return s + "]"
}
