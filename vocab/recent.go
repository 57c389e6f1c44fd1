package vocab

// Salience decays per reader: an item's score fades with each Recall of
// the agent reading it that did not use it, not with every Recall of the
// session, so an agent's unread items do not fade because others read.
// (Uses raise an item for every reader: the score is the session's.) An
// agent's record keeps the session's Recall count at its latest
// RecentReads Recalls, enough to count the reads since any mark: at the
// default decay 0.9 an item unused for 64 of the reader's Recalls is at
// 0.9^64 ≈ 0.001 of its score, under the threshold unless it was used
// some hundred times at once; before the oldest of those, every Recall
// of the session counts, as it does for one agent alone in its session.
// A read that names no agent counts every Recall of the session, as the
// session's own listing (:views, :actions) does.

// RecentReads is how many of an agent's latest Recalls its record keeps.
const RecentReads = 64

// Recent is the session's Recall count at an agent's latest Recalls,
// ascending, each once, at most RecentReads of them.
type Recent struct {
	ticks [RecentReads]uint64
	n     uint8
}

// Add counts a Recall at tick. Concurrent Recalls of one agent may be
// noted out of order, so it inserts in place; when full, the oldest goes
// (a tick older than all of a full record's is not kept).
func (r *Recent) Add(tick uint64) {
	n := int(r.n)
	i := n
	for i > 0 && r.ticks[i-1] > tick {
		i--
	}
	if i > 0 && r.ticks[i-1] == tick {
		return
	}
	if n == RecentReads {
		if i == 0 {
			return
		}
		copy(r.ticks[:i-1], r.ticks[1:i])
		r.ticks[i-1] = tick
		return
	}
	copy(r.ticks[i+1:n+1], r.ticks[i:n])
	r.ticks[i] = tick
	r.n++
}

// Ticks returns the counts kept, oldest first.
func (r *Recent) Ticks() []uint64 { return r.ticks[:r.n] }

// below is how many kept Recalls came before tick.
func (r *Recent) below(tick uint64) int {
	lo, hi := 0, int(r.n)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.ticks[m] < tick {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// steps is how many Recalls a mark made at Recall count at has decayed
// by, for this reader, at its Recall tick: its kept Recalls after at,
// this one, and, before the oldest it keeps when it keeps RecentReads,
// every Recall of the session.
func (r *Recent) steps(at, tick uint64) uint64 {
	if at >= tick {
		return 0
	}
	n := uint64(max(r.below(tick)-r.below(at+1), 0)) + 1
	if r.n == RecentReads && at+1 < r.ticks[0] {
		n += r.ticks[0] - at - 1
	}
	return n
}

// covers reports whether, for every mark made at from or later, steps
// is the session's count of Recalls since: the reader made each Recall
// of the session after from and before to (counting those before its
// oldest kept one as its own when it keeps RecentReads). One agent alone
// in its session always does. (A Recall of the same agent noted while
// this one ran may come after to; it is not counted.)
func (r *Recent) covers(from, to uint64) bool {
	if to <= from+1 {
		return true
	}
	e := r.below(to)
	if e == 0 || r.ticks[e-1] != to-1 || r.ticks[e-1]-r.ticks[0] != uint64(e-1) {
		return false
	}
	return r.ticks[0] <= from+1 || r.n == RecentReads
}
