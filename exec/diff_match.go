package exec

import (
	"slices"
	"strings"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// Finding a node by content, as a Δ can only find it: its MATCH pattern
// at From (pattern), with a WHERE that leaves out the nodes whose content
// holds its own (others), or a path through a neighbour with a nick when
// other nodes are identical to it (anchor). See the diff text in diff.go.

// pattern is node dn's MATCH pattern at From: by nick, else by every
// label and property, with a WHERE that leaves out the nodes whose
// content holds dn's. A node other nodes are identical to is refused.
func (d *differ) pattern(dn *diffNode) ([]byte, error) {
	if dn.match != "" {
		return []byte(dn.match), nil
	}
	n := dn.from
	v := nodeVar(n)
	b := append(append([]byte{'('}, v...), store.AppendLabels(nil, n.Labels)...)
	if nick, ok := n.Props.Get(store.NickKey); ok && nick.Kind() == values.KindString {
		b = append(values.Props{{Key: store.NickKey, Val: nick}}.AppendLiteral(append(b, ' ')), ')')
		dn.match = string(b)
		return b, nil
	}
	if len(n.Props) > 0 {
		b = n.Props.AppendLiteral(append(b, ' '))
	}
	keys, labels, twins := d.others(n)
	anchor := ""
	if len(twins) > 0 {
		if anchor = d.anchor(n, twins); anchor == "" {
			text, _ := n.Rendering()
			return nil, gqlstatus.Errorf(gqlstatus.InvalidReference,
				"node %s (%s) has no nick and %d other live node(s) at version %d have its labels and properties and no edge to a node with a nick tells them apart, so no Δ can say which one the diff changes",
				v, text, len(twins), d.out.From).
				WithHint("give the node a nick (SET n.nick = …) and diff from that version, or narrow the diff by nick or kind to leave it out")
		}
	}
	var conds []string
	for _, k := range keys {
		conds = append(conds, v+"."+values.KeyLiteral(k)+" IS NULL")
	}
	for _, l := range labels {
		conds = append(conds, "NOT "+v+":"+values.KeyLiteral(l))
	}
	if len(conds) > 0 {
		b = append(append(b, " WHERE "...), strings.Join(conds, " AND ")...)
	}
	b = append(append(b, ')'), anchor...)
	dn.match, dn.path = string(b), anchor != ""
	return b, nil
}

// anchor finds an edge that tells n from its twins (the nodes a pattern
// of its content cannot tell from it): one edge of n's to a node with a
// nick, of a type and direction no twin has to that node, on a triple
// no statement of the Δ deletes before the MATCH binds. It returns the
// rest of a path pattern from n, "-[:T]->(m … {nick: …})", or "".
func (d *differ) anchor(n *store.Node, twins []*store.Node) string {
	type hop struct {
		typ   string
		out   bool
		other store.ID
	}
	count := map[hop]int{}
	var hops []hop
	d.from.Edges(n.ID, store.Both, func(e *store.Edge) bool {
		if e.From == e.To {
			return true
		}
		h := hop{e.Type, e.From == n.ID, e.To}
		if !h.out {
			h.other = e.From
		}
		if count[h]++; count[h] == 1 {
			hops = append(hops, h)
		}
		return true
	})
	has := func(c *store.Node, h hop) bool {
		found := false
		dir := store.In
		if h.out {
			dir = store.Out
		}
		d.from.EdgesOfType(c.ID, dir, h.typ, func(e *store.Edge) bool {
			found = e.From == h.other || e.To == h.other
			return !found
		})
		return found
	}
next:
	for _, h := range hops {
		m, ok := d.from.Node(h.other)
		nick, hasNick := m.Props.Get(store.NickKey)
		if !ok || count[h] != 1 || !hasNick || nick.Kind() != values.KindString {
			continue
		}
		t := triple{n.ID, h.other, h.typ}
		if !h.out {
			t = triple{h.other, n.ID, h.typ}
		}
		if d.rewritten(t) {
			continue
		}
		for _, c := range twins {
			if has(c, h) {
				continue next
			}
		}
		far := append(append([]byte{'('}, nodeVar(m)...), store.AppendLabels(nil, m.Labels)...)
		far = append(values.Props{{Key: store.NickKey, Val: nick}}.AppendLiteral(append(far, ' ')), ')')
		edge := store.AppendKey([]byte("[:"), h.typ)
		if h.out {
			return "-" + string(edge) + "]->" + string(far)
		}
		return "<-" + string(edge) + "]-" + string(far)
	}
	return ""
}

// rewritten reports whether the Δ deletes the edges of triple t in a
// statement before its main one (see write).
func (d *differ) rewritten(t triple) bool {
	a, b := d.node(t.from), d.node(t.to)
	if !d.selected(a.id) && !d.selected(b.id) {
		return false
	}
	fa, fb := d.effective(a), d.effective(b)
	if fa != kept && fa != changed || fb != kept && fb != changed {
		return false // its edges go with a DETACH DELETE, after the MATCH
	}
	edges := func(s *store.Snapshot) []*store.Edge {
		var out []*store.Edge
		s.EdgesOfType(t.from, store.Out, t.typ, func(e *store.Edge) bool {
			if e.To == t.to {
				out = append(out, e)
			}
			return true
		})
		return out
	}
	var to []*store.Edge
	if a.to != nil && b.to != nil {
		to = edges(d.to)
	}
	return !sameEdges(edges(d.from), to)
}

// others finds the nodes at From a pattern of n's labels and properties
// also binds: the keys and labels that tell them from n, and how many
// cannot be told from it.
func (d *differ) others(n *store.Node) (keys, labels []string, twins []*store.Node) {
	seenK, seenL := map[string]bool{}, map[string]bool{}
	visit := func(c *store.Node) bool {
		if c.ID == n.ID || !labelsHeld(c, n.Labels) || !propsHeld(c.Props, n.Props) {
			return true
		}
		for _, p := range c.Props {
			if _, ok := n.Props.Get(p.Key); !ok {
				if !seenK[p.Key] {
					seenK[p.Key] = true
					keys = append(keys, p.Key)
				}
				return true
			}
		}
		for _, l := range c.Labels {
			if !n.HasLabel(l) {
				if !seenL[l] {
					seenL[l] = true
					labels = append(labels, l)
				}
				return true
			}
		}
		twins = append(twins, c) // same labels, and properties equal as a pattern compares them
		return true
	}
	switch {
	case len(n.Props) > 0:
		d.from.ScanProp(n.Props[0].Key, n.Props[0].Val, visit)
		if twin, ok := numericTwin(n.Props[0].Val); ok {
			d.from.ScanProp(n.Props[0].Key, twin, visit)
		}
	case len(n.Labels) > 0:
		d.from.ScanLabel(n.Labels[0], visit)
	default:
		d.from.ScanNodes(visit)
	}
	slices.Sort(keys)
	slices.Sort(labels)
	return keys, labels, twins
}

func labelsHeld(c *store.Node, labels []string) bool {
	for _, l := range labels {
		if !c.HasLabel(l) {
			return false
		}
	}
	return true
}

// propsHeld reports whether have holds every property of given as a
// pattern compares them (sameValue).
func propsHeld(have, given values.Props) bool {
	for _, p := range given {
		if v, ok := have.Get(p.Key); !ok || !sameValue(v, p.Val) {
			return false
		}
	}
	return true
}
