package goldfish_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/postgres"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet/postgres/pgtest"
)

const pgCrashEnv = "GOLDFISH_PG_CRASH_CHILD" // "url schema host"

// TestPostgresKillChild is a host of TestPostgresKillHost (it does
// nothing otherwise): four writers commit numbered Δs to one session,
// each printing "ack VERSION N" once its Commit has returned, until
// killed.
func TestPostgresKillChild(t *testing.T) {
	arg := os.Getenv(pgCrashEnv)
	if arg == "" {
		t.Skip("only run as a host of TestPostgresKillHost")
	}
	f := strings.Fields(arg)
	host, _ := strconv.Atoi(f[2])
	db, err := goldfish.Open(postgres.Cabinet(f[0], postgres.Options{Schema: f[1], PollInterval: 50 * time.Millisecond}), goldfish.WithAutoFlush(150, 0))
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	s, err := db.Session(context.Background(), "crash")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	var next atomic.Int64
	next.Store(int64(host) << 32) // n stays unique across hosts and runs
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	fmt.Println("ready")
	for range 4 {
		go func() {
			for {
				n := next.Add(1)
				res, err := s.Commit(context.Background(), `INSERT (:STEP {n: $n})`, map[string]any{"n": n})
				var ge *goldfish.Error
				if errors.As(err, &ge) && ge.Code == goldfish.CodeSerializationFailure {
					continue // not acknowledged, nothing applied
				}
				mu.Lock()
				if err != nil {
					fmt.Fprintln(out, "error", err)
				} else {
					fmt.Fprintln(out, "ack", res.Version, n)
				}
				out.Flush()
				mu.Unlock()
				if err != nil {
					os.Exit(2)
				}
			}
		}()
	}
	select {}
}

// TestPostgresKillHost runs two hosts on one session and kills each with
// SIGKILL at random moments (they flush now and then, so kills land in
// flushes too), three rounds; then a new host finds every acknowledged
// Commit exactly once, one version per Commit and nothing else. It logs
// its seed; set GOLDFISH_CRASH_SEED to replay the same kill times.
func TestPostgresKillHost(t *testing.T) {
	if testing.Short() {
		t.Skip("kills hosts for a few seconds")
	}
	url, schema := pgSchema(t)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("GOLDFISH_CRASH_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	acked := map[int64]uint64{}
	var mu sync.Mutex
	start := func(host, round int) (*exec.Cmd, *sync.WaitGroup) {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestPostgresKillChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %d", pgCrashEnv, url, schema, round*2+host))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Add(1)
		ready := make(chan struct{})
		go func() {
			defer wg.Done()
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				switch {
				case len(f) == 1 && f[0] == "ready":
					close(ready)
				case len(f) == 3 && f[0] == "ack":
					v, _ := strconv.ParseUint(f[1], 10, 64)
					n, _ := strconv.ParseInt(f[2], 10, 64)
					mu.Lock()
					acked[n] = v
					mu.Unlock()
				case len(f) > 0 && f[0] == "error":
					t.Errorf("host %d: %s", host, sc.Text())
				}
			}
		}()
		select {
		case <-ready:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatal("a host did not start")
		}
		return cmd, &wg
	}
	for round := range 3 {
		a, wa := start(0, round)
		b, wb := start(1, round)
		time.Sleep(time.Duration(200+rng.IntN(400)) * time.Millisecond)
		a.Process.Signal(syscall.SIGKILL)
		time.Sleep(time.Duration(50+rng.IntN(300)) * time.Millisecond)
		b.Process.Signal(syscall.SIGKILL)
		a.Wait()
		b.Wait()
		wa.Wait()
		wb.Wait()
	}
	if t.Failed() {
		return
	}
	db := openPG(t, url, schema, postgres.Options{})
	s := mustSession(t, db, "crash")
	snap := goldfish.SnapshotOf(s)
	seen := map[int64]int{}
	snap.ScanLabel("STEP", func(n *store.Node) bool {
		v, _ := n.Props.Get("n")
		seen[v.AsInt()]++
		return true
	})
	maxAck := uint64(0)
	for n, v := range acked {
		if seen[n] != 1 {
			t.Fatalf("acknowledged Commit n=%d (version %d) is there %d times", n, v, seen[n])
		}
		maxAck = max(maxAck, v)
	}
	for n, c := range seen {
		if c != 1 {
			t.Fatalf("Commit n=%d is there %d times", n, c)
		}
	}
	// One version per Commit: no version lost, none applied twice. A
	// Commit written but killed before its ack may be there (at most
	// four per kill, one per writer).
	if snap.Version() != uint64(len(seen)) || snap.Version() < maxAck || len(seen)-len(acked) > 4*6 {
		t.Fatalf("version %d, %d STEP nodes, %d acknowledged (the last at version %d)", snap.Version(), len(seen), len(acked), maxAck)
	}
	t.Logf("%d Commits acknowledged by hosts killed 6 times, %d more written before the kill", len(acked), len(seen)-len(acked))
}

