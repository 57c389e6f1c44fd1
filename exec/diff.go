package exec

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/vocab"
)

// A diff (SPEC §7, History) is the change between two versions of a
// session as one plain Δ: GQL that, committed on a copy of version From
// (one Commit, default mint), gives version To's graph, ids aside.
//
// # The diff text
//
// A header comment, notes, then the statements:
//
//	// goldfish diff session=mission from=3 to=5 nodes=+1-0~1 edges=+1-1 rows=7/500
//	MATCH (tsk_1:TSK {nick: "TSK_login"})-[e:touches]->(mod_2:MOD {loc: "a.go"})
//	DELETE e;
//	MATCH
//	  (tsk_1:TSK {nick: "TSK_login"})
//	SET tsk_1 = {nick: "TSK_login", status: "done"}
//	INSERT
//	  (mod_4:MOD {loc: "b.go"}),
//	  (tsk_1)-[e_5:touches]->(mod_4)
//
// Nodes are found by content, as a Δ can only find them: by nick, else
// by every label and property they have at From, with a WHERE that
// tells them from the nodes whose content holds theirs (a property or a
// label more); a node others are identical to, through an edge to a node
// with a nick that they lack (a path pattern). One that nothing tells
// apart is refused: no Δ can say which it is. Variables carry engine ids as a slice's do (see slice.go),
// so the text reads against a Shape; a plain Commit ignores them.
//
// The statements run in an order that keeps every pattern true when its
// MATCH binds: first one statement per (from, type, to) triple whose
// edges changed, deleting all of the triple's edges (parallel edges
// that are identical cannot be told apart, so a triple is rewritten
// whole); then one statement that binds every node it touches at once
// (one row), DETACH DELETEs, REMOVEs and SETs, and INSERTs the new nodes
// and every edge of a rewritten triple. Inserts meet no echo (SPEC §6):
// a rewritten triple has no live edge left when its edges are inserted,
// and a new node identical to a live one is inserted without properties
// and SET after, since a pattern without properties restates nothing.
// A node whose new nick another kept node holds at From is deleted and
// inserted again (nicks that move or swap between nodes), ids aside, as
// is a task labelled Settled that reaches a delete_on_settle node To
// keeps (SET of Settled would recycle it; an INSERT settles nothing).

// DefaultDiffRows is a diff's row bound when DiffOptions.MaxRows is 0.
const DefaultDiffRows = 1000

const diffMagic = "// goldfish diff "

// DiffOptions bound and narrow one diff.
type DiffOptions struct {
	// Session names the session in the header ("": no session= there, as
	// in a Shape's envelope, whose own header names it).
	Session string
	// MaxRows bounds the rows the Δ writes or binds (DefaultDiffRows
	// when 0); Budget is the session's R, which the Δ must fit too
	// (zero fields: no such bound).
	MaxRows int
	Budget  Budget
	// Nicks and Kinds narrow the diff to the changes of the nodes with
	// those nicks, or of those kinds (at From or at To), and of their
	// edges; IDs does the same by engine id (History). A narrowed diff
	// also inserts the new nodes its edges end at.
	Nicks []string
	Kinds []string
	IDs   []store.ID
}

// Diff is the change between two versions as a Δ.
type Diff struct {
	Text     string
	From, To uint64
	// Counts of what the Δ does.
	NodesCreated, NodesDeleted, NodesChanged int
	EdgesCreated, EdgesDeleted               int
	// Rows is what the Δ writes or binds (an R count); Bound the
	// smaller of MaxRows and R.
	Rows, Bound int
	// Vocabulary counts the views and actions registered, replaced or
	// dropped between the versions: not part of the graph, not in the Δ.
	Views, Actions int
}

// Empty reports whether the Δ changes nothing.
func (d *Diff) Empty() bool {
	return d.NodesCreated+d.NodesDeleted+d.NodesChanged+d.EdgesCreated+d.EdgesDeleted == 0
}

// fate is what the Δ does to a node.
type fate uint8

