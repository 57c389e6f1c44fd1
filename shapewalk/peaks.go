package shapewalk

import (
	"bytes"
	"cmp"
	"context"
	"slices"

	"github.com/goldfish-gql/goldfish/store"
)

// Peaks returns Peak_L (docs/design.md#seeds): ρ*(v) is the number of live edges of v
// whose type is not hierarchical (a self-loop counts once); v is a peak
// when ρ*(v) ≥ 1 and no neighbour of the same kind over a non-hierarchical
// edge has a larger ρ*. The result is the L largest peaks, ties in
// canonical order. h nil means DefaultHierarchy.
//
// Cost: O(N + E) over the whole snapshot (two edge scans); it is the last
// resort cue, so callers should cache it per (session, version).
func Peaks(snap *store.Snapshot, L int, h Hierarchy) []*store.Node {
	nodes, _ := PeaksContext(context.Background(), snap, L, h)
	return nodes
}

// peaksCheckEvery is how many nodes or edges Peaks scans between two looks
// at its context.
const peaksCheckEvery = 4096

// PeaksContext is Peaks that stops when ctx is done, returning the
// context's error: its scans cover the whole session.
func PeaksContext(ctx context.Context, snap *store.Snapshot, L int, h Hierarchy) ([]*store.Node, error) {
	if L <= 0 || snap.NodeCount() == 0 {
		return nil, nil
	}
	if h == nil {
		h = DefaultHierarchy
	}
	var done <-chan struct{}
	if ctx != nil {
		done = ctx.Done()
	}
	ticks, stopped := 0, false
	interrupted := func() bool {
		if done == nil {
			return false
		}
		if ticks++; ticks%peaksCheckEvery == 1 {
			select {
			case <-done:
				stopped = true
			default:
			}
		}
		return stopped
	}
	nodes := make([]*store.Node, 0, snap.NodeCount())
	pos := make(map[store.ID]int32, snap.NodeCount())
	snap.ScanNodes(func(n *store.Node) bool {
		pos[n.ID] = int32(len(nodes))
		nodes = append(nodes, n)
		return !interrupted()
	})
	hier := map[string]bool{}
	isHier := func(t string) bool {
		v, ok := hier[t]
		if !ok {
			v = h(t)
			hier[t] = v
		}
		return v
	}
	rho := make([]int32, len(nodes))
	snap.ScanEdges(func(e *store.Edge) bool {
		if stopped || interrupted() {
			return false
		}
		if isHier(e.Type) {
			return true
		}
		f, ok1 := pos[e.From]
		t, ok2 := pos[e.To]
		if !ok1 || !ok2 {
			return true
		}
		rho[f]++
		if t != f {
			rho[t]++
		}
		return true
	})
	notPeak := make([]bool, len(nodes))
	snap.ScanEdges(func(e *store.Edge) bool {
		if stopped || interrupted() {
			return false
		}
		if isHier(e.Type) {
			return true
		}
		f, ok1 := pos[e.From]
		t, ok2 := pos[e.To]
		if !ok1 || !ok2 || f == t || nodes[f].Kind() != nodes[t].Kind() {
			return true
		}
		switch {
		case rho[f] < rho[t]:
			notPeak[f] = true
		case rho[t] < rho[f]:
			notPeak[t] = true
		}
		return true
	})
	if stopped {
		return nil, ctx.Err()
	}
	var cands []int32
	for i := range nodes {
		if rho[i] >= 1 && !notPeak[i] {
			cands = append(cands, int32(i))
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	// rho descending, then store order (observable key; ties by id, fixed below).
	slices.SortFunc(cands, func(a, b int32) int {
		if c := cmp.Compare(rho[b], rho[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	k := min(L, len(cands))
	keyOf := func(i int32) []byte { return appendObsKey(nil, nodes[i]) }
	lastKey := keyOf(cands[k-1])
	j := k
	for j < len(cands) && rho[cands[j]] == rho[cands[k-1]] && bytes.Equal(keyOf(cands[j]), lastKey) {
		j++
	}
	ents := make([]sortEnt, j)
	for i := 0; i < j; i++ {
		ents[i] = sortEnt{n: nodes[cands[i]], key: keyOf(cands[i])}
	}
	// Break (rho, observables) ties by WL signature.
	w := &wl{snap: snap}
	for a := 0; a < j; {
		b := a + 1
		for b < j && rho[cands[b]] == rho[cands[a]] && bytes.Equal(ents[b].key, ents[a].key) {
			b++
		}
		if b-a > 1 {
			sortEnts(snap, ents[a:b], w, nil)
		}
		a = b
	}
	out := make([]*store.Node, k)
	for i := range out {
		out[i] = ents[i].n
	}
	return out, nil
}
