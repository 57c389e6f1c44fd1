package exec

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/shapewalk"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// Slices (docs/design.md#sessions-slices-and-model-snap) are the one way elements move between
// sessions. ExportSlice writes the neighbourhoods of a few anchors with
// their engine ids; ReadSlice reads such a text back and checks it;
// Absorb commits what it read into another session as one Δ.
//
// # The slice text
//
// A slice is GQL that goldfish's own parser reads: a header, an anchors
// line and notes as comments, then one INSERT statement that declares
// each node once and writes each edge between two declared nodes:
//
//	// goldfish slice session=mission version=12 anchors=1 k=2 rows=3/50 sum=5f0c8e6d1a2b3c4d
//	// anchors: tsk_1
//	INSERT
//	  (tsk_1:TSK {nick: "TSK_login", status: "open"}),
//	  (mod_2:MOD {loc: "auth/login.go"}),
//	  (tsk_1)-[e_3:touches]->(mod_2)
//
// The engine id of every element is in its variable: the variable prefix
// of the node's kind (as a Shape's tsk1, mod2) or "e" for an edge, '_',
// then the id in decimal. Variables are names the statement gives its
// elements, never stored, so the ids cannot become properties: a slice
// committed as a plain Δ inserts a copy with fresh ids, and a Shape, which
// writes tsk1 and mod2, never shows an id. Only ReadSlice reads them.
//
// The header names the session and version exported, the number of
// anchors, k, the rows written and the slice's bound (M × anchors), and a
// checksum: xxhash64 of the header before " sum=", a newline, and every
// byte after the header line. A slice is an export's output, not text to
// edit: one changed byte fails the checksum, so a damaged or hand-written
// text is refused, with a position, before anything applies.

const (
	sliceMagic  = "// goldfish slice "
	shapeMagic  = "// goldfish session="
	anchorsMark = "// anchors: "
	noAnchors   = "none"
	edgePrefix  = "e"
)

// SliceOptions are the budgets of one ExportSlice, already checked
// against their ceilings: each anchor's neighbourhood is walked as a
// Recall walks its seeds (K hops, M rows, fan-out F); Nicks, when set,
// are the anchors (the plan is then nil).
type SliceOptions struct {
	values.SliceOptions
	// MaxL and CapL bound a LIMIT in q as a Recall's (RecallOptions).
	MaxL int
	CapL bool
	// Session names the session in the header.
	Session string
}

// ExportSlice writes the slice of snap around the anchors: the seeds of
// plan (a Recall's token) or the nodes opt.Nicks name. Each anchor's
// neighbourhood is a walk of its own, so one busy anchor cannot take the
// rows of the others; the union, with the edges between its nodes while
// rows remain, holds at most M × |anchors| rows.
func ExportSlice(ctx context.Context, snap *store.Snapshot, plan *planner.Plan, params map[string]values.Value, opt SliceOptions) (*values.Slice, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	found, err := findAnchors(ctx, snap, plan, params, opt)
	if err != nil {
		return nil, err
	}
	anchors, notes := found.nodes, found.notes
	out := &values.Slice{Version: snap.Version(), Status: gqlstatus.Success, Notices: found.notices,
		Anchors: len(anchors), Bound: opt.M * len(anchors)}
	if len(anchors) == 0 {
		out.Status = gqlstatus.NoData
		out.Notices = append(out.Notices, gqlstatus.Notice{Code: gqlstatus.NoData, Msg: found.none})
		notes = append(notes, string(gqlstatus.NoData)+": "+found.none)
	}
	w, err := walkSlice(ctx, snap, anchors, opt, out.Bound)
	if err != nil {
		return nil, err
	}
	u := &w.union
	vars := make([]string, len(u.nodes))
	for i, n := range u.nodes {
		vars[i] = nodeVar(n)
	}
	// Clamps and cuts are warnings, as in a Shape: in the notes and the
	// notices both.
	warn := w.warnings(vars, opt, out.Bound)
	for _, n := range warn {
		out.Notices = append(out.Notices, gqlstatus.Notice{Code: gqlstatus.Warning, Msg: n})
	}
	notes = append(notes, warn...)
	out.Truncated = w.truncated()
	if out.Status == gqlstatus.Success && len(out.Notices) > 0 {
		out.Status = gqlstatus.Warning
	}

	u.sortEdges()
	out.Nodes, out.Edges, out.Rows = len(u.nodes), len(u.edgeList), u.rows()
	anchorVars := make([]string, len(anchors))
	for i, a := range anchors {
		anchorVars[i] = vars[u.at[a.ID]]
	}
	rest := writeSliceBody(*u, vars, anchorVars, notes)
	head := fmt.Sprintf("%ssession=%s version=%d anchors=%d k=%d rows=%d/%d",
		sliceMagic, opt.Session, out.Version, out.Anchors, opt.K, out.Rows, out.Bound)
	out.Text = head + " sum=" + sliceSum(head, rest) + "\n" + rest
	if len(out.Text) > values.MaxSliceBytes {
		return nil, gqlstatus.Errorf(gqlstatus.CommitBudget,
			"the slice is %d bytes, over the slice bound of %d bytes; nothing exported", len(out.Text), values.MaxSliceBytes).
			WithHint("export fewer anchors or a smaller M, or split the session")
	}
	return out, nil
}

