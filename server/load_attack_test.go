package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/server"
)

// TestLoadAttack is the load test of the server under attack, over
// loopback HTTP/JSON on a cabinet file. It runs only with GOLDFISH_LOAD=1:
//
//	GOLDFISH_LOAD=1 GOLDFISH_LOAD_SECONDS=30 go test -count=1 -run TestLoadAttack -v ./server/
//
// Two runs of GOLDFISH_LOAD_SECONDS (default 30) each, on a fresh database:
// 64 writers (each Commit links one new node of a unique nick to a task)
// and 64 readers (a Recall of one task's neighbourhood), first alone, then
// beside attackers that post over-budget Recall texts (a 1 MB IN list) and
// JSON-RPC batches to /mcp (20,000 tools/list calls, 1.1 MB). It logs the
// requests, req/s, p50 and p99 of each kind in both runs, the attackers'
// answers, the highest live heap and the load average.
//
// It always checks that every acknowledged Commit is in the session
// exactly once, node and edge, on the live database and after a reopen;
// that an unacknowledged one is wholly there or wholly absent; that no
// client's request failed; that no handler panicked; and that every
// attacker's request was answered, within its timeout, with a 4xx. With
// GOLDFISH_LOAD_ASSERT=1 it also checks that each kind's p99 under attack
// is within 3x of the run without (performance is measured, not asserted,
// by default).
func TestLoadAttack(t *testing.T) {
	dur := loadDuration(t)
	base := runLoad(t, "baseline", dur, false)
	att := runLoad(t, "attack", dur, true)

	t.Logf("%d writers + %d readers, %s each run, %d sessions of %d tasks, cabinet file, loopback HTTP", loadWriters, loadReaders, dur, loadSessions, loadTasks)
	t.Logf("%-9s %-7s %9s %9s %8s %8s %8s", "run", "kind", "requests", "req/s", "p50 ms", "p99 ms", "max ms")
	for _, r := range []*loadRun{base, att} {
		for _, k := range []*loadKind{&r.recall, &r.commit} {
			t.Logf("%-9s %-7s %9d %9.0f %8.2f %8.2f %8.2f", r.name, k.name, len(k.lat), float64(len(k.lat))/r.elapsed.Seconds(), ms(k.pct(50)), ms(k.pct(99)), ms(k.pct(100)))
		}
	}
	for _, r := range []*loadRun{base, att} {
		t.Logf("%-9s load average %s -> %s; live heap at most %d MiB; commits acknowledged %d, unacknowledged %d (%d of them applied)",
			r.name, r.loadBefore, r.loadAfter, r.maxHeap>>20, r.acked, r.unacked, r.unackedApplied)
	}
	for _, a := range att.attackers {
		t.Logf("attacker  %-11s %5d requests of %7d bytes, answers %v, p50 %.2f ms, p99 %.2f ms, max %.2f ms (alone, before the load: median %.2f ms)",
			a.name, len(a.lat), a.size, a.statuses, ms(a.pct(50)), ms(a.pct(99)), ms(a.pct(100)), ms(a.alone[len(a.alone)/2]))
	}
	for _, k := range []string{"recall", "commit"} {
		b, a := base.kind(k).pct(99), att.kind(k).pct(99)
		ratio := float64(a) / float64(max(b, time.Microsecond))
		t.Logf("%s p99 under attack / baseline: %.2f / %.2f ms = %.2fx", k, ms(a), ms(b), ratio)
		if os.Getenv("GOLDFISH_LOAD_ASSERT") == "1" && ratio > 3 {
			t.Errorf("%s p99 under attack is %.2fx the baseline's (%.2f ms against %.2f ms), over 3x", k, ratio, ms(a), ms(b))
		}
	}
}

const (
	loadWriters   = 64
	loadReaders   = 64
	loadSessions  = 4
	loadTasks     = 1000
	loadAttackers = 3 // of each kind
)

// loadKind is the latencies of one kind of request.
type loadKind struct {
	name string
	lat  []time.Duration // sorted once the run is over
}

func (k *loadKind) pct(p int) time.Duration {
	if len(k.lat) == 0 {
		return 0
	}
	return k.lat[min(len(k.lat)-1, len(k.lat)*p/100)]
}

// loadAttacker is what one kind of attacker sent and was answered.
type loadAttacker struct {
	loadKind
	size     int
	alone    []time.Duration // five requests before the load, sorted
	statuses map[string]int  // "400 22Q07", "413 22Q07", "timeout", …
}

