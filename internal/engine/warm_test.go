package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// The tests of warm.go: Warm hydrates the sessions a reopen would replay,
// and stops at the memory budget.

// TestWarm: Warm hydrates the sessions whose logs hold Commits past
// their snapshot (a database closed without a flush, as a kill leaves
// it) and no other, reporting its progress; then there is nothing left
// to do. Under a memory budget it stops once the budget is full (a
// session or so a processor past it: it hydrates that many at a time).
func TestWarm(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.gf")
	db := openCab(t, path)
	// More sessions with logs than Warm hydrates at a time, and one
	// flushed.
	logged := runtime.GOMAXPROCS(0) + 2
	names := []string{"flushed"}
	for i := range logged {
		names = append(names, fmt.Sprintf("logged%d", i))
	}
	for _, name := range names {
		s, err := db.Session(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, err := s.commitText(ctx, "INSERT (:N)", nil); err != nil {
				t.Fatal(err)
			}
		}
		if name == "flushed" {
			if err := s.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = openCab(t, path)
	var reports [][2]int
	report := func(done, total int) { reports = append(reports, [2]int{done, total}) }
	if err := db.Warm(ctx, report); err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{0, logged}}
	for i := range logged {
		want = append(want, [2]int{i + 1, logged})
	}
	if !slices.Equal(reports, want) {
		t.Errorf("progress %v, want %v", reports, want)
	}
	if st := db.MemoryStats(); st.ResidentSessions != logged {
		t.Errorf("%d sessions in memory after Warm, want the %d with logs", st.ResidentSessions, logged)
	}
	reports = nil
	if err := db.Warm(ctx, report); err != nil || !slices.Equal(reports, [][2]int{{0, 0}}) {
		t.Errorf("a second Warm: %v %v", reports, err)
	}
	db.Close()

	db = openCab(t, path, WithMemoryBudget(1))
	reports = nil
	if err := db.Warm(ctx, report); err != nil || len(reports) < 2 || reports[len(reports)-1][0] >= logged {
		t.Errorf("under a full budget: %v %v, want fewer hydrated than %d", reports, err, logged)
	}
	db.Close()

	mem, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if err := mem.Warm(ctx, nil); err != nil {
		t.Errorf("in memory: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	db = openCab(t, path)
	defer db.Close()
	if err := db.Warm(cancelled, nil); err == nil {
		t.Error("a cancelled Warm returned nil")
	}
}