// sliceAnchors are the anchors of a slice and what finding them noted.
type sliceAnchors struct {
	nodes   []*store.Node
	notices []gqlstatus.Notice
	notes   []string
	// none is the note of a slice without anchors: why it has none.
	none string
}

// findAnchors finds the anchors: the nodes opt.Nicks names when plan is
// nil, else the seeds of plan, a Recall's token, as a Recall seeds (with
// its LIMIT, and its warnings noted).
func findAnchors(ctx context.Context, snap *store.Snapshot, plan *planner.Plan, params map[string]values.Value, opt SliceOptions) (sliceAnchors, error) {
	found := sliceAnchors{none: "no anchor: the token matched no live node; the slice is empty"}
	var err error
	if plan == nil {
		found.nodes, err = nickAnchors(snap, opt)
		return found, err
	}
	if !plan.Read() {
		return found, gqlstatus.Errorf(gqlstatus.WrongVerb, "ExportSlice takes a Recall's token: one MATCH of node patterns with optional WHERE and LIMIT").
			WithHint("send INSERT, SET, REMOVE and DELETE to Commit")
	}
	st := plan.Stmts[0]
	rp := st.Recall
	if rp.Empty {
		return found, gqlstatus.At(gqlstatus.WrongVerb, st.Pos, plan.Text,
			"MATCH () is the session's outline, which has no anchors: a slice is the neighbourhood of a few anchors, never a whole session").
			WithHint(`name the anchors: MATCH (t:TSK {nick: "TSK_login"}), or give their nicks`)
	}
	celParams, err := paramValues(plan, params)
	if err != nil {
		return found, err
	}
	x := &executor{plan: plan, params: celParams}
	x.meter.start(ctx, "ExportSlice", 0)
	if err := x.check(); err != nil {
		return found, err
	}
	e := emitter{shape: &Shape{}}
	limit, err := x.seedLimit(rp, celParams, RecallOptions{RecallOptions: values.RecallOptions{L: opt.L}, MaxL: opt.MaxL, CapL: opt.CapL}, &e)
	if err != nil {
		return found, err
	}
	seeded, err := x.seed(snap, st, rp, limit, false)
	if err != nil {
		return found, err
	}
	found.nodes = seeded.nodes
	if limit == 0 {
		found.none = "no anchor: LIMIT 0; the slice is empty"
	}
	found.notices = append(found.notices, st.Notices...)
	found.notices = append(found.notices, e.shape.Notices...)
	for _, n := range st.Notices {
		found.notes = append(found.notes, n.String())
	}
	found.notes = append(found.notes, e.notes...)
	return found, nil
}

// sliceWalk is the union of a slice's walks and what cut them short.
type sliceWalk struct {
	union  sliceUnion
	clamps []shapewalk.Clamp // one per clamped node, in walk order
	cuts   []*store.Node     // the anchors whose walk M cut short
	// left counts the edges between the slice's nodes the bound left
	// out; closeCut is set when M cut the walk that finds them.
	left     int
	closeCut bool
}

