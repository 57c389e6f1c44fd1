package engine

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestPastRingWithinLiveHeap: what the store measures the versions a
// session keeps in memory to hold (store.Snapshot.Displaced, summed by
// the ring) is what they hold on the heap, within the allocator's
// rounding of each object to its size class (measured 13–15% more), for
// one-element Commits on sessions of 1,000, 8,000 and 25,000 nodes; and
// the ring holds no more than a twentieth of the session, or the 1 MiB
// floor. The ring's drop rule reads the measure, so a measure that is
// low keeps a ring larger than that.
func TestPastRingWithinLiveHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("commits 2,000 versions")
	}
	ctx := context.Background()
	for _, n := range []int{1000, 8000, 25000} {
		db, _ := openTest(bigBudget)
		s, _ := db.Session(ctx, "r")
		for i := 0; i < n; i += 500 {
			var b strings.Builder
			for j := i; j < i+500 && j < n; j++ {
				fmt.Fprintf(&b, "INSERT (:TSK {nick: \"t%d\", title: \"task %d\"})-[:touches]->(:MOD {loc: \"m%d.go\"});\n", j, j, j%50)
			}
			if _, err := s.commitText(ctx, b.String(), nil); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 1000 {
			if _, err := s.commitText(ctx, `MATCH (t:TSK {nick: $t}) INSERT (t)-[:has]->(:NOTE {nick: $n})`,
				map[string]any{"t": fmt.Sprintf("t%d", (i*7)%n), "n": fmt.Sprintf("n%d", i)}); err != nil {
				t.Fatal(err)
			}
		}
		db.plans.Clear()
		var with, without runtime.MemStats
		// Several collections first: what earlier tests left to
		// finalizers (about 2 MiB) is freed by a later one, and would
		// be counted as the ring's.
		for range 4 {
			runtime.GC()
		}
		runtime.ReadMemStats(&with)
		est, kept := s.past.bytes(), len(s.past.vers)
		// The estimate is of the versions kept besides the newest, which
		// is the session's own: the ring is cut to it alone.
		s.past.mu.Lock()
		s.past.vers = append([]pastVersion(nil), s.past.vers[kept-1])
		s.past.mu.Unlock()
		runtime.GC()
		runtime.ReadMemStats(&without)
		live := int64(with.HeapAlloc) - int64(without.HeapAlloc)
		ratio := float64(live) / float64(max(est, 1))
		t.Logf("%d nodes: %d versions kept hold %d KiB, measured %d KiB (%.2f×)", n, kept, live>>10, est>>10, ratio)
		// What the past holds is a twentieth of the session, or the 1 MiB
		// floor.
		if bound := max(sessionBytes(s.snapshot())/pastShare, 1<<20); live > bound*13/10 {
			t.Errorf("%d nodes: the versions kept hold %d KiB, over a twentieth of the session or the floor (%d KiB) and the allocator's rounding", n, live>>10, bound>>10)
		}
		if ratio > 1.3 || ratio < 0.9 {
			t.Errorf("%d nodes: the versions kept hold %d KiB, measured %d KiB", n, live>>10, est>>10)
		}
		db.Close()
	}
}
