package exec

import (
	"unsafe"

	"github.com/goldfish-gql/goldfish/shapewalk"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// The Shape's rows are the value every rendering reads: the text is
// written from the same walk, trim and elisions (writeBody), and JSON,
// the memory tools, the browser and the client read the rows, never the
// text. A row shares its node's labels and properties with the store
// (records are immutable).
//
// A Recall keeps what its rows are made of (rowSource: the walk's nodes
// and hops, the edges the text writes, the clamps, the trim, the
// elisions), a fifth of what the rows take, and builds them when a
// caller first reads them (values.Shape.SetRowsFunc), once per Shape:
// a reader of the text alone pays for no row, and a session with a
// large heap for no collector work it did not ask for.

// rowSource is what a Shape's rows are built from.
type rowSource struct {
	nodes   []nodeRow
	edges   []edgeRow
	clamps  []clampRow
	elided  []elision // in emit order, named
	pinned  int       // the first pinned nodes are the pinned kinds'
	from    int       // the hop from which the text trims (0: none)
	shell   bool      // view=shell: every row shows its identity only
	lean    bool      // economical: the first ring brief, farther rings identity
	instead bool      // the seeds are shown instead of a match (in brief, when lean)
}

type nodeRow struct {
	n   *store.Node
	hop int32
}

// edgeRow is an edge the text writes, with where its ends are in nodes.
type edgeRow struct {
	e        *store.Edge
	from, to int32
}

type clampRow struct{ node, total int32 }

// keepRows keeps what the Shape's rows are made of, from a walk written
// with trim from hop from (0: none) and the values elided, and gives the
// Shape its rows' builder.
func (e *emitter) keepRows(w *shapewalk.Shape, from int, elided []elision) {
	src := &e.shape.src
	*src = rowSource{nodes: make([]nodeRow, len(w.Nodes)), pinned: w.Pinned, from: from, instead: e.shape.Miss != nil,
		shell: e.opt.View == values.ViewShell, lean: e.lean(), elided: elided}
	for i, n := range w.Nodes {
		src.nodes[i] = nodeRow{n, int32(w.Hops[i])}
	}
	src.edges = make([]edgeRow, 0, len(w.Edges))
	for i, ed := range w.Edges {
		ends := w.Ends[i]
		if src.far(int(ends.From), int(ends.To)) && w.Hops[ends.From] == w.Hops[ends.To] {
			continue // writeBody leaves it out
		}
		src.edges = append(src.edges, edgeRow{ed, ends.From, ends.To})
	}
	if len(w.Clamps) > 0 {
		src.clamps = make([]clampRow, len(w.Clamps))
		for i, c := range w.Clamps {
			src.clamps[i] = clampRow{c.Index, int32(c.Total)}
		}
	}
	e.shape.SetRowsFunc(e.shape.buildRows)
}

// trimmed reports whether the text shows node i with its identity
// properties only (trimmed's rule, on the kept rows).
func (r *rowSource) trimmed(i int) bool {
	return r.shell || r.identity(i)
}

// identity reports whether the text shows node i by its identity for T
// or for economy (not for view=shell).
func (r *rowSource) identity(i int) bool {
	if i < r.pinned {
		return false
	}
	hop := int(r.nodes[i].hop)
	_, id := leanDetail(hop, false)
	return r.from > 0 && hop >= r.from || r.lean && id
}

// brief reports whether the text shows node i in brief (values.BriefProp).
func (r *rowSource) brief(i int) bool {
	b, _ := leanDetail(int(r.nodes[i].hop), r.instead)
	return r.lean && b && i >= r.pinned && hasList(r.nodes[i].n.Props)
}

// far reports whether both ends of an edge are trimmed by T (not by
// view=shell): writeBody writes such an edge with its identity, and
// leaves it out between two nodes of one hop.
func (r *rowSource) far(from, to int) bool {
	return r.identity(from) && r.identity(to)
}

// buildRows makes the Shape's rows from its source, in the order the
// text writes them, with the variables the emit gave the nodes.
func (s *Shape) buildRows() ([]values.ShapeNode, []values.ShapeEdge) {
	r := &s.src
	vars := nodeVars(r.nodes)
	nodes := make([]values.ShapeNode, len(r.nodes))
	for i, nr := range r.nodes {
		nodes[i] = values.ShapeNode{Var: vars[i], Labels: nr.n.Labels, Props: nr.n.Props, Hop: int(nr.hop),
			Seed: nr.hop == 0, Pinned: i < r.pinned, Trimmed: r.trimmed(i), Brief: r.brief(i)}
	}
	for _, c := range r.clamps {
		nodes[c.node].More = int(c.total)
	}
	for lo := 0; lo < len(r.elided); {
		hi := lo + 1
		for hi < len(r.elided) && r.elided[hi].node == r.elided[lo].node {
			hi++
		}
		list := make([]values.ElidedValue, hi-lo)
		for j, c := range r.elided[lo:hi] {
			list[j] = values.ElidedValue{Key: c.key, Param: c.name}
		}
		nodes[r.elided[lo].node].Elided = list
		lo = hi
	}
	edges := make([]values.ShapeEdge, len(r.edges))
	for i, er := range r.edges {
		edges[i] = values.ShapeEdge{Type: er.e.Type, From: int(er.from), To: int(er.to), Props: er.e.Props,
			Trimmed:      r.shell || r.far(int(er.from), int(er.to)),
			BetweenSeeds: r.nodes[er.from].hop == 0 && r.nodes[er.to].hop == 0}
	}
	return nodes, edges
}

// nodeVars gives the nodes the variables the emit gives them: a prefix
// from the kind and a counter per prefix, in walk order (emit's rule).
func nodeVars(nodes []nodeRow) []string {
	type counter struct {
		prefix string
		n      int
	}
	var buf [8]counter
	counters := buf[:0]
	out := make([]string, len(nodes))
	for i, nr := range nodes {
		p := prefixOf(nr.n.Kind()).name
		c := -1
		for j := range counters {
			if counters[j].prefix == p {
				c = j
				break
			}
		}
		if c < 0 {
			c = len(counters)
			counters = append(counters, counter{prefix: p})
		}
		counters[c].n++
		out[i] = varName{prefix: p, n: counters[c].n}.String()
	}
	return out
}

// rowsSize is what a Shape's rows take once built (their source is a
// fraction of it), for the Shape cache's charge: the labels and
// properties are the store's.
func (s *Shape) rowsSize() int {
	r := &s.src
	const varBytes = 6 // "tsk12"
	return len(r.nodes)*int(unsafe.Sizeof(values.ShapeNode{})+varBytes) + len(r.edges)*int(unsafe.Sizeof(values.ShapeEdge{})) +
		len(r.elided)*int(unsafe.Sizeof(values.ElidedValue{}))
}
