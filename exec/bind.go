package exec

import (
	"math"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// match extends each input row with every binding of the step's patterns
// that passes its predicates. It stops, failing the Δ, as soon as the rows
// bound pass the R budget or the work of binding them passes the work
// budget (see Budget), so a careless MATCH never enumerates a session, nor
// a cartesian product of one.
func (x *executor) match(in []*planner.Row, m *planner.MatchStep, sr *values.StmtResult) ([]*planner.Row, error) {
	var out []*planner.Row
	snap := x.tx.Snapshot()
	b := &binder{x: x, snap: snap, m: m}
	for _, row := range in {
		b.emit = func(r *planner.Row) error {
			if m.Where != nil {
				ok, err := x.test(m.Where, r)
				if err != nil || !ok {
					return err
				}
			}
			cp := &planner.Row{Vars: append([]planner.Element(nil), r.Vars...), Params: r.Params}
			out = append(out, cp)
			sr.Bindings++
			return x.charge(1, 0)
		}
		work := &planner.Row{Vars: append([]planner.Element(nil), row.Vars...), Params: row.Params}
		if err := b.pattern(work, 0); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (x *executor) located(err error) error {
	if ge, ok := err.(*gqlstatus.Error); ok && ge.Line == "" && ge.Pos.Valid() {
		ge.Locate(ge.Pos, x.plan.Text)
	}
	return err
}

type binder struct {
	x    *executor
	snap *store.Snapshot
	m    *planner.MatchStep
	emit func(*planner.Row) error
}

// pattern binds path pattern i, then the ones after it.
func (b *binder) pattern(row *planner.Row, i int) error {
	if i == len(b.m.Patterns) {
		return b.emit(row)
	}
	p := b.m.Patterns[i]
	return b.nodeAt(row, p, 0, nil, func() error { return b.pattern(row, i+1) })
}

// nodeAt binds node j of path p. When via is non-nil the node must be the
// far end of that edge.
func (b *binder) nodeAt(row *planner.Row, p *planner.PathPlan, j int, fixed *store.Node, next func() error) error {
	np := p.Nodes[j]
	cont := func(n *store.Node) error {
		ok, err := b.nodeMatches(row, np, n)
		if err != nil || !ok {
			return err
		}
		var saved planner.Element
		if np.Slot >= 0 {
			saved = row.Vars[np.Slot]
			row.Vars[np.Slot] = planner.Element{Node: n}
		}
		if np.Where != nil {
			keep, err := b.x.test(np.Where, row)
			if err != nil || !keep {
				if np.Slot >= 0 {
					row.Vars[np.Slot] = saved
				}
				return err
			}
		}
		if j < len(p.Edges) {
			err = b.edgeAt(row, p, j, n, next)
		} else {
			err = next()
		}
		if np.Slot >= 0 {
			row.Vars[np.Slot] = saved
		}
		return err
	}
	if fixed != nil {
		if np.Slot >= 0 && row.Vars[np.Slot].Node != nil && row.Vars[np.Slot].Node.ID != fixed.ID {
			return nil
		}
		return cont(fixed)
	}
	if np.Slot >= 0 && row.Vars[np.Slot].Node != nil {
		n, ok := b.snap.Node(row.Vars[np.Slot].Node.ID)
		if !ok {
			return nil
		}
		return cont(n)
	}
	return b.candidates(row, np, cont)
}

// candidates enumerates the live nodes that may match np through the most
// selective index the pattern offers (see candidateScans).
func (b *binder) candidates(row *planner.Row, np *planner.NodePlan, fn func(*store.Node) error) error {
	scans, n, err := b.candidateScans(row, np)
	if err != nil {
		return err
	}
	for i := range n {
		if err := b.scan(&scans[i], fn); err != nil {
			return err
		}
	}
	return nil
}

// scanKind says how a candidateScan lists its nodes.
type scanKind uint8

const (
	scanOne   scanKind = iota // one node, found by nick
	scanProp                  // the property index: nodes whose key is Equal to val
	scanLabel                 // the label index
	scanAll                   // every live node
	scanList                  // nodes already listed in observable order (the text index)
)

// maxScans is the most index scans one node pattern takes: a zero and its
// two numeric twins.
const maxScans = 3

// candidateScan is one index scan of a node pattern's candidates. Each
// lists its nodes in observable order (store's scan order, the first key
// of the canonical order).
type candidateScan struct {
	kind  scanKind
	key   string // the property key or the label
	val   values.Value
	node  *store.Node
	nodes []*store.Node
}

// candidateScans returns the index scans that together list every live
// node that may match np: its nick, else its first property, else its
// first label, else every node. A number takes a scan for the value and
// one for each of its numeric twins: the index is exact, but = on numbers
// is not ({f: 1500} also finds a stored 1500.0, see sameValue), and each
// form has its own key. The scans are disjoint and each is in observable
// order, but their concatenation is not: a caller that stops early (a seed
// past L) must stop each scan on its own and merge what they found.
func (b *binder) candidateScans(row *planner.Row, np *planner.NodePlan) (scans [maxScans]candidateScan, n int, err error) {
	for _, pp := range np.Props {
		if pp.Val.Prog != nil {
			continue
		}
		v, err := b.x.eval(pp.Val, row)
		if err != nil {
			return scans, 0, err
		}
		if v.IsNull() {
			return scans, 0, nil // {k: null} matches nothing: a comparison with null is unknown
		}
		if pp.Key == "nick" {
			if v.Kind() == values.KindString {
				if node, ok := b.snap.NodeByNick(v.AsString()); ok {
					scans[0] = candidateScan{kind: scanOne, node: node}
					return scans, 1, nil
				}
			}
			return scans, 0, nil
		}
	}
	for _, pp := range np.Props {
		if pp.Val.Prog != nil {
			continue
		}
		v, _ := b.x.eval(pp.Val, row)
		scans[0] = candidateScan{kind: scanProp, key: pp.Key, val: v}
		twins, nt := numericTwins(v)
		for i := range nt {
			scans[1+i] = candidateScan{kind: scanProp, key: pp.Key, val: twins[i]}
		}
		return scans, 1 + nt, nil
	}
	if len(np.Labels) > 0 {
		scans[0] = candidateScan{kind: scanLabel, key: np.Labels[0]}
		return scans, 1, nil
	}
	scans[0] = candidateScan{kind: scanAll}
	return scans, 1, nil
}

// scan calls fn for each node of s until fn fails, charging one unit of
// work per node (see executor.spend).
func (b *binder) scan(s *candidateScan, fn func(*store.Node) error) error {
	if s.kind == scanOne {
		if err := b.x.spend(1); err != nil {
			return err
		}
		return fn(s.node)
	}
	var ferr error
	visit := func(n *store.Node) bool {
		if ferr = b.x.spend(1); ferr == nil {
			ferr = fn(n)
		}
		return ferr == nil
	}
	switch s.kind {
	case scanProp:
		b.snap.ScanProp(s.key, s.val, visit)
	case scanLabel:
		b.snap.ScanLabel(s.key, visit)
	case scanAll:
		b.snap.ScanNodes(visit)
	case scanList:
		for _, n := range s.nodes {
			if !visit(n) {
				break
			}
		}
	}
	return ferr
}

func (b *binder) nodeMatches(row *planner.Row, np *planner.NodePlan, n *store.Node) (bool, error) {
	if !np.LabelsMatch(n) {
		return false, nil
	}
	return b.propsMatch(row, np.Props, n.Props)
}

func (b *binder) propsMatch(row *planner.Row, want []planner.PropPlan, have values.Props) (bool, error) {
	for _, pp := range want {
		v, err := b.x.eval(pp.Val, row)
		if err != nil {
			return false, err
		}
		got, ok := have.Get(pp.Key)
		if !ok || v.IsNull() || !sameValue(got, v) {
			return false, nil
		}
	}
	return true, nil
}

// sameValue is pattern equality: exact, except that numbers compare by
// value as GQL's = does (1500 = 1500.0, 0.0 = -0.0).
func sameValue(a, b values.Value) bool {
	if a.Equal(b) {
		return true
	}
	ak, bk := a.Kind(), b.Kind()
	if (ak == values.KindFloat && (bk == values.KindInt || bk == values.KindFloat)) ||
		(bk == values.KindFloat && ak == values.KindInt) {
		return toFloat(a) == toFloat(b) // as WHERE's = compares them
	}
	return false
}

// numericTwins returns the other numeric forms of v that sameValue finds
// equal to it: the float of an integer, the integer of an integral float,
// and for zero also the other signed zero. Each is stored under its own
// key in the property index.
func numericTwins(v values.Value) (twins [2]values.Value, n int) {
	if twin, ok := numericTwin(v); ok {
		twins[n] = twin
		n++
	}
	if v.Kind() == values.KindFloat && v.AsFloat() == 0 {
		twins[n] = values.Float(math.Copysign(0, -math.Copysign(1, v.AsFloat())))
		n++
	} else if v.Kind() == values.KindInt && v.AsInt() == 0 {
		twins[n] = values.Float(math.Copysign(0, -1))
		n++
	}
	return twins, n
}

// numericTwin returns the numeric form of v of the other kind that is
// exactly equal to it: the float of an integer, the integer of an integral
// float.
func numericTwin(v values.Value) (values.Value, bool) {
	switch v.Kind() {
	case values.KindInt:
		f := float64(v.AsInt())
		if f >= -(1<<63) && f < 1<<63 && int64(f) == v.AsInt() {
			return values.Float(f), true
		}
	case values.KindFloat:
		f := v.AsFloat()
		if f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
			return values.Int(int64(f)), true
		}
	}
	return values.Value{}, false
}

func toFloat(v values.Value) float64 {
	if v.Kind() == values.KindInt {
		return float64(v.AsInt())
	}
	return v.AsFloat()
}

// edgeAt binds edge j of path p leaving node from, then node j+1.
func (b *binder) edgeAt(row *planner.Row, p *planner.PathPlan, j int, from *store.Node, next func() error) error {
	ep := p.Edges[j]
	var dir store.Dir
	switch ep.Dir {
	case ast.DirOut:
		dir = store.Out
	case ast.DirIn:
		dir = store.In
	default:
		dir = store.Both
	}
	var ferr error
	b.snap.Edges(from.ID, dir, func(e *store.Edge) bool {
		if ferr = b.x.spend(1); ferr != nil {
			return false
		}
		if !ep.TypeMatches(e.Type) {
			return true
		}
		if ep.Slot >= 0 && row.Vars[ep.Slot].Edge != nil && row.Vars[ep.Slot].Edge.ID != e.ID {
			return true
		}
		ok, err := b.propsMatch(row, ep.Props, e.Props)
		if err != nil {
			ferr = err
			return false
		}
		if !ok {
			return true
		}
		other := e.To
		if other == from.ID {
			other = e.From
		}
		if e.From == from.ID && e.To == from.ID {
			other = from.ID
		} else if dir == store.Out {
			other = e.To
		} else if dir == store.In {
			other = e.From
		}
		far, live := b.snap.Node(other)
		if !live {
			return true
		}
		var saved planner.Element
		if ep.Slot >= 0 {
			saved = row.Vars[ep.Slot]
			row.Vars[ep.Slot] = planner.Element{Edge: e}
		}
		ferr = b.nodeAt(row, p, j+1, far, next)
		if ep.Slot >= 0 {
			row.Vars[ep.Slot] = saved
		}
		return ferr == nil
	})
	return ferr
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
