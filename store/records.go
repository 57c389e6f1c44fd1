package store

import (
	"sync/atomic"

	"github.com/goldfish-gql/goldfish/tokens"
	"github.com/goldfish-gql/goldfish/values"
)

// Node and edge records: immutable once published; a node record is laid
// out in one allocation with its rendering and its observable key.

// ID is an engine id. It is never shown to a model. Ids below 1<<63 come
// from the per-graph counter (Tx.NewID); ids with the top bit set are
// deterministic (DeterministicNodeID, DeterministicEdgeID).
type ID uint64

// DeterministicBit is set in every deterministic id and in no counter id.
const DeterministicBit ID = 1 << 63

// Node is an immutable node record. Records reachable from a Snapshot are
// shared by all readers and must never be modified; a write creates a new
// record. Labels[0] is the kind; there are no duplicate labels.
type Node struct {
	// blob holds the rendering, blob[:textLen]: the text a Shape writes
	// for the node (see Rendering), then the observable key. The store
	// makes both with the record, in one allocation, so a Recall meeting
	// the node for the first time copies bytes instead of formatting
	// scattered properties. The fields a Recall's emit reads come first,
	// so they share the record's first cache line, and the rendering
	// starts its allocation.
	blob     string
	textLen  uint32
	cost     int32 // the rendering's token estimate (tokens.Milli); -1: too large to keep
	ID       ID
	Labels   []string
	Props    values.Props
	slot     uint32 // dense slot in the graph's slot table (0: none)
	Recycled bool
}

// okey returns n's observable key.
func (n *Node) okey() string { return n.blob[n.textLen:] }

// Kind returns the first label, or "" for a node without labels.
func (n *Node) Kind() string {
	if len(n.Labels) == 0 {
		return ""
	}
	return n.Labels[0]
}

// HasLabel reports whether n carries label l (at any position).
func (n *Node) HasLabel(l string) bool {
	for _, x := range n.Labels {
		if x == l {
			return true
		}
	}
	return false
}

// Edge is an immutable edge record (see Node).
type Edge struct {
	ID       ID
	Type     string
	From, To ID
	Props    values.Props
	Recycled bool
	memo     atomic.Pointer[Rendering]
}

// Dir selects edge directions relative to a node.
type Dir uint8

const (
	Out  Dir = 1 << iota // the node is the edge's From
	In                   // the node is the edge's To
	Both = Out | In
)

// layoutNode is newNode with buf as scratch space for the key and the
// rendering; it returns buf for reuse.
func layoutNode(buf []byte, id ID, labels []string, props values.Props) (*Node, []byte) {
	buf = appendRendering(buf[:0], labels, props)
	textLen := len(buf)
	buf = appendObservableKey(buf, labels, props)
	n := nodeWithProps(len(props))
	n.ID, n.Labels, n.blob, n.textLen = id, labels, string(buf), uint32(textLen)
	n.cost = keptCost(tokens.Milli(buf[:textLen]))
	for i, p := range props {
		n.Props[i] = values.Prop{Key: p.Key, Val: p.Val.SharingBytes(n.blob)} // the same bytes
	}
	return n, buf
}

// nodeWithProps returns a node whose Props (length k) are allocated with
// it when k is small.
func nodeWithProps(k int) *Node {
	switch k {
	case 0:
		return &Node{}
	case 1:
		return withProps(func(p *[1]values.Prop) values.Props { return p[:] })
	case 2:
		return withProps(func(p *[2]values.Prop) values.Props { return p[:] })
	case 3:
		return withProps(func(p *[3]values.Prop) values.Props { return p[:] })
	case 4:
		return withProps(func(p *[4]values.Prop) values.Props { return p[:] })
	case 5:
		return withProps(func(p *[5]values.Prop) values.Props { return p[:] })
	case 6:
		return withProps(func(p *[6]values.Prop) values.Props { return p[:] })
	case 7:
		return withProps(func(p *[7]values.Prop) values.Props { return p[:] })
	case 8:
		return withProps(func(p *[8]values.Prop) values.Props { return p[:] })
	}
	return &Node{Props: make(values.Props, k)}
}

// withProps allocates a node and an array A of properties together; all
// slices the array.
func withProps[A any](all func(*A) values.Props) *Node {
	b := new(struct {
		n Node
		p A
	})
	b.n.Props = all(&b.p)
	return &b.n
}

// clone copies n's record, key and rendering included: callers change
// only its Recycled flag (a change of labels or properties lays out a new
// record).
func (n *Node) clone() Node {
	return Node{ID: n.ID, Labels: n.Labels, Props: n.Props, Recycled: n.Recycled, blob: n.blob, textLen: n.textLen, cost: n.cost, slot: n.slot}
}

// clone copies e's content; the rendering is not copied (the copy is about
// to change).
func (e *Edge) clone() Edge {
	return Edge{ID: e.ID, Type: e.Type, From: e.From, To: e.To, Props: e.Props, Recycled: e.Recycled}
}
