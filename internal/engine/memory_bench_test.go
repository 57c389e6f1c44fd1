package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/values"
)

// BenchmarkRehydrate measures the first Recall of a session a memory
// budget unloaded: hydrating it again (from its log when short, from its
// snapshot once a long log was flushed at the unload) and the Recall.
//
//	go test -run '^$' -bench Rehydrate -benchtime 20x .
func BenchmarkRehydrate(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			db, err := openTest(WithCabinet(filepath.Join(b.TempDir(), "c.gf")), WithMemoryBudget(1<<40), WithAutoFlush(0, 0),
				WithCommitBudget(values.Budget{Rows: 1000, Bytes: 1 << 20}))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			s := session(b, db, "s")
			for made := 0; made < n; made += 375 {
				var text strings.Builder
				text.WriteString("INSERT ")
				for j := range 125 {
					if j > 0 {
						text.WriteString(", ")
					}
					k := made/3 + j
					fmt.Fprintf(&text, `(:TSK {nick: "t%d", status: "open", n: %d})-[:next]->(:NOTE {text: "note %d"})`, k, k, k)
				}
				commit(b, s, text.String())
			}
			q := `MATCH (t:TSK {nick: "t0"})`
			if !db.mem.unload(s) { // flushes the 100k session's long log once
				b.Fatal("the session was not unloaded")
			}
			snap := -1
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				if resident(s) && !db.mem.unload(s) {
					b.Fatal("the session was not unloaded")
				}
				b.StartTimer()
				if _, err := s.recallShape(ctx, q, values.RecallOptions{}); err != nil {
					b.Fatal(err)
				}
				snap = int(s.snapVersion)
			}
			b.StopTimer()
			elems := s.snapshot().NodeCount() + s.snapshot().EdgeCount()
			b.ReportMetric(float64(elems), "elements")
			b.ReportMetric(float64(s.Version()-uint64(snap)), "log-entries")
		})
	}
}

// BenchmarkRecallBudget is BenchmarkRecall's miss case on the 1k session
// of a database on a cabinet, without a budget and with one the session
// fits: what holding a session resident costs a Recall.
//
//	go test -run '^$' -bench RecallBudget -benchtime 20000x .
func BenchmarkRecallBudget(b *testing.B) {
	ctx := context.Background()
	const q = `MATCH (t:TSK {nick: $nick})`
	for _, budget := range []int64{0, 1 << 40} {
		b.Run(fmt.Sprintf("budget=%v", budget != 0), func(b *testing.B) {
			db, err := openTest(WithCabinet(filepath.Join(b.TempDir(), "c.gf")), WithMemoryBudget(budget), WithShapeCacheBytes(0))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			s := benchSession(b, db, 1000)
			nicks := benchNicks(1000)
			recallLatencies(b, func(i int) error {
				_, err := s.recallShape(ctx, q, values.RecallOptions{Params: nicks[i%len(nicks)]})
				return err
			})
		})
	}
}
