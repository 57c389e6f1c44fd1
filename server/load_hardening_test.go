package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/wire"
)

// TestLoadHardening is the load test of what a reader may do to others,
// over loopback HTTP on a cabinet file. It runs only with GOLDFISH_LOAD=1
// (.ci/run runs it):
//
//	GOLDFISH_LOAD=1 GOLDFISH_LOAD_SECONDS=30 go test -count=1 -run TestLoadHardening -v ./server/
//
// A session of 20,000 one-node versions is committed and the cabinet
// closed; gqlsh serve is built and serves it in a process of its own (so
// no version of it is in memory), and each session is read once (the
// history index built). Then for GOLDFISH_LOAD_SECONDS (default 30) 64
// writers and 64 readers work on four sessions, each an agent sending at
// most GOLDFISH_LOAD_RATE requests a second (default 10, 1,280 a second
// in all; 0 sends back to back, the machine's saturation, where every
// request's wait is the clients' number over the throughput), while
// attackers send 256
// KB texts (a Recall's IN list, a Commit's, an MCP recall's), ask the
// history of random nodes of the reopened session, and Recall 5,000
// names no write made.
//
// It checks that no client request failed, that every 256 KB text was
// refused, that each history is the whole one (the versions that touched
// the node, no "more"), that every Recall of a new name was refused with
// 42002 and no such name is listed (0 phantom sessions), and, once the
// server has stopped on SIGTERM, that every acknowledged Commit is in the
// cabinet once and its log holds no panic. It logs each kind's p50 and
// p99 as the clients saw them, the server's own p99 (its request
// histogram), and the server's resident memory after the warm-up and at
// most during the load; with GOLDFISH_LOAD_ASSERT=1 it also checks that
// the history's p99 is under 100 ms and the resident memory grew less
// than 256 MiB (figures are measured, not asserted, by default). For
// measuring: GOLDFISH_LOAD_NO_ATTACK=1 runs the writers and readers
// alone, GOLDFISH_LOAD_BUDGET_MIB serves with a memory budget.
func TestLoadHardening(t *testing.T) {
	dur := loadDuration(t)
	const historyVersions = 20_000
	dir := t.TempDir()
	path := filepath.Join(dir, "c.gf")
	t0 := time.Now()
	seedHardening(t, path, historyVersions)
	t.Logf("setup: %d sessions of %d tasks and a session of %d versions in %v", loadSessions, loadTasks, historyVersions, time.Since(t0).Round(time.Millisecond))

	// The server is gqlsh serve, in its own process: what is measured is
	// the server as it is run, its resident memory apart from the load's
	// clients, and its goroutines scheduled apart from theirs.
	bin := filepath.Join(dir, "gqlsh")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/gqlsh").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	args := []string{"serve", "--cabinet", path, "--listen", "127.0.0.1:0"}
	if mb := os.Getenv("GOLDFISH_LOAD_BUDGET_MIB"); mb != "" {
		args = append(args, "--memory-budget", mb+"MiB")
	}
	cmd := exec.Command(bin, args...)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	var base string
	addr := regexp.MustCompile(`listening on (http://[0-9.:]+)`)
	for i := 0; i < 3000 && base == ""; i++ { // 30 s at most
		if m := addr.FindStringSubmatch(stderr.String()); m != nil {
			base = m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	if base == "" {
		t.Fatalf("gqlsh serve did not start:\n%s", stderr.String())
	}
	pid := cmd.Process.Pid
	client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}}
	defer client.CloseIdleConnections()
	for i := 0; ; i++ { // ready: the sessions' logs replayed (/readyz)
		if resp, err := client.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if i == 3000 {
			t.Fatalf("gqlsh serve is not ready:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	post := func(url, body string) (int, string, error) {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := client.Do(req)
		if err != nil {
			return 0, "", err
		}
		// The head of the answer, and the rest read to its end through
		// io.Discard's pooled buffer (io.Copy makes 32 KiB per call).
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

	// Warm: each session read once (the history session's index built),
	// so the growth measured is the load's, not the loading of what the
	// cabinet held.
	for s := range loadSessions {
		if code, out, err := post(fmt.Sprintf("%s/v1/sessions/s%d/recall", base, s), `{"q": "MATCH ()"}`); err != nil || code != 200 {
			t.Fatalf("warming s%d: %d %s %v", s, code, out, err)
		}
	}
	if code, out, err := get(base + "/v1/sessions/hs/history?nick=e1"); err != nil || code != 200 {
		t.Fatalf("warming hs: %d %s %v", code, out, err)
	}
	rssBefore := rssOf(t, pid)
	var stop atomic.Bool
	var wg sync.WaitGroup
	var clientErrs atomic.Int64
	var firstErr sync.Once
	fail := func(format string, a ...any) {
		clientErrs.Add(1)
		firstErr.Do(func() { t.Errorf(format, a...) })
	}
	var maxRSS atomic.Int64
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for !stop.Load() {
			if v := rssOf(t, pid); v > maxRSS.Load() {
				maxRSS.Store(v)
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

	// Each writer and reader is an agent that sends at most rate requests
	// a second, at a phase of its own; behind its schedule, it sends back
	// to back.
	rate := loadRate(t)
	pace := func(start time.Time, n int) {
		if rate > 0 {
			time.Sleep(time.Until(start.Add(time.Duration(n) * time.Second / time.Duration(rate))))
		}
	}
	phase := func(i int) time.Time {
		if rate <= 0 {
			return time.Now()
		}
		return time.Now().Add(time.Duration(i) * time.Second / time.Duration(rate) / (loadWriters + loadReaders))
	}

	outcomes := make([][]commitOutcome, loadWriters)
	for w := range loadWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := w % loadSessions
			url := fmt.Sprintf("%s/v1/sessions/s%d/commit", base, s)
			start := phase(w)
			for n := 0; !stop.Load(); n++ {
				pace(start, n)
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
			url := fmt.Sprintf("%s/v1/sessions/s%d/recall", base, r%loadSessions)
			start := phase(loadWriters + r)
			for n := 0; !stop.Load(); n++ {
				pace(start, n)
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
		{"big-recall", base + "/v1/sessions/s0/recall", string(recallBody)},
		{"big-commit", base + "/v1/sessions/s1/commit", string(commitBody)},
		{"big-mcp", base + "/mcp", string(mcpCall)},
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
				code, out, err := get(fmt.Sprintf("%s/v1/sessions/hs/history?nick=e%d", base, n))
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
				code, out, err := post(fmt.Sprintf("%s/v1/sessions/new-%d/recall", base, i), `{"q": "MATCH ()"}`)
				if err != nil || code != 400 || !strings.Contains(out, "42002") {
					fail("Recall of new-%d: %d %s, %v, want 400 42002", i, code, out, err)
					continue
				}
				record("new-name", time.Since(t0))
			}
		}()
	}

	time.Sleep(dur)
	stop.Store(true)
	wg.Wait()
	<-sampled

	// The server's own time, from its request histogram: what of a
	// client's wait was the answer's work, and what was waiting for a
	// processor.
	if code, m, err := get(base + "/metrics"); err == nil && code == 200 {
		for _, endpoint := range []string{"history", "recall", "commit"} {
			t.Logf("%s: the server answered 99%% within %s", endpoint, serverP99(m, endpoint))
		}
	}
	growth := maxRSS.Load() - rssBefore
	t.Logf("writers and readers at most %d requests a second each (0: back to back)", rate)
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
	t.Logf("the server's resident memory %d MiB before the load, at most %d MiB during it (growth %d MiB); client errors %d",
		rssBefore>>20, maxRSS.Load()>>20, growth>>20, clientErrs.Load())
	if os.Getenv("GOLDFISH_LOAD_ASSERT") == "1" && growth >= 256<<20 {
		t.Errorf("resident memory grew %d MiB under the load, want under 256 MiB", growth>>20)
	}
	if h := kinds["history"]; h == nil || len(h.lat) == 0 {
		t.Errorf("no history answered")
	} else if os.Getenv("GOLDFISH_LOAD_ASSERT") == "1" && h.pct(99) >= 100*time.Millisecond {
		t.Errorf("history p99 %.2f ms, want under 100 ms", ms(h.pct(99)))
	}

	// 0 phantom sessions: the names listed are those written, over HTTP
	// and in the cabinet once the server has stopped.
	want := []string{"hs"}
	for s := range loadSessions {
		want = append(want, fmt.Sprintf("s%d", s))
	}
	slices.Sort(want)
	code, out, err := get(base + "/v1/sessions")
	var sj wire.Sessions
	if err != nil || code != 200 || json.Unmarshal([]byte(out), &sj) != nil || len(sj.Sessions) != len(want) {
		t.Errorf("GET /v1/sessions after the load: %d, %d sessions, %v", code, len(sj.Sessions), err)
	}

	var all []commitOutcome
	for _, o := range outcomes {
		all = append(all, o...)
	}
	// A graceful stop (SIGTERM), then every acknowledged Commit is in the
	// cabinet once.
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("gqlsh serve after SIGTERM: %v\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "panic") {
		t.Errorf("the server's log holds a panic:\n%s", stderr.String())
	}
	re, err := goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	acked, unacked, applied := checkKept(t, re, all, "after the server stopped")
	t.Logf("commits acknowledged %d, unacknowledged %d (%d of them applied)", acked, unacked, applied)
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

// rssOf is the resident memory of process pid.
func rssOf(t *testing.T, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
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

// lockedBuffer is a buffer a process writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serverP99 reads, in the server's /metrics text, the least bucket bound
// of goldfish_http_request_duration_seconds that holds 99% of endpoint's
// requests.
func serverP99(metrics, endpoint string) string {
	prefix := `goldfish_http_request_duration_seconds_bucket{endpoint="` + endpoint + `",le="`
	type bucket struct {
		le string
		n  float64
	}
	var buckets []bucket
	for _, line := range strings.Split(metrics, "\n") {
		rest, ok := strings.CutPrefix(line, prefix)
		if !ok {
			continue
		}
		le, count, ok := strings.Cut(rest, `"} `)
		n, err := strconv.ParseFloat(count, 64)
		if ok && err == nil {
			buckets = append(buckets, bucket{le, n})
		}
	}
	if len(buckets) == 0 {
		return "(not in /metrics)"
	}
	total := buckets[len(buckets)-1].n
	for _, b := range buckets {
		if b.n >= 0.99*total {
			return b.le + " s"
		}
	}
	return "?"
}

// loadRate is GOLDFISH_LOAD_RATE, the most requests a second each writer
// and reader of TestLoadHardening sends (default 10; 0: back to back, the
// machine's saturation).
func loadRate(t *testing.T) int {
	v := os.Getenv("GOLDFISH_LOAD_RATE")
	if v == "" {
		return 10
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("GOLDFISH_LOAD_RATE=%q: want a number of requests a second, 0 for back to back", v)
	}
	return n
}
