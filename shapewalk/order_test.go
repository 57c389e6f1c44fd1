package shapewalk

import (
	"bytes"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

func TestSortObservablesFirst(t *testing.T) {
	s := gspec{Nodes: []gnode{
		N("B"),
		N("A", "v", 10),
		N("A", "v", 9),
		{Labels: []string{"A", "X"}, Props: P("v", 1)},
		N("A", "v", 1, "w", 0),
		N("A", "v", 1),
		N("A", "v", "1"), // STRING ranks after INTEGER
		N(""),
	}}
	want := []int{7, 5, 3, 4, 2, 1, 6, 0}
	for _, order := range [][]int{nil, reverse(len(s.Nodes))} {
		b := build(t, s, order, nil)
		ns := b.nodes(0, 1, 2, 3, 4, 5, 6, 7)
		Sort(b.snap, ns)
		for i, n := range ns {
			if got := b.index(n.ID); got != want[i] {
				t.Fatalf("position %d: got %s want %s", i, nodeObs(n), nodeObs(b.node(want[i])))
			}
		}
		for i := range ns {
			for j := range ns {
				c := Compare(b.snap, ns[i], ns[j])
				if (i < j && c >= 0) || (i > j && c <= 0) || (i == j && c != 0) {
					t.Fatalf("Compare(%d,%d) = %d", i, j, c)
				}
			}
		}
	}
}

// Two nodes with identical observables are ordered by their
// neighbourhoods, identically whatever the insertion order.
func TestSortWLTieBreak(t *testing.T) {
	s := gspec{
		Nodes: []gnode{N("A"), N("A"), N("B", "v", 1), N("B", "v", 2), N("A"), N("C")},
		Edges: []gedge{E(0, "r", 2), E(1, "r", 3), E(4, "r", 3), E(4, "q", 5)},
	}
	var want []int
	for i, order := range [][]int{nil, reverse(6), {4, 1, 0, 2, 3, 5}, {2, 3, 5, 1, 4, 0}} {
		b := build(t, s, order, nil)
		ns := b.nodes(0, 1, 4)
		Sort(b.snap, ns)
		got := []int{b.index(ns[0].ID), b.index(ns[1].ID), b.index(ns[2].ID)}
		if i == 0 {
			want = got
			if Signature(b.snap, ns[0]) == Signature(b.snap, ns[1]) {
				t.Fatalf("WL did not separate distinct neighbourhoods")
			}
		} else if got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Fatalf("order %v: got %v want %v", order, got, want)
		}
	}
	// Second-round difference: 0 and 1 have identical 1-hop views (A-r->B{})
	// and differ only two hops out.
	s2 := gspec{
		Nodes: []gnode{N("A"), N("A"), N("B"), N("B"), N("C", "v", 1), N("C", "v", 2)},
		Edges: []gedge{E(0, "r", 2), E(1, "r", 3), E(2, "s", 4), E(3, "s", 5)},
	}
	var want2 int
	for i, order := range [][]int{nil, reverse(6), {1, 0, 3, 2, 5, 4}} {
		b := build(t, s2, order, nil)
		ns := b.nodes(0, 1)
		Sort(b.snap, ns)
		if i == 0 {
			want2 = b.index(ns[0].ID)
		} else if b.index(ns[0].ID) != want2 {
			t.Fatalf("order %v: second-round tie broken differently", order)
		}
	}
}

// Automorphic nodes share a signature (and are then ordered by id, which
// cannot change what is emitted).
func TestSignatureAutomorphs(t *testing.T) {
	s := gspec{
		Nodes: []gnode{N("A"), N("L"), N("L")},
		Edges: []gedge{E(0, "r", 1), E(0, "r", 2)},
	}
	b := build(t, s, nil, nil)
	if Signature(b.snap, b.node(1)) != Signature(b.snap, b.node(2)) {
		t.Fatalf("automorphs differ")
	}
	if Signature(b.snap, b.node(0)) == Signature(b.snap, b.node(1)) {
		t.Fatalf("collision")
	}
}

func genScalar() *rapid.Generator[values.Value] {
	return rapid.OneOf(
		rapid.Map(rapid.Bool(), values.Bool),
		rapid.Map(rapid.Int64(), values.Int),
		rapid.Map(rapid.SampledFrom([]float64{-1.5, 0, 1, 2.5, 1e21}), values.Float),
		rapid.Map(rapid.SampledFrom([]string{"", "\x00", "a", "a\x00", "ab", "é", strings.Repeat("long", 30)}), values.String),
		rapid.Map(rapid.SampledFrom([]string{"2026-01-01", "2026-01-02"}), values.DateValue),
	)
}

