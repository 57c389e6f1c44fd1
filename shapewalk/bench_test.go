package shapewalk

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

const (
	benchNodes    = 100_000
	benchEdgesPer = 3
	benchHubs     = 4
	benchHubDeg   = 5_000
)

type benchData struct {
	once  sync.Once
	snap  *store.Snapshot
	seeds []*store.Node
	hubs  []*store.Node
}

var benchWithHubs, benchNoHubs benchData

// benchGraph: 100k nodes of 5 kinds with distinct observables, 3 random
// edges per node of 3 types, plus 4 hubs with 5k "contains" children each.
func benchGraph(tb testing.TB) (*store.Snapshot, []*store.Node, []*store.Node) {
	return benchData1(&benchWithHubs, benchHubs)
}

func benchData1(d *benchData, nHubs int) (*store.Snapshot, []*store.Node, []*store.Node) {
	d.once.Do(func() {
		r := rand.New(rand.NewPCG(1, 2))
		g := store.New()
		tx := g.Begin()
		kinds := []string{"TSK", "MOD", "NOTE", "PKG", "FN"}
		types := []string{"contains", "refs", "uses"}
		ids := make([]store.ID, benchNodes)
		for i := range ids {
			ids[i] = tx.NewID()
			p := values.Props{
				{Key: "loc", Val: values.String(fmt.Sprintf("src/file%d.go:%d", i%997, i))},
				{Key: "rank", Val: values.Int(int64(r.IntN(100)))},
			}
			if _, err := tx.InsertNode(ids[i], []string{kinds[i%len(kinds)]}, p); err != nil {
				panic(err)
			}
		}
		for i := range ids {
			for k := 0; k < benchEdgesPer; k++ {
				j := r.IntN(benchNodes)
				if _, err := tx.InsertEdge(tx.NewID(), types[r.IntN(len(types))], ids[i], ids[j], nil); err != nil {
					panic(err)
				}
			}
		}
		var hubs []store.ID
		for h := 0; h < nHubs; h++ {
			hub := ids[r.IntN(benchNodes)]
			hubs = append(hubs, hub)
			for k := 0; k < benchHubDeg; k++ {
				if _, err := tx.InsertEdge(tx.NewID(), "contains", hub, ids[r.IntN(benchNodes)], nil); err != nil {
					panic(err)
				}
			}
		}
		d.snap = tx.Commit()
		for k := 0; k < 1024; k++ {
			n, _ := d.snap.Node(ids[r.IntN(benchNodes)])
			d.seeds = append(d.seeds, n)
		}
		for _, id := range hubs {
			n, _ := d.snap.Node(id)
			d.hubs = append(d.hubs, n)
		}
	})
	return d.snap, d.seeds, d.hubs
}

// BenchmarkWalk: one random seed per op, K=2, M=50, F=8 (a cache-miss
// Recall's walk; seeding and emit are not included).
func BenchmarkWalk(b *testing.B) {
	snap, seeds, _ := benchGraph(b)
	opt := Options{K: 2, M: 50, F: 8}
	b.ReportAllocs()
	b.ResetTimer()
	rows := 0
	for i := 0; i < b.N; i++ {
		sh := Walk(snap, seeds[i%len(seeds):i%len(seeds)+1], opt)
		rows += sh.Rows()
	}
	b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
}

// BenchmarkWalkNoHubs: the same graph without the hubs (every expansion is
// O(small degree)).
func BenchmarkWalkNoHubs(b *testing.B) {
	snap, seeds, _ := benchData1(&benchNoHubs, 0)
	opt := Options{K: 2, M: 50, F: 8}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Walk(snap, seeds[i%len(seeds):i%len(seeds)+1], opt)
	}
}

// BenchmarkWalkFourSeeds: L=4 seeds sharing one M.
func BenchmarkWalkFourSeeds(b *testing.B) {
	snap, seeds, _ := benchGraph(b)
	opt := Options{K: 2, M: 50, F: 8}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := (i * 4) % (len(seeds) - 4)
		Walk(snap, seeds[k:k+4], opt)
	}
}

// BenchmarkWalkHubSeed: the seed is a hub with ~5k neighbours (the
// O(degree) case).
func BenchmarkWalkHubSeed(b *testing.B) {
	snap, _, hubs := benchGraph(b)
	opt := Options{K: 2, M: 50, F: 8}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Walk(snap, hubs[i%len(hubs):i%len(hubs)+1], opt)
	}
}

// BenchmarkWalkPinned: with a pinned kind that has 20k nodes (budget-bounded scan).
func BenchmarkWalkPinned(b *testing.B) {
	snap, seeds, _ := benchGraph(b)
	opt := Options{K: 2, M: 50, F: 8, Pinned: []string{"TSK"}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Walk(snap, seeds[i%len(seeds):i%len(seeds)+1], opt)
	}
}

func BenchmarkOutline(b *testing.B) {
	snap, _, _ := benchGraph(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Outline(snap, 4)
	}
}

func BenchmarkSignature(b *testing.B) {
	snap, seeds, _ := benchGraph(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Signature(snap, seeds[i%len(seeds)])
	}
}
