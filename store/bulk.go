package store

import (
	"cmp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/goldfish-gql/goldfish/store/internal/btree"

	"github.com/goldfish-gql/goldfish/values"
)

// Bulk builds for Restore: each index is built from its entries sorted
// beforehand (in parallel when there are many), inserted in order.

// bulkTree builds a B-tree holding items, which must be distinct and
// sorted by less, by inserting them in order. While it builds, its
// comparator answers a comparison with the item being inserted at once
// (that item is greater than every item already in the tree), so a build
// costs no real comparisons; otherwise, and afterwards, it is less.
func bulkTree[T comparable](items []T, less func(a, b T) bool) *btree.BTreeG[T] {
	b := &bulkBuild[T]{building: true}
	t := btree.NewG(btreeDegree, func(x, y T) bool {
		if b.building {
			if y == b.cur {
				return x != b.cur
			}
			if x == b.cur {
				return false
			}
		}
		return less(x, y)
	})
	for _, it := range items {
		b.cur = it
		t.ReplaceOrInsert(it)
	}
	*b = bulkBuild[T]{}
	return t
}

type bulkBuild[T any] struct {
	building bool
	cur      T // the item being inserted
}

const parallelGrain = 4096

// parallel calls f on consecutive ranges covering [0, n), concurrently
// when n is large enough to be worth it.
func parallel(n int, f func(lo, hi int)) {
	k := min(runtime.GOMAXPROCS(0), n/parallelGrain)
	if k <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for j := range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(j*n/k, (j+1)*n/k)
		}()
	}
	wg.Wait()
}

