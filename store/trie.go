package store

import "math/bits"

// hashTrie is a persistent hash array mapped trie from a 64-bit hash to
// values: 32-way nodes that keep only their used slots, five hash bits
// per level. A lookup loads one kid per level (each node's bitmap rides
// in its parent's kid), where a B-tree search loads many scattered item
// arrays. Writes copy the path
// from the root, except through nodes the writing Tx already owns (same
// generation), which it edits in place; a published trie is never
// changed.
//
// The trie does not know keys: callers hash the key and pass a match
// function that tells whether a value with that hash is the one sought
// (a 64-bit hash collision is possible, just rare).
type hashTrie[T comparable] struct {
	root *trieNode[T]
	size int
	// displaced counts the bytes of the nodes of earlier generations its
	// writes copied or dropped (see Snapshot.Displaced).
	displaced int64
}

type trieNode[T comparable] struct {
	gen  uint64
	used uint32 // bit i: slot i of this level is in kids (at depth 13, unused: kids is a plain list)
	kids []trieKid[T]
}

// trieKid is either a subtrie (sub != nil, h == sub.used) or one value
// and its hash. A subtrie's bitmap is kept in its parent's kid so that a
// lookup goes from a kid straight to the next kid, one cache line per
// level, without first loading the subtrie's header (see kidAt).
type trieKid[T comparable] struct {
	sub *trieNode[T]
	h   uint64
	v   T
}

// setSub points k at sub, keeping sub's bitmap beside it.
func (k *trieKid[T]) setSub(sub *trieNode[T]) {
	k.sub, k.h = sub, uint64(sub.used)
}

const (
	trieBits = 5
	trieMask = 1<<trieBits - 1
)

// slotOf returns the slot of hash h at shift, its bit and its position
// in n.kids; ok reports whether the slot is used. Past the hash's last
// bits (a full collision) n is a plain list and ok is false.
func (n *trieNode[T]) slotOf(h uint64, shift uint) (bit uint32, pos int, ok bool) {
	bit = 1 << ((h >> shift) & trieMask)
	return bit, bits.OnesCount32(n.used & (bit - 1)), n.used&bit != 0
}

// get returns the value with hash h that match accepts.
func (t *hashTrie[T]) get(h uint64, match func(T) bool) (T, bool) {
	var zero T
	n := t.root
	if n == nil {
		return zero, false
	}
	used := n.used
	for shift := uint(0); shift < 64; shift += trieBits {
		bit := uint32(1) << ((h >> shift) & trieMask)
		if used&bit == 0 {
			return zero, false
		}
		k := n.kidAt(bits.OnesCount32(used & (bit - 1)))
		if k.sub == nil {
			if k.h == h && match(k.v) {
				return k.v, true
			}
			return zero, false
		}
		n, used = k.sub, uint32(k.h)
	}
	for _, k := range n.kids { // past the hash's bits: a plain list
		if k.h == h && match(k.v) {
			return k.v, true
		}
	}
	return zero, false
}

// own returns n writable by generation gen: n itself if gen owns it, or
// a copy that gen owns.
func (n *trieNode[T]) own(gen uint64, displaced *int64) *trieNode[T] {
	if n.gen == gen {
		return n
	}
	*displaced += trieBytes(n)
	capacity := len(n.kids) + 1
	if n.used != 0 { // a bitmap node never holds more than trieMask+1 kids
		capacity = min(capacity, trieMask+1)
	}
	c := newTrieNode[T](gen, capacity)
	c.used = n.used
	c.kids = append(c.kids, n.kids...)
	return c
}

// roomFor returns n, owned by gen, or when n's kids are at capacity a
// copy with room for more that keeps its kids allocated with it.
func (n *trieNode[T]) roomFor(gen uint64) *trieNode[T] {
	if len(n.kids) < cap(n.kids) {
		return n
	}
	c := newTrieNode[T](gen, 2*len(n.kids))
	c.used = n.used
	c.kids = append(c.kids, n.kids...)
	return c
}

// newTrieNode returns an empty node owned by gen with room for capacity
// kids, allocated with the node when capacity is small, so a lookup
// loads one object per level where it would load the node and then its
// kids array.
func newTrieNode[T comparable](gen uint64, capacity int) *trieNode[T] {
	var n *trieNode[T]
	switch {
	case capacity <= 2:
		n = withKids(func(k *[2]trieKid[T]) []trieKid[T] { return k[:0] })
	case capacity <= 4:
		n = withKids(func(k *[4]trieKid[T]) []trieKid[T] { return k[:0] })
	case capacity <= 8:
		n = withKids(func(k *[8]trieKid[T]) []trieKid[T] { return k[:0] })
	case capacity <= 16:
		n = withKids(func(k *[16]trieKid[T]) []trieKid[T] { return k[:0] })
	case capacity <= 32:
		n = withKids(func(k *[32]trieKid[T]) []trieKid[T] { return k[:0] })
	default:
		n = &trieNode[T]{kids: make([]trieKid[T], 0, capacity)}
	}
	n.gen = gen
	return n
}

