package shapewalk

import (
	"testing"

	"github.com/goldfish-gql/goldfish/store"
)

func chainSpec() gspec {
	return gspec{
		Nodes: []gnode{N("T", "v", 0), N("T", "v", 1), N("T", "v", 2), N("T", "v", 3), N("T", "v", 4)},
		Edges: []gedge{E(0, "next", 1), E(1, "next", 2), E(2, "next", 3), E(3, "next", 4)},
	}
}

func clampSpec() gspec {
	s := gspec{Nodes: []gnode{N("H", "v", 0)}}
	for i := 1; i <= 5; i++ { // X{v:5} … X{v:1}: inserted against canonical order
		s.Nodes = append(s.Nodes, N("X", "v", 6-i))
		s.Edges = append(s.Edges, E(0, "x", i))
	}
	for i := 6; i <= 8; i++ {
		s.Nodes = append(s.Nodes, N("Y", "v", i))
		s.Edges = append(s.Edges, E(i, "y", 0))
	}
	return s
}

func starSpec(leaves int) gspec {
	s := gspec{Nodes: []gnode{N("S", "v", 0)}}
	for i := 1; i <= leaves; i++ {
		s.Nodes = append(s.Nodes, N("L", "v", i))
		s.Edges = append(s.Edges, E(0, "a", i))
	}
	return s
}

func triangleSpec() gspec {
	return gspec{
		Nodes: []gnode{N("A", "v", 0), N("A", "v", 1), N("A", "v", 2)},
		Edges: []gedge{E(0, "r", 1), E(0, "r", 2), E(1, "r", 2)},
	}
}

func pinnedSpec() gspec {
	return gspec{
		Nodes: []gnode{N("LAW", "t", "b"), N("LAW", "t", "a"), N("T", "v", 1), N("T", "v", 2), N("LAW", "t", "c")},
		Edges: []gedge{E(2, "r", 3), E(4, "g", 2)},
	}
}

func shellSpec() gspec {
	return gspec{
		Nodes: []gnode{N("PKG", "n", "p"), N("MOD", "n", "m"), N("NOTE", "n", "x"), N("FN", "n", "f")},
		Edges: []gedge{E(0, "CONTAINS", 1), E(1, "contains", 3), E(1, "refs", 2), E(2, "refs", 3)},
	}
}

func loopSpec() gspec {
	return gspec{
		Nodes: []gnode{N("A", "v", 0), N("B", "v", 1), N("B", "v", 2)},
		Edges: []gedge{E(0, "x", 0), E(0, "x", 1, "w", 2), E(0, "x", 1, "w", 1), E(0, "x", 2)},
	}
}

func twoStarsSpec() gspec {
	s := gspec{Nodes: []gnode{N("S", "v", 0), N("S", "v", 1)}}
	for i := 2; i < 22; i++ {
		s.Nodes = append(s.Nodes, N("L", "v", i))
		s.Edges = append(s.Edges, E((i-2)/10, "a", i))
	}
	return s
}