// TestPostgresServerRestart stops PostgreSQL at once under load and
// starts it again: while it is down every Commit fails cleanly, with
// 08Q04 (nothing applied) or, for one cut off on its way, 40003; once it
// is back the host reconnects and goes on. A new host then finds every
// acknowledged Commit once, none of the 08Q04 ones, and at most once each
// of the 40003 ones.
func TestPostgresServerRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts a PostgreSQL server")
	}
	srv := pgtest.Start(t)
	schema := pgtest.Schema(t, srv.URL)
	o := postgres.Options{PollInterval: 50 * time.Millisecond}
	db := openPG(t, srv.URL, schema, o)
	s := mustSession(t, db, "load")
	ctx := context.Background()
	var mu sync.Mutex
	outcome := map[int64]goldfish.Code{} // "" acknowledged
	var next atomic.Int64
	var acksAfter atomic.Int64
	var restarted, stop atomic.Bool
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				n := next.Add(1)
				_, err := s.Commit(ctx, `INSERT (:STEP {n: $n})`, map[string]any{"n": n})
				var code goldfish.Code
				if err != nil {
					var ge *goldfish.Error
					if !errors.As(err, &ge) || (ge.Code != goldfish.CodeCabinetUnavailable && ge.Code != goldfish.CodeCompletionUnknown &&
						ge.Code != goldfish.CodeSerializationFailure) {
						t.Errorf("a Commit while the server restarts: %v", err)
						return
					}
					code = ge.Code
					time.Sleep(time.Millisecond)
				} else if restarted.Load() {
					acksAfter.Add(1)
				}
				mu.Lock()
				outcome[n] = code
				mu.Unlock()
			}
		}()
	}
	wg.Add(1)
	go func() { // a reader: its errors while the server is down are clean too
		defer wg.Done()
		for !stop.Load() {
			if _, err := s.Recall(ctx, `MATCH (n:STEP) LIMIT 1`, goldfish.RecallOptions{NoPeaks: true}); err != nil {
				var ge *goldfish.Error
				if !errors.As(err, &ge) || ge.Code != goldfish.CodeCabinetUnavailable {
					t.Errorf("a Recall while the server restarts: %v", err)
					return
				}
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	time.Sleep(300 * time.Millisecond)
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	restarted.Store(true)
	until(t, func() bool { return acksAfter.Load() >= 50 || t.Failed() })
	stop.Store(true)
	wg.Wait()
	if t.Failed() {
		return
	}
	other := openPG(t, srv.URL, schema, o)
	snap := goldfish.SnapshotOf(mustSession(t, other, "load"))
	seen := map[int64]int{}
	snap.ScanLabel("STEP", func(n *store.Node) bool {
		v, _ := n.Props.Get("n")
		seen[v.AsInt()]++
		return true
	})
	count := map[goldfish.Code]int{}
	for n, code := range outcome {
		count[code]++
		switch c := seen[n]; {
		case code == "" && c != 1:
			t.Fatalf("acknowledged Commit %d is there %d times", n, c)
		case (code == goldfish.CodeCabinetUnavailable || code == goldfish.CodeSerializationFailure) && c != 0:
			t.Fatalf("Commit %d failed with %s (nothing applied) but is there %d times", n, code, c)
		case c > 1:
			t.Fatalf("Commit %d is there %d times", n, c)
		}
	}
	if snap.Version() != uint64(len(seen)) {
		t.Fatalf("version %d with %d Commits there", snap.Version(), len(seen))
	}
	// The host that lived through the restart holds the same session.
	time.Sleep(o.PollInterval + 10*time.Millisecond)
	if _, err := s.Recall(ctx, `MATCH ()`, goldfish.RecallOptions{}); err != nil {
		t.Fatal(err)
	}
	if s.Dump() != mustSession(t, other, "load").Dump() {
		t.Fatal("the host that lived through the restart differs from a new one")
	}
	t.Logf("%d acknowledged, %d refused with 08Q04, %d cut off with 40003 (%d of them written), %d lost races",
		count[""], count[goldfish.CodeCabinetUnavailable], count[goldfish.CodeCompletionUnknown],
		len(seen)-count[""], count[goldfish.CodeSerializationFailure])
}
