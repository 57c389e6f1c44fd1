package vocab

import (
	"math"
	"slices"
	"sync"
)

// ranking is a version's items under one set of marks and one decay
// factor: each item's mark, and the items in order of salience. The
// order holds at every Recall count: an item's salience at count T is
// score·decay^(T−tick), whose logarithm is key − T·λ with
// key = log(score) + tick·λ and λ = −log(decay), the same shift for
// every item. So the order changes only when a mark does (a use, a
// registration), and a read tests an item against the threshold with
// one comparison of keys, never a power.
type ranking struct {
	marks *Marks
	decay float64
	// vm and am are the marks of p.views and p.acts, in their order.
	vm, am []Mark
	// order lists the items by key, highest first; ties keep views
	// before actions, each by name. An index below len(p.views) is a
	// view, above it the action at index − len(p.views).
	order  []int32
	keys   []float64 // by item index, as order uses them
	lambda float64
	// oldest is the smallest tick of the marks.
	oldest uint64
	// reader says it is one reader's (seenBy), from readerRankings, and
	// buf backs vm and am there.
	reader bool
	buf    []Mark
}

// readerRankings keeps the rankings of single reads (seenBy) for the
// next: one is made on most Recalls of a session of several agents, and
// is garbage once the envelope is written.
var readerRankings = sync.Pool{New: func() any { return new(ranking) }}

// release gives a reader's ranking back once its read is done with it.
func (r *ranking) release() {
	if r != nil && r.reader {
		r.marks = nil // the session's marks may be replaced meanwhile
		readerRankings.Put(r)
	}
}

// rankingFor returns the ranking of p under marks and decay, computed
// once per pair.
func (p *Prepared) rankingFor(marks *Marks, decay float64) *ranking {
	if r := p.rank.Load(); r != nil && r.marks == marks && r.decay == decay {
		return r
	}
	r := &ranking{marks: marks, decay: decay, lambda: -math.Log(decay)}
	r.vm = make([]Mark, len(p.views))
	r.am = make([]Mark, len(p.acts))
	n := len(p.views) + len(p.acts)
	r.keys = make([]float64, n)
	r.order = make([]int32, n)
	for i := range p.views {
		r.vm[i] = marks.view(p.views[i].name, 0)
		r.keys[i] = r.key(r.vm[i])
	}
	for i := range p.acts {
		r.am[i] = marks.action(p.acts[i].name, 0)
		r.keys[len(p.views)+i] = r.key(r.am[i])
	}
	r.oldest = math.MaxUint64
	for _, m := range r.vm {
		r.oldest = min(r.oldest, m.Tick)
	}
	for _, m := range r.am {
		r.oldest = min(r.oldest, m.Tick)
	}
	r.sort()
	p.rank.Store(r)
	return r
}

// sort orders the items by key.
func (r *ranking) sort() {
	for i := range r.order {
		r.order[i] = int32(i)
	}
	slices.SortStableFunc(r.order, func(a, b int32) int {
		switch x, y := r.keys[a], r.keys[b]; {
		case x > y:
			return -1
		case x < y:
			return 1
		}
		return 0
	})
}

// seenBy is the ranking as the reader whose record holds recent sees it
// at Recall count tick (recent.go): each mark decayed by the reader's
// Recalls since, this one included, not the session's. It is r itself
// when the reader made every Recall since the oldest mark (one agent
// alone in its session), or when the read names no agent (recent nil).
func (r *ranking) seenBy(recent *Recent, tick uint64) *ranking {
	if recent == nil || r.oldest >= tick || recent.covers(r.oldest, tick) {
		return r
	}
	s := readerRankings.Get().(*ranking)
	s.marks, s.decay, s.lambda, s.oldest, s.reader = r.marks, r.decay, r.lambda, r.oldest, true
	nv, n := len(r.vm), len(r.keys)
	s.buf = slices.Grow(s.buf[:0], n)[:n]
	m := s.buf
	s.vm, s.am = m[:nv:nv], m[nv:]
	s.keys = slices.Grow(s.keys[:0], n)[:n]
	var last, moved uint64 // marks often share a tick: the last one's move
	for i := range r.keys {
		mk := &m[i]
		if i < nv {
			*mk = r.vm[i]
		} else {
			*mk = r.am[i-nv]
		}
		// A mark at t decays by the n Recalls of the reader since: as
		// a mark at tick − n (t or later) does by the session's.
		if i == 0 || mk.Tick != last {
			last = mk.Tick
			moved = max(mk.Tick, tick-recent.steps(mk.Tick, tick)) - mk.Tick
		}
		mk.Tick += moved
		// log(score) + tick·λ, moved forward with the mark.
		s.keys[i] = r.keys[i] + float64(moved)*r.lambda
	}
	// The session's order is nearly the reader's (a mark moves forward
	// by fewer ticks the older it is, and most share a tick): an
	// insertion sort from it costs little more than a pass. Ties go by
	// item index, as sort gives them.
	s.order = append(s.order[:0], r.order...)
	before := func(a, b int32) bool {
		x, y := s.keys[a], s.keys[b]
		return x > y || x == y && a < b
	}
	for i := 1; i < len(s.order); i++ {
		v := s.order[i]
		j := i
		for j > 0 && before(v, s.order[j-1]) {
			s.order[j] = s.order[j-1]
			j--
		}
		s.order[j] = v
	}
	return s
}

func (r *ranking) key(m Mark) float64 {
	if m.Score <= 0 {
		return math.Inf(-1)
	}
	return math.Log(m.Score) + float64(m.Tick)*r.lambda
}

// lowKey is the key under which an item is under threshold at Recall
// count tick.
func (r *ranking) lowKey(tick uint64, threshold float64) float64 {
	if threshold <= 0 {
		return math.Inf(-1)
	}
	return math.Log(threshold) + float64(tick)*r.lambda
}
