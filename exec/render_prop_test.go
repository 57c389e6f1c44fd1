package exec

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/tokens"
	"github.com/goldfish-gql/goldfish/values"
)

// TestRapidKeptRenderings: an element's kept rendering is the rendering of
// its record, whatever commits come after it was made. Records are
// immutable once published (a write makes a new record: a node's with its
// own rendering, an edge's with none until first use), so every kept text
// must equal a fresh render of the record it hangs on, and its cost the
// estimate of that text.
func TestRapidKeptRenderings(t *testing.T) {
	labels := []string{"TSK", "MOD", "Note", "x-y"}
	keys := []string{"nick", "title", "w", "when"}
	vals := []values.Value{
		values.String("a"), values.String("Ä quote \" and \\ slash"), values.String("line\nbreak\x00"),
		values.String(""), values.Int(-7), values.Float(2.5), values.Bool(true), values.DateValue("2026-11-30"),
		values.List(values.String("in a list"), values.Int(1)),
	}
	genProps := func(t *rapid.T) values.Props {
		m := map[string]values.Value{}
		for range rapid.IntRange(0, 4).Draw(t, "props") {
			m[rapid.SampledFrom(keys).Draw(t, "key")] = rapid.SampledFrom(vals).Draw(t, "value")
		}
		return values.MakeProps(m)
	}
	rapid.Check(t, func(t *rapid.T) {
		g := store.New()
		var nodes []store.ID
		for range rapid.IntRange(1, 6).Draw(t, "commits") {
			tx := g.Begin()
			for range rapid.IntRange(1, 8).Draw(t, "writes") {
				op := rapid.IntRange(0, 4).Draw(t, "op")
				if len(nodes) == 0 {
					op = 0
				}
				switch op {
				case 0:
					ls := []string{rapid.SampledFrom(labels).Draw(t, "kind")}
					if n, err := tx.InsertNode(tx.NewID(), ls, genProps(t)); err == nil {
						nodes = append(nodes, n.ID)
					}
				case 1:
					_, _ = tx.SetProps(rapid.SampledFrom(nodes).Draw(t, "node"), genProps(t))
				case 2:
					_, _ = tx.SetLabels(rapid.SampledFrom(nodes).Draw(t, "node"), rapid.SliceOfN(rapid.SampledFrom(labels), 1, 3).Draw(t, "labels"))
				case 3:
					from, to := rapid.SampledFrom(nodes).Draw(t, "from"), rapid.SampledFrom(nodes).Draw(t, "to")
					_, _ = tx.InsertEdge(tx.NewID(), rapid.SampledFrom(labels).Draw(t, "type"), from, to, genProps(t))
				case 4:
					_ = tx.RecycleNode(rapid.SampledFrom(nodes).Draw(t, "node"))
				}
			}
			snap := tx.Commit()
			snap.ScanNodes(func(n *store.Node) bool {
				text, cost := n.Rendering()
				want := appendNodeText(nil, n, false)
				if text != string(want) || cost != tokens.Milli(want) {
					t.Fatalf("node %d keeps %q (cost %d), its record renders %q", n.ID, text, cost, want)
				}
				return true
			})
			snap.ScanEdges(func(e *store.Edge) bool {
				if r := e.Rendering(); r != nil {
					want := appendEdgeText(nil, e, false)
					if !bytes.Equal(r.Text, want) || r.Cost != tokens.Milli(want) {
						t.Fatalf("edge %d keeps %q, its record renders %q", e.ID, r.Text, want)
					}
				}
				// Every edge is written as its record renders, whether
				// from its type (no edge of the type has properties),
				// from the type's rendering or from its own.
				got, cost := appendEdge(nil, e, edgeTypeOf(snap, e.Type), false)
				if want := appendEdgeText(nil, e, false); !bytes.Equal(got, want) || cost != tokens.Milli(want) {
					t.Fatalf("edge %d written %q (cost %d), its record renders %q", e.ID, got, cost, want)
				}
				return true
			})
		}
	})
}
