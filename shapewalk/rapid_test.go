package shapewalk

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/values"
)

// genSpec draws a random graph. distinct: every node carries a unique
// "id" property (distinct observables, as nicks and locators make them);
// otherwise observables repeat freely. hub: node 0 gets hubLeaves extra
// leaf neighbours (hundreds to thousands).
func genSpec(t *rapid.T, distinct, hub bool) gspec {
	var s gspec
	n := rapid.IntRange(1, 24).Draw(t, "n")
	kinds := []string{"A", "B", "C"}
	for i := 0; i < n; i++ {
		kind := rapid.SampledFrom(kinds).Draw(t, "kind")
		labels := []string{kind}
		if rapid.IntRange(0, 4).Draw(t, "extra") == 0 {
			labels = append(labels, "X")
		}
		var p values.Props
		if distinct {
			p = append(p, values.Prop{Key: "id", Val: values.Int(int64(i))})
		}
		if v := rapid.IntRange(-1, 1).Draw(t, "v"); v >= 0 {
			p = append(p, values.Prop{Key: "v", Val: values.Int(int64(v))})
		}
		s.Nodes = append(s.Nodes, gnode{Labels: labels, Props: values.NormalizeProps(p)})
	}
	m := rapid.IntRange(0, 3*n).Draw(t, "m")
	types := []string{"contains", "refs", "uses"}
	for i := 0; i < m; i++ {
		e := gedge{
			From: rapid.IntRange(0, n-1).Draw(t, "from"),
			To:   rapid.IntRange(0, n-1).Draw(t, "to"),
			Type: rapid.SampledFrom(types).Draw(t, "type"),
		}
		if rapid.IntRange(0, 3).Draw(t, "eprops") == 0 {
			e.Props = values.Props{{Key: "w", Val: values.Int(int64(rapid.IntRange(0, 1).Draw(t, "w")))}}
		}
		s.Edges = append(s.Edges, e)
	}
	if hub {
		leaves := rapid.IntRange(100, 3000).Draw(t, "leaves")
		mod := rapid.IntRange(1, 5).Draw(t, "mod")
		for i := 0; i < leaves; i++ {
			p := values.Props{{Key: "v", Val: values.Int(int64(i % mod))}}
			if distinct {
				p = values.Props{{Key: "id", Val: values.Int(int64(n + i))}, {Key: "v", Val: values.Int(int64(i % mod))}}
			}
			s.Nodes = append(s.Nodes, gnode{Labels: []string{kinds[i%3]}, Props: p})
			leaf := len(s.Nodes) - 1
			switch i % 4 {
			case 0, 1:
				s.Edges = append(s.Edges, gedge{From: 0, To: leaf, Type: "contains"})
			case 2:
				s.Edges = append(s.Edges, gedge{From: leaf, To: 0, Type: "refs"})
			case 3:
				s.Edges = append(s.Edges, gedge{From: 0, To: leaf, Type: "uses"})
				if n > 1 { // give some leaves a second neighbour
					s.Edges = append(s.Edges, gedge{From: leaf, To: 1 + i%(n-1), Type: "refs"})
				}
			}
		}
	}
	return s
}

func genOptions(t *rapid.T) Options {
	opt := Options{
		K:     rapid.IntRange(1, 3).Draw(t, "K"),
		M:     rapid.IntRange(1, 80).Draw(t, "M"),
		F:     rapid.IntRange(1, 10).Draw(t, "F"),
		Shell: rapid.IntRange(0, 4).Draw(t, "shell") == 0,
	}
	if rapid.IntRange(0, 3).Draw(t, "pinned") == 0 {
		opt.Pinned = []string{"B"}
	}
	return opt
}

func countPinned(sh *Shape, opt Options) int {
	n := 0
	for _, x := range sh.Nodes {
		if len(opt.Pinned) > 0 && x.Kind() == opt.Pinned[0] && n < len(sh.Nodes) {
			n++
		} else {
			break
		}
	}
	return n
}

