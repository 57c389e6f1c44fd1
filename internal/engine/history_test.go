package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
)

// The tests of history.go: a counted history's retention across flushes,
// reopens and unloads.

// notKept reports whether err is 22Q08.
func notKept(err error) bool {
	var ge *gqlstatus.Error
	return errors.As(err, &ge) && ge.Code == gqlstatus.VersionNotKept
}

// TestHistoryRetention: with automatic flushes every few Commits, a
// counted history keeps the versions it counts readable, byte for byte,
// across the rebases that move its start, a reopen and a memory budget
// that unloads the session between every call; the versions before it
// are refused; a Purge cuts it for good, across a reopen.
func TestHistoryRetention(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "keep.gf")
	open := func(opts ...Option) *DB {
		db, err := openTest(append([]Option{WithCabinet(path), WithAutoFlush(7, 0)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	s, _ := db.Session(ctx, "h")
	set, _ := s.AttentionSettings(ctx)
	set.History = 20
	if err := s.SetAttentionSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	const token = `MATCH (t:TSK {nick: "t"})`
	seen := map[uint64]string{}
	for i := range 300 {
		text := fmt.Sprintf(`INSERT (:TSK {nick: "t", n: %d})`, i)
		if i > 0 {
			text = fmt.Sprintf(`MATCH (t:TSK {nick: "t"}) SET t.n = %d INSERT (t)-[:has]->(:NOTE {text: "n%d"})`, i, i)
		}
		res, err := s.commitText(ctx, text, nil)
		if err != nil {
			t.Fatal(err)
		}
		sh, err := s.recallShape(ctx, token, values.RecallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		seen[res.Version] = shapeBody(sh.Text)
	}
	check := func(s *Session, when string) {
		t.Helper()
		newest := s.Version()
		for v := uint64(1); v <= newest; v++ {
			sh, err := s.recallShape(ctx, token, values.RecallOptions{AtVersion: v})
			switch {
			case v+20 < newest:
				if !notKept(err) || !strings.Contains(err.Error(), fmt.Sprintf("keeps versions %d to %d", newest-20, newest)) {
					t.Fatalf("%s: version %d of %d: %v, want 22Q08", when, v, newest, err)
				}
			case err != nil:
				t.Fatalf("%s: version %d of %d: %v", when, v, newest, err)
			case shapeBody(sh.Text) != seen[v]:
				t.Fatalf("%s: version %d:\n%s\nwhen it was the newest:\n%s", when, v, shapeBody(sh.Text), seen[v])
			}
		}
	}
	check(s, "live")
	db.Close()
	db = open(WithMemoryBudget(1))
	s, _ = db.Session(ctx, "h")
	check(s, "reopened, unloaded after every call")
	// The rebases kept the history bounded: with 20 to keep, a rebase
	// at least every 20+64 versions past twice that.
	db.Close()
	db = open()
	s, _ = db.Session(ctx, "h")
	set.History = values.HistoryAll
	if err := s.SetAttentionSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	// A rebase moves the start once the history holds 2×20+64 versions,
	// at a flush (every 7 Commits): never more than that is kept.
	bound := s.Version() - (20 + 20 + 64 + 7)
	if _, err := s.recallShape(ctx, token, values.RecallOptions{AtVersion: bound - 1}); !notKept(err) {
		t.Fatalf("version %d, before what the rebases keep, read with history=all: %v", bound-1, err)
	}
	if _, err := s.recallShape(ctx, token, values.RecallOptions{AtVersion: s.Version() - 20}); err != nil {
		t.Fatalf("the oldest version counted: %v", err)
	}
	// A Purge cuts the history at its version, for good.
	if _, err := s.commitText(ctx, `MATCH (t:TSK {nick: "t"})-[:has]->(n:NOTE {text: "n299"}) DETACH DELETE n`, nil); err != nil {
		t.Fatal(err)
	}
	before := s.Version()
	if n, err := s.Purge(ctx); err != nil || n == 0 {
		t.Fatal(n, err)
	}
	db.Close()
	db = open()
	defer db.Close()
	s, _ = db.Session(ctx, "h")
	if _, err := s.recallShape(ctx, token, values.RecallOptions{AtVersion: before}); !notKept(err) ||
		!strings.Contains(err.Error(), fmt.Sprintf("keeps versions %d to %d", before+1, before+1)) {
		t.Fatalf("a version before a purge, after a reopen: %v", err)
	}
}

// TestHistoryUnderFire: on a cabinet under a memory budget that unloads
// the session between calls, Commits, flushes every few of them, changes
// of the history setting, Recalls as of old versions (rebuilt from the
// history), Diffs and a node's History run at once; every answer is
// either right (the version asked for, the same body as any other
// answer at that version) or 22Q08, and nothing races (go test -race).
func TestHistoryUnderFire(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fire.gf")
	db, err := openTest(WithCabinet(path), WithAutoFlush(5, 0), WithMemoryBudget(1))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, _ := db.Session(ctx, "fire")
	if _, err := s.commitText(ctx, `INSERT (:TSK {nick: "t", n: 0})`, nil); err != nil {
		t.Fatal(err)
	}
	const commits = 200
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i <= commits; i++ {
			if _, err := s.commitText(ctx, fmt.Sprintf(`MATCH (t:TSK {nick: "t"}) SET t.n = %d INSERT (t)-[:has]->(:NOTE {text: "n%d"})`, i, i), nil); err != nil {
				t.Error(err)
				return
			}
			if i%37 == 0 {
				set, err := s.AttentionSettings(ctx)
				if err == nil {
					set.History = [...]values.HistoryKeep{values.HistoryAll, 30, values.HistoryAll}[i/37%3]
					err = s.SetAttentionSettings(ctx, set)
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}
	}()
	var mu sync.Mutex
	bodies := map[uint64]string{}
	running := func() bool {
		select {
		case <-done:
			return false
		default:
			return true
		}
	}
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; running(); i++ {
				v := uint64((i*7+g)%commits + 1)
				var err error
				switch i % 3 {
				case 0:
					var sh *values.Shape
					sh, err = s.recallShape(ctx, `MATCH (t:TSK {nick: "t"})`, values.RecallOptions{AtVersion: v})
					if err == nil {
						if sh.Version != v {
							t.Errorf("asked for %d, got %d", v, sh.Version)
							return
						}
						mu.Lock()
						if b, ok := bodies[v]; ok && b != shapeBody(sh.Text) {
							t.Errorf("version %d read two ways:\n%s\n%s", v, b, shapeBody(sh.Text))
						}
						bodies[v] = shapeBody(sh.Text)
						mu.Unlock()
					}
				case 1:
					_, err = s.Diff(ctx, v, v+1, values.DiffOptions{})
				default:
					_, err = s.History(ctx, "t", 3)
				}
				if err != nil && !notKept(err) && !strings.Contains(err.Error(), "no version") {
					t.Errorf("%d at %d: %v", i%3, v, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(bodies) < 10 {
		t.Fatalf("only %d versions read under fire: the test reads too little", len(bodies))
	}
	t.Logf("%d versions read as of their version under fire", len(bodies))
}
