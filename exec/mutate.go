package exec

import (
	"errors"
	"fmt"
	"strings"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// insert creates each row's new elements; bound variables are reused.
func (x *executor) insert(rows []*planner.Row, s *planner.InsertStep, sr *values.StmtResult) error {
	var ends []*store.Node
	for _, row := range rows {
		for _, p := range s.Patterns {
			ends = ends[:0]
			for i, np := range p.Nodes {
				n, err := x.insertNode(row, np, sr)
				if err != nil {
					return err
				}
				ends = append(ends, n)
				if i > 0 {
					if err := x.insertEdge(row, p.Edges[i-1], ends[i-1], n, sr); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// nodeOf returns the node a pattern slot is bound to in row, re-read from
// the working state so earlier writes of the Δ are seen.
func (x *executor) nodeOf(row *planner.Row, slot int) (*store.Node, bool) {
	if slot < 0 || row.Vars[slot].Node == nil {
		return nil, false
	}
	return x.tx.Snapshot().Node(row.Vars[slot].Node.ID)
}

func (x *executor) insertNode(row *planner.Row, np *planner.NodePlan, sr *values.StmtResult) (*store.Node, error) {
	if np.Slot >= 0 && row.Vars[np.Slot].Node != nil {
		n, ok := x.nodeOf(row, np.Slot)
		if !ok {
			return nil, x.errAt(gqlstatus.EndpointDeleted, np.Pos, "node %s was deleted earlier in this Δ", x.varName(row, np.Slot)).
				WithHint("insert the edge before the DELETE, or to another node")
		}
		return n, nil
	}
	props, size, err := x.propsOf(row, np.Props)
	if err != nil {
		return nil, err
	}
	labels := dedupe(np.Labels)
	kind := ""
	if len(labels) > 0 {
		kind = labels[0]
	}
	if nick, ok := props.Get("nick"); ok && nick.Kind() != values.KindString {
		return nil, x.errAt(gqlstatus.InvalidValueType, np.Pos, "nick must be a STRING, not %s", nick.Kind())
	}
	if err := x.charge(1, size); err != nil {
		return nil, err
	}
	snap := x.tx.Snapshot()
	id := x.tx.NewID()
	if loc, ok := props.Get("loc"); ok && x.opts.Mint == MintIngest && loc.Kind() == values.KindString {
		id = store.DeterministicNodeID(kind, loc.AsString())
		if n, ok := x.ingestExisting(id, labels, props, sr); ok {
			x.bind(row, np.Slot, planner.Element{Node: n})
			return n, nil
		}
	} else if n, ok := x.echoNode(snap, labels, props, np.Pos, sr); ok {
		x.bind(row, np.Slot, planner.Element{Node: n})
		return n, nil
	}
	n, err := x.tx.InsertNode(id, labels, props)
	if err != nil {
		return nil, x.storeErr(err, np.Pos, props)
	}
	x.made(n.ID)
	sr.NodesCreated++
	sr.PropsSet += len(props)
	x.changed = true
	x.touch(n.ID)
	for _, p := range props {
		x.wrote(kind, p.Key)
	}
	x.bind(row, np.Slot, planner.Element{Node: n})
	return n, nil
}

// ingestExisting updates the node an ingest id already names: properties
// and labels merge onto it, a recycled node is revived.
func (x *executor) ingestExisting(id store.ID, labels []string, props values.Props, sr *values.StmtResult) (*store.Node, bool) {
	snap := x.tx.Snapshot()
	n, live := snap.Node(id)
	if !live {
		if _, recycled := snap.RecycledNode(id); !recycled || x.tx.Revive(id) != nil {
			return nil, false
		}
		n, _ = x.tx.Snapshot().Node(id)
		x.changed = true
		x.touch(id)
	}
	merged := n.Props
	for _, p := range props {
		if old, ok := merged.Get(p.Key); !ok || !old.Equal(p.Val) {
			merged = merged.With(p.Key, p.Val)
			sr.PropsSet++
		}
	}
	if len(merged) != len(n.Props) || !merged.Equal(n.Props) {
		if m, err := x.tx.SetProps(id, merged); err == nil {
			n = m
			x.changed = true
			x.touch(id)
		}
	}
	newLabels := append([]string(nil), n.Labels...)
	for _, l := range labels {
		if !contains(newLabels, l) {
			newLabels = append(newLabels, l)
			sr.LabelsAdded++
		}
	}
	if len(newLabels) != len(n.Labels) {
		if m, err := x.tx.SetLabels(id, newLabels); err == nil {
			n = m
			x.changed = true
			x.touch(id)
		}
	}
	sr.NodesUpdated++
	return n, true
}

func (x *executor) insertEdge(row *planner.Row, ep *planner.EdgePlan, l, r *store.Node, sr *values.StmtResult) error {
	from, to := l, r
	if ep.Dir == ast.DirIn {
		from, to = r, l
	}
	props, size, err := x.propsOf(row, ep.Props)
	if err != nil {
		return err
	}
	if err := x.charge(1, size); err != nil {
		return err
	}
	typ := ep.Types[0]
	id := x.tx.NewID()
	if x.opts.Mint == MintIngest {
		id = store.DeterministicEdgeID(from.ID, typ, to.ID)
		snap := x.tx.Snapshot()
		if e, live := snap.Edge(id); live {
			if !e.Props.Equal(props) && len(props) > 0 {
				merged := e.Props
				for _, p := range props {
					merged = merged.With(p.Key, p.Val)
				}
				if _, err := x.tx.SetEdgeProps(id, merged); err != nil {
					return x.storeErr(err, ep.Pos, props)
				}
				sr.PropsSet += len(props)
				x.changed = true
				x.touch(id)
			}
			x.bind(row, ep.Slot, planner.Element{Edge: e})
			return nil
		}
		if err := x.tx.Revive(id); err == nil {
			e, _ := x.tx.Snapshot().Edge(id)
			if _, err := x.tx.SetEdgeProps(id, props); err != nil {
				return x.storeErr(err, ep.Pos, props)
			}
			sr.EdgesCreated++
			sr.PropsSet += len(props)
			x.changed = true
			x.touch(id)
			x.bind(row, ep.Slot, planner.Element{Edge: e})
			return nil
		}
	}
	if e, ok := x.echoEdge(typ, from, to, props); ok {
		sr.EdgesEchoed++
		x.echoed(ep.Pos, sr)
		x.bind(row, ep.Slot, planner.Element{Edge: e})
		return nil
	}
	e, err := x.tx.InsertEdge(id, typ, from.ID, to.ID, props)
	if err != nil {
		return x.storeErr(err, ep.Pos, props)
	}
	x.made(e.ID)
	sr.EdgesCreated++
	sr.PropsSet += len(props)
	x.changed = true
	x.touch(e.ID)
	for _, p := range props {
		x.wrote(typ, p.Key)
	}
	x.bind(row, ep.Slot, planner.Element{Edge: e})
	return nil
}

// echoCountMax bounds how many identical live nodes an ambiguous echo
// counts for its notice: past it the notice says "at least".
const echoCountMax = 16

// echoNode finds the live node an INSERT node pattern restates (docs/design.md#commit,
// "Echoes bind"), so the pattern binds to it instead of creating a
// duplicate. A pattern restates a node when
//
//   - its nick names the node, its kind is the node's, its labels are
//     among the node's, and every property it gives equals the node's
//     (a trimmed Shape, view=shell, shows the identity properties
//     only; a restatement may leave out what it does not mean to
//     change). A nick pattern that disagrees is no echo: inserting it
//     fails on the nick, as a second node with that nick always has;
//   - or, without a nick, its kind, label set and properties (at least
//     one) are exactly the node's, and no other live node has them too.
//     A pattern identical to several nodes cannot say which it means:
//     it creates a node, as before, with a notice.
//
// Nodes the running statement created are never targets (see fresh);
// recycled nodes are not live, so neither are they. Cost: one nick
// lookup, or one seek of the index of live nodes by observable key and
// the identical nodes it finds (at most echoCountMax).
func (x *executor) echoNode(snap *store.Snapshot, labels []string, props values.Props, pos gqlstatus.Pos, sr *values.StmtResult) (*store.Node, bool) {
	if len(props) == 0 || len(labels) == 0 || x.opts.DuplicateEchoes {
		return nil, false
	}
	kind := labels[0]
	if nick, ok := props.Get(store.NickKey); ok && nick.Kind() == values.KindString {
		n, live := snap.NodeByNick(nick.AsString())
		if !live || x.isFresh(n.ID) || !restates(n, labels, props) {
			return nil, false
		}
		sr.NodesEchoed++
		x.echoed(pos, sr)
		return n, true
	}
	var match *store.Node
	count := 0
	snap.ScanIdentical(kind, props, func(n *store.Node) bool {
		if x.isFresh(n.ID) || len(n.Labels) != len(labels) || !restates(n, labels, props) {
			return true
		}
		if match == nil {
			match = n
		}
		count++
		return count < echoCountMax
	})
	switch {
	case count == 1:
		sr.NodesEchoed++
		x.echoed(pos, sr)
		return match, true
	case count > 1:
		many := fmt.Sprintf("%d", count)
		if count >= echoCountMax {
			many = fmt.Sprintf("at least %d", count)
		}
		sr.Notices = append(sr.Notices, gqlstatus.Notice{Code: gqlstatus.Warning, Pos: x.noticePos(pos),
			Msg: fmt.Sprintf("echo: (:%s %s) is identical to %s live nodes, so it cannot say which it restates; created another", strings.Join(labels, ":"), props.Literal(), many) +
				"; to attach to one, MATCH it by nick or by a property that tells them apart"})
	}
	return nil, false
}

// restates reports whether n has the pattern's kind, every label of it
// and, for every property the pattern gives, an equal value.
func restates(n *store.Node, labels []string, props values.Props) bool {
	if n.Kind() != labels[0] {
		return false
	}
	for _, l := range labels[1:] {
		if !n.HasLabel(l) {
			return false
		}
	}
	return agree(n.Props, props)
}

// echoEdge finds a live edge of type typ from from to to, which the
// running statement did not create, that an INSERT of an edge with props
// restates: one whose properties are props, or else one whose
// properties agree with every one props gives. Its ends name an edge as
// a nick names a node, so it needs no property, and a trimmed Shape,
// which shows edges without their properties, restates it too; parallel
// edges it restates are one echo (the identical one, else the first).
// Cost: two binary searches of from's adjacency, then its parallel
// edges to to.
func (x *executor) echoEdge(typ string, from, to *store.Node, props values.Props) (*store.Edge, bool) {
	if x.opts.DuplicateEchoes {
		return nil, false
	}
	snap := x.tx.Snapshot()
	f, ok := snap.Current(from)
	if !ok {
		return nil, false
	}
	t, ok := snap.Current(to)
	if !ok {
		return nil, false
	}
	adj := snap.Adjacency(f)
	lo, hi := adj.Group(typ, store.Out)
	lo, hi = adj.FarRange(lo, hi, t)
	var agrees *store.Edge
	for i := lo; i < hi; i++ {
		e := adj.Edge(i)
		if e.Recycled || e.To != t.ID || x.isFresh(e.ID) {
			continue
		}
		if e.Props.Equal(props) {
			return e, true
		}
		if agrees == nil && agree(e.Props, props) {
			agrees = e
		}
	}
	return agrees, agrees != nil
}

// agree reports whether have holds every property of given, equal.
func agree(have, given values.Props) bool {
	for _, p := range given {
		if v, ok := have.Get(p.Key); !ok || !v.Equal(p.Val) {
			return false
		}
	}
	return true
}

// made records that the running statement created element id.
func (x *executor) made(id store.ID) {
	if x.fresh == nil {
		x.fresh = map[store.ID]struct{}{}
	}
	x.fresh[id] = struct{}{}
}

func (x *executor) isFresh(id store.ID) bool {
	_, ok := x.fresh[id]
	return ok
}

// echoed notes where the statement's first echo is.
func (x *executor) echoed(pos gqlstatus.Pos, sr *values.StmtResult) {
	if sr.NodesEchoed+sr.EdgesEchoed == 1 {
		x.echoAt = x.noticePos(pos)
	}
}

// noticePos is pos for a notice: none in an action's body, whose
// positions are in its definition, not in the text the CALL is in.
func (x *executor) noticePos(pos gqlstatus.Pos) gqlstatus.Pos {
	if x.inBody {
		return gqlstatus.Pos{}
	}
	return pos
}

// echoNotice tells, once per statement, what its echoes bound: a Δ
// should carry only what is new or changed, and one made only of echoes
// applies nothing.
func (x *executor) echoNotice(sr *values.StmtResult) {
	var parts []string
	if n := sr.NodesEchoed; n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", n, plural(n, "node", "nodes")))
	}
	if n := sr.EdgesEchoed; n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", n, plural(n, "edge", "edges")))
	}
	if len(parts) == 0 {
		return
	}
	verb, them := "is", "it"
	if sr.NodesEchoed+sr.EdgesEchoed > 1 {
		verb, them = "are", "them"
	}
	sr.Notices = append(sr.Notices, gqlstatus.Notice{Code: gqlstatus.Warning, Pos: x.echoAt,
		Msg: fmt.Sprintf("echo: %s of this statement %s already in the session: bound to %s, not created again (a Δ should carry only what is new or changed)",
			strings.Join(parts, " and "), verb, them)})
}

func (x *executor) bind(row *planner.Row, slot int, e planner.Element) {
	if slot >= 0 {
		row.Vars[slot] = e
	}
}

func (x *executor) varName(row *planner.Row, slot int) string {
	for _, st := range x.plan.Stmts {
		if slot < len(st.Vars) && len(st.Vars) == len(row.Vars) {
			return st.Vars[slot]
		}
	}
	return fmt.Sprintf("#%d", slot)
}

// propsOf evaluates a pattern's property map; null values are dropped.
func (x *executor) propsOf(row *planner.Row, pps []planner.PropPlan) (values.Props, int, error) {
	if len(pps) == 0 {
		return nil, 0, nil
	}
	m := make(map[string]values.Value, len(pps))
	size := 0
	for _, pp := range pps {
		v, err := x.eval(pp.Val, row)
		if err != nil {
			return nil, 0, err
		}
		if err := x.storable(v); err != nil {
			return nil, 0, x.errAt(values.ValueCode(err), pp.Val.Pos, "property %s: %v", pp.Key, err).
				WithHint("write a value a property can hold")
		}
		m[pp.Key] = v
		size += len(pp.Key) + v.Size()
	}
	return values.MakeProps(m), size, nil
}

// storable reports why v cannot be written, or nil: whatever a Commit
// writes, the cabinet must hold and hydrate must read back (docs/design.md#persistence-and-history).
// A replayed Δ was checked when it was committed, by whatever checks
// the version that committed it had; it is held only to the nesting
// limit, without which the session's next snapshot would not decode.
func (x *executor) storable(v values.Value) error {
	if x.opts.Replay {
		if v.Nesting() > values.MaxNesting {
			return values.ErrTooDeep
		}
		return nil
	}
	return v.Check()
}

func (x *executor) storeErr(err error, pos gqlstatus.Pos, props values.Props) error {
	switch {
	case errors.Is(err, store.ErrNickClash):
		nick, _ := props.Get("nick")
		return x.errAt(gqlstatus.IntegrityViolation, pos, "nick %s is already used by another live node", nick.Literal()).
			WithHint("choose another nick, or MATCH the existing node and SET what changed")
	case errors.Is(err, store.ErrIDTaken):
		e := x.errAt(gqlstatus.IntegrityViolation, pos, "the element's id is already taken by another element of this session; nothing applied").
			WithHint("an ingested node's id comes from its kind and loc, a kept slice's from the slice: change the loc, or absorb with reject or remint")
		e.Cause = err
		return e
	case errors.Is(err, store.ErrHasEdges):
		return x.errAt(gqlstatus.DeleteConnected, pos, "node still has live edges").
			WithHint("use DETACH DELETE, or delete its edges first")
	case errors.Is(err, store.ErrNotFound):
		return x.errAt(gqlstatus.ReferentDeleted, pos, "element was deleted earlier in this Δ")
	}
	e := x.errAt(gqlstatus.Internal, pos, "the store refused the change (%v); nothing applied", err).
		WithHint("report the statement: this is a fault in goldfish")
	e.Cause = err
	return e
}

// assign records a property assignment and refuses a second, different
// assignment of the same property in one Δ (22G0M).
func (x *executor) assign(id store.ID, key string, v values.Value, pos gqlstatus.Pos) error {
	k := assignKey{id, key}
	if old, ok := x.assigned[k]; ok && !old.Equal(v) {
		return x.errAt(gqlstatus.DuplicateAssignment, pos, "property %s is assigned twice in this Δ (%s, then %s)", key, old.Literal(), v.Literal()).
			WithHint("assign each property once per Δ")
	}
	x.assigned[k] = v
	return nil
}

// element re-reads the element bound to slot from the working state.
func (x *executor) element(row *planner.Row, slot int, pos gqlstatus.Pos) (planner.Element, error) {
	e := row.Vars[slot]
	snap := x.tx.Snapshot()
	switch {
	case e.Node != nil:
		if n, ok := snap.Node(e.Node.ID); ok {
			return planner.Element{Node: n}, nil
		}
	case e.Edge != nil:
		if ed, ok := snap.Edge(e.Edge.ID); ok {
			return planner.Element{Edge: ed}, nil
		}
	default:
		return e, x.errAt(gqlstatus.InvalidReference, pos, "variable is not bound to an element")
	}
	return e, x.errAt(gqlstatus.ReferentDeleted, pos, "element was deleted earlier in this Δ").
		WithHint("drop the statement that changes it, or make the change before the DELETE")
}

func (x *executor) writeProps(el planner.Element, props values.Props, pos gqlstatus.Pos) (planner.Element, error) {
	if el.Node != nil {
		n, err := x.tx.SetProps(el.Node.ID, props)
		if err != nil {
			return el, x.storeErr(err, pos, props)
		}
		return planner.Element{Node: n}, nil
	}
	e, err := x.tx.SetEdgeProps(el.Edge.ID, props)
	if err != nil {
		return el, x.storeErr(err, pos, props)
	}
	return planner.Element{Edge: e}, nil
}

func props(el planner.Element) values.Props {
	if el.Node != nil {
		return el.Node.Props
	}
	return el.Edge.Props
}

// kindOf is the kind the ledger counts a write on: a node's kind (its
// first label, as the store's kind index has it), an edge's type.
func kindOf(el planner.Element) string {
	if el.Node != nil {
		return el.Node.Kind()
	}
	return el.Edge.Type
}

func elemID(el planner.Element) store.ID {
	if el.Node != nil {
		return el.Node.ID
	}
	return el.Edge.ID
}

func (x *executor) set(rows []*planner.Row, s *planner.SetStep, sr *values.StmtResult) error {
	for _, row := range rows {
		for _, it := range s.Items {
			el, err := x.element(row, it.Slot, it.Pos)
			if err != nil {
				return err
			}
			switch {
			case len(it.Labels) > 0:
				n := el.Node
				labels := append([]string(nil), n.Labels...)
				for _, l := range it.Labels {
					if !contains(labels, l) {
						labels = append(labels, l)
						sr.LabelsAdded++
						if l == SettledLabel && len(labels) > 0 && labels[0] == TaskKind {
							x.settled = append(x.settled, settling{id: n.ID, stmt: x.stmt})
						}
					}
				}
				if len(labels) != len(n.Labels) {
					if err := x.charge(1, 0); err != nil {
						return err
					}
					nn, err := x.tx.SetLabels(n.ID, labels)
					if err != nil {
						return x.storeErr(err, it.Pos, nil)
					}
					row.Vars[it.Slot] = planner.Element{Node: nn}
					x.changed = true
					x.touch(n.ID)
				}
				continue
			case it.IsAll:
				next, size, err := x.propsOf(row, it.All)
				if err != nil {
					return err
				}
				if it.Merge {
					merged := props(el)
					for _, p := range next {
						merged = merged.With(p.Key, p.Val)
					}
					next = merged
				}
				for _, p := range next {
					if err := x.assign(elemID(el), p.Key, p.Val, it.Pos); err != nil {
						return err
					}
				}
				if err := x.charge(1, size); err != nil {
					return err
				}
				sr.PropsSet += len(it.All)
				kind, old := kindOf(el), props(el)
				for _, pp := range it.All {
					x.wrote(kind, pp.Key)
					if pp.Key == StatusKey {
						x.wroteStatus(el.Node, it.Pos)
					}
				}
				if !it.Merge {
					sr.PropsSet += removedKeys(old, next)
					for _, p := range old {
						if _, ok := next.Get(p.Key); !ok {
							x.wrote(kind, p.Key)
						}
					}
				}
				if !next.Equal(old) {
					x.touch(elemID(el))
				}
				el, err = x.writeProps(el, next, it.Pos)
				if err != nil {
					return err
				}
			default:
				v, err := x.eval(it.Val, row)
				if err != nil {
					return err
				}
				if err := x.storable(v); err != nil {
					return x.errAt(values.ValueCode(err), it.Val.Pos, "property %s: %v", it.Key, err).
						WithHint("write a value a property can hold")
				}
				if it.Key == "nick" && !v.IsNull() && v.Kind() != values.KindString {
					return x.errAt(gqlstatus.InvalidValueType, it.Pos, "nick must be a STRING, not %s", v.Kind())
				}
				if err := x.assign(elemID(el), it.Key, v, it.Pos); err != nil {
					return err
				}
				if err := x.charge(1, len(it.Key)+v.Size()); err != nil {
					return err
				}
				sr.PropsSet++
				x.wrote(kindOf(el), it.Key)
				if it.Key == StatusKey {
					x.wroteStatus(el.Node, it.Pos)
				}
				if old, ok := props(el).Get(it.Key); ok != !v.IsNull() || ok && !old.Equal(v) {
					x.touch(elemID(el))
				}
				el, err = x.writeProps(el, props(el).With(it.Key, v), it.Pos)
				if err != nil {
					return err
				}
			}
			row.Vars[it.Slot] = el
			x.changed = true
		}
	}
	return nil
}

func removedKeys(old, next values.Props) int {
	n := 0
	for _, p := range old {
		if _, ok := next.Get(p.Key); !ok {
			n++
		}
	}
	return n
}

func (x *executor) remove(rows []*planner.Row, s *planner.RemoveStep, sr *values.StmtResult) error {
	for _, row := range rows {
		for _, it := range s.Items {
			el, err := x.element(row, it.Slot, it.Pos)
			if err != nil {
				return err
			}
			if len(it.Labels) > 0 {
				n := el.Node
				var labels []string
				for _, l := range n.Labels {
					if contains(it.Labels, l) {
						sr.LabelsRemoved++
					} else {
						labels = append(labels, l)
					}
				}
				if len(labels) != len(n.Labels) {
					if err := x.charge(1, 0); err != nil {
						return err
					}
					nn, err := x.tx.SetLabels(n.ID, labels)
					if err != nil {
						return x.storeErr(err, it.Pos, nil)
					}
					row.Vars[it.Slot] = planner.Element{Node: nn}
					x.changed = true
					x.touch(n.ID)
				}
				continue
			}
			if _, ok := props(el).Get(it.Key); !ok {
				continue
			}
			if err := x.assign(elemID(el), it.Key, values.Null(), it.Pos); err != nil {
				return err
			}
			if err := x.charge(1, 0); err != nil {
				return err
			}
			sr.PropsSet++
			x.wrote(kindOf(el), it.Key)
			x.touch(elemID(el))
			el, err = x.writeProps(el, props(el).Without(it.Key), it.Pos)
			if err != nil {
				return err
			}
			row.Vars[it.Slot] = el
			x.changed = true
		}
	}
	return nil
}

func (x *executor) delete(rows []*planner.Row, s *planner.DeleteStep, sr *values.StmtResult) error {
	// Edges first, so MATCH (a)-[r]->() DELETE r, a works without DETACH.
	for pass := 0; pass < 2; pass++ {
		for _, row := range rows {
			for i, slot := range s.Slots {
				el := row.Vars[slot]
				if (pass == 0) != (el.Edge != nil) {
					continue
				}
				if err := x.deleteOne(el, s.Detach, s.Poses[i], sr); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (x *executor) deleteOne(el planner.Element, detach bool, pos gqlstatus.Pos, sr *values.StmtResult) error {
	snap := x.tx.Snapshot()
	if el.Edge != nil {
		if _, live := snap.Edge(el.Edge.ID); !live {
			return nil // deleted by an earlier row
		}
		if err := x.charge(1, 0); err != nil {
			return err
		}
		if err := x.tx.RecycleEdge(el.Edge.ID); err != nil {
			return x.storeErr(err, pos, nil)
		}
		x.touch(el.Edge.ID)
		sr.EdgesRecycled++
		x.changed = true
		return nil
	}
	if el.Node == nil {
		return nil
	}
	if _, live := snap.Node(el.Node.ID); !live {
		return nil
	}
	if detach {
		var edges []store.ID
		snap.Edges(el.Node.ID, store.Both, func(e *store.Edge) bool {
			if !containsID(edges, e.ID) {
				edges = append(edges, e.ID)
			}
			return true
		})
		for _, id := range edges {
			if err := x.charge(1, 0); err != nil {
				return err
			}
			if err := x.tx.RecycleEdge(id); err != nil {
				return x.storeErr(err, pos, nil)
			}
			x.touch(id)
			sr.EdgesRecycled++
		}
	} else if n := snap.Degree(el.Node.ID, store.Both); n > 0 {
		return x.errAt(gqlstatus.DeleteConnected, pos, "cannot DELETE a node that still has %d live edge(s)", n).
			WithHint("use DETACH DELETE to recycle the node with its edges, or delete the edges first")
	}
	if err := x.charge(1, 0); err != nil {
		return err
	}
	if err := x.tx.RecycleNode(el.Node.ID); err != nil {
		return x.storeErr(err, pos, nil)
	}
	x.touch(el.Node.ID)
	sr.NodesRecycled++
	x.changed = true
	return nil
}

func containsID(ids []store.ID, id store.ID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func dedupe(labels []string) []string {
	var out []string
	for _, l := range labels {
		if !contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// TaskKind is the kind of a task, SettledLabel the label that settles
// it: a TSK without Settled is a live task (docs/design.md#recall, #commit).
const (
	TaskKind     = "TSK"
	SettledLabel = "Settled"
	// DeleteOnSettle is the property that marks a node a task's settling
	// recycles.
	DeleteOnSettle = "delete_on_settle"
)

// settling is a task a statement of the Δ labelled Settled.
type settling struct {
	id   store.ID
	stmt int // its statement's place in the Δ's results
}

// settle recycles, once every statement of the Δ has run, the nodes
// with delete_on_settle: true that a task the Δ settled reaches by an
// outgoing edge, unless another live task reaches them too (docs/design.md#commit:
// "Switch task: settle the old TSK"). Counted in the statement that
// settled the task.
func (x *executor) settle(stmts []values.StmtResult) error {
	for _, st := range x.settled {
		snap := x.tx.Snapshot()
		t, ok := snap.Node(st.id)
		if !ok || !contains(t.Labels, SettledLabel) {
			continue // recycled or unsettled again later in the Δ
		}
		var marked []*store.Node
		snap.Edges(st.id, store.Out, func(e *store.Edge) bool {
			if n, ok := snap.Node(e.To); ok && n.ID != st.id && deleteOnSettle(n) && !hasNode(marked, n.ID) {
				marked = append(marked, n)
			}
			return true
		})
		for _, n := range marked {
			if liveTaskReaches(snap, n.ID) {
				continue
			}
			if err := x.deleteOne(planner.Element{Node: n}, true, gqlstatus.Pos{}, &stmts[st.stmt]); err != nil {
				return err
			}
		}
	}
	return nil
}

func deleteOnSettle(n *store.Node) bool {
	v, ok := n.Props.Get(DeleteOnSettle)
	return ok && v.Kind() == values.KindBool && v.AsBool()
}

// liveTaskReaches reports whether a live task (a TSK without Settled) has
// an edge to id.
func liveTaskReaches(snap *store.Snapshot, id store.ID) bool {
	found := false
	snap.Edges(id, store.In, func(e *store.Edge) bool {
		if f, ok := snap.Node(e.From); ok && len(f.Labels) > 0 && f.Labels[0] == TaskKind && !contains(f.Labels, SettledLabel) {
			found = true
		}
		return !found
	})
	return found
}

func hasNode(list []*store.Node, id store.ID) bool {
	for _, n := range list {
		if n.ID == id {
			return true
		}
	}
	return false
}