// sortParallel sorts s by c (a total order), sorting parts concurrently
// and merging them pairwise.
func sortParallel[E any](s []E, c func(a, b E) int) {
	parallel(len(s), func(lo, hi int) {
		slices.SortFunc(s[lo:hi], c)
	})
	k := min(runtime.GOMAXPROCS(0), len(s)/parallelGrain)
	if k <= 1 {
		return
	}
	runs := make([]int, 0, k+1) // run starts, then len(s)
	for j := 0; j <= k; j++ {
		runs = append(runs, j*len(s)/k)
	}
	src, dst := s, make([]E, len(s))
	for len(runs) > 2 {
		var next []int
		for j := 0; j+1 < len(runs); j += 2 {
			lo := runs[j]
			if j+2 < len(runs) {
				mergeRuns(dst[lo:runs[j+2]], src[lo:runs[j+1]], src[runs[j+1]:runs[j+2]], c)
			} else {
				copy(dst[lo:runs[j+1]], src[lo:runs[j+1]])
			}
			next = append(next, lo)
		}
		runs = append(next, len(s))
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
}

func mergeRuns[E any](dst, a, b []E, c func(x, y E) int) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if c(b[j], a[i]) < 0 {
			dst[k] = b[j]
			j++
		} else {
			dst[k] = a[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}

// countTree builds a counter tree from a map (positive counts only).
func countTree(m map[string]int) *btree.BTreeG[countItem] { return counterTree(m, false) }

// kindTree is countTree for the counter of kinds, whose entries carry
// their kind's pivot (kindPivot).
func kindTree(m map[string]int) *btree.BTreeG[countItem] { return counterTree(m, true) }

func counterTree(m map[string]int, pivots bool) *btree.BTreeG[countItem] {
	t := btree.NewG(btreeDegree, lessCountItem)
	names := make([]string, 0, len(m))
	for k, n := range m {
		if n > 0 {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		it := countItem{name: k, n: m[k]}
		if pivots {
			it.pivot = kindPivot(k)
		}
		t.ReplaceOrInsert(it)
	}
	return t
}

// buildLabels builds the label index and the label and kind counters from
// the live nodes in observable order: each label's run is already in
// (observable key, id) order, so only the label names need sorting.
func buildLabels(live []*Node) (*btree.BTreeG[labelItem], *btree.BTreeG[countItem], *btree.BTreeG[countItem]) {
	byLabel := map[string][]*Node{}
	kinds := map[string]int{}
	counts := map[string]int{}
	for _, n := range live {
		for i, l := range n.Labels {
			if i > 0 { // a kind's nodes are a range of the observable order
				byLabel[l] = append(byLabel[l], n)
			}
			counts[l]++
		}
		kinds[n.Kind()]++
	}
	names := make([]string, 0, len(byLabel))
	for l := range byLabel {
		names = append(names, l)
	}
	slices.Sort(names)
	items := make([]labelItem, 0, len(live))
	for _, l := range names {
		for _, n := range byLabel[l] {
			items = append(items, labelItem{label: l, n: n})
		}
	}
	return bulkTree(items, lessLabelItem), countTree(counts), kindTree(kinds)
}

// buildProps builds the property index from the live nodes in observable
// order: entries are grouped by key (a counting sort), then each group is
// sorted by (value, rank in that order) on compact copies of the values:
// a uint64 order key when the group holds only booleans, only integers or
// only floats, the text when it holds strings of one kind, else the values.Value.
func buildProps(live []*Node) *btree.BTreeG[propItem] {
	kid := map[string]int{}
	var keys []string
	var counts []int
	total := 0
	for _, n := range live {
		total += len(n.Props)
	}
	kidx := make([]int32, 0, total)
	lastKey, lastID := "", -1
	for _, n := range live {
		for i := range n.Props {
			// Consecutive nodes mostly share their keys: a one-entry
			// cache saves most map lookups.
			if k := n.Props[i].Key; lastID < 0 || k != lastKey {
				id, ok := kid[k]
				if !ok {
					id = len(keys)
					kid[k] = id
					keys = append(keys, k)
					counts = append(counts, 0)
				}
				lastKey, lastID = k, id
			}
			counts[lastID]++
			kidx = append(kidx, int32(lastID))
		}
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(keys[a], keys[b]) })
	start := make([]int, len(keys))
	off := 0
	for _, id := range order {
		start[id] = off
		off += counts[id]
	}
	refs := make([]propRef, total) // grouped by key, rank order within
	next := slices.Clone(start)
	j := 0
	for r, n := range live {
		for i := range n.Props {
			id := kidx[j]
			j++
			refs[next[id]] = propRef{rank: uint32(r), i: uint32(i)}
			next[id]++
		}
	}
	items := make([]propItem, total)
	for _, id := range order {
		lo, hi := start[id], start[id]+counts[id]
		sortPropGroup(live, refs[lo:hi])
		for k, x := range refs[lo:hi] {
			items[lo+k] = propItem{n: live[x.rank], i: x.i}
		}
	}
	return bulkTree(items, lessPropItem)
}

// propRef is the i-th property of the live node of rank rank.
type propRef struct{ rank, i uint32 }

// sortPropGroup sorts refs (one key, in rank order) by (value, rank).
func sortPropGroup(live []*Node, refs []propRef) {
	val := func(x propRef) *values.Value { return &live[x.rank].Props[x.i].Val }
	kind := val(refs[0]).Kind()
	same := true
	for _, x := range refs[1:] {
		if val(x).Kind() != kind {
			same = false
			break
		}
	}
	switch {
	case same && (kind == values.KindBool || kind == values.KindInt || kind == values.KindFloat):
		type ent struct {
			k uint64
			x propRef
		}
		es := make([]ent, len(refs))
		for i, x := range refs {
			es[i] = ent{val(x).OrderKey(), x}
		}
		sortRefs(es, refs, func(a, b ent) int {
			if a.k != b.k {
				return cmp.Compare(a.k, b.k)
			}
			return cmp.Compare(a.x.rank, b.x.rank)
		}, func(e ent) propRef { return e.x })
	case same && (kind == values.KindString || kind == values.KindDate || kind == values.KindDateTime):
		type ent struct {
			s string
			x propRef
		}
		es := make([]ent, len(refs))
		for i, x := range refs {
			es[i] = ent{val(x).AsString(), x}
		}
		sortRefs(es, refs, func(a, b ent) int {
			if c := strings.Compare(a.s, b.s); c != 0 {
				return c
			}
			return cmp.Compare(a.x.rank, b.x.rank)
		}, func(e ent) propRef { return e.x })
	default:
		type ent struct {
			v values.Value
			x propRef
		}
		es := make([]ent, len(refs))
		for i, x := range refs {
			es[i] = ent{*val(x), x}
		}
		sortRefs(es, refs, func(a, b ent) int {
			if c := a.v.Compare(b.v); c != 0 {
				return c
			}
			return cmp.Compare(a.x.rank, b.x.rank)
		}, func(e ent) propRef { return e.x })
	}
}

// sortRefs sorts es (unless already sorted) and writes their refs back.
func sortRefs[E any](es []E, refs []propRef, c func(a, b E) int, ref func(E) propRef) {
	if slices.IsSortedFunc(es, c) {
		return
	}
	slices.SortFunc(es, c)
	for i, e := range es {
		refs[i] = ref(e)
	}
}
