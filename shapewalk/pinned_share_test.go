package shapewalk

import (
	"fmt"
	"testing"
)

// TestPinnedShare: the pinned kinds' nodes besides the seeds are at most
// PinnedShare(M) = max(1, ⌊M/4⌋), and at most M − seeds; a seed of a
// pinned kind is in the Shape once and takes none of the share.
func TestPinnedShare(t *testing.T) {
	for m, want := range map[int]int{1: 1, 3: 1, 4: 1, 8: 2, 50: 12, 200: 50} {
		if got := PinnedShare(m); got != want {
			t.Errorf("PinnedShare(%d) = %d, want %d", m, got, want)
		}
	}
	// Ten LAW nodes and one T node linked to the first LAW.
	var s gspec
	for i := range 10 {
		s.Nodes = append(s.Nodes, N("LAW", "t", fmt.Sprintf("l%02d", i)))
	}
	s.Nodes = append(s.Nodes, N("T", "v", 1))
	s.Edges = []gedge{E(10, "r", 0)}
	b := build(t, s, nil, nil)
	pinnedCount := func(sh *Shape) (pinned, total int) { return sh.Pinned, len(sh.Nodes) }

	// M=50: 12 LAW nodes would fit the share, 10 exist: all of them.
	sh := Walk(b.snap, b.nodes(10), Options{K: 1, M: 50, Pinned: []string{"LAW"}})
	if p, n := pinnedCount(sh); p != 10 || n != 11 || sh.Truncated {
		t.Errorf("M=50: %d pinned of %d nodes, truncated %v", p, n, sh.Truncated)
	}
	// M=16: a share of 4, and the Shape says nothing was cut by M.
	sh = Walk(b.snap, b.nodes(10), Options{K: 1, M: 16, Pinned: []string{"LAW"}})
	if p, n := pinnedCount(sh); p != 4 || sh.Truncated {
		t.Errorf("M=16: %d pinned of %d nodes, truncated %v; want 4", p, n, sh.Truncated)
	}
	// The first in canonical order: l00 … l03.
	for i := range 4 {
		if sh.Nodes[i].ID != b.nodes(i)[0].ID {
			t.Errorf("M=16: pinned node %d is not l%02d", i, i)
		}
	}
	// A seed of the pinned kind takes none of the share: four other LAW
	// nodes are still shown, and the seed once: among the pinned nodes
	// when it is among the first (l00), after them when not (l09).
	// (l00's walk adds T, its neighbour.)
	for _, c := range []struct{ seed, pinned, nodes int }{{0, 5, 6}, {9, 4, 5}} {
		sh = Walk(b.snap, b.nodes(c.seed), Options{K: 1, M: 16, Pinned: []string{"LAW"}})
		seen := map[any]int{}
		for _, n := range sh.Nodes {
			seen[n.ID]++
		}
		if sh.Pinned != c.pinned || seen[b.nodes(c.seed)[0].ID] != 1 || len(sh.Nodes) != c.nodes {
			t.Errorf("seed l%02d: %d pinned, %d nodes, the seed %d times; want %d, %d, once",
				c.seed, sh.Pinned, len(sh.Nodes), seen[b.nodes(c.seed)[0].ID], c.pinned, c.nodes)
		}
	}
	// M − seeds bounds the share: M=2 with one seed leaves one row.
	sh = Walk(b.snap, b.nodes(10), Options{K: 1, M: 2, Pinned: []string{"LAW"}})
	if p, n := pinnedCount(sh); p != 1 || n != 2 || !sh.Truncated {
		t.Errorf("M=2: %d pinned of %d nodes, truncated %v", p, n, sh.Truncated)
	}
}
