package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

var benchKinds = []string{"TSK", "MOD", "NOTE", "FILE", "FN"}

var benchAgents = []string{"planner", "coder", "reviewer", "tester"}

// benchSession builds a session of n nodes straight through the store (a
// million nodes through GQL text would measure the parser, not Recall):
// five kinds, three edges per node to random nodes, and a few hubs that
// one node in a hundred also points at.
func benchSession(b testing.TB, db *DB, n int) *Session {
	b.Helper()
	return benchSessionAs(b, db, fmt.Sprintf("bench%d", n), n)
}

// benchSessionAs is benchSession under another name: the same n gives
// the same graph, so two sessions can be compared on equal footing.
func benchSessionAs(b testing.TB, db *DB, name string, n int) *Session {
	b.Helper()
	s, _ := db.Session(context.Background(), name)
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	ids := make([]store.ID, n)
	const batch = 50_000
	for lo := 0; lo < n; lo += batch {
		tx := s.graph.Begin()
		for i := lo; i < min(n, lo+batch); i++ {
			kind := benchKinds[i%len(benchKinds)]
			props := values.MakeProps(map[string]values.Value{
				"nick":   values.String(fmt.Sprintf("%s_%d", kind, i)),
				"title":  values.String(fmt.Sprintf("element %d of the bench session", i)),
				"weight": values.Int(int64(i % 97)),
			})
			node, err := tx.InsertNode(tx.NewID(), []string{kind}, props)
			if err != nil {
				b.Fatal(err)
			}
			ids[i] = node.ID
		}
		tx.Commit()
	}
	hubs := ids[:5]
	types := []string{"touches", "calls", "contains"}
	for lo := 0; lo < n; lo += batch {
		tx := s.graph.Begin()
		for i := lo; i < min(n, lo+batch); i++ {
			for j := 0; j < 3; j++ {
				to := ids[rng.IntN(n)]
				if _, err := tx.InsertEdge(tx.NewID(), types[j], ids[i], to, nil); err != nil {
					b.Fatal(err)
				}
			}
			if i%100 == 0 {
				if _, err := tx.InsertEdge(tx.NewID(), "refs", ids[i], hubs[i%len(hubs)], nil); err != nil {
					b.Fatal(err)
				}
			}
		}
		tx.Commit()
	}
	s.setGraph(s.graph) // built behind the Commit path: make it readable
	return s
}

// BenchmarkRecall measures a Recall (seed by nick, k=2, M=50, F=8) on
// sessions of growing size, with the Shape cache off (miss) and on (hit).
// It reports p50 and p99 per operation besides the mean.
func BenchmarkRecall(b *testing.B) {
	ctx := context.Background()
	const q = `MATCH (t:TSK {nick: $nick})`
	for _, n := range []int{1_000, 10_000, 100_000, 1_000_000} {
		// One level per size, so a -bench filter on the size skips
		// building the others.
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			db, _ := openTest(WithShapeCacheBytes(0))
			defer db.Close()
			s := benchSession(b, db, n)
			nicks := benchNicks(n)
			// first: every Recall seeds a node no Recall has met, so its
			// walk meets records, adjacency and renderings cold (the case
			// gqlbench measures). It runs before miss, on the same
			// session; run it with -benchtime of at most 200x (the 1k
			// session has 200 TSK seeds).
			b.Run("first", func(b *testing.B) {
				order := rand.New(rand.NewPCG(9, uint64(n))).Perm(n / len(benchKinds))
				if b.N > len(order) {
					b.Skipf("only %d distinct seeds", len(order))
				}
				recallLatencies(b, func(i int) error {
					_, err := s.recallShape(ctx, q, values.RecallOptions{Params: map[string]any{"nick": fmt.Sprintf("TSK_%d", order[i]*len(benchKinds))}})
					return err
				})
			})
			b.Run("miss", func(b *testing.B) {
				recallLatencies(b, func(i int) error {
					_, err := s.recallShape(ctx, q, values.RecallOptions{Params: nicks[i%len(nicks)]})
					return err
				})
			})
			// miss-agent and hit-agent are miss and hit read as one of
			// four agents: what keeping the agents' records costs.
			b.Run("miss-agent", func(b *testing.B) {
				recallLatencies(b, func(i int) error {
					_, err := s.recallShape(ctx, q, values.RecallOptions{Params: nicks[i%len(nicks)], Agent: benchAgents[i%len(benchAgents)]})
					return err
				})
			})
			cached, _ := openTest()
			defer cached.Close()
			cs := newSession(cached, s.name)
			cs.setGraph(s.graph)
			cached.sessions[s.name] = cs
			for _, p := range nicks[:16] {
				if _, err := cs.recallShape(ctx, q, values.RecallOptions{Params: p}); err != nil {
					b.Fatal(err)
				}
			}
			cached.shapes.Wait()
			b.Run("hit", func(b *testing.B) {
				recallLatencies(b, func(i int) error {
					_, err := cs.recallShape(ctx, q, values.RecallOptions{Params: nicks[i%16]})
					return err
				})
			})
			b.Run("hit-agent", func(b *testing.B) {
				recallLatencies(b, func(i int) error {
					_, err := cs.recallShape(ctx, q, values.RecallOptions{Params: nicks[i%16], Agent: benchAgents[i%len(benchAgents)]})
					return err
				})
			})
		})
	}
}