// walkSlice walks from each anchor in turn, then closes the union with
// the edges between nodes of different anchors' walks while the bound
// leaves rows.
func walkSlice(ctx context.Context, snap *store.Snapshot, anchors []*store.Node, opt SliceOptions, bound int) (*sliceWalk, error) {
	sw := &sliceWalk{union: sliceUnion{at: map[store.ID]int{}, edges: map[store.ID]bool{}}}
	u := &sw.union
	var w shapewalk.Shape
	walk := shapewalk.Options{K: walkK(opt.K), M: opt.M, F: opt.F}
	clamped := map[store.ID]bool{}
	for _, a := range anchors {
		sh, err := shapewalk.WalkIntoContext(ctx, &w, snap, []*store.Node{a}, walk)
		if err != nil {
			return nil, gqlstatus.Interrupted(ctx, "ExportSlice")
		}
		for _, n := range sh.Nodes {
			u.addNode(n)
		}
		for _, e := range sh.Edges {
			u.addEdge(e)
		}
		for _, c := range sh.Clamps {
			if !clamped[c.Node.ID] {
				clamped[c.Node.ID] = true
				sw.clamps = append(sw.clamps, c)
			}
		}
		if sh.Truncated {
			sw.cuts = append(sw.cuts, a)
		}
	}
	if len(anchors) < 2 || u.rows() >= bound {
		return sw, nil
	}
	// The edges between nodes of different anchors' walks, in the order a
	// walk closes its edges: a walk from the union with no hop finds them.
	sh, err := shapewalk.WalkIntoContext(ctx, &w, snap, u.nodes, shapewalk.Options{K: -1, M: bound, F: opt.F})
	if err != nil {
		return nil, gqlstatus.Interrupted(ctx, "ExportSlice")
	}
	for _, e := range sh.Edges {
		switch {
		case u.edges[e.ID]:
		case u.rows() >= bound:
			sw.left++
		default:
			u.addEdge(e)
		}
	}
	sw.closeCut = sh.Truncated
	return sw, nil
}

// warnings words the clamps and cuts of the walks, the nodes named by
// their variables in vars.
func (sw *sliceWalk) warnings(vars []string, opt SliceOptions, bound int) []string {
	u := &sw.union
	var warn []string
	for _, c := range sw.clamps {
		warn = append(warn, clampNote(vars[u.at[c.Node.ID]], c, opt.F))
	}
	for _, a := range sw.cuts {
		warn = append(warn, fmt.Sprintf("cut: M=%d cut the walk from %s short: narrow q, name fewer anchors, or split the session", opt.M, vars[u.at[a.ID]]))
	}
	if sw.left > 0 || sw.closeCut {
		warn = append(warn, fmt.Sprintf("cut: the bound of %d rows left out edges between the slice's nodes", bound))
	}
	return warn
}

// truncated reports whether the slice holds less than the walks reached.
func (sw *sliceWalk) truncated() bool { return len(sw.cuts) > 0 || sw.left > 0 || sw.closeCut }

// nickAnchors finds the live nodes opt.Nicks names, in canonical order.
func nickAnchors(snap *store.Snapshot, opt SliceOptions) ([]*store.Node, error) {
	var anchors []*store.Node
	seen := map[string]bool{}
	for _, nick := range opt.Nicks {
		if seen[nick] {
			continue
		}
		seen[nick] = true
		n, ok := snap.NodeByNick(nick)
		if !ok {
			return nil, gqlstatus.Errorf(gqlstatus.InvalidReference, "no live node has the nick %s", values.String(nick).Literal()).
				WithHint("anchors are nicks of live nodes (nicks are case-sensitive); Recall to find them")
		}
		anchors = append(anchors, n)
	}
	if len(anchors) > opt.L {
		return nil, gqlstatus.Errorf(gqlstatus.RecallBudget, "%d nicks are more anchors than L=%d", len(anchors), opt.L).
			WithHint("name at most L anchors per slice, or export several slices")
	}
	shapewalk.Sort(snap, anchors)
	return anchors, nil
}

