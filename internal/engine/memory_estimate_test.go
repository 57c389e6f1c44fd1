package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/values"
)

// TestMemoryEstimateWithinLiveHeap: the memory budget's estimate of the
// resident sessions is within 1.5× of the live heap they hold, for small
// and larger sessions, edge-heavy ones and ones with long values (it
// under-counted 1.6–2.5×, so a budget let the process grow past it).
func TestMemoryEstimateWithinLiveHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds forty sessions")
	}
	ctx := context.Background()
	for _, shape := range []struct{ nodes, edges, propLen int }{{1000, 0, 20}, {1000, 5000, 20}, {1000, 1000, 200}, {1, 0, 1}} {
		db, err := openTest(WithCabinet(filepath.Join(t.TempDir(), "c.gf")), WithMemoryBudget(1<<40), WithShapeCacheBytes(0))
		if err != nil {
			t.Fatal(err)
		}
		var ms runtime.MemStats
		// What earlier tests let go (closed databases' caches, released
		// by their own goroutines) goes first: else the base counts it
		// and the difference can come out below zero.
		runtime.GC()
		time.Sleep(100 * time.Millisecond)
		runtime.GC()
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		for k := 0; k < 10; k++ {
			s, _ := db.Session(ctx, fmt.Sprintf("s%d", k))
			pad := fmt.Sprintf("%0*d", shape.propLen, 7)
			for i := 0; i < shape.nodes; i += 50 {
				text := ""
				for j := i; j < i+50 && j < shape.nodes; j++ {
					text += fmt.Sprintf("INSERT (:TSK {nick: \"n%d\", title: \"task %d %s\", status: \"open\", n: %d});\n", j, j, pad, j)
				}
				if _, err := s.commitText(ctx, "START TRANSACTION;\n"+text+"COMMIT", nil); err != nil {
					t.Fatal(err)
				}
			}
			for i := 0; i < shape.edges; i += 50 {
				text := ""
				for j := i; j < i+50 && j < shape.edges; j++ {
					text += fmt.Sprintf("MATCH (a:TSK {nick: \"n%d\"}), (b:TSK {nick: \"n%d\"}) INSERT (a)-[:rel]->(b);\n", j%shape.nodes, (j*7+1)%shape.nodes)
				}
				if _, err := s.commitText(ctx, "START TRANSACTION;\n"+text+"COMMIT", nil); err != nil {
					t.Fatal(err)
				}
			}
			db.Flush(ctx)
		}
		db.plans.Clear()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		live := ms.HeapAlloc - base
		est := db.MemoryStats().ResidentBytes
		ratio := float64(live) / float64(est)
		t.Logf("%+v: live %d, estimated %d: %.2f", shape, live, est, ratio)
		if ratio > 1.5 || ratio < 1/1.5 {
			t.Errorf("%+v: the estimate %d is not within 1.5× of the live heap %d", shape, est, live)
		}
		db.Close()
	}
}

// TestMemoryBudgetCountsShapeCache: under a budget the Shape cache takes
// at most a quarter of it, and its bytes count with the sessions'.
func TestMemoryBudgetCountsShapeCache(t *testing.T) {
	ctx := context.Background()
	const budget = 8 << 20
	db, err := openTest(WithCabinet(filepath.Join(t.TempDir(), "c.gf")), WithMemoryBudget(budget))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, _ := db.Session(ctx, "s")
	for i := range 200 {
		if _, err := s.commitText(ctx, fmt.Sprintf(`INSERT (:TSK {nick: "n%d", title: "task %d"})`, i, i), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := s.recallShape(ctx, fmt.Sprintf(`MATCH (t:TSK {nick: "n%d"})`, i), values.RecallOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	db.shapes.Wait()
	st := db.MemoryStats()
	if st.ShapeCacheBytes <= 0 || st.ShapeCacheBytes > budget/4 {
		t.Fatalf("the values.Shape cache holds %d bytes under a budget of %d", st.ShapeCacheBytes, budget)
	}
}
