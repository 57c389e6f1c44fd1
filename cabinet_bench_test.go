package goldfish_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
)

// BenchmarkCommitDurable measures durable Commit latency (every Commit is
// fsynced before it returns) with 1 and 8 concurrent writers, each on its
// own session, and reports p50, p99 and commits/s.
//
//	go test -run '^$' -bench CommitDurable -benchtime 3000x .
func BenchmarkCommitDurable(b *testing.B) {
	for _, writers := range []int{1, 8} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			db := openCab(b, filepath.Join(b.TempDir(), "bench.gf"))
			defer db.Close()
			ctx := context.Background()
			lat := make([][]time.Duration, writers)
			per := max(1, b.N/writers)
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s := mustSession(b, db, fmt.Sprintf("w%d", w))
					for i := range per {
						t0 := time.Now()
						if _, err := s.Commit(ctx, `INSERT (:STEP {n: $n, text: "a small note of a few words"})`, map[string]any{"n": i}); err != nil {
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

// bigSession builds a flushed session of about 113k elements (75k nodes,
// 37.5k edges) in path.
func bigSession(b *testing.B, path string) {
	db := openCab(b, path, goldfish.WithAutoFlush(0, 0))
	defer db.Close()
	fillBig(b, db)
}

// fillBig writes and flushes bigSession's session "big" in db.
func fillBig(b *testing.B, db *goldfish.DB) {
	s := mustSession(b, db, "big")
	ctx := context.Background()
	for i := 0; i < 50000; i += 250 {
		if _, err := s.Commit(ctx, `INSERT (:MOD {n: $i, loc: $loc})`, map[string]any{"i": i, "loc": fmt.Sprintf("pkg/f%d.go", i)}); err != nil {
			b.Fatal(err)
		}
	}
	// 300 Δs of 250 nodes + 125 edges each, through the plain API.
	for i := 0; i < 300; i++ {
		text := "INSERT "
		for j := 0; j < 125; j++ {
			if j > 0 {
				text += ", "
			}
			text += fmt.Sprintf(`(a%d:TSK {n: %d, status: "open"})-[:next]->(b%d:NOTE {n: %d, text: "note text"})`, j, i*125+j, j, i*125+j)
		}
		if _, err := s.Commit(ctx, text, nil); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Flush(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkHydrate100k measures hydrating a flushed session of ~100k
// elements (open, then the first Session call), and BenchmarkFlush100k
// writing its snapshot.
//
//	go test -run '^$' -bench 'Hydrate100k|Flush100k' -benchtime 5x .
func BenchmarkHydrate100k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.gf")
	bigSession(b, path)
	b.ResetTimer()
	for range b.N {
		db := openCab(b, path)
		s := mustSession(b, db, "big")
		if goldfish.SnapshotOf(s).NodeCount()+goldfish.SnapshotOf(s).EdgeCount() < 100000 {
			b.Fatalf("only %d elements", goldfish.SnapshotOf(s).NodeCount()+goldfish.SnapshotOf(s).EdgeCount())
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
}

func BenchmarkFlush100k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.gf")
	bigSession(b, path)
	db := openCab(b, path)
	defer db.Close()
	s := mustSession(b, db, "big")
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		mustCommit(b, s, `INSERT (:NOTE {n: $n})`, map[string]any{"n": -i})
		b.StartTimer()
		if err := s.Flush(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommitAfterFlush measures a one-node Commit on a session whose
// 100k-node snapshot was just flushed, and reports the bytes the process
// wrote per Commit (wchar of /proc/self/io: every page bbolt writes,
// the meta page included). A small Commit must write in proportion to its
// Δ, not to the snapshot.
//
//	go test -run '^$' -bench CommitAfterFlush -benchtime 200x .
func BenchmarkCommitAfterFlush(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.gf")
	db := openCab(b, path, goldfish.WithAutoFlush(0, 0))
	defer db.Close()
	s := mustSession(b, db, "big")
	ctx := context.Background()
	for i := 0; i < 100000; i += 250 {
		var text strings.Builder
		text.WriteString("INSERT ")
		for j := range 250 {
			if j > 0 {
				text.WriteString(", ")
			}
			fmt.Fprintf(&text, `(:TSK {n: %d, status: "open", text: "a note of a few words"})`, i+j)
		}
		mustCommit(b, s, text.String(), nil)
	}
	if err := s.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	w0, ok := writtenBytes()
	b.ResetTimer()
	for i := range b.N {
		mustCommit(b, s, `INSERT (:NOTE {n: $n, text: "one more note"})`, map[string]any{"n": i})
	}
	b.StopTimer()
	if w1, _ := writtenBytes(); ok {
		b.ReportMetric(float64(w1-w0)/float64(b.N), "B/commit")
	}
}

// writtenBytes returns the bytes this process has passed to write calls
// so far (Linux only).
func writtenBytes() (int64, bool) {
	raw, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
