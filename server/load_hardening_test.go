package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/server"
	"github.com/goldfish-gql/goldfish/wire"
)

// TestLoadHardening is the load test of what a reader may do to others,
// over loopback HTTP on a cabinet file. It runs only with GOLDFISH_LOAD=1
// (.ci/run runs it):
//
//	GOLDFISH_LOAD=1 GOLDFISH_LOAD_SECONDS=30 go test -count=1 -run TestLoadHardening -v ./server/
//
// A session of 20,000 one-node versions is committed, the cabinet closed
// and opened again (so no version of it is in memory), and then for
// GOLDFISH_LOAD_SECONDS (default 30) 64 writers and 64 readers work on
// four sessions while attackers send 256 KB texts (a Recall's IN list, a
// Commit's, an MCP recall's), ask the history of random nodes of the
// reopened session, and Recall 5,000 names no write made.
//
// It checks that every acknowledged Commit is kept once (live and after
// a reopen), that no client request failed, that every 256 KB text was
// refused, that each history is the whole one (the versions that touched
// the node, no "more"), that every Recall of a new name was refused with
// 42002 and no such name is listed anywhere (0 phantom sessions). It
// logs each kind's p50 and p99, the resident memory before and at most
// during the load and the highest heap; with GOLDFISH_LOAD_ASSERT=1 it
// also checks that the history's p99 is under 100 ms and the resident
// memory grew less than 256 MiB (figures are measured, not asserted, by
// default). For measuring: GOLDFISH_LOAD_NO_ATTACK=1 runs the writers and
// readers alone, GOLDFISH_LOAD_SHAPE_CACHE_MIB and
// GOLDFISH_LOAD_BUDGET_MIB set the Shape cache and a memory budget, and
// GOLDFISH_LOAD_HEAPPROFILE=FILE writes the heap at the load's end.
func TestLoadHardening(t *testing.T) {
	dur := loadDuration(t)
	const historyVersions = 20_000
	path := filepath.Join(t.TempDir(), "c.gf")
	t0 := time.Now()
	seedHardening(t, path, historyVersions)
	t.Logf("setup: %d sessions of %d tasks and a session of %d versions in %v", loadSessions, loadTasks, historyVersions, time.Since(t0).Round(time.Millisecond))

	opts := []goldfish.Option{goldfish.WithCabinet(path)}
	if mb := os.Getenv("GOLDFISH_LOAD_SHAPE_CACHE_MIB"); mb != "" {
		n, err := strconv.Atoi(mb)
		if err != nil {
			t.Fatalf("GOLDFISH_LOAD_SHAPE_CACHE_MIB=%q", mb)
		}
		opts = append(opts, goldfish.WithShapeCacheBytes(int64(n)<<20))
	}
	if mb := os.Getenv("GOLDFISH_LOAD_BUDGET_MIB"); mb != "" {
		n, err := strconv.Atoi(mb)
		if err != nil {
			t.Fatalf("GOLDFISH_LOAD_BUDGET_MIB=%q", mb)
		}
		opts = append(opts, goldfish.WithMemoryBudget(int64(n)<<20))
	}
	db, err := goldfish.Open(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv, err := server.New(db, server.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	panics := &panicLog{}
	ts := httptest.NewUnstartedServer(srv)
	ts.Config.ErrorLog = log.New(panics, "", 0)
	ts.Start()
	defer ts.Close()
	client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}}
	defer client.CloseIdleConnections()
	post := func(url, body string) (int, string, error) {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := client.Do(req)
		if err != nil {
			return 0, "", err
		}
		// The head of the answer, and the rest read to its end through
		// io.Discard's pooled buffer: io.Copy would make a 32 KiB buffer
		// per request, the load generator's own garbage in the process
		// measured.
		head, err := io.ReadAll(io.LimitReader(resp.Body, 8<<10))
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
		}
		resp.Body.Close()
		return resp.StatusCode, string(head), err
	}
	get := func(url string) (int, string, error) {
		resp, err := client.Get(url)
		if err != nil {
			return 0, "", err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b), err
	}

	rssBefore := rssBytes(t)
	var stop atomic.Bool
	var wg sync.WaitGroup
	var clientErrs atomic.Int64
	var firstErr sync.Once
	fail := func(format string, a ...any) {
		clientErrs.Add(1)
		firstErr.Do(func() { t.Errorf(format, a...) })
	}
	var maxRSS, maxHeap atomic.Int64
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for !stop.Load() {
			if v := rssBytes(t); v > maxRSS.Load() {
				maxRSS.Store(v)
			}
			metrics.Read(sample)
			if v := int64(sample[0].Value.Uint64()); v > maxHeap.Load() {
				maxHeap.Store(v)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()

	kinds := map[string]*loadKind{}
	var kindsMu sync.Mutex
	record := func(kind string, d time.Duration) {
		kindsMu.Lock()
		k := kinds[kind]
		if k == nil {
			k = &loadKind{name: kind}
			kinds[kind] = k
		}
		k.lat = append(k.lat, d)
		kindsMu.Unlock()
	}

	outcomes := make([][]commitOutcome, loadWriters)
	for w := range loadWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := w % loadSessions
			url := fmt.Sprintf("%s/v1/sessions/s%d/commit", ts.URL, s)
			for n := 0; !stop.Load(); n++ {
				nick := fmt.Sprintf("w%d_%d", w, n)
				body := fmt.Sprintf(`{"text": "MATCH (t:TSK {nick: $t}) INSERT (t)-[:has]->(:NOTE {nick: $n})", "params": {"t": "t%d", "n": %q}}`, (w*7+n)%loadTasks, nick)
				t0 := time.Now()
				code, out, err := post(url, body)
				acked := err == nil && code == http.StatusOK
				outcomes[w] = append(outcomes[w], commitOutcome{s, nick, acked})
				if !acked {
					fail("Commit %s: HTTP %d %s, %v", nick, code, out, err)
					continue
				}
				record("commit", time.Since(t0))
			}
		}()
	}
	for r := range loadReaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(r), 2))
			url := fmt.Sprintf("%s/v1/sessions/s%d/recall", ts.URL, r%loadSessions)
			for !stop.Load() {
				body := fmt.Sprintf(`{"q": "MATCH (t:TSK {nick: $n})", "params": {"n": "t%d"}}`, rng.IntN(loadTasks))
				t0 := time.Now()
				if code, out, err := post(url, body); err != nil || code != http.StatusOK {
					fail("Recall: HTTP %d %s, %v", code, out, err)
					continue
				}
				record("recall", time.Since(t0))
			}
		}()
	}

	// The attackers. 256 KB texts, each refused.
	big := func(prefix, suffix string) string {
		var b strings.Builder
		b.WriteString(prefix)
		for b.Len() < 256<<10-len(suffix)-8 {
			b.WriteString(",1")
		}
		b.WriteString(suffix)
		return b.String()
	}
	recallText := big("MATCH (n:TSK) WHERE n.v IN [1", "]")
	commitText := big("INSERT (:X {v: [1", "]})")
	mcpCall, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "recall", "arguments": map[string]any{"session": "s0", "q": recallText}}})
	recallBody, _ := json.Marshal(wire.RecallRequest{Q: recallText})
	commitBody, _ := json.Marshal(wire.CommitRequest{Text: commitText})
	texts := []struct{ kind, url, body string }{
		{"big-recall", ts.URL + "/v1/sessions/s0/recall", string(recallBody)},
		{"big-commit", ts.URL + "/v1/sessions/s1/commit", string(commitBody)},
		{"big-mcp", ts.URL + "/mcp", string(mcpCall)},
	}
	if os.Getenv("GOLDFISH_LOAD_NO_ATTACK") == "1" {
		texts = nil // the writers and readers alone, for comparison
	}
	for _, a := range texts {
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stop.Load() {
					t0 := time.Now()
					code, out, err := post(a.url, a.body)
					switch {
					case err != nil:
						fail("%s: %v", a.kind, err)
					case a.kind == "big-mcp" && (code != 200 || !strings.Contains(out, `"isError":true`) || !strings.Contains(out, "42Q01")):
						fail("%s: %d %s, want a tool error 42Q01", a.kind, code, out)
					case a.kind != "big-mcp" && (code < 400 || code > 499 || !strings.Contains(out, "42Q01")):
						fail("%s: %d %s, want 4xx 42Q01", a.kind, code, out)
					default:
						record(a.kind, time.Since(t0))
					}
				}
			}()
		}
	}
	// The history of random nodes of the reopened session: each whole.
	for h := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(h), 3))
			for !stop.Load() {
				n := rng.IntN(historyVersions - 1) // e0 to e19998
				t0 := time.Now()
				code, out, err := get(fmt.Sprintf("%s/v1/sessions/hs/history?nick=e%d", ts.URL, n))
				d := time.Since(t0)
				var hj wire.History
				if err != nil || code != http.StatusOK || json.Unmarshal([]byte(out), &hj) != nil {
					fail("history of e%d: %d %s, %v", n, code, out, err)
					continue
				}
				want := 1
				if n == 0 {
					want = 2
				}
				if len(hj.Entries) != want || hj.More {
					fail("history of e%d: %d entries, more %v, want %d and no more: %s", n, len(hj.Entries), hj.More, want, out)
					continue
				}
				record("history", d)
			}
		}()
	}
	// Recalls of 5,000 names no write made, each refused: sixteen
	// callers take the next name until all are asked.
	var nextName atomic.Int64
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := nextName.Add(1) - 1; i < 5000 && !stop.Load(); i = nextName.Add(1) - 1 {
				t0 := time.Now()
				code, out, err := post(fmt.Sprintf("%s/v1/sessions/new-%d/recall", ts.URL, i), `{"q": "MATCH ()"}`)
				if err != nil || code != 400 || !strings.Contains(out, "42002") {
					fail("Recall of new-%d: %d %s, %v, want 400 42002", i, code, out, err)
					continue
				}
				record("new-name", time.Since(t0))
			}
		}()
	}

	time.Sleep(dur)
	if path := os.Getenv("GOLDFISH_LOAD_HEAPPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	stop.Store(true)
	wg.Wait()
	<-sampled
	if panics.n.Load() > 0 {
		t.Errorf("%d panics in the HTTP server's log", panics.n.Load())
	}

	growth := maxRSS.Load() - rssBefore
	t.Logf("%-10s %9s %8s %8s %8s", "kind", "requests", "p50 ms", "p99 ms", "max ms")
	names := make([]string, 0, len(kinds))
	for n := range kinds {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		k := kinds[n]
		slices.Sort(k.lat)
		t.Logf("%-10s %9d %8.2f %8.2f %8.2f", n, len(k.lat), ms(k.pct(50)), ms(k.pct(99)), ms(k.pct(100)))
	}
	t.Logf("resident memory %d MiB before the load, at most %d MiB during it (growth %d MiB); heap objects at most %d MiB; client errors %d",
		rssBefore>>20, maxRSS.Load()>>20, growth>>20, maxHeap.Load()>>20, clientErrs.Load())
	if os.Getenv("GOLDFISH_LOAD_ASSERT") == "1" && growth >= 256<<20 {
		t.Errorf("resident memory grew %d MiB under the load, want under 256 MiB", growth>>20)
	}
	if h := kinds["history"]; h == nil || len(h.lat) == 0 {
		t.Errorf("no history answered")
	} else if os.Getenv("GOLDFISH_LOAD_ASSERT") == "1" && h.pct(99) >= 100*time.Millisecond {
		t.Errorf("history p99 %.2f ms, want under 100 ms", ms(h.pct(99)))
	}

	// 0 phantom sessions: the names listed are those written, over HTTP
	// and in the database.
	want := []string{"hs"}
	for s := range loadSessions {
		want = append(want, fmt.Sprintf("s%d", s))
	}
	slices.Sort(want)
	if got := db.Sessions(); !slices.Equal(got, want) {
		t.Errorf("sessions listed after the load: %d (%v…), want %v", len(got), got[:min(len(got), 10)], want)
	}
	code, out, err := get(ts.URL + "/v1/sessions")
	var sj wire.Sessions
	if err != nil || code != 200 || json.Unmarshal([]byte(out), &sj) != nil || len(sj.Sessions) != len(want) {
		t.Errorf("GET /v1/sessions after the load: %d, %d sessions, %v", code, len(sj.Sessions), err)
	}

	var all []commitOutcome
	for _, o := range outcomes {
		all = append(all, o...)
	}
	acked, unacked, applied := checkKept(t, db, all, "live")
	t.Logf("commits acknowledged %d, unacknowledged %d (%d of them applied)", acked, unacked, applied)
	ts.Close()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	re, err := goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	checkKept(t, re, all, "reopened")
	if got := re.Sessions(); !slices.Equal(got, want) {
		t.Errorf("sessions after a reopen: %d, want %v", len(got), want)
	}
}

// seedHardening writes the load's sessions: loadSessions of loadTasks
// tasks, and "hs" of n one-node versions (e0 changed at version 2).
func seedHardening(t *testing.T, path string, n int) {
	t.Helper()
	ctx := context.Background()
	db, err := goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	seedTasks(t, db)
	hs, err := db.Session(ctx, "hs")
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{`INSERT (:E {nick: "e0", v: 0})`, `MATCH (e {nick: "e0"}) SET e.v = 1`} {
		if _, err := hs.Commit(ctx, text, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The rest from several writers at once: their Commits are made
	// durable together.
	var next atomic.Int64
	next.Store(1)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(n-1); i = next.Add(1) - 1 {
				if _, err := hs.Commit(ctx, `INSERT (:E {nick: $n, v: $v})`, map[string]any{"n": fmt.Sprintf("e%d", i), "v": i}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if v := hs.Version(); v != uint64(n) {
		t.Fatalf("the history session is at version %d, want %d", v, n)
	}
	if err := db.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// rssBytes is the process's resident memory.
func rssBytes(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status: resident memory is not measured here")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
