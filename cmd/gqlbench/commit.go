package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/goldfish-gql/goldfish"
)

// benchCommit measures durable Commits (fsynced in the bbolt cabinet before
// they return) with writers concurrent writers, each on its own session,
// cfg.Commits in total; as BenchmarkCommitDurable does.
func benchCommit(ctx context.Context, cfg Config, writers int) (CommitReport, error) {
	dir, err := os.MkdirTemp(cfg.TmpDir, "cabinet")
	if err != nil {
		return CommitReport{}, err
	}
	defer os.RemoveAll(dir)
	db, err := goldfish.Open(goldfish.WithCabinet(filepath.Join(dir, "bench.gf")))
	if err != nil {
		return CommitReport{}, err
	}
	defer db.Close()
	per := max(1, cfg.Commits/writers)
	lat := make([][]time.Duration, writers)
	errs := make([]error, writers)
	sessions := make([]*goldfish.Session, writers)
	for w := range writers {
		if sessions[w], err = db.Session(context.Background(), fmt.Sprintf("w%d", w)); err != nil {
			return CommitReport{}, err
		}
	}
	var wg sync.WaitGroup
	settle()
	start := time.Now()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				t0 := time.Now()
				if _, err := sessions[w].Commit(ctx, `INSERT (:STEP {n: $n, text: "a small note of a few words"})`, map[string]any{"n": i}); err != nil {
					errs[w] = err
					return
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	var all []time.Duration
	for w := range writers {
		if errs[w] != nil {
			return CommitReport{}, errs[w]
		}
		all = append(all, lat[w]...)
	}
	slices.Sort(all)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return CommitReport{Writers: writers, Commits: len(all), PerSec: float64(len(all)) / el.Seconds(),
		P50ms: ms(all[len(all)/2]), P99ms: ms(all[min(len(all)-1, len(all)*99/100)])}, nil
}
