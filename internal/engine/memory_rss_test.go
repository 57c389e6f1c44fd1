package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/goldfish-gql/goldfish/values"
)

// buildManySessions writes n sessions to the cabinet at path, each of
// batches Commits of 12 tasks with a note each (24 nodes and 12 edges a
// batch, the same text in every session, so that it is planned once),
// flushed. Many writers at once, as a server's clients would: the
// cabinet groups their Commits into one fsync.
func buildManySessions(t testing.TB, path string, n, batches int) {
	t.Helper()
	ctx := context.Background()
	db, err := openTest(WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	const writers = 32
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := w; i < n; i += writers {
				s, err := db.Session(ctx, fmt.Sprintf("agent-%04d", i))
				for k := 0; k < batches && err == nil; k++ {
					var b strings.Builder
					b.WriteString("INSERT ")
					for j := k * 12; j < (k+1)*12; j++ {
						if j > k*12 {
							b.WriteString(", ")
						}
						fmt.Fprintf(&b, `(:TSK {nick: "t%d", title: "task %d of the session", status: "open"})-[:has]->(:NOTE {text: "a note on task %d, a few words long"})`, j, j, j)
					}
					_, err = s.commitText(ctx, b.String(), nil)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := db.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// touchSessions reads every session of db with a Recall, rounds times.
func touchSessions(t testing.TB, db *DB, rounds int) {
	t.Helper()
	ctx := context.Background()
	names := db.Sessions()
	for range rounds {
		for _, name := range names {
			s, err := db.Session(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Recall(ctx, `MATCH (t:TSK {nick: "t3"})`, values.RecallOptions{}, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	if db.shapes != nil {
		db.shapes.Wait()
	}
}

// liveHeap is the heap's live bytes after a collection.
func liveHeap() int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestMemoryBudgetBoundsLiveHeap: a 16 MiB budget over 3,000 small
// sessions, each read in turn, holds the live heap the database adds to
// the process within the budget and what an empty database holds (its
// caches' fixed parts). The estimate left out what every session holds
// unloaded (its *Session and its catalogue entry, 2.5 KiB), so the
// resident sessions filled the budget and those 7 MiB came on top: 18.8
// MiB live for a budget of 16 (13.9 MiB once they count). The Shape cache is off: what its Shapes hold of
// the sessions they were read from is not counted yet (see
// TestMemoryBudgetRSS).
func TestMemoryBudgetBoundsLiveHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 3,000 sessions")
	}
	const budget = 16 << 20
	path := filepath.Join(t.TempDir(), "c.gf")
	buildManySessions(t, path, 3000, 1)
	base := liveHeap()
	empty, err := openTest(WithCabinet(filepath.Join(t.TempDir(), "e.gf")), WithMemoryBudget(budget), WithShapeCacheBytes(0))
	if err != nil {
		t.Fatal(err)
	}
	caches := liveHeap() - base
	empty.Close()
	base = liveHeap()
	db, err := openTest(WithCabinet(path), WithMemoryBudget(budget), WithShapeCacheBytes(0))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	touchSessions(t, db, 2)
	live := liveHeap() - base
	st := db.MemoryStats()
	t.Logf("budget %d: the database holds %d live (an empty one %d), estimates %d in %d resident sessions", budget, live, caches, st.ResidentBytes, st.ResidentSessions)
	if live > budget+caches {
		t.Fatalf("the database holds %d bytes live under a budget of %d (and %d for an empty one's caches)", live, budget, caches)
	}
}

// rssFigures is what TestMemoryBudgetRSS's measuring process reports.
type rssFigures struct {
	Estimate, ShapeCache, Live                 int64
	HeapInuse, HeapSys, HeapAlloc, Sys, NextGC uint64
	RSS, RssAnon, RssFile                      int64
	Resident, Sessions                         int
}

// procStatus reads VmRSS, RssAnon and RssFile from /proc/self/status, in
// bytes (-1 where there is none).
func procStatus() (rss, anon, file int64) {
	rss, anon, file = -1, -1, -1
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "VmRSS":
			rss = kb << 10
		case "RssAnon":
			anon = kb << 10
		case "RssFile":
			file = kb << 10
		}
	}
	return
}

// TestMemoryBudgetRSS measures, each in a process of its own, what a
// database under a 16 MiB budget holds once every one of 3,000 sessions
// of 24 nodes (or 100 of 720, GOLDFISH_RSS_BATCHES=30) was read three
// times, with the Shape cache and without: the estimate, the Go heap
// (in use, reserved, live after a collection, the next collection's
// target) and the process's resident memory, anonymous and mapped from
// the cabinet file. It only logs them:
//
//	GOLDFISH_RSS=1 go test -run TestMemoryBudgetRSS -v ./internal/engine/
func TestMemoryBudgetRSS(t *testing.T) {
	if path := os.Getenv("GOLDFISH_RSS_CABINET"); path != "" {
		measureRSS(t, path, os.Getenv("GOLDFISH_RSS_SHAPES") != "")
		return
	}
	if os.Getenv("GOLDFISH_RSS") == "" {
		t.Skip("set GOLDFISH_RSS=1: builds 3,000 sessions, measures in processes of their own")
	}
	n, batches := 3000, 1
	if b, _ := strconv.Atoi(os.Getenv("GOLDFISH_RSS_BATCHES")); b > 0 {
		n, batches = 3000/b, b
	}
	path := filepath.Join(t.TempDir(), "c.gf")
	buildManySessions(t, path, n, batches)
	mib := func(n int64) string { return fmt.Sprintf("%.1f", float64(n)/(1<<20)) }
	for _, shapes := range []string{"1", ""} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryBudgetRSS$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "GOLDFISH_RSS_CABINET="+path, "GOLDFISH_RSS_SHAPES="+shapes)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		_, js, ok := strings.Cut(string(out), "RSSFIGURES ")
		if !ok {
			t.Fatalf("no figures: %s", out)
		}
		js, _, _ = strings.Cut(js, "\n")
		var f rssFigures
		if err := json.Unmarshal([]byte(js), &f); err != nil {
			t.Fatal(err)
		}
		t.Logf("Shape cache %v, %d of %d sessions resident (MiB): estimate %s (Shape cache %s); heap live %s, alloc %s, in use %s, reserved %s, next GC at %s; Sys %s; RSS %s (anon %s, file %s)",
			shapes != "", f.Resident, f.Sessions, mib(f.Estimate), mib(f.ShapeCache), mib(f.Live), mib(int64(f.HeapAlloc)), mib(int64(f.HeapInuse)),
			mib(int64(f.HeapSys)), mib(int64(f.NextGC)), mib(int64(f.Sys)), mib(f.RSS), mib(f.RssAnon), mib(f.RssFile))
	}
}

// measureRSS is TestMemoryBudgetRSS's measuring process.
func measureRSS(t *testing.T, path string, shapes bool) {
	opts := []Option{WithCabinet(path), WithMemoryBudget(16 << 20)}
	if !shapes {
		opts = append(opts, WithShapeCacheBytes(0))
	}
	db, err := openTest(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	touchSessions(t, db, 3)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss, anon, file := procStatus()
	st := db.MemoryStats()
	f := rssFigures{Estimate: st.ResidentBytes + st.ShapeCacheBytes, ShapeCache: st.ShapeCacheBytes,
		HeapInuse: ms.HeapInuse, HeapSys: ms.HeapSys, HeapAlloc: ms.HeapAlloc, Sys: ms.Sys, NextGC: ms.NextGC,
		RSS: rss, RssAnon: anon, RssFile: file, Resident: st.ResidentSessions, Sessions: len(db.Sessions())}
	f.Live = liveHeap()
	out, _ := json.Marshal(f)
	fmt.Printf("RSSFIGURES %s\n", out)
}
