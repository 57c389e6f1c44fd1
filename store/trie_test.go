package store

import (
	"fmt"
	"maps"
	"testing"

	"pgregory.net/rapid"
)

// TestRapidHashTrie runs random puts and deletes, in several generations,
// against a map, with hashes drawn from a few narrow families so that
// slots collide at every depth and full 64-bit collisions occur. After
// each generation the trie of every earlier generation must still hold
// exactly what it held when that generation ended (writes never change a
// trie another generation can see).
func TestRapidHashTrie(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		type val struct{ key int }
		keys := rapid.SampledFrom([]int{40, 400}).Draw(t, "keys")
		mask := rapid.SampledFrom([]uint64{0, 0x3, 0xff, 0xf000_0000_0000_000f, ^uint64(0)}).Draw(t, "mask")
		hash := func(k int) uint64 { return uint64(k) * 0x9E3779B97F4A7C15 & mask }
		vals := map[int]*val{}
		valOf := func(k int) *val {
			if vals[k] == nil {
				vals[k] = &val{k}
			}
			return vals[k]
		}
		var tr hashTrie[*val]
		type frozen struct {
			tr   hashTrie[*val]
			want map[int]bool
		}
		var past []frozen
		want := map[int]bool{}
		check := func(tr hashTrie[*val], want map[int]bool, what string) {
			if tr.size != len(want) {
				t.Fatalf("%s: size %d, want %d", what, tr.size, len(want))
			}
			if err := checkTrie(&tr, what); err != nil {
				t.Fatal(err)
			}
			for k := range keys {
				v, ok := tr.get(hash(k), func(v *val) bool { return v.key == k })
				if ok != want[k] || ok && v.key != k {
					t.Fatalf("%s: get %d = %v %v, want %v", what, k, v, ok, want[k])
				}
			}
		}
		gens := rapid.IntRange(1, 4).Draw(t, "gens")
		for gen := uint64(1); gen <= uint64(gens); gen++ {
			for _, op := range rapid.SliceOfN(rapid.IntRange(1-keys, keys-1), 0, keys+20).Draw(t, "ops") {
				k := max(op, -op)
				match := func(v *val) bool { return v.key == k }
				if op >= 0 {
					tr.put(gen, hash(k), valOf(k), match)
					want[k] = true
				} else {
					tr.del(gen, hash(k), match)
					delete(want, k)
				}
			}
			check(tr, want, "current")
			past = append(past, frozen{tr, maps.Clone(want)})
			for i, p := range past {
				check(p.tr, p.want, fmt.Sprint("generation ", i+1))
			}
		}
	})
}

// TestTrieFullNodeCopied: a later generation's write through full bitmap
// nodes (every slot used, which the random test rarely reaches) copies
// them into nodes that still have their kids allocated with them.
func TestTrieFullNodeCopied(t *testing.T) {
	type val struct{ key int }
	var tr hashTrie[*val]
	hash := func(k int) uint64 { return uint64(k) * 0x9E3779B97F4A7C15 }
	for k := range 5000 {
		tr.put(1, hash(k), &val{k}, func(v *val) bool { return v.key == k })
	}
	if len(tr.root.kids) != trieMask+1 {
		t.Fatalf("root has %d kids; the test needs it full", len(tr.root.kids))
	}
	for k := range 5000 {
		tr.put(2, hash(k), &val{k}, func(v *val) bool { return v.key == k })
	}
	if err := checkTrie(&tr, "test"); err != nil {
		t.Fatal(err)
	}
	for k := range 5000 {
		if v, ok := tr.get(hash(k), func(v *val) bool { return v.key == k }); !ok || v.key != k {
			t.Fatalf("get %d = %v, %v", k, v, ok)
		}
	}
}
