package shapewalk

import "github.com/goldfish-gql/goldfish/store"

// KindOutline is one kind of the session outline.
type KindOutline struct {
	Kind      string
	Count     int
	Exemplars []*store.Node // first L live nodes of this kind in canonical order
}

// TypeCount is one edge type of the session outline.
type TypeCount struct {
	Type  string
	Count int
}

// Outline returns the cue outline for MATCH () (docs/design.md#seeds): live node count
// per kind and up to L exemplars per kind, and live edge count per type;
// kinds and types sorted by name. Cost: O(kinds·(log n + L) + types·log n)
// (plus signatures for exemplars tied on observables).
func Outline(snap *store.Snapshot, L int) ([]KindOutline, []TypeCount) {
	var kinds []KindOutline
	w := &wl{snap: snap}
	var (
		nodes       []*store.Node
		ents        []sortEnt
		arena, last []byte
		one         [1]string
	)
	for _, k := range snap.Kinds() {
		ko := KindOutline{Kind: k, Count: snap.KindCount(k)}
		if L > 0 {
			one[0] = k
			nodes, ents, arena, last, _ = firstOfKinds(snap, one[:], L, w, nil, nil, nodes, ents, arena, last)
			ko.Exemplars = append([]*store.Node(nil), nodes...)
		}
		kinds = append(kinds, ko)
	}
	var types []TypeCount
	for _, t := range snap.EdgeTypes() {
		types = append(types, TypeCount{Type: t, Count: snap.EdgeTypeCount(t)})
	}
	return kinds, types
}