const (
	kept     fate = iota // bound as it is at From, unchanged
	changed              // its labels or properties are SET
	deleted              // DETACH DELETEd
	created              // INSERTed
	replaced             // DETACH DELETEd and INSERTed again (its nick moves)
)

type diffNode struct {
	id       store.ID
	from, to *store.Node
	fate     fate
	// match is the node's MATCH pattern at From, path set when it is a
	// path through a neighbour (see anchor); bound is set when the main
	// statement binds it.
	match       string
	path, bound bool
}

// differ holds one diff being made.
type differ struct {
	ctx      context.Context
	from, to *store.Snapshot
	opt      DiffOptions
	nodes    map[store.ID]*diffNode
	sel      map[store.ID]bool // nil: every node
	rows     int
	bytes    int
	out      *Diff
}

// DiffSnapshots writes the Δ that takes from to to (see the diff text
// above). from is the empty graph for a diff from version 0. Refused:
// a diff over its bound (22Q02, saying how big it is and how to narrow
// it), a node a Δ cannot find by content (42002), a nick or kind to
// narrow by that no node has (42002).
func DiffSnapshots(ctx context.Context, from, to *store.Snapshot, opt DiffOptions) (*Diff, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	d := &differ{ctx: ctx, from: from, to: to, opt: opt, nodes: map[store.ID]*diffNode{},
		out: &Diff{From: from.Version(), To: to.Version()}}
	if err := d.selectNodes(); err != nil {
		return nil, err
	}
	d.out.Views, d.out.Actions = vocabularyChanges(Vocabulary(from), Vocabulary(to))
	return d.write()
}

// selectNodes finds the nodes the diff looks at: every node of either
// version, or those the options narrow it to.
func (d *differ) selectNodes() error {
	add := func(n *store.Node) bool {
		d.node(n.ID)
		if d.sel != nil {
			d.sel[n.ID] = true
		}
		return true
	}
	if len(d.opt.Nicks)+len(d.opt.Kinds)+len(d.opt.IDs) == 0 {
		d.from.ScanNodes(add)
		d.to.ScanNodes(add)
		return nil
	}
	d.sel = map[store.ID]bool{}
	for _, nick := range d.opt.Nicks {
		a, okA := d.from.NodeByNick(nick)
		b, okB := d.to.NodeByNick(nick)
		if !okA && !okB {
			return gqlstatus.Errorf(gqlstatus.InvalidReference, "no node has the nick %s at version %d or %d", store.String(nick).Literal(), d.out.From, d.out.To).
				WithHint("narrow by the nick of a node live at one of the two versions (nicks are case-sensitive)")
		}
		if okA {
			add(a)
		}
		if okB {
			add(b)
		}
	}
	for _, k := range d.opt.Kinds {
		d.from.ScanKind(k, add)
		d.to.ScanKind(k, add)
	}
	for _, id := range d.opt.IDs {
		_, okA := d.from.Node(id)
		_, okB := d.to.Node(id)
		if okA || okB {
			d.sel[id] = true
			d.node(id)
		}
	}
	return nil
}

// node returns what the diff knows of node id, reading it from both
// versions the first time.
func (d *differ) node(id store.ID) *diffNode {
	if dn, ok := d.nodes[id]; ok {
		return dn
	}
	dn := &diffNode{id: id}
	dn.from, _ = d.from.Node(id)
	dn.to, _ = d.to.Node(id)
	switch {
	case dn.from == nil:
		dn.fate = created
	case dn.to == nil:
		dn.fate = deleted
	case !sameContent(dn.from, dn.to):
		dn.fate = changed
	}
	d.nodes[id] = dn
	return dn
}

// sorted lists the nodes the diff knows, by id.
func (d *differ) sorted() []*diffNode {
	all := make([]*diffNode, 0, len(d.nodes))
	for _, dn := range d.nodes {
		all = append(all, dn)
	}
	slices.SortFunc(all, func(a, b *diffNode) int { return cmp.Compare(a.id, b.id) })
	return all
}

