package shapewalk

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// TestSortEdgesPackedKey: the packed integer key orders edges exactly as
// comparing the order's fields one by one (the path taken when the
// fields and index do not fit one integer).
func TestSortEdgesPackedKey(t *testing.T) {
	types := []string{"calls", "about", "contains", "a", "zz"}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 30).Draw(t, "n")
		var ents []closeEnt
		for i := range n {
			ents = append(ents, closeEnt{
				e:   &store.Edge{ID: store.ID(i + 1), Props: values.MakeProps(map[string]values.Value{"w": values.Int(int64(rapid.IntRange(0, 2).Draw(t, "w")))})},
				typ: rapid.SampledFrom(types).Draw(t, "typ"),
				pf:  int32(rapid.IntRange(0, 9).Draw(t, "pf")),
				pt:  int32(rapid.IntRange(0, 9).Draw(t, "pt")),
			})
		}
		closing := func(c *closeEnt, rank uint32) [4]uint32 {
			return [4]uint32{uint32(min(c.pf, c.pt)), uint32(max(c.pf, c.pt)), rank, uint32(c.pf)}
		}
		packed, wide := slices.Clone(ents), slices.Clone(ents)
		w := &walker{nodes: make([]*store.Node, 10)}
		w.sortEdges(packed, closing)
		w.wideSort = true
		w.sortEdges(wide, closing)
		for i := range packed {
			if packed[i].e != wide[i].e {
				t.Fatalf("position %d: packed key gives edge %d, field order gives %d", i, packed[i].e.ID, wide[i].e.ID)
			}
		}
		// And the packed order is by type name, not by first appearance.
		for i := 1; i < len(packed); i++ {
			a, b := packed[i-1], packed[i]
			if min(a.pf, a.pt) == min(b.pf, b.pt) && max(a.pf, a.pt) == max(b.pf, b.pt) && a.typ > b.typ {
				t.Fatalf("types out of order at %d: %q before %q", i, a.typ, b.typ)
			}
		}
	})
}
