package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// closeQuery is a Recall that scans: milliseconds on a session of 10k
// nodes, tens on one of 20k, so that the Recalls Close meets are in the middle of their
// work.
const closeQuery = `MATCH (n) WHERE n.weight = 5`

// recallers runs n goroutines, each looping Recall with closeQuery on
// its session of sessions (round robin) until a Recall fails; started
// is done once each has finished one Recall. The goroutines count, for
// the Recalls they began before closing was set, how many returned a
// Shape after it was (done) and how many an error (interrupted), and
// they keep the errors that are not ErrClosed (odd) and the last of an
// interrupted Recall.
type recallers struct {
	wg, started       sync.WaitGroup
	closing           atomic.Bool
	done, interrupted atomic.Int64
	errMu             sync.Mutex
	odd, last         error
}

func runRecallers(ctx context.Context, sessions []*Session, n int) *recallers {
	r := &recallers{}
	r.wg.Add(n)
	r.started.Add(n)
	for g := range n {
		s := sessions[g%len(sessions)]
		go func() {
			defer r.wg.Done()
			first := true
			for {
				before := !r.closing.Load()
				_, err := s.Recall(ctx, closeQuery, values.RecallOptions{}, nil)
				if first {
					r.started.Done()
					first = false
				}
				after := r.closing.Load()
				switch {
				case err == nil && before && after:
					r.done.Add(1)
				case err != nil && before:
					r.interrupted.Add(1)
				}
				if err != nil {
					r.errMu.Lock()
					if !errors.Is(err, ErrClosed) {
						r.odd = errors.Join(r.odd, err)
					} else if before && err != ErrClosed {
						r.last = err
					}
					r.errMu.Unlock()
					return
				}
			}
		}()
	}
	return r
}

// closeSessions opens a database in memory whose sessions all read the
// graph g.
func closeSessions(t testing.TB, g *store.Graph, n int) (*DB, []*Session) {
	t.Helper()
	db, err := openTest(WithShapeCacheBytes(0))
	if err != nil {
		t.Fatal(err)
	}
	var ss []*Session
	for i := range n {
		s := newSession(db, fmt.Sprintf("s%d", i))
		s.setGraph(g)
		s.hydrated.Store(true)
		db.sessions[s.name] = s
		ss = append(ss, s)
	}
	return db, ss
}

// TestCloseInterruptsRecalls: Close cancels the Recalls in flight
// instead of waiting for them to finish on their own. 16 callers loop a
// Recall that scans 10k nodes (on one session, and on eight); once each
// has finished one, Close runs. With the Recalls interrupted, the ones
// in flight answer an error that is ErrClosed and says the database is
// closing, and only those past their scan still return a Shape; with
// Close waiting, all 16 did. Callers with a deadline of
// their own and with values of their own merge their contexts with
// Close's otherwise. An interrupted Recall's error has a GQLSTATUS and a
// hint.
func TestCloseInterruptsRecalls(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10k session")
	}
	src, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	g := benchSession(t, src, 10_000).graph
	type key struct{}
	deadline, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	for _, tc := range []struct {
		name     string
		sessions int
		ctx      context.Context
	}{
		{"one session", 1, context.Background()},
		{"eight sessions", 8, context.Background()},
		{"a deadline of its own", 1, deadline},
		{"values of its own", 1, context.WithValue(context.Background(), key{}, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, ss := closeSessions(t, g, tc.sessions)
			ctx := tc.ctx
			r := runRecallers(ctx, ss, 16)
			r.started.Wait()
			r.closing.Store(true)
			t0 := time.Now()
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			took := time.Since(t0)
			r.wg.Wait()
			t.Logf("Close took %v; of the Recalls in flight %d returned a Shape, %d were interrupted", took, r.done.Load(), r.interrupted.Load())
			if r.odd != nil {
				t.Fatalf("a Recall failed otherwise than by Close: %v", r.odd)
			}
			// How many were past their scan when Close came depends on the
			// machine's load; that none was stopped means Close waited.
			if r.interrupted.Load() == 0 {
				t.Fatalf("Close waited for the Recalls in flight: %d finished, %d were interrupted", r.done.Load(), r.interrupted.Load())
			}
			var ge *gqlstatus.Error
			if !errors.As(r.last, &ge) || ge.Code != gqlstatus.Rollback || ge.Hint == "" || !strings.Contains(ge.Msg, "closed while it ran") {
				t.Fatalf("an interrupted Recall answered %#v", r.last)
			}
			_, err := ss[0].Recall(ctx, closeQuery, values.RecallOptions{}, nil)
			if !errors.Is(err, ErrClosed) {
				t.Fatalf("a Recall after Close: %v", err)
			}
		})
	}
}

