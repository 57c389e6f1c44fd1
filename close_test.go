package goldfish_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
)

// TestClosedMeansClosed: after Close every call answers ErrClosed and
// changes nothing, on the database and on sessions got before.
func TestClosedMeansClosed(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.gf")
	db, err := goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := db.Session(context.Background(), "s")
	if _, err := s.Commit(ctx, `INSERT (:TSK {nick: "t"})`, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	calls := map[string]func() error{
		"Commit":  func() error { _, err := s.Commit(ctx, `INSERT (:TSK {nick: "u"})`, nil); return err },
		"Ingest":  func() error { _, err := s.Ingest(ctx, `INSERT (:MOD {loc: "a"})`, nil); return err },
		"Recall":  func() error { _, err := s.Recall(ctx, `MATCH (t:TSK)`, goldfish.RecallOptions{}); return err },
		"Flush":   func() error { return s.Flush(ctx) },
		"Purge":   func() error { _, err := s.Purge(ctx); return err },
		"Session": func() error { _, err := db.Session(context.Background(), "s"); return err },
		"Session(other)": func() error {
			_, err := db.Session(context.Background(), "other")
			return err
		},
		"catalogue": func() error { _, err := db.Session(context.Background(), goldfish.CatalogName); return err },
		"DB.Flush":  func() error { return db.Flush(ctx) },
		"Drop":      func() error { return db.Drop(ctx, "s") },
		"Backup":    func() error { return db.Backup(filepath.Join(t.TempDir(), "b.gf")) },
		"Prepare":   func() error { _, _, err := s.Prepare(`MATCH (t:TSK)`); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, goldfish.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	db, err = goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err = db.Session(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	if v := s.Version(); v != 1 {
		t.Fatalf("reopened at version %d, want 1", v)
	}
	if _, err := s.Commit(ctx, `INSERT (:TSK {nick: "u"})`, nil); err != nil {
		t.Fatalf("the reopened session refuses Commits: %v", err)
	}
}

// TestCloseWhileInFlight: Close while Commits and Recalls run on many
// goroutines neither panics nor races (run with -race); every call
// returns its result or ErrClosed, and every acknowledged Commit is in
// the reopened cabinet.
func TestCloseWhileInFlight(t *testing.T) {
	ctx := context.Background()
	for round := range 5 {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("c%d.gf", round))
		db, err := goldfish.Open(goldfish.WithCabinet(path), goldfish.WithAutoFlush(7, 0))
		if err != nil {
			t.Fatal(err)
		}
		var acked sync.Map // n → true
		var started atomic.Int64
		var wg sync.WaitGroup
		for g := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 5000; i++ {
					s, err := db.Session(context.Background(), fmt.Sprintf("s%d", g%3))
					if err != nil {
						if !errors.Is(err, goldfish.ErrClosed) {
							t.Error(err)
						}
						return
					}
					started.Add(1)
					n := g*1_000_000 + i
					if g%2 == 0 {
						_, err = s.Commit(ctx, `INSERT (:STEP {n: $n})`, map[string]any{"n": n})
						if err == nil {
							acked.Store(n, s.Name())
						}
					} else {
						_, err = s.Recall(ctx, `MATCH (s:STEP) LIMIT 2`, goldfish.RecallOptions{Params: nil})
					}
					if err != nil {
						if !errors.Is(err, goldfish.ErrClosed) {
							t.Error(err)
						}
						return
					}
				}
			}()
		}
		for started.Load() < 30 {
			// let the calls run a little
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		db, err = goldfish.Open(goldfish.WithCabinet(path))
		if err != nil {
			t.Fatal(err)
		}
		dumps := map[string]string{}
		for _, name := range []string{"s0", "s1", "s2"} {
			s, err := db.Session(context.Background(), name)
			if err != nil {
				t.Fatal(err)
			}
			dumps[name] = s.Dump()
		}
		acked.Range(func(n, name any) bool {
			if !strings.Contains(dumps[name.(string)], fmt.Sprintf("{n: %d}", n)) {
				t.Errorf("round %d: acknowledged Commit n=%d is not in session %s after reopening", round, n, name)
			}
			return true
		})
		db.Close()
	}
}

// TestHydrateHonoursContext: opening a session held in the cabinet under
// a cancelled context stops with the context's error, and the next caller
// opens it whole.
func TestHydrateHonoursContext(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.gf")
	db, err := goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := db.Session(ctx, "s")
	for i := range 50 {
		if _, err := s.Commit(ctx, `INSERT (:STEP {n: $n})`, map[string]any{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	db, err = goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := db.Session(done, "s"); !errors.Is(err, context.Canceled) {
		t.Fatalf("opening under a cancelled context: %v, want context.Canceled", err)
	}
	s, err = db.Session(ctx, "s")
	if err != nil || s.Version() != 50 {
		t.Fatalf("opening again: %v, version %v; want version 50", err, s)
	}
}

// TestCloseUnderFire: Close returns while many goroutines keep calling
// the database it closes: a call that comes after Close began is refused
// before it counts itself among the calls in flight, so the count Close
// waits on drains however fast the refused calls come.
func TestCloseUnderFire(t *testing.T) {
	db, err := goldfish.Open(goldfish.WithCabinet(filepath.Join(t.TempDir(), "c.gf")))
	if err != nil {
		t.Fatal(err)
	}
	s, err := db.Session(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_, _ = s.Recall(context.Background(), `MATCH (t:TSK)`, goldfish.RecallOptions{})
				_ = s.Version()
				_, _ = db.Session(context.Background(), "s")
			}
		}()
	}
	closed := make(chan error, 1)
	go func() { closed <- db.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(20 * time.Second):
		t.Error("Close did not return in 20 s while calls kept arriving")
		close(stop)
		wg.Wait()
		<-closed
		return
	}
	close(stop)
	wg.Wait()
}
