package vocab

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestRecentKeepsTheLatest checks Recent against a plain list: whatever
// order the Recalls are noted in, it keeps the newest RecentReads of
// them, ascending and each once, and counts those between two ticks.
func TestRecentKeepsTheLatest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var r Recent
		var all []uint64
		for _, tick := range rapid.SliceOfN(rapid.Uint64Range(1, 300), 0, 200).Draw(t, "ticks") {
			full := len(r.Ticks()) == RecentReads
			if full && tick < r.Ticks()[0] {
				// A tick older than all of a full record's is not kept.
				r.Add(tick)
				continue
			}
			r.Add(tick)
			if !slices.Contains(all, tick) {
				all = append(all, tick)
			}
			slices.Sort(all)
			if len(all) > RecentReads {
				all = all[len(all)-RecentReads:]
			}
		}
		if got := r.Ticks(); !slices.Equal(got, all) {
			t.Fatalf("kept %v, want %v", got, all)
		}
		from := rapid.Uint64Range(0, 310).Draw(t, "from")
		to := rapid.Uint64Range(0, 310).Draw(t, "to")
		// The model: the kept Recalls after from and before to, the read
		// itself, and before the oldest kept, when RecentReads are kept,
		// every Recall of the session.
		steps := func(at uint64) uint64 {
			if at >= to {
				return 0
			}
			n := uint64(1)
			for _, x := range all {
				if x > at && x < to {
					n++
				}
			}
			if len(all) == RecentReads && at+1 < all[0] {
				n += all[0] - at - 1
			}
			return n
		}
		if got, want := r.steps(from, to), steps(from); got != want {
			t.Fatalf("steps(%d, %d) = %d, want %d (kept %v)", from, to, got, want, all)
		}
		if r.covers(from, to) {
			for at := from; at < to; at++ {
				if steps(at) != to-at {
					t.Fatalf("covers(%d, %d) but a mark at %d decays by %d steps, not %d (kept %v)", from, to, at, steps(at), to-at, all)
				}
			}
		}
	})
}

// TestRecentCoversOneReader checks that an agent alone in its session,
// whose Recalls are every Recall, always finds the session's own count.
func TestRecentCoversOneReader(t *testing.T) {
	var r Recent
	for tick := uint64(1); tick < 300; tick++ {
		for _, from := range []uint64{0, tick / 2, tick - 1} {
			if !r.covers(from, tick) {
				t.Fatalf("after %d Recalls, covers(%d, %d) is false (kept %v)", tick-1, from, tick, r.Ticks())
			}
		}
		r.Add(tick)
	}
}
