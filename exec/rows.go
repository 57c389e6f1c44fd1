package exec

import (
	"unsafe"

	"github.com/goldfish-gql/goldfish/shapewalk"
	"github.com/goldfish-gql/goldfish/values"
)

// The Shape's rows are the value every rendering reads: the text is
// written from the same walk, trim and elisions (writeBody), and JSON,
// the memory tools, the browser and the client read the rows, never the
// text. A row shares its node's labels and properties with the store
// (records are immutable), so the rows cost one allocation each for the
// nodes, the edges and the variables' names, whatever the nodes hold.

// rows fills the Shape's rows from a walk written with trim from hop
// from (0: none) and the values elided, in the order writeBody writes
// them: nodes in walk order, then the edges it keeps.
func (e *emitter) rows(w *shapewalk.Shape, vars []varName, from int, elided []elision) {
	s := e.shape
	shell := e.opt.View == ViewShell
	names := string(e.scratch().names) // the variables, written one after another
	nodes := make([]values.ShapeNode, len(w.Nodes))
	off := 0
	for i, n := range w.Nodes {
		l := len(vars[i].text)
		nodes[i] = values.ShapeNode{Var: names[off : off+l], Labels: n.Labels, Props: n.Props, Hop: w.Hops[i],
			Seed: w.Hops[i] == 0, Pinned: i < w.Pinned, Trimmed: shell || trimmed(w, i, from)}
		off += l
	}
	for _, c := range w.Clamps {
		nodes[c.Index].More = c.Total
	}
	for lo := 0; lo < len(elided); {
		hi := lo + 1
		for hi < len(elided) && elided[hi].node == elided[lo].node {
			hi++
		}
		list := make([]values.ElidedValue, hi-lo)
		for j, c := range elided[lo:hi] {
			list[j] = values.ElidedValue{Key: c.key, Param: c.name}
		}
		nodes[elided[lo].node].Elided = list
		lo = hi
	}
	edges := make([]values.ShapeEdge, 0, len(w.Edges))
	for i, ed := range w.Edges {
		ends := w.Ends[i]
		far := trimmed(w, int(ends.From), from) && trimmed(w, int(ends.To), from)
		if far && w.Hops[ends.From] == w.Hops[ends.To] {
			continue // writeBody leaves it out
		}
		edges = append(edges, values.ShapeEdge{Type: ed.Type, From: int(ends.From), To: int(ends.To), Props: ed.Props,
			Trimmed: shell || far, BetweenSeeds: w.Hops[ends.From] == 0 && w.Hops[ends.To] == 0})
	}
	s.Nodes, s.Edges = nodes, edges
}

// rowsSize is what a Shape's rows hold of their own, for the Shape
// cache's charge (the labels and properties are the store's).
func rowsSize(s *values.Shape) int {
	n := len(s.Nodes)*int(unsafe.Sizeof(values.ShapeNode{})) + len(s.Edges)*int(unsafe.Sizeof(values.ShapeEdge{}))
	for i := range s.Nodes {
		n += len(s.Nodes[i].Var) + len(s.Nodes[i].Elided)*int(unsafe.Sizeof(values.ElidedValue{}))
	}
	return n
}