// TestCloseKeepsCommits: Commits running while Close interrupts the
// Recalls beside them either are acknowledged, and then are in the
// cabinet when it is opened again, or fail; none is cut short.
func TestCloseKeepsCommits(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.gf")
	db, err := openTest(WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	s := session(t, db, "s")
	for i := range 20 {
		commit(t, s, fmt.Sprintf(`INSERT (:TSK {nick: "seed%d", weight: 5})`, i))
	}
	r := runRecallers(ctx, []*Session{s}, 16)
	var acked sync.Map
	var wg, going sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		going.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				if i == 10 {
					going.Done()
				}
				nick := fmt.Sprintf("w%d_%d", w, i)
				if _, err := s.commitText(ctx, fmt.Sprintf(`INSERT (:TSK {nick: %q})`, nick), nil); err != nil {
					if !errors.Is(err, ErrClosed) {
						t.Errorf("a Commit failed otherwise than by Close: %v", err)
					}
					if i < 10 {
						going.Done()
					}
					return
				}
				acked.Store(nick, true)
			}
		}()
	}
	r.started.Wait()
	going.Wait()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	r.wg.Wait()
	db, err = openTest(WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	snap := session(t, db, "s").snapshot()
	n := 0
	acked.Range(func(k, _ any) bool {
		n++
		if _, ok := snap.NodeByNick(k.(string)); !ok {
			t.Errorf("the acknowledged Commit of %s is lost", k)
		}
		return true
	})
	t.Logf("%d Commits acknowledged, all there", n)
}

// TestCloseStopsHydration: a call on a session a memory budget unloaded
// that waits for the session's hydration (here held by the test, as a
// slow hydration by another call would) is stopped by Close, a Commit's
// as a Recall's, with an error that says so; Close does not wait for
// the hydration. The watchdog only keeps the old behaviour, a Close
// that waits, from hanging the test.
func TestCloseStopsHydration(t *testing.T) {
	for _, tc := range []struct {
		name    string
		call    func(*Session) error
		stopped string
	}{
		{"Recall", func(s *Session) error {
			_, err := s.recallShape(context.Background(), `MATCH (t:TSK {nick: "a"})`, values.RecallOptions{})
			return err
		}, "Recall stopped: the database was closed while it ran"},
		{"Commit", func(s *Session) error {
			_, err := s.commitText(context.Background(), `INSERT (:TSK {nick: "b"})`, nil)
			return err
		}, `opening session "s" stopped: the database was closed while it ran`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openBudget(t, filepath.Join(t.TempDir(), "c.gf"), 1<<40)
			s := session(t, db, "s")
			commit(t, s, `INSERT (:TSK {nick: "a"})`)
			if !db.mem.unload(s) {
				t.Fatal("the session was not unloaded")
			}
			s.hmu.Lock()
			got := make(chan error, 1)
			go func() { got <- tc.call(s) }()
			for s.uses.Load() == 0 {
				runtime.Gosched()
			}
			closed := make(chan error, 1)
			go func() { closed <- db.Close() }()
			var err error
			select {
			case err = <-got:
			case <-time.After(time.Minute):
				t.Error("the call waited out the hydration")
				s.hmu.Unlock()
				<-got
				return
			}
			s.hmu.Unlock()
			if e := <-closed; e != nil {
				t.Fatal(e)
			}
			var ge *gqlstatus.Error
			if !errors.Is(err, ErrClosed) || !errors.As(err, &ge) || ge.Hint == "" || !strings.Contains(ge.Msg, tc.stopped) {
				t.Fatalf("the call answered %v", err)
			}
		})
	}
}

// BenchmarkCloseUnderRecalls measures Close while 64 callers loop a
// Recall that scans 20k nodes, on one session and on eight: close-ms is
// Close's latency (each op opens a database, starts the callers, waits
// until each has finished a Recall, and closes it).
//
//	go test -run '^$' -bench CloseUnderRecalls -benchtime 10x .
func BenchmarkCloseUnderRecalls(b *testing.B) {
	src, err := openTest()
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	g := benchSession(b, src, 20_000).graph
	for _, n := range []int{1, 8} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				b.StopTimer()
				db, ss := closeSessions(b, g, n)
				r := runRecallers(context.Background(), ss, 64)
				r.started.Wait()
				b.StartTimer()
				t0 := time.Now()
				db.Close()
				total += time.Since(t0)
				b.StopTimer()
				r.wg.Wait()
				b.StartTimer()
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "close-ms")
		})
	}
}