// selected reports whether the diff writes the changes of node id.
func (d *differ) selected(id store.ID) bool { return d.sel == nil || d.sel[id] }

// effective is the fate of a node in this Δ: a node the options leave
// out stays as it is at From (or, new, is not inserted).
func (d *differ) effective(dn *diffNode) fate {
	if d.selected(dn.id) {
		return dn.fate
	}
	return kept
}

func sameContent(a, b *store.Node) bool {
	return a.Kind() == b.Kind() && sameLabels(a.Labels, b.Labels) && a.Props.Equal(b.Props)
}

func sameLabels(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, l := range a {
		if !slices.Contains(b, l) {
			return false
		}
	}
	return true
}

// triple is the ends and type of an edge: parallel edges share one.
type triple struct {
	from, to store.ID
	typ      string
}

// edgeSets are the edges of one triple at From and at To.
type edgeSets struct {
	from, to []*store.Edge
}

// edges gathers the edges of the selected nodes (every edge when the
// diff is not narrowed) by triple, at both versions.
func (d *differ) edges() (map[triple]*edgeSets, []triple) {
	m := map[triple]*edgeSets{}
	var order []triple
	put := func(e *store.Edge, atTo bool) {
		t := triple{e.From, e.To, e.Type}
		es := m[t]
		if es == nil {
			es = &edgeSets{}
			m[t] = es
			order = append(order, t)
		}
		if atTo {
			if !slices.ContainsFunc(es.to, func(x *store.Edge) bool { return x.ID == e.ID }) {
				es.to = append(es.to, e)
			}
		} else if !slices.ContainsFunc(es.from, func(x *store.Edge) bool { return x.ID == e.ID }) {
			es.from = append(es.from, e)
		}
	}
	if d.sel == nil {
		d.from.ScanEdges(func(e *store.Edge) bool { put(e, false); return true })
		d.to.ScanEdges(func(e *store.Edge) bool { put(e, true); return true })
	} else {
		ids := make([]store.ID, 0, len(d.sel))
		for id := range d.sel {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			d.from.Edges(id, store.Both, func(e *store.Edge) bool { put(e, false); return true })
			d.to.Edges(id, store.Both, func(e *store.Edge) bool { put(e, true); return true })
		}
	}
	slices.SortFunc(order, func(a, b triple) int {
		return cmp.Or(cmp.Compare(a.from, b.from), strings.Compare(a.typ, b.typ), cmp.Compare(a.to, b.to))
	})
	return m, order
}

// sameEdges reports whether two lists of one triple's edges hold the same
// properties, as many times each.
func sameEdges(a, b []*store.Edge) bool {
	if len(a) != len(b) {
		return false
	}
	used := make([]bool, len(b))
next:
	for _, e := range a {
		for j, f := range b {
			if !used[j] && e.Props.Equal(f.Props) {
				used[j] = true
				continue next
			}
		}
		return false
	}
	return true
}

// moveNicks marks replaced the changed nodes whose nick at To another
// node holds at From that this Δ keeps: SET would clash on the nick
// while that node still has it, and two nodes that swap nicks cannot
// be ordered at all. It marks replaced too the tasks whose settling
// would recycle a node To has (settles).
func (d *differ) moveNicks() {
	for _, dn := range d.sorted() {
		if d.effective(dn) != changed {
			continue
		}
		nick, ok := dn.to.Props.Get(store.NickKey)
		if !ok || nick.Kind() != store.KindString {
			continue
		}
		if old, ok := dn.from.Props.Get(store.NickKey); ok && old.Equal(nick) {
			continue
		}
		holder, ok := d.from.NodeByNick(nick.AsString())
		if !ok || holder.ID == dn.id {
			continue
		}
		if f := d.effective(d.node(holder.ID)); f != deleted && f != replaced {
			dn.fate = replaced
		}
	}
	for _, dn := range d.sorted() {
		if d.effective(dn) == changed && d.settles(dn) {
			dn.fate = replaced
		}
	}
}

