package store

import (
	"fmt"
	"unsafe"

	"github.com/goldfish-gql/goldfish/values"
)

// Every use of package unsafe in the store is in this file, behind small
// functions whose preconditions are stated with them. The layouts they
// read are the slot table's copy of each node's rendering (a record keeps
// a pointer and a length so that an emit reads the text without loading
// the node record) and trie nodes allocated with their kids (so that a
// lookup goes from a kid to the next kid without loading a slice header).
// checkTypeLayout verifies the sizes and offsets they assume, and
// Snapshot.CheckLayout the structures of one snapshot.

// cacheLine is the size of a slot record on 64-bit platforms: one record
// per cache line, so that reading a record misses on one line only.
const cacheLine = 64

// A record fits one cache line (see slotLeaf): on 64-bit platforms it
// fills it exactly (checkTypeLayout), on 32-bit ones it is smaller and
// records straddle lines, which costs speed only.
var _ [cacheLine - unsafe.Sizeof(slotRec{})]struct{}

// setNode points r at n, a new record of its node, and keeps n's
// rendering beside it. Precondition: n was laid out by the store
// (layoutNode, or a clone of such a record), so n.blob is immutable and
// n.blob[:n.textLen] is its rendering; r.n then keeps that string alive.
func (r *slotRec) setNode(n *Node) {
	r.n = n
	r.text, r.textLen, r.cost = unsafe.StringData(n.blob), n.textLen, n.cost
}

// rendering returns the rendering r keeps. Precondition: r was set by
// setNode (or is the zero record, whose rendering is empty).
func (r *slotRec) rendering() string { return unsafe.String(r.text, r.textLen) }

// touchText loads the first and last bytes of r's rendering.
// Precondition: as for rendering.
func (r *slotRec) touchText() uint64 {
	if r.textLen == 0 {
		return 0
	}
	return uint64(*r.text) + uint64(*(*byte)(unsafe.Add(unsafe.Pointer(r.text), r.textLen-1)))
}

// sameBytes reports whether a and b are the same bytes in memory (not just
// equal text): both empty, or of one length and starting at one address.
func sameBytes(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b))
}

// kidAt returns &n.kids[i] without loading n's slice header.
// Preconditions: n is a bitmap node (above the plain lists), whose kids
// newTrieNode allocated with it, right after it (nodeWithKids), and
// 0 <= i < len(n.kids).
func (n *trieNode[T]) kidAt(i int) *trieKid[T] {
	var b nodeWithKids[T, [1]trieKid[T]]
	return (*trieKid[T])(unsafe.Add(unsafe.Pointer(n), unsafe.Offsetof(b.k)+uintptr(i)*unsafe.Sizeof(b.k[0])))
}

// RecordKey returns a number identifying the record e among the edge
// records one snapshot holds (its address), without loading the record:
// both adjacency entries of an edge hold the same record, so a walk can
// tell the edges it has met apart by the entries alone. The key is only
// meaningful while e is reachable (from a snapshot the caller holds); it
// is not an engine id and is not stable across runs.
func (e *Edge) RecordKey() uint64 { return uint64(uintptr(unsafe.Pointer(e))) }

// checkTypeLayout verifies the sizes and offsets the functions above and
// the slot table assume.
func checkTypeLayout() error {
	if n := unsafe.Sizeof(slotRec{}); n > cacheLine || unsafe.Sizeof(uintptr(0)) == 8 && n != cacheLine {
		return fmt.Errorf("store: layout: a slot record is %d bytes, want %d", n, cacheLine)
	}
	if off := unsafe.Offsetof(slotLeaf{}.recs); off != 0 {
		return fmt.Errorf("store: layout: a leaf's records start at offset %d, want 0", off)
	}
	if err := checkKidOffsets[*Node]("nick"); err != nil {
		return err
	}
	return checkKidOffsets[locEntry]("locator")
}

// checkKidOffsets verifies that kidAt finds the kids of every array size
// newTrieNode allocates with a node where they are.
func checkKidOffsets[T comparable](what string) error {
	var one nodeWithKids[T, [1]trieKid[T]]
	want := unsafe.Offsetof(one.k)
	for _, k := range []struct {
		size int
		off  uintptr
	}{
		{2, unsafe.Offsetof(nodeWithKids[T, [2]trieKid[T]]{}.k)},
		{4, unsafe.Offsetof(nodeWithKids[T, [4]trieKid[T]]{}.k)},
		{8, unsafe.Offsetof(nodeWithKids[T, [8]trieKid[T]]{}.k)},
		{16, unsafe.Offsetof(nodeWithKids[T, [16]trieKid[T]]{}.k)},
		{trieMask + 1, unsafe.Offsetof(nodeWithKids[T, [trieMask + 1]trieKid[T]]{}.k)},
	} {
		if k.off != want {
			return fmt.Errorf("store: layout: %s trie: %d kids allocated with a node start at offset %d, kidAt reads offset %d", what, k.size, k.off, want)
		}
	}
	return nil
}

// Sizes for what a write displaces (see Snapshot.Displaced): the bytes of
// the parts of the version before it that the new version no longer
// reaches, each at its allocated length.
var (
	sizeNode    = int64(unsafe.Sizeof(Node{}))
	sizeProp    = int64(unsafe.Sizeof(values.Prop{}))
	sizeEdge    = int64(unsafe.Sizeof(Edge{}))
	sizeAdjEnt  = int64(unsafe.Sizeof(adjEnt{}))
	sizeSlotDir = int64(unsafe.Sizeof(slotDir{}))
	sizeLeaf    = int64(unsafe.Sizeof(slotLeaf{}))
	sizePtr     = int64(unsafe.Sizeof(uintptr(0)))
)

// recordBytes is what n's record takes: the node, its properties and
// its rendering with its key (laid out together, see layoutNode).
func (n *Node) recordBytes() int64 {
	return sizeNode + int64(cap(n.Props))*sizeProp + int64(len(n.blob))
}

// trieBytes is what trie node n takes: its header and its kids.
func trieBytes[T comparable](n *trieNode[T]) int64 {
	return int64(unsafe.Sizeof(*n)) + int64(cap(n.kids))*int64(unsafe.Sizeof(trieKid[T]{}))
}

var (
	sizeRendering = int64(unsafe.Sizeof(Rendering{}))
	sizeSlice     = int64(unsafe.Sizeof([]byte(nil)))
	sizeBucket    = int64(unsafe.Sizeof(locBucket{}))
)

// bytes is what bucket b takes (its locator shares a node's text).
func (b *locBucket) bytes() int64 { return sizeBucket + int64(cap(b.nodes))*sizePtr }