// benchNicks returns the parameters of 1,024 seeded Recalls of TSK nodes
// of a session of n nodes (the miss case's seeds).
func benchNicks(n int) []map[string]any {
	nicks := make([]map[string]any, 1024)
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range nicks {
		k := rng.IntN(n/len(benchKinds)) * len(benchKinds)
		nicks[i] = map[string]any{"nick": fmt.Sprintf("TSK_%d", k)}
	}
	return nicks
}

// recallLatencies runs op b.N times and reports p50 and p99 latencies.
func recallLatencies(b *testing.B, op func(i int) error) {
	b.ReportAllocs()
	lat := make([]time.Duration, 0, 1<<16)
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		if err := op(i); err != nil {
			b.Fatal(err)
		}
		if len(lat) < cap(lat) {
			lat = append(lat, time.Since(t0))
		}
	}
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
		b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
	}
}

// BenchmarkRecallGrowth measures the growth ratio p50(1M)/p50(1k) of the
// miss case of BenchmarkRecall with both sessions in one process, in
// alternating blocks of 256 Recalls, so that the machine's drift (which
// moves a p50 by a quarter between runs minutes apart on a shared 2-core
// machine) weighs on both sizes alike:
//
//	go test -run '^$' -bench RecallGrowth -benchtime 80000x .
func BenchmarkRecallGrowth(b *testing.B) {
	ctx := context.Background()
	const q = `MATCH (t:TSK {nick: $nick})`
	const block = 256
	db, _ := openTest(WithShapeCacheBytes(0))
	defer db.Close()
	sizes := []int{1_000, 1_000_000}
	sessions := make([]*Session, len(sizes))
	nicks := make([][]map[string]any, len(sizes))
	for i, n := range sizes {
		sessions[i] = benchSession(b, db, n)
		nicks[i] = benchNicks(n)
	}
	lat := make([][]time.Duration, len(sizes))
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		at := (i / block) % len(sizes)
		t0 := time.Now()
		if _, err := sessions[at].recallShape(ctx, q, values.RecallOptions{Params: nicks[at][i%1024]}); err != nil {
			b.Fatal(err)
		}
		lat[at] = append(lat[at], time.Since(t0))
	}
	var p50 []float64
	for _, l := range lat {
		if len(l) == 0 {
			return
		}
		slices.Sort(l)
		p50 = append(p50, float64(l[len(l)/2].Nanoseconds()))
	}
	b.ReportMetric(p50[0], "p50-1k-ns")
	b.ReportMetric(p50[1], "p50-1M-ns")
	b.ReportMetric(p50[1]/p50[0], "growth")
}