type loadRun struct {
	name                      string
	elapsed                   time.Duration
	recall, commit            loadKind
	attackers                 []*loadAttacker
	acked, unacked            int
	unackedApplied            int
	maxHeap                   uint64
	loadBefore, loadAfter     string
	clientErrors, panicsInLog int
}

func (r *loadRun) kind(name string) *loadKind {
	if name == "recall" {
		return &r.recall
	}
	return &r.commit
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// panicLog counts the panics net/http recovered in a handler.
type panicLog struct{ n atomic.Int64 }

func (p *panicLog) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte("panic")) {
		p.n.Add(1)
	}
	return len(b), nil
}

// commitOutcome is what a writer knows of one of its Commits.
type commitOutcome struct {
	session int
	nick    string
	acked   bool
}

// runLoad runs the clients, and the attackers when attack is set, for dur
// on a fresh database, checks what the database kept and returns the
// figures.
func runLoad(t *testing.T, name string, dur time.Duration, attack bool) *loadRun {
	t.Helper()
	run := &loadRun{name: name, recall: loadKind{name: "recall"}, commit: loadKind{name: "commit"}}
	path := filepath.Join(t.TempDir(), "c.gf")
	db, err := goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	seedTasks(t, db)
	srv, err := server.New(db, server.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	panics := &panicLog{}
	ts := httptest.NewUnstartedServer(srv)
	ts.Config.ErrorLog = log.New(panics, "", 0)
	ts.Start()
	serverUp := true
	defer func() {
		if serverUp {
			ts.Close()
		}
	}()

	client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: loadWriters + loadReaders}}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var clientErrs atomic.Int64
	var firstErr sync.Once
	clientError := func(format string, a ...any) {
		clientErrs.Add(1)
		firstErr.Do(func() { t.Errorf(format, a...) })
	}
	post := func(url, body string) (int, error) {
		resp, err := client.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			return 0, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, err
	}

	// The highest live heap, sampled without stopping the world.
	var maxHeap atomic.Uint64
	sampleDone := make(chan struct{})
	go func() {
		defer close(sampleDone)
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for !stop.Load() {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > maxHeap.Load() {
				maxHeap.Store(v)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()

	outcomes := make([][]commitOutcome, loadWriters)
	writerLat := make([][]time.Duration, loadWriters)
	readerLat := make([][]time.Duration, loadReaders)
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
				code, err := post(url, body)
				d := time.Since(t0)
				acked := err == nil && code == http.StatusOK
				outcomes[w] = append(outcomes[w], commitOutcome{s, nick, acked})
				if !acked {
					clientError("%s: Commit %s: HTTP %d, %v", name, nick, code, err)
					continue
				}
				writerLat[w] = append(writerLat[w], d)
			}
		}()
	}
	for r := range loadReaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(r), 1))
			url := fmt.Sprintf("%s/v1/sessions/s%d/recall", ts.URL, r%loadSessions)
			for !stop.Load() {
				body := fmt.Sprintf(`{"q": "MATCH (t:TSK {nick: $n})", "params": {"n": "t%d"}}`, rng.IntN(loadTasks))
				t0 := time.Now()
				code, err := post(url, body)
				d := time.Since(t0)
				if err != nil || code != http.StatusOK {
					clientError("%s: Recall: HTTP %d, %v", name, code, err)
					continue
				}
				readerLat[r] = append(readerLat[r], d)
			}
		}()
	}

	// The attackers: each request bounded by its client's timeout, every
	// answer counted by status.
	var attackWG sync.WaitGroup
	if attack {
		var in strings.Builder
		in.WriteString(`{"q": "MATCH (n:N) WHERE n.v IN [1`)
		for in.Len() < 1<<20 {
			in.WriteString(",1")
		}
		in.WriteString(`]"}`)
		var batch strings.Builder
		batch.WriteByte('[')
		for i := 0; batch.Len() < 1100<<10; i++ {
			if i > 0 {
				batch.WriteByte(',')
			}
			fmt.Fprintf(&batch, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i+1)
		}
		batch.WriteByte(']')
		kinds := []struct {
			name, url, body string
			mcp             bool
		}{
			{"recall-1MB", ts.URL + "/v1/sessions/s0/recall", in.String(), false},
			{"mcp-batch", ts.URL + "/mcp", batch.String(), true},
		}
		for _, k := range kinds {
			a := &loadAttacker{loadKind: loadKind{name: k.name}, size: len(k.body), statuses: map[string]int{}}
			run.attackers = append(run.attackers, a)
			// Alone first: what one refusal costs on an idle server.
			for range 5 {
				req, _ := http.NewRequest("POST", k.url, strings.NewReader(k.body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					t.Fatalf("%s alone: %v", k.name, err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				a.alone = append(a.alone, time.Since(t0))
			}
			slices.Sort(a.alone)
			var mu sync.Mutex
			for range loadAttackers {
				attackWG.Add(1)
				go func() {
					defer attackWG.Done()
					ac := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}}
					defer ac.CloseIdleConnections()
					for !stop.Load() {
						req, _ := http.NewRequest("POST", k.url, strings.NewReader(k.body))
						req.Header.Set("Content-Type", "application/json")
						if k.mcp {
							req.Header.Set("Accept", "application/json, text/event-stream")
						}
						t0 := time.Now()
						resp, err := ac.Do(req)
						var status string
						if err == nil {
							var head limitedBuilder
							head.b, head.n = &strings.Builder{}, 4<<10
							_, err = io.Copy(&head, resp.Body)
							resp.Body.Close()
							status = strconv.Itoa(resp.StatusCode)
							if m := gqlstatusIn.FindStringSubmatch(head.b.String()); m != nil {
								status += " " + m[1]
							}
						}
						d := time.Since(t0)
						if err != nil {
							status = "error"
							if os.IsTimeout(err) || strings.Contains(err.Error(), "Timeout") {
								status = "timeout"
							}
						}
						mu.Lock()
						a.statuses[status]++
						a.lat = append(a.lat, d)
						mu.Unlock()
					}
				}()
			}
		}
	}

	run.loadBefore = loadAverage()
	t0 := time.Now()
	time.Sleep(dur)
	stop.Store(true)
	wg.Wait()
	run.elapsed = time.Since(t0)
	attackWG.Wait()
	<-sampleDone
	run.loadAfter = loadAverage()
	run.maxHeap = maxHeap.Load()

	// The server is still up and answers.
	if code, err := post(ts.URL+"/v1/sessions/s0/recall", `{"q": "MATCH (t:TSK {nick: \"t1\"})"}`); err != nil || code != http.StatusOK {
		t.Errorf("%s: after the run a Recall answered HTTP %d, %v", name, code, err)
	}
	resp, err := client.Get(ts.URL + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("%s: after the run /healthz: %v %v", name, resp, err)
	}
	if resp != nil {
		resp.Body.Close()
	}
	client.CloseIdleConnections()
	ts.Close() // waits for every request in flight
	serverUp = false
	run.panicsInLog = int(panics.n.Load())
	run.clientErrors = int(clientErrs.Load())
	if run.panicsInLog > 0 {
		t.Errorf("%s: %d panics in the HTTP server's log", name, run.panicsInLog)
	}
	for _, a := range run.attackers {
		for st, n := range a.statuses {
			if c, err := strconv.Atoi(strings.Fields(st)[0]); err != nil || c < 400 || c > 499 {
				t.Errorf("%s: %d %s requests answered %s, want a 4xx", name, n, a.name, st)
			}
		}
		slices.Sort(a.lat)
	}

	for _, l := range writerLat {
		run.commit.lat = append(run.commit.lat, l...)
	}
	for _, l := range readerLat {
		run.recall.lat = append(run.recall.lat, l...)
	}
	slices.Sort(run.commit.lat)
	slices.Sort(run.recall.lat)

	// Every acknowledged Commit is there once, node and edge; an
	// unacknowledged one wholly or not at all; nothing else. Counted on
	// the live database, then on the cabinet reopened.
	count := func(db *goldfish.DB, when string) {
		var all []commitOutcome
		for _, o := range outcomes {
			all = append(all, o...)
		}
		acked, unacked, applied := checkKept(t, db, all, name+", "+when)
		run.acked, run.unacked, run.unackedApplied = acked, unacked, applied
	}
	count(db, "live")
	if err := db.Close(); err != nil {
		t.Fatalf("%s: Close: %v", name, err)
	}
	re, err := goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		t.Fatalf("%s: reopen: %v", name, err)
	}
	defer re.Close()
	count(re, "reopened")
	return run
}

