package store

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// transientOp applies one random write to tx and to the model m.
func transientOp(t *rapid.T, tx *Tx, m *model) {
	anyID := func() ID {
		ids := []ID{9999, DeterministicNodeID("A", "x")}
		for id := range m.nodes {
			ids = append(ids, id)
		}
		for id := range m.edges {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		return rapid.SampledFrom(ids).Draw(t, "id")
	}
	switch rapid.IntRange(0, 9).Draw(t, "op") {
	case 0, 1:
		id := tx.NewID()
		m.nextID++
		if rapid.IntRange(0, 3).Draw(t, "det") == 0 {
			id = DeterministicNodeID("A", rapid.SampledFrom([]string{"x", "y"}).Draw(t, "loc"))
		}
		labels, p := genLabels().Draw(t, "labels"), genProps().Draw(t, "props")
		_, err := tx.InsertNode(id, labels, p)
		sameErr(t, "InsertNode", err, m.insertNode(id, labels, p))
	case 2:
		id, p := anyID(), genProps().Draw(t, "props")
		_, err := tx.SetProps(id, p)
		sameErr(t, "SetProps", err, m.setProps(id, p))
	case 3:
		id, l := anyID(), genLabels().Draw(t, "labels")
		_, err := tx.SetLabels(id, l)
		sameErr(t, "SetLabels", err, m.setLabels(id, l))
	case 4, 5:
		id := tx.NewID()
		m.nextID++
		from, to := anyID(), anyID()
		typ, p := rapid.SampledFrom(rTypes).Draw(t, "type"), genProps().Draw(t, "eprops")
		_, err := tx.InsertEdge(id, typ, from, to, p)
		sameErr(t, "InsertEdge", err, m.insertEdge(id, typ, from, to, p))
	case 6:
		id, p := anyID(), genProps().Draw(t, "eprops")
		_, err := tx.SetEdgeProps(id, p)
		sameErr(t, "SetEdgeProps", err, m.setEdgeProps(id, p))
	case 7:
		id := anyID()
		if m.nodes[id] != nil {
			sameErr(t, "RecycleNode", tx.RecycleNode(id), m.recycleNode(id))
		} else {
			sameErr(t, "RecycleEdge", tx.RecycleEdge(id), m.recycleEdge(id))
		}
	case 8:
		id := anyID()
		sameErr(t, "Revive", tx.Revive(id), m.revive(id))
	case 9:
		id := anyID()
		sameErr(t, "Purge", tx.Purge(id), m.purge(id))
	}
}

// TestRapidTransient: Txs committed in transient mode, on a fork of a
// kept version, publish the versions the model says, each read before
// the next Tx begins; once transient is turned off, the last version it
// published and every later one stay as they are, and the graph forked
// from never changes.
func TestRapidTransient(t *testing.T) {
	defer func(max int) { locBucketMax = max }(locBucketMax)
	locBucketMax = 3
	rapid.Check(t, func(t *rapid.T) {
		base := New()
		m := newModel()
		for range rapid.IntRange(0, 3).Draw(t, "base txs") {
			tx := base.Begin()
			for range rapid.IntRange(0, 20).Draw(t, "base ops") {
				transientOp(t, tx, m)
			}
			tx.Commit()
		}
		kept, keptM := base.Snapshot(), m.clone()
		g := kept.Fork()
		type version struct {
			s *Snapshot
			m *model
		}
		var stay []version
		for range rapid.IntRange(1, 4).Draw(t, "runs") {
			g.Transient(true)
			var last version
			for range rapid.IntRange(1, 8).Draw(t, "transient txs") {
				tx := g.Begin()
				for range rapid.IntRange(0, 15).Draw(t, "ops") {
					transientOp(t, tx, m)
				}
				last = version{tx.Commit(), m.clone()}
				checkSnapshot(t, last.s, last.m)
			}
			g.Transient(false)
			stay = append(stay, last)
			for range rapid.IntRange(0, 2).Draw(t, "copying txs") {
				tx := g.Begin()
				for range rapid.IntRange(0, 15).Draw(t, "ops") {
					transientOp(t, tx, m)
				}
				stay = append(stay, version{tx.Commit(), m.clone()})
			}
		}
		for _, v := range stay {
			checkSnapshot(t, v.s, v.m)
		}
		checkSnapshot(t, kept, keptM)
	})
}

// TestTransientWritesInPlace: a Tx that follows a transient one copies
// none of what that one copied, so a run of small Txs allocates far
// less than the same run copying as usual.
func TestTransientWritesInPlace(t *testing.T) {
	g := New()
	tx := g.Begin()
	for range 20_000 {
		if _, err := tx.InsertNode(tx.NewID(), []string{"E"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	kept := tx.Commit()
	run := func(transient bool) float64 {
		return testing.AllocsPerRun(5, func() {
			f := kept.Fork()
			f.Transient(transient)
			for i := range 60 {
				tx := f.Begin()
				id := ID(1 + i*331)
				n, _ := tx.Snapshot().Node(id)
				if _, err := tx.SetLabels(id, append(n.Labels, "T")); err != nil {
					t.Fatal(err)
				}
				tx.Commit()
			}
		})
	}
	copying, transient := run(false), run(true)
	if transient > copying/2 {
		t.Fatalf("60 transient Txs allocated %.0f times, copying ones %.0f: want at most half", transient, copying)
	}
}
