package shapewalk

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// tbT is what both *testing.T and *rapid.T provide.
type tbT interface {
	Helper()
	Fatalf(format string, args ...any)
}

// gnode / gedge describe a graph independently of engine ids.
type gnode struct {
	Labels []string
	Props  values.Props
}

type gedge struct {
	From, To int
	Type     string
	Props    values.Props
}

type gspec struct {
	Nodes []gnode
	Edges []gedge
}

// built is a spec inserted into a store.Graph; ids[i] is the id of spec node i.
type built struct {
	g    *store.Graph
	snap *store.Snapshot
	ids  []store.ID
	eids []store.ID
}

func (b *built) node(i int) *store.Node {
	n, ok := b.snap.Node(b.ids[i])
	if !ok {
		panic(fmt.Sprintf("node %d not live", i))
	}
	return n
}

func (b *built) nodes(is ...int) []*store.Node {
	out := make([]*store.Node, len(is))
	for k, i := range is {
		out[k] = b.node(i)
	}
	return out
}

// index returns the spec index of a node id.
func (b *built) index(id store.ID) int {
	for i, x := range b.ids {
		if x == id {
			return i
		}
	}
	return -1
}

// build inserts spec in the given node and edge insertion orders (nil =
// identity). Ids are allocated with NewID in insertion order, so two
// orders give two different id assignments.
func build(tb tbT, s gspec, nodeOrder, edgeOrder []int) *built {
	tb.Helper()
	g := store.New()
	tx := g.Begin()
	b := &built{g: g, ids: make([]store.ID, len(s.Nodes)), eids: make([]store.ID, len(s.Edges))}
	for k := range s.Nodes {
		i := k
		if nodeOrder != nil {
			i = nodeOrder[k]
		}
		id := tx.NewID()
		if _, err := tx.InsertNode(id, s.Nodes[i].Labels, s.Nodes[i].Props); err != nil {
			tb.Fatalf("insert node %d: %v", i, err)
		}
		b.ids[i] = id
	}
	for k := range s.Edges {
		i := k
		if edgeOrder != nil {
			i = edgeOrder[k]
		}
		e := s.Edges[i]
		id := tx.NewID()
		if _, err := tx.InsertEdge(id, e.Type, b.ids[e.From], b.ids[e.To], e.Props); err != nil {
			tb.Fatalf("insert edge %d: %v", i, err)
		}
		b.eids[i] = id
	}
	b.snap = tx.Commit()
	if err := b.snap.CheckLayout(); err != nil {
		tb.Fatalf("store layout: %v", err)
	}
	return b
}

func P(kv ...any) values.Props {
	var p values.Props
	for i := 0; i < len(kv); i += 2 {
		var v values.Value
		switch x := kv[i+1].(type) {
		case int:
			v = values.Int(int64(x))
		case string:
			v = values.String(x)
		case values.Value:
			v = x
		default:
			panic("P: bad value")
		}
		p = append(p, values.Prop{Key: kv[i].(string), Val: v})
	}
	return values.NormalizeProps(p)
}

func N(kind string, kv ...any) gnode { return gnode{Labels: []string{kind}, Props: P(kv...)} }

func E(from int, typ string, to int, kv ...any) gedge {
	return gedge{From: from, To: to, Type: typ, Props: P(kv...)}
}

func nodeObs(n *store.Node) string {
	return strings.Join(n.Labels, ":") + n.Props.Literal()
}

