package goldfish_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
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

// TestPostgresKillHost runs two hosts (TestCrashChild on PostgreSQL) on
// one session and kills each with SIGKILL at random moments (they flush
// now and then, so kills land in flushes too), three rounds; then a new
// host finds every acknowledged Commit exactly once, one version per
// Commit and nothing else. It logs its seed; set GOLDFISH_CRASH_SEED to
// replay the same kill times.
func TestPostgresKillHost(t *testing.T) {
	if testing.Short() {
		t.Skip("kills hosts for a few seconds")
	}
	url, schema := pgSchema(t)
	rng := crashRand(t, 0)
	var st steps
	start := func(host, round int) (*exec.Cmd, *sync.WaitGroup) {
		cmd, lines := startChild(t, "TestCrashChild", stepsEnv, fmt.Sprintf("postgres %s %s %d", url, schema, round*2+host))
		var wg sync.WaitGroup
		wg.Add(1)
		ready := make(chan struct{})
		go func() {
			defer wg.Done()
			for line := range lines {
				f := strings.Fields(line)
				if len(f) > 0 && f[0] == "ready" {
					close(ready)
				}
				if !st.line(f) {
					t.Errorf("host %d: %s", host, line)
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
	_, n := st.check(t, mustSession(t, db, "crash"))
	// A Commit written but killed before its ack may be there too (at
	// most four per kill, one per writer).
	if n-len(st.acked) > 4*6 {
		t.Fatalf("%d steps, %d acknowledged: more than four per kill unacknowledged", n, len(st.acked))
	}
	t.Logf("%d Commits acknowledged by hosts killed 6 times, %d more written before the kill", len(st.acked), n-len(st.acked))
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