func TestWalkTable(t *testing.T) {
	tests := []struct {
		name  string
		spec  gspec
		seeds []int
		opt   Options
		want  string
	}{
		{"k=2 chain", chainSpec(), []int{0}, Options{}, "0@0 1@1 2@2 | 0-next->1 1-next->2"},
		{"k=1 chain", chainSpec(), []int{0}, Options{K: 1}, "0@0 1@1 | 0-next->1"},
		{"k<0 seeds only", chainSpec(), []int{0}, Options{K: -1}, "0@0 |"},
		{"k=3 chain", chainSpec(), []int{0}, Options{K: 3}, "0@0 1@1 2@2 3@3 | 0-next->1 1-next->2 2-next->3"},
		{"both directions, type then dir", chainSpec(), []int{2}, Options{K: 1}, "2@0 3@1 1@1 | 2-next->3 1-next->2"},
		{"F does not clamp a seed", clampSpec(), []int{0}, Options{K: 1, F: 2},
			"0@0 5@1 4@1 3@1 2@1 1@1 6@1 7@1 8@1 | 0-x->5 0-x->4 0-x->3 0-x->2 0-x->1 6-y->0 7-y->0 8-y->0"},
		{"M clamps a seed per type/dir", clampSpec(), []int{0}, Options{K: 1, M: 5},
			"0@0 5@1 4@1 | 0-x->5 0-x->4 | clamp 0: x/out=3 y/in=3 total=6 | truncated"},
		{"M spills into next group", clampSpec(), []int{0}, Options{K: 1, M: 15},
			"0@0 5@1 4@1 3@1 2@1 1@1 6@1 7@1 | 0-x->5 0-x->4 0-x->3 0-x->2 0-x->1 6-y->0 7-y->0 | clamp 0: y/in=1 total=1 | truncated"},
		{"F clamps the first ring", clampSpec(), []int{5}, Options{K: 2, F: 2},
			"5@0 0@1 4@2 3@2 | 0-x->5 0-x->4 0-x->3 | clamp 0: x/out=2 y/in=3 total=5"},
		{"F exact: no clamp", clampSpec(), []int{0}, Options{K: 1, F: 8},
			"0@0 5@1 4@1 3@1 2@1 1@1 6@1 7@1 8@1 | 0-x->5 0-x->4 0-x->3 0-x->2 0-x->1 6-y->0 7-y->0 8-y->0"},
		{"M budget truncates", starSpec(6), []int{0}, Options{M: 7}, "0@0 1@1 2@1 3@1 | 0-a->1 0-a->2 0-a->3 | clamp 0: a/out=3 total=3 | truncated"},
		{"M budget odd row unused", starSpec(6), []int{0}, Options{M: 8}, "0@0 1@1 2@1 3@1 | 0-a->1 0-a->2 0-a->3 | clamp 0: a/out=3 total=3 | truncated"},
		{"M exactly enough", starSpec(3), []int{0}, Options{M: 7}, "0@0 1@1 2@1 3@1 | 0-a->1 0-a->2 0-a->3"},
		{"the next page of a seed's neighbours", starSpec(6), []int{0}, Options{M: 7, After: 3}, "0@0 4@1 5@1 6@1 | 0-a->4 0-a->5 0-a->6"},
		{"a middle page counts only what follows", starSpec(6), []int{0}, Options{M: 5, After: 2}, "0@0 3@1 4@1 | 0-a->3 0-a->4 | clamp 0: a/out=2 total=2 | truncated"},
		{"seeds exceed M", starSpec(6), []int{1, 2, 3, 4}, Options{M: 2}, "1@0 2@0 | | truncated"},
		{"closing edges", triangleSpec(), []int{0}, Options{K: 1}, "0@0 1@1 2@1 | 0-r->1 0-r->2 1-r->2"},
		{"closing edge over M", triangleSpec(), []int{0}, Options{K: 1, M: 5}, "0@0 1@1 2@1 | 0-r->1 0-r->2 | truncated"},
		{"closing edges between seeds, k<0", triangleSpec(), []int{2, 0}, Options{K: -1}, "2@0 0@0 | 0-r->2"},
		{"pinned first, reached pinned gets a hop", pinnedSpec(), []int{2}, Options{K: 1, Pinned: []string{"LAW"}},
			"1@-1 0@-1 4@1 2@0 3@1 | 4-g->2 2-r->3"},
		{"pinned leaves room for seeds", pinnedSpec(), []int{2}, Options{K: 1, M: 3, Pinned: []string{"LAW"}},
			"1@-1 2@0 | | truncated"}, // PinnedShare(3) = 1
		{"pinned seed appears once", pinnedSpec(), []int{4}, Options{K: 1, Pinned: []string{"LAW", "LAW"}},
			"1@-1 0@-1 4@0 2@1 | 4-g->2"},
		{"pinned kind absent", pinnedSpec(), []int{2}, Options{K: 1, Pinned: []string{"NOPE"}},
			"2@0 4@1 3@1 | 2-r->3 4-g->2"},
		{"shell walks hierarchical edges only", shellSpec(), []int{1}, Options{Shell: true},
			"1@0 0@1 3@1 | 1-contains->3 0-CONTAINS->1"},
		{"interior walks everything", shellSpec(), []int{1}, Options{},
			"1@0 0@1 3@1 2@1 | 1-contains->3 1-refs->2 0-CONTAINS->1 2-refs->3"},
		{"custom hierarchy", shellSpec(), []int{1}, Options{Shell: true, Hierarchy: func(t string) bool { return t == "refs" }},
			"1@0 2@1 3@2 | 1-refs->2 2-refs->3"},
		{"self-loop and parallel edges", loopSpec(), []int{0}, Options{K: 1, M: 4},
			"0@0 1@1 | 0-x->0 0-x->1{w: 1} | clamp 0: x/out=1 total=1 | truncated"},
		{"parallel edges count once for F", loopSpec(), []int{0}, Options{K: 1, F: 2},
			"0@0 1@1 2@1 | 0-x->0 0-x->1{w: 1} 0-x->1{w: 2} 0-x->2"},
		{"seeds share one M", twoStarsSpec(), []int{0, 1}, Options{K: 1, M: 20},
			"0@0 1@0 2@1 3@1 4@1 5@1 6@1 7@1 8@1 9@1 12@1 | 0-a->2 0-a->3 0-a->4 0-a->5 0-a->6 0-a->7 0-a->8 0-a->9 1-a->12 | clamp 0: a/out=2 total=2 | clamp 1: a/out=9 total=9 | truncated"},
		{"duplicate seeds", chainSpec(), []int{0, 0}, Options{K: 1}, "0@0 1@1 | 0-next->1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, order := range []string{"forward", "reverse"} {
				var no, eo []int
				if order == "reverse" {
					no, eo = reverse(len(tc.spec.Nodes)), reverse(len(tc.spec.Edges))
				}
				b := build(t, tc.spec, no, eo)
				sh := Walk(b.snap, b.nodes(tc.seeds...), tc.opt)
				if got := specRender(b, sh); got != tc.want {
					t.Fatalf("%s:\n got  %s\n want %s", order, got, tc.want)
				}
				checkInvariants(t, b.snap, sh, tc.opt, len(sh.Nodes))
				checkClosed(t, b.snap, sh, tc.opt)
			}
		})
	}
}

