package exec

import (
	"fmt"
	"strings"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// Writing the Δ: the statements that delete the edges of the triples
// rewritten whole, then the main statement that binds, deletes, changes
// and inserts, and the header with the counts and the bounds checked
// (see the diff text in diff.go).

// write works out the statements and writes the text.
func (d *differ) write() (*values.Diff, error) {
	d.moveNicks()
	sets, order := d.edges()
	var pre [][]byte // the triple statements
	var insEdges []*store.Edge
	for _, t := range order {
		if err := d.ctx.Err(); err != nil {
			return nil, gqlstatus.Interrupted(d.ctx, "values.Diff")
		}
		es := sets[t]
		a, b := d.node(t.from), d.node(t.to)
		if !d.selected(a.id) && !d.selected(b.id) {
			continue
		}
		for _, x := range []*diffNode{a, b} {
			if x.from == nil && !d.selected(x.id) {
				d.sel[x.id] = true // a narrowed diff inserts the new ends of its edges
			}
		}
		fa, fb := d.effective(a), d.effective(b)
		gone := func(f fate) bool { return f == deleted || f == replaced }
		born := func(f fate) bool { return f == created || f == replaced }
		if gone(fa) || gone(fb) || born(fa) || born(fb) {
			// The edges at From go with a DETACH DELETE (or never were);
			// those at To, with a new end, are inserted.
			if gone(fa) || gone(fb) {
				d.out.EdgesDeleted += len(es.from)
			}
			if born(fa) || born(fb) {
				insEdges = append(insEdges, es.to...)
				d.out.EdgesCreated += len(es.to)
			}
			continue
		}
		// Both ends kept or changed: rewrite the triple if it changed.
		to := es.to
		if fa == kept && a.to == nil || fb == kept && b.to == nil {
			to = nil // an end this narrowed Δ keeps is gone at To
		}
		if sameEdges(es.from, to) {
			continue
		}
		if len(es.from) > 0 {
			st, err := d.tripleDelete(a, b, t.typ)
			if err != nil {
				return nil, err
			}
			pre = append(pre, st)
			d.charge(2*len(es.from), 0)
		}
		d.out.EdgesDeleted += len(es.from)
		d.out.EdgesCreated += len(to)
		insEdges = append(insEdges, to...)
	}
	main, err := d.mainStatement(insEdges)
	if err != nil {
		return nil, err
	}
	body := append(joinStatements(pre, main), '\n')
	if d.out.Empty() {
		body = []byte("// no change to the graph\n")
	}
	return d.finish(body)
}

func joinStatements(pre [][]byte, main []byte) []byte {
	var b []byte
	for _, st := range pre {
		b = append(append(b, st...), ";\n"...)
	}
	if len(main) == 0 && len(b) > 0 {
		return b[:len(b)-2] // the last ";\n" separates nothing
	}
	return append(b, main...)
}

// charge counts what the Δ will write or bind, as a Commit counts it.
func (d *differ) charge(rows, bytes int) {
	d.rows += rows
	d.bytes += bytes
}

// tripleDelete writes the statement deleting every edge of a triple.
// An end found through a neighbour (a path pattern) is declared apart.
func (d *differ) tripleDelete(a, b *diffNode, typ string) ([]byte, error) {
	pa, err := d.pattern(a)
	if err != nil {
		return nil, err
	}
	pb, err := d.pattern(b)
	if err != nil {
		return nil, err
	}
	st := []byte("MATCH ")
	if a.path || b.path {
		st = append(st, pa...)
		if a.id != b.id {
			st = append(append(st, ", "...), pb...)
		}
		pa = append(append([]byte{'('}, nodeVar(a.from)...), ')')
		pb = append(append([]byte{'('}, nodeVar(b.from)...), ')')
		st = append(append(st, ", "...), pa...)
	} else {
		st = append(st, pa...)
		if a.id == b.id {
			pb = append(append([]byte{'('}, nodeVar(a.from)...), ')')
		}
	}
	st = store.AppendKey(append(st, "-[e:"...), typ)
	st = append(append(st, "]->"...), pb...)
	return append(st, "\nDELETE e"...), nil
}

// mainStatement writes the statement that binds every node it touches
// (one row), deletes, changes and inserts.
func (d *differ) mainStatement(insEdges []*store.Edge) ([]byte, error) {
	all := d.sorted()
	for _, e := range insEdges {
		for _, id := range []store.ID{e.From, e.To} {
			if dn := d.node(id); d.effective(dn) == kept || d.effective(dn) == changed {
				dn.bound = true
			}
		}
	}
	var match, dels, removes, sets, inserts, after []string
	newVar := map[store.ID]string{}
	for _, dn := range all {
		f := d.effective(dn)
		switch f {
		case changed, deleted, replaced:
			dn.bound = true
		}
		if dn.bound {
			p, err := d.pattern(dn)
			if err != nil {
				return nil, err
			}
			match = append(match, string(p))
		}
		v := ""
		if dn.from != nil {
			v = nodeVar(dn.from)
		}
		switch f {
		case deleted, replaced:
			dels = append(dels, v)
			d.charge(1+d.from.Degree(dn.id, store.Both), 0)
			if f == deleted {
				d.out.NodesDeleted++
			} else {
				d.out.NodesChanged++
			}
		case changed:
			d.out.NodesChanged++
			r, s := d.change(dn, v)
			removes = append(removes, r...)
			sets = append(sets, s...)
		case created:
			d.out.NodesCreated++
		}
		if f == created || f == replaced {
			nv := nodeVar(dn.to)
			if f == replaced {
				nv += "_new"
			}
			newVar[dn.id] = nv
			ins, set := d.insertNode(dn.to, nv)
			inserts = append(inserts, ins)
			if set != "" {
				after = append(after, set)
			}
		}
	}
	for _, e := range insEdges {
		vf, vt := newVar[e.From], newVar[e.To]
		if vf == "" {
			vf = nodeVar(d.nodes[e.From].from)
		}
		if vt == "" {
			vt = nodeVar(d.nodes[e.To].from)
		}
		b := append(append([]byte{'('}, vf...), ")-["...)
		b = appendEdgeText(append(b, edgeVar(e)...), e, false)
		b = append(append(append(b, "]->("...), vt...), ')')
		inserts = append(inserts, string(b))
		d.charge(1, e.Props.Size())
	}
	var b []byte
	clause := func(word, sep string, items []string, multiline bool) {
		if len(items) == 0 {
			return
		}
		if len(b) > 0 {
			b = append(b, '\n')
		}
		b = append(b, word...)
		if multiline {
			b = append(append(b, "\n  "...), strings.Join(items, sep+"\n  ")...)
		} else {
			b = append(append(b, ' '), strings.Join(items, sep+" ")...)
		}
	}
	if len(match) > 0 {
		d.charge(1, 0) // the one row the MATCH binds
	}
	clause("MATCH", ",", match, true)
	clause("DETACH DELETE", ",", dels, false)
	clause("REMOVE", ",", removes, false)
	clause("SET", ",", sets, false)
	clause("INSERT", ",", inserts, true)
	clause("SET", ",", after, false)
	return b, nil
}

// change writes the REMOVE and SET items that make node dn, bound to v,
// what it is at To: labels first (a new kind is set on a node with no
// label left, since a node keeps its kind first while it has it), then
// every property at once (SET v = {…}), which removes the ones gone and
// writes each with its type.
func (d *differ) change(dn *diffNode, v string) (removes, sets []string) {
	a, b := dn.from, dn.to
	var gone, added []string
	if a.Kind() == b.Kind() {
		for _, l := range a.Labels {
			if !b.HasLabel(l) {
				gone = append(gone, l)
			}
		}
		for _, l := range b.Labels {
			if !a.HasLabel(l) {
				added = append(added, l)
			}
		}
	} else {
		gone = a.Labels
		added = b.Labels
	}
	if len(gone) > 0 {
		removes = append(removes, v+string(labelList(gone)))
		d.charge(1, 0)
	}
	if len(added) > 0 {
		sets = append(sets, v+string(labelList(added)))
		d.charge(1, 0)
	}
	if !a.Props.Equal(b.Props) {
		sets = append(sets, v+" = "+propsLiteral(b.Props))
		d.charge(1, b.Props.Size())
	}
	return removes, sets
}

// labelList writes ":A:B" in the order given (the first is a new kind).
func labelList(labels []string) []byte {
	var b []byte
	for _, l := range labels {
		b = store.AppendKey(append(b, ':'), l)
	}
	return b
}

func propsLiteral(p values.Props) string {
	if len(p) == 0 {
		return "{}"
	}
	return p.Literal()
}

// insertNode writes node n's INSERT pattern; when a live node at To
// that the Δ does not create has n's labels and holds its properties,
// the pattern would echo it (docs/design.md#commit), so n is inserted with its labels
// only and its properties are SET after (set).
func (d *differ) insertNode(n *store.Node, v string) (ins, set string) {
	d.charge(1, n.Props.Size())
	if _, nick := n.Props.Get(store.NickKey); nick || len(n.Props) == 0 || len(n.Labels) == 0 || !d.echoes(n) {
		text, _ := n.Rendering()
		return "(" + v + text + ")", ""
	}
	d.charge(1, 0)
	return "(" + v + string(store.AppendLabels(nil, n.Labels)) + ")", v + " = " + propsLiteral(n.Props)
}

// echoes reports whether a live node the Δ keeps would restate n.
func (d *differ) echoes(n *store.Node) bool {
	found := false
	d.to.ScanProp(n.Props[0].Key, n.Props[0].Val, func(c *store.Node) bool {
		if c.ID == n.ID || c.Kind() != n.Kind() || len(c.Labels) != len(n.Labels) || !labelsHeld(c, n.Labels) || !agree(c.Props, n.Props) {
			return true
		}
		if dn, ok := d.nodes[c.ID]; ok && (d.effective(dn) == created || d.effective(dn) == replaced) {
			return true // fresh in the same statement: never an echo
		}
		found = true
		return false
	})
	return found
}

// finish writes the header and checks the bounds.
func (d *differ) finish(body []byte) (*values.Diff, error) {
	o := d.out
	bound := d.opt.MaxRows
	if bound <= 0 {
		bound = values.DefaultDiffRows
	}
	why := "the diff's row bound"
	if r := d.opt.Budget.Rows; r > 0 && r < bound {
		bound, why = r, "the session's R (rows one Δ may write or bind)"
	}
	o.Rows, o.Bound = d.rows, bound
	session := "session=" + d.opt.Session + " "
	if d.opt.Session == "" {
		session = "" // in a Shape's envelope, whose header names it
	}
	head := fmt.Sprintf("%s%sfrom=%d to=%d nodes=+%d-%d~%d edges=+%d-%d rows=%d/%d",
		diffMagic, session, o.From, o.To, o.NodesCreated, o.NodesDeleted, o.NodesChanged,
		o.EdgesCreated, o.EdgesDeleted, o.Rows, o.Bound)
	if len(d.opt.Nicks) > 0 {
		head += " nicks=" + strings.Join(d.opt.Nicks, ",")
	}
	if len(d.opt.Kinds) > 0 {
		head += " kinds=" + strings.Join(d.opt.Kinds, ",")
	}
	text := []byte(head + "\n")
	if o.Views+o.Actions > 0 {
		text = fmt.Appendf(text, "// vocabulary: %d %s, %d %s changed (not in this Δ)\n",
			o.Views, plural(o.Views, "view", "views"), o.Actions, plural(o.Actions, "action", "actions"))
	}
	o.Text = string(append(text, body...))
	narrow := "narrow it by nick or by kind (the diff's Nicks and Kinds; gqlsh :diff FROM TO nick=N kind=K; ?nick=&kind= over HTTP), or diff fewer versions"
	if o.Rows > bound {
		return nil, gqlstatus.Errorf(gqlstatus.CommitBudget,
			"the diff from version %d to %d is %d rows (%d nodes and %d edges created, deleted or changed), over %s of %d rows",
			o.From, o.To, o.Rows, o.NodesCreated+o.NodesDeleted+o.NodesChanged, o.EdgesCreated+o.EdgesDeleted, why, bound).
			WithHint(narrow)
	}
	size := len(o.Text) + d.bytes
	if b := d.opt.Budget.Bytes; b > 0 && size > b {
		return nil, gqlstatus.Errorf(gqlstatus.CommitBudget,
			"the diff from version %d to %d is %d bytes of text and values, over the session's R of %d bytes", o.From, o.To, size, b).
			WithHint(narrow)
	}
	if len(o.Text) > values.MaxSliceBytes {
		return nil, gqlstatus.Errorf(gqlstatus.CommitBudget,
			"the diff from version %d to %d is %d bytes, over the bound of %d bytes", o.From, o.To, len(o.Text), values.MaxSliceBytes).
			WithHint(narrow)
	}
	return o, nil
}
