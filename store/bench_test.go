package store

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/values"
)

var benchKinds = []string{"TSK", "LAW", "MOD", "PKG", "NOTE"}

// buildGraph commits n nodes (5 kinds, 3 props each incl. a unique nick)
// and n-1 edges, in batches of 10k.
func buildGraph(tb testing.TB, n int) *Graph {
	g := New()
	var prev ID
	for i := 0; i < n; {
		tx := g.Begin()
		for j := 0; j < 10000 && i < n; j, i = j+1, i+1 {
			id := tx.NewID()
			p := values.Props{{Key: "i", Val: values.Int(int64(i))}, {Key: "nick", Val: values.String(fmt.Sprint("n", i))}, {Key: "title", Val: values.String(fmt.Sprint("title ", i%1000))}}
			if _, err := tx.InsertNode(id, []string{benchKinds[i%len(benchKinds)]}, p); err != nil {
				tb.Fatal(err)
			}
			if prev != 0 {
				if _, err := tx.InsertEdge(tx.NewID(), "next", prev, id, nil); err != nil {
					tb.Fatal(err)
				}
			}
			prev = id
		}
		tx.Commit()
	}
	return g
}

// BenchmarkInsertNode: one op = one InsertNode, in Txs of 100 nodes
// (Begin/Commit cost included, amortised over the 100), on a graph that
// grows to 100k nodes and then starts over.
func BenchmarkInsertNode(b *testing.B) {
	const batch = 100
	g := New()
	props := make([]values.Props, 100000)
	for i := range props {
		props[i] = values.Props{{Key: "i", Val: values.Int(int64(i))}, {Key: "nick", Val: values.String(fmt.Sprint("n", i))}}
	}
	b.ReportAllocs()
	n := 0
	var tx *Tx
	for b.Loop() {
		if n%batch == 0 {
			if tx != nil {
				tx.Commit()
			}
			if n == len(props) {
				b.StopTimer()
				g, n = New(), 0
				b.StartTimer()
			}
			tx = g.Begin()
		}
		if _, err := tx.InsertNode(tx.NewID(), []string{"TSK"}, props[n]); err != nil {
			b.Fatal(err)
		}
		n++
	}
	tx.Commit()
}

func BenchmarkCommitSmall(b *testing.B) {
	g := buildGraph(b, 100000)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		tx := g.Begin()
		if _, err := tx.InsertNode(tx.NewID(), []string{"NOTE"}, values.Props{{Key: "nick", Val: values.String(fmt.Sprint("x", n))}}); err != nil {
			b.Fatal(err)
		}
		tx.Commit()
		n++
	}
}

func BenchmarkScanLabelFirst4(b *testing.B) {
	for _, size := range []int{1000, 100000} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			s := buildGraph(b, size).Snapshot()
			b.ReportAllocs()
			for b.Loop() {
				k := 0
				s.ScanLabel("MOD", func(*Node) bool { k++; return k < 4 })
				if k != 4 {
					b.Fatal(k)
				}
			}
		})
	}
}

func BenchmarkScanPropFirst4(b *testing.B) {
	s := buildGraph(b, 100000).Snapshot()
	b.ReportAllocs()
	v := values.String("title 7")
	for b.Loop() {
		k := 0
		s.ScanProp("title", v, func(*Node) bool { k++; return k < 4 })
		if k != 4 {
			b.Fatal(k)
		}
	}
}

func BenchmarkNodeByNick(b *testing.B) {
	s := buildGraph(b, 100000).Snapshot()
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := s.NodeByNick("n5000"); !ok {
			b.Fatal()
		}
	}
}

// TestMemoryPerElement reports retained heap per element (nodes + edges)
// on a 100k-node graph (run with -v; skipped in -short).
func TestMemoryPerElement(t *testing.T) {
	if testing.Short() {
		t.Skip()
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g := buildGraph(t, 100000)
	runtime.GC()
	runtime.ReadMemStats(&after)
	s := g.Snapshot()
	elems := s.NodeCount() + s.EdgeCount()
	heap := int64(after.HeapAlloc - before.HeapAlloc)
	t.Logf("heap %d bytes for %d elements: %.0f bytes/element", heap, elems, float64(heap)/float64(elems))
	// The footprint is the heap, but for each object's rounding to its
	// size class and the graph's interning tables.
	f := s.Footprint()
	t.Logf("footprint %d bytes (%.2f of the heap): %+v", f.Present(), float64(f.Present())/float64(heap), f)
	if r := float64(f.Present()) / float64(heap); r < 0.8 || r > 1 {
		t.Errorf("footprint %d bytes, %.2f of the heap's %d: want 0.8–1", f.Present(), r, heap)
	}
	runtime.KeepAlive(g)
}

// BenchmarkNodeByNickCold looks up random nicks of a 1M-node graph, each
// after 200 random loads from a 32 MB buffer, so the lookup meets the
// trie and the node cold, as a Recall on a large session does (its walk
// evicts the index between Recalls). It reports the lookup's p50.
func BenchmarkNodeByNickCold(b *testing.B) {
	s := buildGraph(b, 1_000_000).Snapshot()
	rng := rand.New(rand.NewPCG(1, 2))
	nicks := make([]string, 4096)
	for i := range nicks {
		nicks[i] = fmt.Sprint("n", rng.IntN(1_000_000))
	}
	junk := make([]uint64, 4<<20)
	var sink uint64
	lat := make([]time.Duration, 0, 1<<20)
	for i := 0; b.Loop(); i++ {
		for range 200 {
			sink += junk[rng.IntN(len(junk))]
		}
		t0 := time.Now()
		n, ok := s.NodeByNick(nicks[i%len(nicks)])
		if len(lat) < cap(lat) {
			lat = append(lat, time.Since(t0))
		}
		if !ok {
			b.Fatal("nick not found")
		}
		sink += uint64(n.slot)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	runtime.KeepAlive(sink)
}