// isoProperty builds the spec in two shuffled insertion orders and checks
// bounds, determinism and that both Shapes render identically.
func isoProperty(t *rapid.T, distinct, hub bool) {
	s := genSpec(t, distinct, hub)
	nn, ne := len(s.Nodes), len(s.Edges)
	idx := func(k int) []int {
		out := make([]int, k)
		for i := range out {
			out[i] = i
		}
		return out
	}
	p1 := rapid.Permutation(idx(nn)).Draw(t, "nodeOrder1")
	p2 := rapid.Permutation(idx(nn)).Draw(t, "nodeOrder2")
	e1 := rapid.Permutation(idx(ne)).Draw(t, "edgeOrder1")
	e2 := rapid.Permutation(idx(ne)).Draw(t, "edgeOrder2")
	b1 := build(t, s, p1, e1)
	b2 := build(t, s, p2, e2)
	seeds := rapid.SliceOfN(rapid.IntRange(0, min(nn, 24)-1), 1, 4).Draw(t, "seeds")
	if hub && rapid.Bool().Draw(t, "seedHub") {
		seeds[0] = 0
	}
	opt := genOptions(t)

	sh1 := Walk(b1.snap, b1.nodes(seeds...), opt)
	sh2 := Walk(b2.snap, b2.nodes(seeds...), opt)
	for _, c := range []struct {
		b  *built
		sh *Shape
	}{{b1, sh1}, {b2, sh2}} {
		checkInvariants(t, c.b.snap, c.sh, opt, countPinned(c.sh, opt))
		checkClosed(t, c.b.snap, c.sh, opt)
	}
	again := Walk(b1.snap, b1.nodes(seeds...), opt)
	if r1, ra := render(sh1), render(again); r1 != ra {
		t.Fatalf("not deterministic:\n%s\n---\n%s", r1, ra)
	}
	for i := range sh1.Nodes {
		if sh1.Nodes[i] != again.Nodes[i] {
			t.Fatalf("not deterministic: node %d", i)
		}
	}
	if r1, r2 := render(sh1), render(sh2); r1 != r2 {
		t.Fatalf("not isomorphism-invariant (seeds %v, %+v):\n%s\n--- vs ---\n%s", seeds, opt, r1, r2)
	}
}

func TestRapidWalkDistinct(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { isoProperty(t, true, false) })
}

func TestRapidWalkDistinctHub(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { isoProperty(t, true, true) })
}

func TestRapidWalkDuplicates(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { isoProperty(t, false, false) })
}

func TestRapidWalkDuplicatesHub(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { isoProperty(t, false, true) })
}

// Sort, Peaks and Outline are isomorphism-invariant too (distinct
// observables).
func TestRapidOrderInvariant(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSpec(t, rapid.Bool().Draw(t, "distinct"), false)
		nn := len(s.Nodes)
		perm := make([]int, nn)
		for i := range perm {
			perm[i] = i
		}
		p := rapid.Permutation(perm).Draw(t, "order")
		b1 := build(t, s, nil, nil)
		b2 := build(t, s, p, nil)
		all := make([]int, nn)
		for i := range all {
			all[i] = i
		}
		n1, n2 := b1.nodes(all...), b2.nodes(all...)
		Sort(b1.snap, n1)
		Sort(b2.snap, n2)
		for i := range n1 {
			if nodeObs(n1[i]) != nodeObs(n2[i]) || Signature(b1.snap, n1[i]) != Signature(b2.snap, n2[i]) {
				t.Fatalf("Sort differs at %d", i)
			}
			if i > 0 && Compare(b1.snap, n1[i-1], n1[i]) >= 0 {
				t.Fatalf("Sort/Compare disagree at %d", i)
			}
		}
		pk1, pk2 := Peaks(b1.snap, 4, nil), Peaks(b2.snap, 4, nil)
		if len(pk1) != len(pk2) {
			t.Fatalf("Peaks length")
		}
		for i := range pk1 {
			if nodeObs(pk1[i]) != nodeObs(pk2[i]) || Signature(b1.snap, pk1[i]) != Signature(b2.snap, pk2[i]) {
				t.Fatalf("Peaks differ at %d", i)
			}
		}
		k1, _ := Outline(b1.snap, 2)
		k2, _ := Outline(b2.snap, 2)
		for i := range k1 {
			for j := range k1[i].Exemplars {
				if nodeObs(k1[i].Exemplars[j]) != nodeObs(k2[i].Exemplars[j]) {
					t.Fatalf("Outline differs")
				}
			}
		}
	})
}