// render prints a Shape with observables only (no engine ids).
func render(sh *Shape) string {
	var b strings.Builder
	pos := map[store.ID]int{}
	for i, n := range sh.Nodes {
		pos[n.ID] = i
		fmt.Fprintf(&b, "n%d %s hop=%d\n", i, nodeObs(n), sh.Hops[i])
	}
	for _, e := range sh.Edges {
		fmt.Fprintf(&b, "e n%d -%s-> n%d %s\n", pos[e.From], e.Type, pos[e.To], e.Props.Literal())
	}
	for _, c := range sh.Clamps {
		fmt.Fprintf(&b, "clamp n%d total=%d", pos[c.Node.ID], c.Total)
		for _, o := range c.Omitted {
			fmt.Fprintf(&b, " %s/%d=%d", o.Type, o.Dir, o.Count)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "truncated=%v maxhop=%d rows=%d\n", sh.Truncated, sh.MaxHop, sh.Rows())
	return b.String()
}

// specRender prints a Shape in terms of spec node indexes (for table tests).
func specRender(b *built, sh *Shape) string {
	var s strings.Builder
	for i, n := range sh.Nodes {
		if i > 0 {
			s.WriteByte(' ')
		}
		fmt.Fprintf(&s, "%d@%d", b.index(n.ID), sh.Hops[i])
	}
	s.WriteString(" |")
	for _, e := range sh.Edges {
		fmt.Fprintf(&s, " %d-%s->%d", b.index(e.From), e.Type, b.index(e.To))
		if len(e.Props) > 0 {
			s.WriteString(e.Props.Literal())
		}
	}
	for _, c := range sh.Clamps {
		fmt.Fprintf(&s, " | clamp %d:", b.index(c.Node.ID))
		for _, o := range c.Omitted {
			d := "out"
			if o.Dir == store.In {
				d = "in"
			}
			fmt.Fprintf(&s, " %s/%s=%d", o.Type, d, o.Count)
		}
		fmt.Fprintf(&s, " total=%d", c.Total)
	}
	if sh.Truncated {
		s.WriteString(" | truncated")
	}
	return s.String()
}

// checkInvariants verifies structural invariants of a Shape.
func checkInvariants(tb tbT, snap *store.Snapshot, sh *Shape, opt Options, nPinned int) {
	tb.Helper()
	k, m := opt.K, opt.M
	if k == 0 {
		k = DefaultK
	} else if k < 0 {
		k = 0
	}
	if m == 0 {
		m = DefaultM
	}
	if sh.Rows() > m {
		tb.Fatalf("rows %d > M %d", sh.Rows(), m)
	}
	if len(sh.Hops) != len(sh.Nodes) || len(sh.Slots) != len(sh.Nodes) {
		tb.Fatalf("hops/slots/nodes length")
	}
	pos := map[store.ID]int{}
	maxHop := 0
	for i, n := range sh.Nodes {
		if _, dup := pos[n.ID]; dup {
			tb.Fatalf("duplicate node")
		}
		pos[n.ID] = i
		if cur, ok := snap.Node(n.ID); !ok || cur != n {
			tb.Fatalf("node not live, or not snap's record")
		}
		if sh.Slots[i] != n.Slot() || snap.NodeAt(sh.Slots[i]) != n {
			tb.Fatalf("Slots[%d] = %d is not the slot of node %d", i, sh.Slots[i], n.ID)
		}
		if sh.Hops[i] > k || sh.Hops[i] < -1 {
			tb.Fatalf("hop %d out of range (k=%d)", sh.Hops[i], k)
		}
		if sh.Hops[i] == -1 && i >= nPinned {
			tb.Fatalf("hop -1 for a non-pinned node")
		}
		maxHop = max(maxHop, sh.Hops[i])
	}
	if maxHop != sh.MaxHop {
		tb.Fatalf("MaxHop %d, want %d", sh.MaxHop, maxHop)
	}
	if !slices.IsSorted(sh.Types) || len(slices.Compact(slices.Clone(sh.Types))) != len(sh.Types) {
		tb.Fatalf("Types %q: not sorted and distinct", sh.Types)
	}
	seen := map[store.ID]bool{}
	for i, e := range sh.Edges {
		if seen[e.ID] {
			tb.Fatalf("duplicate edge")
		}
		seen[e.ID] = true
		if _, ok := snap.Edge(e.ID); !ok {
			tb.Fatalf("edge not live")
		}
		pf, ok1 := pos[e.From]
		pt, ok2 := pos[e.To]
		if !ok1 || !ok2 {
			tb.Fatalf("edge end not in Shape")
		}
		if ends := sh.Ends[i]; int(ends.From) != pf || int(ends.To) != pt || sh.Types[ends.Type] != e.Type {
			tb.Fatalf("edge %d: Ends %+v (type %q), want %d→%d of type %q", i, ends, sh.Types[ends.Type], pf, pt, e.Type)
		}
		if opt.Shell && !DefaultHierarchy(e.Type) && opt.Hierarchy == nil {
			tb.Fatalf("non-hierarchical edge in shell view")
		}
		if i > 0 {
			p := sh.Edges[i-1]
			ppf, ppt := pos[p.From], pos[p.To]
			c := compareInts(ppf, pf)
			if c == 0 {
				c = strings.Compare(p.Type, e.Type)
			}
			if c == 0 {
				c = compareInts(ppt, pt)
			}
			if c == 0 {
				c = strings.Compare(p.Props.Literal(), e.Props.Literal())
			}
			if c > 0 {
				tb.Fatalf("edges not in emit order")
			}
		}
	}
}

// checkClosed verifies that an untruncated Shape holds every live edge
// between its nodes (hierarchical only in shell view).
func checkClosed(tb tbT, snap *store.Snapshot, sh *Shape, opt Options) {
	tb.Helper()
	if sh.Truncated {
		return
	}
	hier := opt.Hierarchy
	if hier == nil {
		hier = DefaultHierarchy
	}
	in := map[store.ID]bool{}
	for _, n := range sh.Nodes {
		in[n.ID] = true
	}
	have := map[store.ID]bool{}
	for _, e := range sh.Edges {
		have[e.ID] = true
	}
	snap.ScanEdges(func(e *store.Edge) bool {
		if in[e.From] && in[e.To] && (!opt.Shell || hier(e.Type)) && !have[e.ID] {
			tb.Fatalf("closing edge missing: %s", e.Type)
		}
		return true
	})
}

func compareInts(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