// settles reports whether the Δ's SET of node dn would settle a task
// (SPEC §6, delete_on_settle) that reaches, at To, a node with
// delete_on_settle: true: the Commit would recycle that node, which To
// still has. A task inserted settles nothing, so such a task is
// replaced.
func (d *differ) settles(dn *diffNode) bool {
	a, b := dn.from, dn.to
	if b.Kind() != TaskKind || !b.HasLabel(SettledLabel) || a.Kind() == TaskKind && a.HasLabel(SettledLabel) {
		return false
	}
	found := false
	d.to.Edges(dn.id, store.Out, func(e *store.Edge) bool {
		if n, ok := d.to.Node(e.To); ok && n.ID != dn.id && deleteOnSettle(n) {
			found = true
		}
		return !found
	})
	return found
}

// write works out the statements and writes the text.
func (d *differ) write() (*Diff, error) {
	d.moveNicks()
	sets, order := d.edges()
	var pre [][]byte // the triple statements
	var insEdges []*store.Edge
	for _, t := range order {
		if err := d.ctx.Err(); err != nil {
			return nil, gqlstatus.Interrupted(d.ctx, "Diff")
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
	if nick, ok := n.Props.Get(store.NickKey); ok && nick.Kind() == store.KindString {
		b = append(store.Props{{Key: store.NickKey, Val: nick}}.AppendLiteral(append(b, ' ')), ')')
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
		conds = append(conds, v+"."+store.KeyLiteral(k)+" IS NULL")
	}
	for _, l := range labels {
		conds = append(conds, "NOT "+v+":"+store.KeyLiteral(l))
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
		if !ok || count[h] != 1 || !hasNick || nick.Kind() != store.KindString {
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
		far = append(store.Props{{Key: store.NickKey, Val: nick}}.AppendLiteral(append(far, ' ')), ')')
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
func propsHeld(have, given store.Props) bool {
	for _, p := range given {
		if v, ok := have.Get(p.Key); !ok || !sameValue(v, p.Val) {
			return false
		}
	}
	return true
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

func propsLiteral(p store.Props) string {
	if len(p) == 0 {
		return "{}"
	}
	return p.Literal()
}

// insertNode writes node n's INSERT pattern; when a live node at To
// that the Δ does not create has n's labels and holds its properties,
// the pattern would echo it (SPEC §6), so n is inserted with its labels
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
func (d *differ) finish(body []byte) (*Diff, error) {
	o := d.out
	bound := d.opt.MaxRows
	if bound <= 0 {
		bound = DefaultDiffRows
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
	if len(o.Text) > MaxSliceBytes {
		return nil, gqlstatus.Errorf(gqlstatus.CommitBudget,
			"the diff from version %d to %d is %d bytes, over the bound of %d bytes", o.From, o.To, len(o.Text), MaxSliceBytes).
			WithHint(narrow)
	}
	return o, nil
}

// vocabularyChanges counts the views and actions registered, replaced or
// dropped between two vocabularies.
func vocabularyChanges(a, b *vocab.State) (views, actions int) {
	type item struct {
		name          string
		reg, revision uint64
	}
	changed := func(before, after []item) int {
		seen := make(map[string]item, len(before))
		for _, x := range before {
			seen[x.name] = x
		}
		n := 0
		for _, x := range after {
			if old, ok := seen[x.name]; !ok || old != x {
				n++
			}
			delete(seen, x.name)
		}
		return n + len(seen) // dropped
	}
	viewItems := func(s *vocab.State) (out []item) {
		for _, v := range s.Views() {
			out = append(out, item{v.Name, v.Registered, v.Revised})
		}
		return out
	}
	actionItems := func(s *vocab.State) (out []item) {
		for _, x := range s.Actions() {
			out = append(out, item{x.Name, x.Registered, x.Revised})
		}
		return out
	}
	return changed(viewItems(a), viewItems(b)), changed(actionItems(a), actionItems(b))
}