// sliceUnion gathers the walks of a slice's anchors.
type sliceUnion struct {
	nodes    []*store.Node
	at       map[store.ID]int // node id → position in nodes
	edgeList []*store.Edge
	edges    map[store.ID]bool
}

func (u *sliceUnion) rows() int { return len(u.nodes) + len(u.edgeList) }

func (u *sliceUnion) addNode(n *store.Node) {
	if _, ok := u.at[n.ID]; !ok {
		u.at[n.ID] = len(u.nodes)
		u.nodes = append(u.nodes, n)
	}
}

func (u *sliceUnion) addEdge(e *store.Edge) {
	if !u.edges[e.ID] {
		u.edges[e.ID] = true
		u.edgeList = append(u.edgeList, e)
	}
}

// sortEdges puts the edges in a Shape's order: by the position of their
// From, type, the position of their To, property literal, then id
// (identical parallel edges, whose order writes the same text).
func (u *sliceUnion) sortEdges() {
	lit := make(map[*store.Edge]string, len(u.edgeList))
	for _, e := range u.edgeList {
		lit[e] = e.Props.Literal()
	}
	slices.SortFunc(u.edgeList, func(a, b *store.Edge) int {
		return cmp.Or(cmp.Compare(u.at[a.From], u.at[b.From]), strings.Compare(a.Type, b.Type),
			cmp.Compare(u.at[a.To], u.at[b.To]), strings.Compare(lit[a], lit[b]), cmp.Compare(a.ID, b.ID))
	})
}

// nodeVar is a node's variable in a slice: its kind's prefix, '_', its id.
func nodeVar(n *store.Node) string { return idVar(prefixOf(n.Kind()).name, n.ID) }

func edgeVar(e *store.Edge) string { return idVar(edgePrefix, e.ID) }

func idVar(prefix string, id store.ID) string {
	return prefix + "_" + strconv.FormatUint(uint64(id), 10)
}

// clampNote words a walk's clamp as a Shape's clamp note does.
func clampNote(v string, c shapewalk.Clamp, f int) string {
	b := append([]byte("clamp: "), v...)
	b = strconv.AppendInt(append(b, " has "...), int64(c.Total), 10)
	if c.Total == 1 {
		b = append(b, " more neighbour ("...)
	} else {
		b = append(b, " more neighbours ("...)
	}
	for j, o := range c.Omitted {
		if j > 0 {
			b = append(b, ", "...)
		}
		b = appendEdgeArrow(append(strconv.AppendInt(b, int64(o.Count), 10), ' '), o.Type, o.Dir)
	}
	return string(strconv.AppendInt(append(b, "); F="...), int64(f), 10))
}

// writeSliceBody writes everything after the header line: the anchors
// line, the notes and the INSERT.
func writeSliceBody(u sliceUnion, vars, anchors, notes []string) string {
	var b []byte
	b = append(b, anchorsMark...)
	if len(anchors) == 0 {
		b = append(b, noAnchors...)
	} else {
		b = append(b, strings.Join(anchors, ", ")...)
	}
	b = append(b, '\n')
	for _, n := range notes {
		b = appendCommentText(append(b, "// "...), n)
		b = append(b, '\n')
	}
	if u.rows() == 0 {
		return string(b)
	}
	b = append(b, "INSERT"...)
	for i, n := range u.nodes {
		if i == 0 {
			b = append(b, "\n  ("...)
		} else {
			b = append(b, ",\n  ("...)
		}
		text, _ := n.Rendering()
		b = append(append(append(b, vars[i]...), text...), ')')
	}
	for _, e := range u.edgeList {
		b = append(append(b, ",\n  ("...), vars[u.at[e.From]]...)
		b = append(append(b, ")-["...), edgeVar(e)...)
		b = appendEdgeText(b, e, false)
		b = append(append(append(b, "]->("...), vars[u.at[e.To]]...), ')')
	}
	return string(append(b, '\n'))
}

// sliceSum is a slice's checksum: xxhash64 of the header before " sum=",
// a newline, and the text after the header line, in 16 hex digits.
func sliceSum(head, rest string) string {
	d := xxhash.New()
	d.WriteString(head)
	d.WriteString("\n")
	d.WriteString(rest)
	return fmt.Sprintf("%016x", d.Sum64())
}
