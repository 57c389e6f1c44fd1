package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
)

// historyOf is a history as text, for comparing two.
func historyOf(h *values.History) string {
	var b strings.Builder
	fmt.Fprintf(&b, "more=%v oldest=%d\n", h.More, h.Oldest)
	for _, e := range h.Entries {
		fmt.Fprintf(&b, "v%d %s %s\n%s", e.Version, e.How, e.Agent, e.Change.Text)
	}
	return b.String()
}

// TestRapidHistoryIndexAgreesWithEveryVersion: a random history
// committed to a session in memory, which reads every version it keeps,
// and to one in a cabinet file, reopened so that its History reads the
// history index, gives every nick the same history, whole and limited,
// and refuses the same nicks.
func TestRapidHistoryIndexAgreesWithEveryVersion(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	runs := 0
	rapid.Check(t, func(t *rapid.T) {
		runs++
		path := filepath.Join(dir, fmt.Sprintf("c%d.db", runs))
		mem, _ := openTest(bigBudget)
		defer mem.Close()
		cab, err := openTest(bigBudget, WithCabinet(path))
		if err != nil {
			t.Fatal(err)
		}
		sm, _ := mem.Session(ctx, "hist")
		sc, _ := cab.Session(ctx, "hist")
		commit := func(text string) {
			_, errM := sm.commitText(ctx, text, nil)
			_, errC := sc.commitText(ctx, text, nil)
			if (errM == nil) != (errC == nil) {
				t.Fatalf("%s: in memory %v, in the cabinet %v", text, errM, errC)
			}
		}
		commit(`INSERT (:A {nick: "n0", v: 0}), (:TSK {nick: "n1", v: 1}), (:A:L {nick: "n2", v: 1}), (:TSK {nick: "n3"}), (:A {v: 0})`)
		for i, n := 0, rapid.IntRange(1, 40).Draw(t, "commits"); i < n; i++ {
			var stmts []string
			for j, m := 0, rapid.IntRange(1, 3).Draw(t, "stmts"); j < m; j++ {
				stmts = append(stmts, diffStatement(t))
			}
			commit(strings.Join(stmts, ";\n"))
			if rapid.IntRange(0, 9).Draw(t, "flush") == 0 {
				if err := sc.Flush(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		// Some of the history read before the reopen, some after: the
		// index is built in one process and again in the next.
		if rapid.Bool().Draw(t, "read before") {
			_, _ = sc.History(ctx, "n0", 0)
		}
		if rapid.Bool().Draw(t, "flush before reopen") {
			_ = sc.Flush(ctx)
		}
		cab.Close()
		cab, err = openTest(bigBudget, WithCabinet(path))
		if err != nil {
			t.Fatal(err)
		}
		defer cab.Close()
		sc, _ = cab.Session(ctx, "hist")
		for _, nick := range []string{"n0", "n1", "n2", "n3", "n4", "n5", "tmp", "none"} {
			for _, limit := range []int{0, 1, 3} {
				hm, errM := sm.History(ctx, nick, limit)
				hc, errC := sc.History(ctx, nick, limit)
				if (errM == nil) != (errC == nil) {
					t.Fatalf("History(%s, %d): in memory %v, from the index %v", nick, limit, errM, errC)
				}
				if errM != nil {
					continue
				}
				if a, b := historyOf(hm), historyOf(hc); a != b {
					t.Fatalf("History(%s, %d) in memory:\n%s\nfrom the index:\n%s", nick, limit, a, b)
				}
			}
		}
	})
}

// countdown is a context whose Err says cancelled once it has been
// asked n times: a deadline that passes at a chosen step of a call,
// whatever the machine's speed.
type countdown struct {
	context.Context
	n    atomic.Int64
	done chan struct{}
}

func newCountdown(n int64) *countdown {
	c := &countdown{Context: context.Background(), done: make(chan struct{})}
	c.n.Store(n)
	return c
}

func (c *countdown) Err() error {
	if c.n.Add(-1) < 0 {
		select {
		case <-c.done:
		default:
			close(c.done)
		}
		return context.Canceled
	}
	return nil
}

func (c *countdown) Done() <-chan struct{} {
	if c.n.Load() < 0 {
		return c.done
	}
	return c.Context.Done()
}

// historySessionOf commits n one-node versions (the first node changed
// at version 2), flushes, and reopens the cabinet: no version is in
// memory, so a History reads the cabinet's.
func historySessionOf(t testing.TB, n int) (*DB, *Session) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hist.db")
	db, err := openTest(WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := db.Session(ctx, "hs")
	for i := range n {
		text, params := `INSERT (:E {nick: $n, v: $v})`, map[string]any{"n": fmt.Sprintf("e%d", i), "v": i}
		if i == 1 {
			text, params = `MATCH (e {nick: "e0"}) SET e.v = 99`, nil
		}
		if _, err := s.commitText(ctx, text, params); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	return reopen(t, db, path, "hs")
}

func versionsOf(h *values.History) []uint64 {
	var vs []uint64
	for _, e := range h.Entries {
		vs = append(vs, e.Version)
	}
	return vs
}

// TestHistoryFarBackAfterReopen: a node made at the first version of a
// session of 4,500 reopened from its cabinet has its two versions in its
// history, however far back they are.
func TestHistoryFarBackAfterReopen(t *testing.T) {
	_, s := historySessionOf(t, 4500)
	ctx := context.Background()
	for _, c := range []struct {
		nick string
		want []uint64
	}{{"e0", []uint64{2, 1}}, {"e4499", []uint64{4500}}, {"e2000", []uint64{2001}}, {"e0", []uint64{2, 1}}} {
		h, err := s.History(ctx, c.nick, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := versionsOf(h); !slices.Equal(got, c.want) || h.More || h.Oldest != 1 {
			t.Errorf("History(%s): versions %v more %v oldest %d, want %v, no more, oldest 1", c.nick, got, h.More, h.Oldest, c.want)
		}
	}
}

// TestHistoryCutShortIsAnError: a History whose context ends while it
// reads the cabinet's history answers an error, never a history that
// looks complete; the next call finds the whole history.
func TestHistoryCutShortIsAnError(t *testing.T) {
	_, s := historySessionOf(t, 300)
	for _, steps := range []int64{5, 50, 150, 280, 400} {
		h, err := s.History(newCountdown(steps), "e0", 0)
		if err == nil {
			if got := versionsOf(h); !slices.Equal(got, []uint64{2, 1}) || h.More {
				t.Fatalf("cancelled at step %d: answered %v (more %v) without an error", steps, got, h.More)
			}
			continue
		}
		var ge *gqlstatus.Error
		if !errors.As(err, &ge) || ge.Code != gqlstatus.Rollback || !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled at step %d: %v, want %s and the cancel as its cause", steps, err, gqlstatus.Rollback)
		}
	}
	h, err := s.History(context.Background(), "e0", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := versionsOf(h); !slices.Equal(got, []uint64{2, 1}) || h.More {
		t.Fatalf("History(e0) after the cancelled calls: %v more %v, want [2 1]", got, h.More)
	}
}

// TestHistoryConcurrentDeadlines: Histories at once on a session
// reopened from its cabinet, each with a short deadline, answer the
// whole history or an error: a call that waited for another's read of
// the history and ran out of time says so.
func TestHistoryConcurrentDeadlines(t *testing.T) {
	_, s := historySessionOf(t, 1500)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(1+i*i)*time.Millisecond)
			defer cancel()
			h, err := s.History(ctx, "e0", 0)
			if err != nil {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("call %d: %v, want the deadline as its cause", i, err)
				}
				return
			}
			if got := versionsOf(h); !slices.Equal(got, []uint64{2, 1}) || h.More {
				t.Errorf("call %d: answered %v (more %v, oldest %d) without an error, want [2 1]", i, got, h.More, h.Oldest)
			}
		}()
	}
	wg.Wait()
}

// BenchmarkHistoryReopened is a History by nick on a session of 20,000
// one-node versions reopened from its cabinet, its index built.
func BenchmarkHistoryReopened(b *testing.B) {
	_, s := historySessionOf(b, 20_000)
	ctx := context.Background()
	if _, err := s.History(ctx, "e0", 0); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := s.History(ctx, fmt.Sprintf("e%d", i*7919%20_000), 0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHistoryWhileCommitting: Histories read while Commits come in (the
// index extended by each call, versions made between its read of the
// newest and its replay) each answer a whole history: e0's two versions,
// and every node made so far its one.
func TestHistoryWhileCommitting(t *testing.T) {
	db, s := historySessionOf(t, 200)
	_ = db
	ctx := context.Background()
	var wg sync.WaitGroup
	var made atomic.Int64
	made.Store(199)
	stop := make(chan struct{})
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 150 {
				n := fmt.Sprintf("w%d_%d", w, i)
				if _, err := s.commitText(ctx, `INSERT (:E {nick: $n})`, map[string]any{"n": n}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				nick := "e0"
				if i%2 == 1 {
					nick = fmt.Sprintf("e%d", 2+(i*7+r)%int(made.Load()-1)) // e1 is not a node: version 2 changed e0
				}
				h, err := s.History(ctx, nick, 0)
				if err != nil {
					t.Error(err)
					return
				}
				if want := 1 + btoi(nick == "e0"); len(h.Entries) != want || h.More {
					t.Errorf("History(%s) while committing: %v (more %v), want %d entries", nick, versionsOf(h), h.More, want)
					return
				}
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	for s.Version() < 500 && !t.Failed() {
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	for w := range 2 {
		h, err := s.History(ctx, fmt.Sprintf("w%d_149", w), 0)
		if err != nil || len(h.Entries) != 1 {
			t.Errorf("History(w%d_149) after: %v %v", w, h, err)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