// withKids allocates a trie node and an array A of kids together; none
// slices the array.
func withKids[T comparable, A any](none func(*A) []trieKid[T]) *trieNode[T] {
	b := new(nodeWithKids[T, A])
	b.n.kids = none(&b.k)
	return &b.n
}

// nodeWithKids is a trie node allocated with its kids, an array A of
// trieKid[T], right after it (where kidAt reads them).
type nodeWithKids[T comparable, A any] struct {
	n trieNode[T]
	k A
}

// put stores v under hash h, replacing the value match accepts if there
// is one.
func (t *hashTrie[T]) put(gen uint64, h uint64, v T, match func(T) bool) {
	if t.root == nil {
		t.root = newTrieNode[T](gen, trieMask+1)
	}
	var added bool
	t.root, added = t.root.put(gen, 0, h, v, match, &t.displaced)
	if added {
		t.size++
	}
}

func (n *trieNode[T]) put(gen uint64, shift uint, h uint64, v T, match func(T) bool, displaced *int64) (*trieNode[T], bool) {
	n = n.own(gen, displaced)
	if shift >= 64 {
		for i := range n.kids {
			if n.kids[i].h == h && match(n.kids[i].v) {
				n.kids[i].v = v
				return n, false
			}
		}
		n = n.roomFor(gen)
		n.kids = append(n.kids, trieKid[T]{h: h, v: v})
		return n, true
	}
	bit, pos, ok := n.slotOf(h, shift)
	if !ok {
		n = n.roomFor(gen)
		n.used |= bit
		n.kids = append(n.kids, trieKid[T]{})
		copy(n.kids[pos+1:], n.kids[pos:])
		n.kids[pos] = trieKid[T]{h: h, v: v}
		return n, true
	}
	k := &n.kids[pos]
	var added bool
	switch {
	case k.sub != nil:
		var sub *trieNode[T]
		sub, added = k.sub.put(gen, shift+trieBits, h, v, match, displaced)
		k.setSub(sub)
	case k.h == h && match(k.v):
		k.v = v
	default:
		// Two values in one slot: push the one there down a level.
		sub := newTrieNode[T](gen, 2)
		sub, _ = sub.put(gen, shift+trieBits, k.h, k.v, func(T) bool { return false }, displaced)
		sub, added = sub.put(gen, shift+trieBits, h, v, match, displaced)
		*k = trieKid[T]{}
		k.setSub(sub)
	}
	return n, added
}

// del removes the value with hash h that match accepts, if any.
func (t *hashTrie[T]) del(gen uint64, h uint64, match func(T) bool) {
	if t.root == nil {
		return
	}
	var removed bool
	t.root, removed = t.root.del(gen, 0, h, match, &t.displaced)
	if removed {
		t.size--
	}
}

// del returns n without the value (nil if n is left empty) and whether
// it was there. A subtrie left with one value folds into its parent's
// slot, so paths stay as short as the content allows.
func (n *trieNode[T]) del(gen uint64, shift uint, h uint64, match func(T) bool, displaced *int64) (*trieNode[T], bool) {
	var pos int
	var bit uint32
	if shift >= 64 {
		pos = -1
		for i, k := range n.kids {
			if k.h == h && match(k.v) {
				pos = i
			}
		}
		if pos < 0 {
			return n, false
		}
	} else {
		var ok bool
		if bit, pos, ok = n.slotOf(h, shift); !ok {
			return n, false
		}
		if k := n.kids[pos]; k.sub != nil {
			sub, removed := k.sub.del(gen, shift+trieBits, h, match, displaced)
			if !removed {
				return n, false
			}
			n = n.own(gen, displaced)
			if len(sub.kids) == 1 && sub.kids[0].sub == nil {
				n.kids[pos] = sub.kids[0]
			} else {
				n.kids[pos].setSub(sub)
			}
			return n, true
		} else if k.h != h || !match(k.v) {
			return n, false
		}
	}
	if len(n.kids) == 1 {
		if n.gen != gen {
			*displaced += trieBytes(n)
		}
		return nil, true
	}
	n = n.own(gen, displaced)
	n.used &^= bit
	n.kids = append(n.kids[:pos], n.kids[pos+1:]...)
	n.kids[len(n.kids):cap(n.kids)][0] = trieKid[T]{} // drop the reference
	return n, true
}
