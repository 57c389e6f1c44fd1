package btree

import (
	"testing"

	"pgregory.net/rapid"
)

// nodes adds every node of the subtree at n to set.
func nodes[T any](n *node[T], set map[*node[T]]bool) {
	if n == nil {
		return
	}
	set[n] = true
	for _, c := range n.children {
		nodes(c, set)
	}
}

// TestDisplacedIsWhatTheCloneNoLongerReaches checks, over random writes
// to clones of random trees, that a tree's Displaced is exactly the bytes
// of the nodes of the tree it was cloned from that it no longer reaches.
func TestDisplacedIsWhatTheCloneNoLongerReaches(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		degree := rapid.IntRange(2, 16).Draw(t, "degree")
		tr := NewG(degree, func(a, b int) bool { return a < b })
		for _, k := range rapid.SliceOfN(rapid.IntRange(0, 2000), 0, 600).Draw(t, "base") {
			tr.ReplaceOrInsert(k)
		}
		for round := range rapid.IntRange(1, 4).Draw(t, "rounds") {
			before := map[*node[int]]bool{}
			nodes(tr.root, before)
			var size int64
			for n := range before {
				size += n.bytes() // the old nodes never change: measure them now
			}
			sizes := map[*node[int]]int64{}
			for n := range before {
				sizes[n] = n.bytes()
			}
			next := tr.Clone()
			if next.Displaced() != 0 {
				t.Fatalf("round %d: a fresh clone displaced %d bytes", round, next.Displaced())
			}
			for _, op := range rapid.SliceOfN(rapid.IntRange(-2000, 2000), 0, 120).Draw(t, "ops") {
				if op < 0 {
					next.Delete(-op)
				} else {
					next.ReplaceOrInsert(op)
				}
			}
			after := map[*node[int]]bool{}
			nodes(next.root, after)
			var want int64
			for n := range before {
				if !after[n] {
					want += sizes[n]
				}
			}
			if got := next.Displaced(); got != want {
				t.Fatalf("round %d: Displaced %d, want %d (old tree %d bytes)", round, got, want, size)
			}
			tr = next
		}
	})
}
