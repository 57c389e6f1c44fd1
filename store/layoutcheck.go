package store

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// CheckLayout verifies the invariants the store's reads rely on without
// checking them as they go, and returns the first violation, or nil:
//
//   - the types: a slot record is one cache line on 64-bit platforms, a
//     leaf starts with its records, and trie kids allocated with their
//     node are where kidAt reads them;
//   - the counters: live and recycled elements as the id trees hold them;
//   - the slot table: every node, live or recycled, holds a slot in
//     range whose record is the node's current one, with the node's
//     rendering kept beside it (the same bytes; a node record's text is
//     the rendering and then the observable key of its content); every
//     other record of a handed-out slot is a purged node's, empty;
//     nothing past the last slot;
//   - each adjacency: as many entries as the record's degrees say, each
//     the current record of a live edge seen from the right end, leading
//     to the live node at the other end, with the edge type's small id
//     and the far node's key byte, in strictly ascending canonical order;
//     every live edge once Out at its From and once In at its To; no
//     entry at a recycled node;
//   - the nick and locator tries: bitmaps matching kids, every value in
//     the slot its hash selects at each level, subtrie bitmaps kept in
//     the parent's kid, sizes matching the values; every live node with a
//     STRING nick or locator found by it (a locator's nodes in observable
//     order, unless its bucket went over).
//
// It reads the whole snapshot: for tests, which call it on every
// snapshot they check.
func (s *Snapshot) CheckLayout() error {
	if err := checkTypeLayout(); err != nil {
		return err
	}
	st := &s.st
	for _, check := range []func() error{st.checkCounts, st.checkSlots, st.checkAdjacency} {
		if err := check(); err != nil {
			return err
		}
	}
	if err := checkTrie(&st.nicks, "nick"); err != nil {
		return err
	}
	if err := checkTrie(&st.locs, "locator"); err != nil {
		return err
	}
	if err := st.checkNicks(); err != nil {
		return err
	}
	return st.checkLocs()
}

// checkCounts verifies the element counters against the id trees.
func (st *state) checkCounts() error {
	live, recycled := 0, 0
	st.nodes.Ascend(func(it nodeItem) bool {
		if it.n.Recycled {
			recycled++
		} else {
			live++
		}
		return true
	})
	if live != st.liveNodes || live != st.all.Len() {
		return fmt.Errorf("store: layout: %d live nodes by id, %d in observable order, counter %d", live, st.all.Len(), st.liveNodes)
	}
	liveEdges := 0
	st.edges.Ascend(func(it edgeItem) bool {
		if it.e.Recycled {
			recycled++
		} else {
			liveEdges++
		}
		return true
	})
	if liveEdges != st.liveEdges || recycled != st.recycled {
		return fmt.Errorf("store: layout: %d live and %d recycled edges and nodes by id, counters %d and %d", liveEdges, recycled, st.liveEdges, st.recycled)
	}
	return nil
}

// checkSlots verifies the slot table against the node records.
func (st *state) checkSlots() error {
	var err error
	st.nodes.Ascend(func(it nodeItem) bool {
		err = st.checkNodeSlot(it.n)
		return err == nil
	})
	if err != nil {
		return err
	}
	for slot := uint32(1); slot <= st.nslots; slot++ {
		r := st.rec(slot)
		switch {
		case r == nil:
			return fmt.Errorf("store: layout: slot %d of %d has no record", slot, st.nslots)
		case r.n == nil:
			if len(r.adj) != 0 || r.out+r.in != 0 {
				return fmt.Errorf("store: layout: slot %d: a purged node's record keeps %d entries, degree %d+%d", slot, len(r.adj), r.out, r.in)
			}
		case r.n.slot != slot:
			return fmt.Errorf("store: layout: slot %d holds node %d, whose slot is %d", slot, r.n.ID, r.n.slot)
		default:
			if it, ok := st.nodes.Get(nodeItem{id: r.n.ID}); !ok || it.n != r.n {
				return fmt.Errorf("store: layout: slot %d holds a record of node %d that is not its current one", slot, r.n.ID)
			}
		}
	}
	return st.checkPastLastSlot()
}

