package exec

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/vocab"
)

// A diff (docs/design.md#persistence-and-history, History) is the change between two versions of a
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
// and every edge of a rewritten triple. Inserts meet no echo (docs/design.md#commit):
// a rewritten triple has no live edge left when its edges are inserted,
// and a new node identical to a live one is inserted without properties
// and SET after, since a pattern without properties restates nothing.
// A node whose new nick another kept node holds at From is deleted and
// inserted again (nicks that move or swap between nodes), ids aside, as
// is a task labelled Settled that reaches a delete_on_settle node To
// keeps (SET of Settled would recycle it; an INSERT settles nothing).

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
	Budget  values.Budget
	// Nicks and Kinds narrow the diff to the changes of the nodes with
	// those nicks, or of those kinds (at From or at To), and of their
	// edges; IDs does the same by engine id (History). A narrowed diff
	// also inserts the new nodes its edges end at.
	Nicks []string
	Kinds []string
	IDs   []store.ID
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
	out      *values.Diff
}

// DiffSnapshots writes the Δ that takes from to to (see the diff text
// above). from is the empty graph for a diff from version 0. Refused:
// a diff over its bound (22Q02, saying how big it is and how to narrow
// it), a node a Δ cannot find by content (42002), a nick or kind to
// narrow by that no node has (42002).
func DiffSnapshots(ctx context.Context, from, to *store.Snapshot, opt DiffOptions) (*values.Diff, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	d := &differ{ctx: ctx, from: from, to: to, opt: opt, nodes: map[store.ID]*diffNode{},
		out: &values.Diff{From: from.Version(), To: to.Version()}}
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
			return gqlstatus.Errorf(gqlstatus.InvalidReference, "no node has the nick %s at version %d or %d", values.String(nick).Literal(), d.out.From, d.out.To).
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
		if !ok || nick.Kind() != values.KindString {
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
// (docs/design.md#commit, delete_on_settle) that reaches, at To, a node with
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