// appendObsKey is byte-identical to store.Snapshot.ObservableKey.
func TestObservableKeyMatchesStore(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := store.New()
		tx := g.Begin()
		labels := rapid.SliceOfN(rapid.SampledFrom([]string{"A", "B", "a\x00", "Zed", "é"}), 0, 5).Draw(t, "labels")
		keys := rapid.SliceOfN(rapid.SampledFrom([]string{"k", "nick", "v", "a\x00", "long_key_name_for_truncation"}), 0, 5).Draw(t, "keys")
		var p values.Props
		for i, k := range keys {
			p = append(p, values.Prop{Key: k, Val: genScalar().Draw(t, "v"+string(rune('0'+i)))})
		}
		n, err := tx.InsertNode(tx.NewID(), labels, p)
		if err != nil {
			t.Fatal(err)
		}
		snap := tx.Commit()
		if got, want := encodeObsKey(nil, n), snap.ObservableKey(n); !bytes.Equal(got, want) || n.ObservableKey() != string(want) {
			t.Fatalf("key mismatch\n got  %q\n want %q", got, want)
		}
	})
}

func TestPeaks(t *testing.T) {
	s := gspec{
		Nodes: []gnode{N("T", "v", 0), N("T", "v", 1), N("T", "v", 2), N("T", "v", 3),
			N("PKG"), N("MOD", "v", 5), N("MOD", "v", 6), N("MOD", "v", 7), N("MOD", "v", 8), N("MOD", "v", 9),
			N("X"), N("Y")},
		Edges: []gedge{E(0, "r", 1), E(0, "r", 2), E(0, "r", 3), E(1, "r", 2),
			E(4, "contains", 5), E(4, "Contains", 6), E(4, "contains", 7), E(4, "contains", 8), E(4, "contains", 9),
			E(10, "r", 11), E(10, "r", 10)},
	}
	for _, order := range [][]int{nil, reverse(len(s.Nodes))} {
		b := build(t, s, order, nil)
		got := Peaks(b.snap, 4, nil)
		var idx []int
		for _, n := range got {
			idx = append(idx, b.index(n.ID))
		}
		// 0: ρ*=3 (its T neighbours have less); 10: ρ*=2 (r to Y, self-loop
		// once); 11: ρ*=1, its only neighbour is another kind; PKG: ρ*=0.
		if len(idx) != 3 || idx[0] != 0 || idx[1] != 10 || idx[2] != 11 {
			t.Fatalf("peaks %v", idx)
		}
		if got := Peaks(b.snap, 1, nil); len(got) != 1 || got[0].ID != b.ids[0] {
			t.Fatalf("L=1")
		}
		// With no hierarchy, PKG (ρ*=5) is the largest peak.
		got = Peaks(b.snap, 1, func(string) bool { return false })
		if len(got) != 1 || got[0].ID != b.ids[4] {
			t.Fatalf("no hierarchy: %v", nodeObs(got[0]))
		}
	}
}

func TestPeaksTies(t *testing.T) {
	// Three identical A nodes, each with one edge to a distinct B: all peaks
	// with ρ*=1, tied on observables; the order is WL's, not the ids'.
	s := gspec{
		Nodes: []gnode{N("A"), N("A"), N("A"), N("B", "v", 3), N("B", "v", 1), N("B", "v", 2)},
		Edges: []gedge{E(0, "r", 3), E(1, "r", 4), E(2, "r", 5)},
	}
	var want []int
	for i, order := range [][]int{nil, reverse(6), {2, 0, 1, 5, 3, 4}} {
		b := build(t, s, order, nil)
		got := Peaks(b.snap, 2, nil)
		var idx []int
		for _, n := range got {
			idx = append(idx, b.index(n.ID))
		}
		if len(idx) != 2 || idx[0] >= 3 || idx[1] >= 3 {
			t.Fatalf("peaks %v", idx)
		}
		if i == 0 {
			want = idx
		} else if idx[0] != want[0] || idx[1] != want[1] {
			t.Fatalf("order %v: %v want %v", order, idx, want)
		}
	}
}

func TestOutline(t *testing.T) {
	s := gspec{
		Nodes: []gnode{N("B", "v", 2), N("A", "v", 3), N("A", "v", 1), N("A", "v", 2), {Labels: []string{"C", "A"}}, {}},
		Edges: []gedge{E(0, "r", 1), E(1, "r", 2), E(2, "contains", 3)},
	}
	b := build(t, s, reverse(len(s.Nodes)), nil)
	kinds, types := Outline(b.snap, 2)
	var got []string
	for _, k := range kinds {
		var ex []string
		for _, n := range k.Exemplars {
			ex = append(ex, nodeObs(n))
		}
		got = append(got, k.Kind+"="+itoa(k.Count)+"["+strings.Join(ex, ",")+"]")
	}
	want := "=1[{}] A=3[A{v: 1},A{v: 2}] B=1[B{v: 2}] C=1[C:A{}]"
	if strings.Join(got, " ") != want {
		t.Fatalf("kinds %s\nwant  %s", strings.Join(got, " "), want)
	}
	if len(types) != 2 || types[0] != (TypeCount{"contains", 1}) || types[1] != (TypeCount{"r", 2}) {
		t.Fatalf("types %+v", types)
	}
}

func itoa(i int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + string(rune('0'+i)))
}
