package store

import (
	"bytes"
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/values"
)

func genScalar() *rapid.Generator[values.Value] {
	return rapid.OneOf(
		rapid.Just(values.Null()),
		rapid.Map(rapid.Bool(), values.Bool),
		rapid.Map(rapid.SampledFrom([]int64{math.MinInt64, -256, -1, 0, 1, 2, 255, 256, math.MaxInt64}), values.Int),
		rapid.Map(rapid.SampledFrom([]float64{math.Inf(-1), -1.5, math.Copysign(0, -1), 0, 1, 2, 1e21, math.Inf(1)}), values.Float),
		rapid.Map(rapid.SampledFrom([]string{"", "\x00", "a", "a\x00", "a\x00b", "ab", "b", "é", "\x01"}), values.String),
		rapid.Map(rapid.SampledFrom([]string{"2026-01-01", "2026-01-02"}), values.DateValue),
		rapid.Map(rapid.SampledFrom([]string{"2026-01-01T00:00:00Z"}), values.DateTimeValue),
	)
}

func genValue() *rapid.Generator[values.Value] {
	return rapid.OneOf(genScalar(), genScalar(), genScalar(),
		rapid.Map(rapid.SliceOfN(genScalar(), 0, 3), func(vs []values.Value) values.Value { return values.List(vs...) }),
		rapid.Map(rapid.SliceOfN(rapid.Map(rapid.SliceOfN(genScalar(), 0, 2), func(vs []values.Value) values.Value { return values.List(vs...) }), 0, 2),
			func(vs []values.Value) values.Value { return values.List(vs...) }),
	)
}

func TestRapidValueOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b, c := genValue().Draw(t, "a"), genValue().Draw(t, "b"), genValue().Draw(t, "c")
		ab := a.Compare(b)
		if ab != -b.Compare(a) {
			t.Fatalf("antisymmetry")
		}
		if (ab == 0) != a.Equal(b) {
			t.Fatalf("Equal vs Compare: %s %s", a.Literal(), b.Literal())
		}
		if ab != bytes.Compare(a.AppendKey(nil), b.AppendKey(nil)) {
			t.Fatalf("key order %s %s", a.Literal(), b.Literal())
		}
		if ab <= 0 && b.Compare(c) <= 0 && a.Compare(c) > 0 {
			t.Fatalf("transitivity")
		}
		if a.Size() != len(a.Literal()) {
			t.Fatalf("size %s", a.Literal())
		}
		pa := values.Props{{Key: "k", Val: a}, {Key: "l", Val: b}}
		pb := values.Props{{Key: "k", Val: b}, {Key: "l", Val: c}}
		if pa.Compare(pb) != bytes.Compare(values.AppendPropsKey(nil, pa), values.AppendPropsKey(nil, pb)) {
			t.Fatalf("props key order")
		}
	})
}

var (
	rLabels = []string{"A", "B", "C"}
	rKeys   = []string{"nick", "loc", "k", "v"}
	rTypes  = []string{"r", "s"}
)

func genLabels() *rapid.Generator[[]string] {
	return rapid.SliceOfN(rapid.SampledFrom(append(rLabels, "")), 0, 4)
}

func genProps() *rapid.Generator[values.Props] {
	return rapid.Custom(func(t *rapid.T) values.Props {
		var p values.Props
		n := rapid.IntRange(0, 3).Draw(t, "np")
		for i := 0; i < n; i++ {
			key := rapid.SampledFrom(rKeys).Draw(t, "key")
			var v values.Value
			if key == NickKey && rapid.Bool().Draw(t, "strnick") {
				v = values.String(rapid.SampledFrom([]string{"n1", "n2", "n3"}).Draw(t, "nick"))
			} else if key == LocKey && rapid.Bool().Draw(t, "strloc") {
				v = values.String(rapid.SampledFrom([]string{"l1", "l2", "l3"}).Draw(t, "loc"))
			} else {
				v = genValue().Draw(t, "val")
			}
			p = append(p, values.Prop{Key: key, Val: v}) // possibly unsorted / duplicate / null
		}
		return p
	})
}

func sameErr(t *rapid.T, op string, got, want error) {
	if got != want {
		t.Fatalf("%s: got error %v, want %v", op, got, want)
	}
}

