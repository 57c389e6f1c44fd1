package vocab

import (
	"math"
	"slices"
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
	p.rank.Store(r)
	return r
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