// loadDuration skips a load test unless GOLDFISH_LOAD=1, and returns
// GOLDFISH_LOAD_SECONDS (default 30) as a duration.
func loadDuration(t *testing.T) time.Duration {
	t.Helper()
	if os.Getenv("GOLDFISH_LOAD") != "1" {
		t.Skip("a load test: set GOLDFISH_LOAD=1 (and GOLDFISH_LOAD_SECONDS to shorten it)")
	}
	dur := 30 * time.Second
	if s := os.Getenv("GOLDFISH_LOAD_SECONDS"); s != "" {
		n, err := strconv.ParseFloat(s, 64)
		if err != nil || n <= 0 {
			t.Fatalf("GOLDFISH_LOAD_SECONDS=%q", s)
		}
		dur = time.Duration(n * float64(time.Second))
	}
	return dur
}

// seedTasks writes the load's sessions s0… of loadTasks tasks each, a
// module touched by each.
func seedTasks(t *testing.T, db *goldfish.DB) {
	t.Helper()
	ctx := context.Background()
	for s := range loadSessions {
		sess, err := db.Session(ctx, fmt.Sprintf("s%d", s))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < loadTasks; i += 100 {
			var stmts []string
			for j := i; j < i+100; j++ {
				stmts = append(stmts, fmt.Sprintf(`INSERT (:TSK {nick: "t%d", status: "open", title: "task %d"})-[:touches]->(:MOD {loc: "m%d.go"})`, j, j, j%50))
			}
			if _, err := sess.Commit(ctx, strings.Join(stmts, ";\n"), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
}

var (
	gqlstatusIn = regexp.MustCompile(`"gqlstatus":\s*"([0-9A-Z]{5})"`)
	dumpNode    = regexp.MustCompile(`^\(:NOTE \{nick: "(w\d+_\d+)"\}\)$`)
	dumpEdge    = regexp.MustCompile(`^\(:TSK[^)]*\)-\[:has\]->\(:NOTE \{nick: "(w\d+_\d+)"\}\)$`)
)

// checkKept counts each Commit's node and edge in the sessions' dumps.
func checkKept(t *testing.T, db *goldfish.DB, all []commitOutcome, what string) (acked, unacked, applied int) {
	t.Helper()
	type seen struct{ nodes, edges int }
	kept := map[string]*seen{}
	for s := range loadSessions {
		sess, err := db.Session(context.Background(), fmt.Sprintf("s%d", s))
		if err != nil {
			t.Fatal(err)
		}
		dump := sess.Dump()
		if strings.HasPrefix(dump, "error:") {
			t.Fatalf("%s: s%d: %s", what, s, dump)
		}
		for line := range strings.SplitSeq(dump, "\n") {
			if m := dumpNode.FindStringSubmatch(line); m != nil {
				k := kept[fmt.Sprintf("%d/%s", s, m[1])]
				if k == nil {
					k = &seen{}
					kept[fmt.Sprintf("%d/%s", s, m[1])] = k
				}
				k.nodes++
			} else if m := dumpEdge.FindStringSubmatch(line); m != nil {
				k := kept[fmt.Sprintf("%d/%s", s, m[1])]
				if k == nil {
					k = &seen{}
					kept[fmt.Sprintf("%d/%s", s, m[1])] = k
				}
				k.edges++
			}
		}
	}
	bad := 0
	report := func(format string, a ...any) {
		if bad++; bad <= 10 {
			t.Errorf(format, a...)
		}
	}
	for _, o := range all {
		key := fmt.Sprintf("%d/%s", o.session, o.nick)
		k := kept[key]
		delete(kept, key)
		if k == nil {
			k = &seen{}
		}
		switch {
		case o.acked:
			acked++
			if k.nodes != 1 || k.edges != 1 {
				report("%s: acknowledged Commit %s: %d nodes, %d edges, want 1 and 1", what, key, k.nodes, k.edges)
			}
		default:
			unacked++
			if k.nodes > 1 || k.nodes != k.edges {
				report("%s: unacknowledged Commit %s half-applied or repeated: %d nodes, %d edges", what, key, k.nodes, k.edges)
			}
			applied += k.nodes
		}
	}
	for key, k := range kept {
		report("%s: %s was never sent, yet the session holds %d nodes, %d edges", what, key, k.nodes, k.edges)
	}
	if bad > 10 {
		t.Errorf("%s: %d wrong counts in all", what, bad)
	}
	if acked == 0 {
		t.Errorf("%s: no Commit was acknowledged", what)
	}
	return acked, unacked, applied
}