func reverse(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = n - 1 - i
	}
	return out
}

func TestWalkRecycledInvisible(t *testing.T) {
	s := chainSpec()
	s.Nodes = append(s.Nodes, N("Z", "v", 9))
	s.Edges = append(s.Edges, E(0, "a", 5), E(1, "b", 0))
	b := build(t, s, nil, nil)
	stale := b.node(5)
	tx := b.g.Begin()
	for _, id := range []store.ID{b.eids[4], b.eids[5]} {
		if err := tx.RecycleEdge(id); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.RecycleNode(b.ids[5]); err != nil {
		t.Fatal(err)
	}
	b.snap = tx.Commit()
	sh := Walk(b.snap, []*store.Node{stale, b.node(0)}, Options{})
	if got, want := specRender(b, sh), "0@0 1@1 2@2 | 0-next->1 1-next->2"; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
	if sh := Walk(b.snap, []*store.Node{stale}, Options{}); len(sh.Nodes) != 0 || sh.Rows() != 0 {
		t.Fatalf("recycled seed walked: %s", specRender(b, sh))
	}
}

func TestWalkNoSeeds(t *testing.T) {
	b := build(t, chainSpec(), nil, nil)
	sh := Walk(b.snap, nil, Options{})
	if sh.Rows() != 0 || sh.Truncated || sh.MaxHop != 0 {
		t.Fatalf("empty walk: %+v", sh)
	}
	sh = Walk(b.snap, nil, Options{Pinned: []string{"T"}, M: 3})
	if got, want := specRender(b, sh), "0@-1 |"; got != want { // PinnedShare(3) = 1
		t.Fatalf("got %s want %s", got, want)
	}
}

// A pinned tie at the budget boundary is decided by the WL signature, not
// by the store's id order.
func TestPinnedTieAtBoundary(t *testing.T) {
	s := gspec{
		Nodes: []gnode{N("LAW"), N("LAW"), N("T", "v", 1), N("T", "v", 2), N("S")},
		Edges: []gedge{E(0, "r", 2), E(1, "r", 3)},
	}
	var want string
	for i, order := range [][]int{nil, reverse(5), {1, 0, 2, 3, 4}} {
		b := build(t, s, order, nil)
		sh := Walk(b.snap, b.nodes(4), Options{M: 2, Pinned: []string{"LAW"}})
		got := specRender(b, sh)
		if i == 0 {
			want = got
		} else if got != want {
			t.Fatalf("order %v: got %s want %s", order, got, want)
		}
	}
}

// Hub: exact clamp counts, bounded selection, and closing edges found from
// the light side.
func TestWalkHub(t *testing.T) {
	const H = 3000
	s := gspec{Nodes: []gnode{N("HUB", "v", 0), N("HUB", "v", 1)}}
	for i := 0; i < H; i++ {
		s.Nodes = append(s.Nodes, N("LEAF", "v", H-i))
		leaf := len(s.Nodes) - 1
		switch i % 3 {
		case 0:
			s.Edges = append(s.Edges, E(0, "has", leaf))
		case 1:
			s.Edges = append(s.Edges, E(leaf, "has", 0))
		case 2:
			s.Edges = append(s.Edges, E(0, "refs", leaf))
		}
		if i%2 == 0 {
			s.Edges = append(s.Edges, E(1, "has", leaf))
		}
	}
	s.Edges = append(s.Edges, E(0, "peer", 1), E(0, "self", 0))
	for _, order := range [][]int{nil, reverse(len(s.Nodes))} {
		b := build(t, s, order, nil)
		sh := Walk(b.snap, b.nodes(0), Options{K: 2, M: 50, F: 8})
		checkInvariants(t, b.snap, sh, Options{K: 2, M: 50, F: 8}, 0)
		checkClosed(t, b.snap, sh, Options{})
		if len(sh.Clamps) == 0 || sh.Clamps[0].Node.ID != b.ids[0] {
			t.Fatalf("no clamp on hub")
		}
		c := sh.Clamps[0]
		// The seed takes what M leaves, not F: (50-1)/2 = 24 neighbours.
		want := []Omitted{{"has", store.Out, 1000 - 24}, {"has", store.In, 1000}, {"peer", store.Out, 1}, {"refs", store.Out, 1000}}
		if len(c.Omitted) != len(want) {
			t.Fatalf("omitted %+v", c.Omitted)
		}
		for i := range want {
			if c.Omitted[i] != want[i] {
				t.Fatalf("omitted[%d] = %+v want %+v", i, c.Omitted[i], want[i])
			}
		}
		if c.Total != 3000-24+1 {
			t.Fatalf("total %d", c.Total)
		}
		// First 24 "has" out neighbours: smallest v among leaves i%3==0.
		for i := 1; i <= 24; i++ {
			if sh.Nodes[i].Kind() != "LEAF" {
				t.Fatalf("node %d: %s", i, nodeObs(sh.Nodes[i]))
			}
		}
		if sh.Nodes[1].Props[0].Val.AsInt() != 3 { // leaves v = 3000-i, i%3==0 → v ≡ 0 mod 3; smallest is 3
			t.Fatalf("first leaf %s", nodeObs(sh.Nodes[1]))
		}
	}
}