// checkNodeSlot verifies that n's slot is in range and its record is n,
// with n's rendering, and that n's text is laid out as its content says.
func (st *state) checkNodeSlot(n *Node) error {
	if n.slot == 0 || n.slot > st.nslots {
		return fmt.Errorf("store: layout: node %d has slot %d, slots are 1 to %d", n.ID, n.slot, st.nslots)
	}
	r := st.rec(n.slot)
	if r == nil || r.n != n {
		return fmt.Errorf("store: layout: node %d: its slot %d's record is not its current one", n.ID, n.slot)
	}
	if int(n.textLen) > len(n.blob) {
		return fmt.Errorf("store: layout: node %d: rendering of %d bytes in a text of %d", n.ID, n.textLen, len(n.blob))
	}
	if text := n.blob[:n.textLen]; !sameBytes(r.rendering(), text) || r.cost != n.cost {
		return fmt.Errorf("store: layout: node %d: slot %d keeps another rendering than the record's", n.ID, n.slot)
	}
	if text := string(appendRendering(nil, n.Labels, n.Props)); n.blob[:n.textLen] != text {
		return fmt.Errorf("store: layout: node %d: rendering %q, its content renders %q", n.ID, n.blob[:n.textLen], text)
	}
	if key := observableKey(n.Labels, n.Props); n.okey() != key {
		return fmt.Errorf("store: layout: node %d: observable key %q, its content's is %q", n.ID, n.okey(), key)
	}
	return nil
}

// checkPastLastSlot verifies that the slot table holds no directory, leaf
// or record past the last slot handed out.
func (st *state) checkPastLastSlot() error {
	last := st.nslots
	if di := int(last >> (leafShift + dirShift)); len(st.dirs) > di+1 {
		return fmt.Errorf("store: layout: %d slot directories for %d slots", len(st.dirs), last)
	}
	for di, d := range st.dirs {
		for li, l := range d.leaves {
			first := uint32(di)<<(leafShift+dirShift) | uint32(li)<<leafShift
			if l == nil || first+leafSize-1 <= last {
				continue
			}
			if first > last {
				return fmt.Errorf("store: layout: a leaf for slots from %d, past the last slot %d", first, last)
			}
			for i := last + 1 - first; i < leafSize; i++ {
				if l.recs[i].n != nil || len(l.recs[i].adj) != 0 {
					return fmt.Errorf("store: layout: a record in slot %d, past the last slot %d", first+i, last)
				}
			}
		}
	}
	return nil
}

// checkAdjacency verifies every record's adjacency.
func (st *state) checkAdjacency() error {
	seen := make(map[*Edge]Dir, st.liveEdges)
	outs, ins := 0, 0
	for slot := uint32(1); slot <= st.nslots; slot++ {
		r := st.rec(slot)
		if r == nil || r.n == nil {
			continue
		}
		if r.n.Recycled && (len(r.adj) != 0 || r.out+r.in != 0) {
			return fmt.Errorf("store: layout: recycled node %d keeps %d entries, degree %d+%d", r.n.ID, len(r.adj), r.out, r.in)
		}
		out := 0
		for i, x := range r.adj {
			if err := st.checkEnt(r, i, seen); err != nil {
				return err
			}
			if x.dir == Out {
				out++
			}
		}
		if len(r.adj) != int(r.out+r.in) || out != int(r.out) {
			return fmt.Errorf("store: layout: node %d: %d entries, %d of them Out; degree %d out, %d in", r.n.ID, len(r.adj), out, r.out, r.in)
		}
		outs += int(r.out)
		ins += int(r.in)
	}
	if outs != st.liveEdges || ins != st.liveEdges {
		return fmt.Errorf("store: layout: %d Out and %d In entries for %d live edges", outs, ins, st.liveEdges)
	}
	return nil
}

// checkEnt verifies entry i of r's adjacency, noting in seen the
// directions its edge was met in.
func (st *state) checkEnt(r *slotRec, i int, seen map[*Edge]Dir) error {
	x, id := r.adj[i], r.n.ID
	if x.e == nil {
		return fmt.Errorf("store: layout: node %d: entry %d has no edge", id, i)
	}
	if it, ok := st.edges.Get(edgeItem{id: x.e.ID}); !ok || it.e != x.e || x.e.Recycled {
		return fmt.Errorf("store: layout: node %d: entry %d holds a record of edge %d that is not its current live one", id, i, x.e.ID)
	}
	fr := st.rec(x.far)
	if x.far == 0 || x.far > st.nslots || fr == nil || fr.n == nil || fr.n.Recycled {
		return fmt.Errorf("store: layout: node %d: entry %d leads to slot %d, which holds no live node", id, i, x.far)
	}
	near, far := x.e.From, x.e.To
	if x.dir == In {
		near, far = far, near
	}
	if x.dir != Out && x.dir != In || near != id || far != fr.n.ID || seen[x.e]&x.dir != 0 {
		return fmt.Errorf("store: layout: node %d: entry %d (direction %d) does not match edge %d from %d to %d, far node %d", id, i, x.dir, x.e.ID, x.e.From, x.e.To, fr.n.ID)
	}
	seen[x.e] |= x.dir
	if x.tid != tidOverflow && (int(x.tid) >= len(st.types) || st.types[x.tid] != x.e.Type) {
		return fmt.Errorf("store: layout: node %d: entry %d has type id %d for type %q", id, i, x.tid, x.e.Type)
	}
	if x.kh != keyByte(fr.n.okey()) {
		return fmt.Errorf("store: layout: node %d: entry %d has a stale key byte for node %d", id, i, fr.n.ID)
	}
	if i > 0 && st.cmpEnt(r.adj[i-1], x) >= 0 {
		return fmt.Errorf("store: layout: node %d: entries %d and %d out of canonical order", id, i-1, i)
	}
	return nil
}

