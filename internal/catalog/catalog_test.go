package catalog

import (
	"testing"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
)

// TestQueueLine: the catalogue's version is Σ weights + dropped, moved by
// the increments the cabinet makes (a Put by the weight it adds, a
// Delete by the weight plus one), never back, and kept when a read finds
// nothing that changes the content.
func TestQueueLine(t *testing.T) {
	meta := func(name string, v, mv uint64) cabinet.Meta {
		return cabinet.Meta{Name: name, Version: v, MetaVersion: mv, Nodes: int(v)}
	}
	type step struct {
		put    *cabinet.Meta
		delete string
		want   uint64 // the catalogue's version after the step's Apply
	}
	put := func(m cabinet.Meta, want uint64) step { return step{put: &m, want: want} }
	del := func(name string, want uint64) step { return step{delete: name, want: want} }
	cases := []struct {
		name    string
		lazy    bool
		metas   []cabinet.Meta
		dropped uint64
		load    uint64 // the version Load publishes
		steps   []step
	}{
		{name: "empty", load: 0, steps: []step{put(meta("a", 1, 0), 2), put(meta("a", 3, 0), 6)}},
		{name: "dropped only", dropped: 7, load: 7, steps: []step{put(meta("a", 1, 0), 9)}},
		{name: "load", metas: []cabinet.Meta{meta("a", 2, 0), meta("b", 3, 0)}, dropped: 4, load: 14,
			steps: []step{put(meta("b", 4, 0), 16), del("a", 17), put(meta("a", 1, 0), 19), del("zz", 19)}},
		{name: "same meta again keeps the version", metas: []cabinet.Meta{meta("a", 2, 0)}, load: 4,
			steps: []step{put(meta("a", 2, 0), 4), put(meta("a", 3, 0), 6)}},
		{name: "drop and made again between two reads", metas: []cabinet.Meta{meta("a", 5, 0)}, load: 10,
			// a at 5 (weight 10) dropped (+11) and made again at 2
			// (weight 4), seen as one head: 10 → 10-10+11+4.
			steps: []step{put(meta("a", 2, 0), 15)}},
		{name: "lazy counts", lazy: true, metas: []cabinet.Meta{meta("a", 3, 2)}, load: 5,
			// a Commit of this host (no MetaVersion) keeps the counted
			// counts' version; the head with them adds it to the line,
			// but the content is the same, so the version stays; an
			// older counts' version is not counted.
			steps: []step{put(meta("a", 4, 0), 6), put(meta("a", 4, 4), 6), put(meta("a", 5, 3), 9)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := store.New()
			q := &Queue{Lazy: c.lazy}
			q.Load(g, c.metas, c.dropped)
			if v := g.Snapshot().Version(); v != c.load {
				t.Fatalf("Load: version %d, want %d", v, c.load)
			}
			if n := g.Snapshot().NodeCount(); n != len(c.metas) {
				t.Fatalf("Load: %d nodes, want %d", n, len(c.metas))
			}
			prev := c.load
			for i, s := range c.steps {
				if s.put != nil {
					q.Put(*s.put)
				} else {
					q.Delete(s.delete)
				}
				q.Apply(g)
				v := g.Snapshot().Version()
				if v != s.want {
					t.Fatalf("step %d: version %d, want %d", i, v, s.want)
				}
				if v < prev {
					t.Fatalf("step %d: version went back from %d to %d", i, prev, v)
				}
				prev = v
			}
		})
	}
}

// TestQueueCoalesced: several changes queued between two reads land in
// one version, the line, whatever their order.
func TestQueueCoalesced(t *testing.T) {
	g := store.New()
	var q Queue
	q.Load(g, nil, 0)
	for v := uint64(1); v <= 5; v++ {
		q.Put(cabinet.Meta{Name: "a", Version: v})
	}
	q.Put(cabinet.Meta{Name: "b", Version: 1})
	q.Delete("b")
	q.Apply(g)
	// a at 5: 10; b made (2) and dropped (+3, -2): 3.
	if v := g.Snapshot().Version(); v != 13 || q.Line() != 13 {
		t.Fatalf("version %d, line %d, want 13", v, q.Line())
	}
	if g.Snapshot().NodeCount() != 1 {
		t.Fatalf("%d nodes, want 1", g.Snapshot().NodeCount())
	}
}

// TestCommitAtRefusesGoingBack: the catalogue's jump refuses a version
// that does not move forward.
func TestCommitAtRefusesGoingBack(t *testing.T) {
	g := store.New()
	g.Begin().CommitAt(5)
	defer func() {
		if recover() == nil {
			t.Fatal("CommitAt(5) on version 5 did not panic")
		}
		if v := g.Snapshot().Version(); v != 5 {
			t.Fatalf("version %d after the refused CommitAt", v)
		}
		g.Begin().CommitAt(6) // the refused Tx let go of the writer lock
	}()
	g.Begin().CommitAt(5)
}
