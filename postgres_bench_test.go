package goldfish_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/postgres"
)

// BenchmarkCommitBackends measures durable Commit latency (p50, p99) and
// throughput on the bbolt file and on PostgreSQL in the same run: 1 and 8
// writers each on a session of its own, and, on PostgreSQL, two hosts of
// 8 writers each all on one session (every Commit there catches up with
// the other host's first). Figures depend on the server's fsync: run it
// on a server as it will be deployed.
//
//	GOLDFISH_TEST_POSTGRES=postgres://… go test -run '^$' -bench CommitBackends -benchtime 2000x .
func BenchmarkCommitBackends(b *testing.B) {
	type setup struct {
		name    string
		writers int
		one     bool // every writer on one session
		open    func(b *testing.B) []*goldfish.DB
	}
	bolt := func(b *testing.B) []*goldfish.DB {
		return []*goldfish.DB{openCab(b, filepath.Join(b.TempDir(), "bench.gf"))}
	}
	pg := func(hosts int) func(b *testing.B) []*goldfish.DB {
		return func(b *testing.B) []*goldfish.DB {
			url, schema := pgSchema(b)
			var dbs []*goldfish.DB
			for range hosts {
				dbs = append(dbs, openPG(b, url, schema, postgres.Options{}))
			}
			return dbs
		}
	}
	for _, st := range []setup{
		{"cabinet=bbolt/writers=1", 1, false, bolt},
		{"cabinet=bbolt/writers=8", 8, false, bolt},
		{"cabinet=postgres/writers=1", 1, false, pg(1)},
		{"cabinet=postgres/writers=8", 8, false, pg(1)},
		{"cabinet=postgres/hosts=2/writers=16/one-session", 16, true, pg(2)},
	} {
		b.Run(st.name, func(b *testing.B) {
			dbs := st.open(b)
			defer func() {
				for _, db := range dbs {
					db.Close()
				}
			}()
			ctx := context.Background()
			lat := make([][]time.Duration, st.writers)
			per := max(1, b.N/st.writers)
			sessions := make([]*goldfish.Session, st.writers)
			for w := range st.writers {
				name := fmt.Sprintf("w%d", w)
				if st.one {
					name = "one"
				}
				sessions[w] = mustSession(b, dbs[w%len(dbs)], name)
			}
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for w := range st.writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range per {
						t0 := time.Now()
						if _, err := sessions[w].Commit(ctx, `INSERT (:STEP {n: $n, text: "a small note of a few words"})`, map[string]any{"n": i}); err != nil {
							b.Error(err)
							return
						}
						lat[w] = append(lat[w], time.Since(t0))
					}
				}()
			}
			wg.Wait()
			el := time.Since(start)
			b.StopTimer()
			var all []time.Duration
			for _, l := range lat {
				all = append(all, l...)
			}
			sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
			b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(len(all))/el.Seconds(), "commits/s")
		})
	}
}

// BenchmarkHydrate100kPostgres measures hydrating a flushed session of
// ~113k elements from PostgreSQL (open, then the first Session call), as
// BenchmarkHydrate100k does from the file.
//
//	GOLDFISH_TEST_POSTGRES=postgres://… go test -run '^$' -bench 'Hydrate100k' -benchtime 5x .
func BenchmarkHydrate100kPostgres(b *testing.B) {
	url, schema := pgSchema(b)
	db := openPG(b, url, schema, postgres.Options{}, goldfish.WithAutoFlush(0, 0))
	fillBig(b, db)
	db.Close()
	b.ResetTimer()
	for range b.N {
		db := openPG(b, url, schema, postgres.Options{})
		s := mustSession(b, db, "big")
		if n := goldfish.SnapshotOf(s).NodeCount() + goldfish.SnapshotOf(s).EdgeCount(); n < 100000 {
			b.Fatalf("only %d elements", n)
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
}