// checkNicks verifies that the nick index finds every live node with a
// STRING nick, and holds no other.
func (st *state) checkNicks() error {
	nicks := 0
	var err error
	st.all.Ascend(func(n *Node) bool {
		nick, ok := nickOf(n.Props)
		if !ok {
			return true
		}
		nicks++
		if m, ok := st.nodeByNick(nick); !ok || m != n {
			err = fmt.Errorf("store: layout: the nick index does not find node %d by its nick %q", n.ID, nick)
		}
		return err == nil
	})
	if err == nil && nicks != st.nicks.size {
		err = fmt.Errorf("store: layout: the nick index holds %d nicks, live nodes %d", st.nicks.size, nicks)
	}
	return err
}

// checkLocs verifies that the locator index finds every live node with a
// STRING locator, its bucket in observable order, unless the bucket went
// over (lookups then take the property index).
func (st *state) checkLocs() error {
	var err error
	st.all.Ascend(func(n *Node) bool {
		loc, ok := locOf(n.Props)
		if !ok {
			return true
		}
		e, ok := st.locs.get(xxhash.Sum64String(loc), locMatch(loc))
		switch {
		case !ok:
			err = fmt.Errorf("store: layout: the locator index does not hold %q, node %d's", loc, n.ID)
		case e.n != nil:
			if e.n != n {
				err = fmt.Errorf("store: layout: the locator index holds node %d for %q, not node %d", e.n.ID, loc, n.ID)
			}
		case e.b.over:
		case !slices.Contains(e.b.nodes, n):
			err = fmt.Errorf("store: layout: the locator bucket of %q lacks node %d", loc, n.ID)
		case !slices.IsSortedFunc(e.b.nodes, cmpNode):
			err = fmt.Errorf("store: layout: the locator bucket of %q is not in observable order", loc)
		}
		return err == nil
	})
	return err
}

// checkTrie verifies the shape of t (see CheckLayout).
func checkTrie[T comparable](t *hashTrie[T], what string) error {
	if t.root == nil {
		if t.size != 0 {
			return fmt.Errorf("store: layout: %s trie: empty, size %d", what, t.size)
		}
		return nil
	}
	n, err := checkTrieNode(t.root, 0, 0, what)
	if err == nil && n != t.size {
		err = fmt.Errorf("store: layout: %s trie: %d values, size %d", what, n, t.size)
	}
	return err
}

// checkTrieNode verifies n, at shift, whose values' hashes all end with
// the bits prefix (their low shift bits), and returns its number of
// values.
func checkTrieNode[T comparable](n *trieNode[T], shift uint, prefix uint64, what string) (int, error) {
	if len(n.kids) == 0 {
		return 0, fmt.Errorf("store: layout: %s trie: an empty node at shift %d", what, shift)
	}
	if shift >= 64 { // past the hash's bits: a plain list of full collisions
		for _, k := range n.kids {
			if k.sub != nil || k.h != prefix || n.used != 0 {
				return 0, fmt.Errorf("store: layout: %s trie: a list node holds a subtrie, a bitmap or hash %x, want %x", what, k.h, prefix)
			}
		}
		return len(n.kids), nil
	}
	if len(n.kids) != bits.OnesCount32(n.used) || cap(n.kids) > trieMask+1 {
		return 0, fmt.Errorf("store: layout: %s trie: shift %d: %d kids, %d bits, capacity %d", what, shift, len(n.kids), bits.OnesCount32(n.used), cap(n.kids))
	}
	if n.kidAt(0) != &n.kids[0] {
		return 0, fmt.Errorf("store: layout: %s trie: shift %d: kids not allocated with the node", what, shift)
	}
	count := 0
	used := n.used
	for i := range n.kids {
		slot := uint64(bits.TrailingZeros32(used))
		used &= used - 1
		k := &n.kids[i]
		at := prefix | slot<<shift
		if k.sub == nil {
			if low := k.h & (1<<(shift+trieBits) - 1); low != at&(1<<(shift+trieBits)-1) {
				return 0, fmt.Errorf("store: layout: %s trie: shift %d: hash %x in slot %d", what, shift, k.h, slot)
			}
			count++
			continue
		}
		if k.h != uint64(k.sub.used) {
			return 0, fmt.Errorf("store: layout: %s trie: shift %d: kid %d keeps bitmap %x, subtrie has %x", what, shift, i, k.h, k.sub.used)
		}
		c, err := checkTrieNode(k.sub, shift+trieBits, at, what)
		if err != nil {
			return 0, err
		}
		count += c
	}
	return count, nil
}