// TestRapidModel applies random operations to a Graph and to the naive
// model, committing or rolling back at random, and compares every read
// method, including on old snapshots (which must never change).
func TestRapidModel(t *testing.T) {
	// A small bucket bound, so locators shared by a few nodes go over it.
	defer func(max int) { locBucketMax = max }(locBucketMax)
	locBucketMax = 3
	rapid.Check(t, func(t *rapid.T) {
		g := New()
		g.TrackTouched()
		pub := newModel() // model of the published snapshot
		type old struct {
			s *Snapshot
			m *model
		}
		var olds []old
		anyID := func(m *model) ID {
			var ids []ID
			for id := range m.nodes {
				ids = append(ids, id)
			}
			for id := range m.edges {
				ids = append(ids, id)
			}
			ids = append(ids, 9999, DeterministicNodeID("A", "x"))
			// deterministic choice: sort
			for i := range ids {
				for j := i + 1; j < len(ids); j++ {
					if ids[j] < ids[i] {
						ids[i], ids[j] = ids[j], ids[i]
					}
				}
			}
			return rapid.SampledFrom(ids).Draw(t, "id")
		}
		nTx := rapid.IntRange(1, 6).Draw(t, "ntx")
		for x := 0; x < nTx; x++ {
			if len(olds) > 0 && rapid.IntRange(0, 3).Draw(t, "fork") == 0 {
				// Go on from a fork of an older version: the versions of
				// the graph it came from must not change (checked below).
				o := olds[rapid.IntRange(0, len(olds)-1).Draw(t, "forked")]
				g, pub = o.s.Fork(), o.m.clone()
				g.TrackTouched()
			}
			tx := g.Begin()
			m := pub.clone()
			nOps := rapid.IntRange(0, 25).Draw(t, "nops")
			for i := 0; i < nOps; i++ {
				switch rapid.IntRange(0, 9).Draw(t, "op") {
				case 0, 1:
					var id ID
					switch rapid.IntRange(0, 3).Draw(t, "idkind") {
					case 0:
						id = anyID(m)
					case 1:
						id = DeterministicNodeID("A", rapid.SampledFrom([]string{"x", "y"}).Draw(t, "loc"))
					default:
						id = tx.NewID()
						if id != m.nextID {
							t.Fatalf("NewID %d want %d", id, m.nextID)
						}
						m.nextID++
					}
					labels, p := genLabels().Draw(t, "labels"), genProps().Draw(t, "props")
					_, err := tx.InsertNode(id, labels, p)
					sameErr(t, "InsertNode", err, m.insertNode(id, labels, p))
				case 2:
					id, p := anyID(m), genProps().Draw(t, "props")
					_, err := tx.SetProps(id, p)
					sameErr(t, "SetProps", err, m.setProps(id, p))
				case 3:
					id, l := anyID(m), genLabels().Draw(t, "labels")
					_, err := tx.SetLabels(id, l)
					sameErr(t, "SetLabels", err, m.setLabels(id, l))
				case 4, 5:
					id := tx.NewID()
					m.nextID++
					if rapid.Bool().Draw(t, "reuse") {
						id = anyID(m)
					}
					from, to := anyID(m), anyID(m)
					typ, p := rapid.SampledFrom(rTypes).Draw(t, "type"), genProps().Draw(t, "eprops")
					_, err := tx.InsertEdge(id, typ, from, to, p)
					sameErr(t, "InsertEdge", err, m.insertEdge(id, typ, from, to, p))
				case 6:
					id, p := anyID(m), genProps().Draw(t, "eprops")
					_, err := tx.SetEdgeProps(id, p)
					sameErr(t, "SetEdgeProps", err, m.setEdgeProps(id, p))
				case 7:
					id := anyID(m)
					if m.nodes[id] != nil {
						sameErr(t, "RecycleNode", tx.RecycleNode(id), m.recycleNode(id))
					} else {
						sameErr(t, "RecycleEdge", tx.RecycleEdge(id), m.recycleEdge(id))
					}
				case 8:
					id := anyID(m)
					sameErr(t, "Revive", tx.Revive(id), m.revive(id))
				case 9:
					id := anyID(m)
					sameErr(t, "Purge", tx.Purge(id), m.purge(id))
				}
				if rapid.IntRange(0, 4).Draw(t, "check") == 0 {
					checkSnapshot(t, tx.Snapshot(), m)
				}
			}
			checkSnapshot(t, tx.Snapshot(), m)
			if rapid.IntRange(0, 3).Draw(t, "rollback") == 0 {
				tx.Rollback()
			} else {
				s := tx.Commit()
				if g.track {
					checkTouched(t, pub, m, g.Touched())
				}
				pub = m
				olds = append(olds, old{s, m.clone()})
			}
			checkSnapshot(t, g.Snapshot(), pub)
		}
		for _, o := range olds {
			checkSnapshot(t, o.s, o.m)
		}
	})
}

// checkTouched: every node that differs between two versions, itself or
// by its live edges, is among the ids the Tx that made the second noted.
func checkTouched(t *rapid.T, before, after *model, touched []ID) {
	noted := map[ID]bool{}
	for _, id := range touched {
		noted[id] = true
	}
	for id := range before.nodes {
		if after.nodes[id] == nil {
			noted[id] = true // purged: not a change of the live graph
		}
	}
	ids := map[ID]bool{}
	for id := range before.nodes {
		ids[id] = true
	}
	for id := range after.nodes {
		ids[id] = true
	}
	for id := range ids {
		a, b := before.liveNode(id), after.liveNode(id)
		differs := (a == nil) != (b == nil) || a != nil && !sameNode(a, b)
		ea, eb := append(before.liveEdges(id, Out), before.liveEdges(id, In)...), append(after.liveEdges(id, Out), after.liveEdges(id, In)...)
		if len(ea) != len(eb) {
			differs = true
		}
		for i := 0; !differs && i < len(ea); i++ {
			differs = !sameEdge(ea[i], eb[i])
		}
		if differs && !noted[id] {
			t.Fatalf("node %d changed but the Tx did not note it (noted %v)", id, touched)
		}
	}
}
