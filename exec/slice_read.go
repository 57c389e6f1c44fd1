package exec

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// SliceData is a slice as ReadSlice read it.
type SliceData struct {
	Text    string
	Session string
	Version uint64
	K       int
	// Bound is the header's row bound (M × anchors).
	Bound int
	// Anchors are positions in Nodes.
	Anchors []int
	Nodes   []SliceNode
	Edges   []SliceEdge
}

// Rows returns the number of elements the slice holds.
func (d *SliceData) Rows() int { return len(d.Nodes) + len(d.Edges) }

// SliceNode is a node of a slice, with the id it had where it was
// exported.
type SliceNode struct {
	Var    string
	ID     store.ID
	Labels []string // the kind first
	Props  values.Props
	Pos    gqlstatus.Pos
}

// SliceEdge is an edge of a slice; From and To are positions in Nodes.
type SliceEdge struct {
	Var      string
	ID       store.ID
	Type     string
	From, To int
	Props    values.Props
	Pos      gqlstatus.Pos
}

// SliceBounds bound what ReadSlice accepts; a zero field sets no bound
// (a replayed slice was within the bounds of its day).
type SliceBounds struct {
	// Rows is the most a slice's bound may be, PerAnchor the most its
	// bound may give each anchor (the M ceiling), Bytes the most bytes
	// its text may hold.
	Rows, PerAnchor, Bytes int
	// Catalog names the catalogue, whose slices are refused.
	Catalog string
}

// sliceHeader is what the header line says, with where each field is.
type sliceHeader struct {
	session     string
	version     uint64
	anchors, k  int
	rows, bound int
	sum         string
	at          map[string]gqlstatus.Pos // field name → its position
	head        string                   // the header line before " sum="
}

// ReadSlice reads text as a slice (see ExportSlice): its header and
// anchors line, then its INSERT, planned by plan, each element's form
// and id, and its checksum. Anything else is refused with a position:
// 42001 for text that is not a slice (a Shape, hand-written or damaged
// text), 22Q02 for a slice over its bound, 42Q02 for a slice of the
// catalogue.
func ReadSlice(text string, plan func(string) (*planner.Plan, error), b SliceBounds) (*SliceData, error) {
	if b.Bytes > 0 && len(text) > b.Bytes {
		return nil, gqlstatus.Errorf(gqlstatus.CommitBudget,
			"the slice is %d bytes, over the slice bound of %d bytes; nothing applied", len(text), b.Bytes).
			WithHint("export fewer anchors or a smaller M")
	}
	if !utf8.ValidString(text) {
		return nil, notSlice(text, posOf(text, firstBadByte(text)), "the slice is not UTF-8 text")
	}
	h, err := readSliceHeader(text, b)
	if err != nil {
		return nil, err
	}
	d := &SliceData{Text: text, Session: h.session, Version: h.version, K: h.k, Bound: h.bound}
	line1 := strings.IndexByte(text, '\n') + 1
	anchorVars, err := readAnchorsLine(text, line1, h)
	if err != nil {
		return nil, err
	}
	if h.rows == 0 {
		if err := onlyComments(text, line1); err != nil {
			return nil, err
		}
	} else {
		p, err := plan(text)
		if err != nil {
			return nil, err
		}
		if err := d.readInsert(p, h); err != nil {
			return nil, err
		}
	}
	byVar := make(map[string]int, len(d.Nodes))
	for i, n := range d.Nodes {
		byVar[n.Var] = i
	}
	for _, a := range anchorVars {
		i, ok := byVar[a.name]
		if !ok {
			return nil, notSlice(text, a.pos, "anchor %s is not a node of the slice", a.name)
		}
		d.Anchors = append(d.Anchors, i)
	}
	if got := sliceSum(h.head, text[line1:]); got != h.sum {
		return nil, notSlice(text, h.at["sum"], "the slice's sum does not match its text: it was changed after export, or damaged")
	}
	return d, nil
}

func notSlice(text string, pos gqlstatus.Pos, format string, args ...any) *gqlstatus.Error {
	return gqlstatus.At(gqlstatus.Syntax, pos, text, "not a slice: "+format, args...).
		WithHint("a slice is ExportSlice's output (gqlsh :export), absorbed as it was written: export it again")
}

// posOf is the position of byte offset off in text.
func posOf(text string, off int) gqlstatus.Pos {
	off = min(max(off, 0), len(text))
	line := 1 + strings.Count(text[:off], "\n")
	start := strings.LastIndexByte(text[:off], '\n') + 1
	return gqlstatus.Pos{Line: line, Col: utf8.RuneCountInString(text[start:off]) + 1, Offset: off}
}

func firstBadByte(text string) int {
	for i, r := range text {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(text[i:]); n == 1 {
				return i
			}
		}
	}
	return len(text)
}

// sliceFields are the header's fields, in their order.
var sliceFields = [...]string{"session", "version", "anchors", "k", "rows", "sum"}

func readSliceHeader(text string, b SliceBounds) (sliceHeader, error) {
	h := sliceHeader{at: map[string]gqlstatus.Pos{}}
	line, _, _ := strings.Cut(text, "\n")
	if !strings.HasPrefix(line, sliceMagic) {
		e := notSlice(text, posOf(text, 0), "a slice starts with the header line %q", strings.TrimSpace(sliceMagic)+" …")
		if strings.HasPrefix(line, shapeMagic) {
			e = gqlstatus.At(gqlstatus.Syntax, posOf(text, 0), text, "not a slice: this is a Shape, which carries no engine ids").
				WithHint("Commit a Shape's body to copy its elements with fresh ids; export a slice with ExportSlice (gqlsh :export)")
		}
		return h, e
	}
	off := len(sliceMagic)
	fields := strings.Split(line[off:], " ")
	if len(fields) != len(sliceFields) {
		return h, notSlice(text, posOf(text, len(line)), "the header holds the fields %s, in that order", strings.Join(sliceFields[:], ", "))
	}
	for i, f := range fields {
		pos := posOf(text, off)
		name, val, _ := strings.Cut(f, "=")
		if name != sliceFields[i] {
			return h, notSlice(text, pos, "the header's field %d is %s=…, not %q", i+1, sliceFields[i], f)
		}
		h.at[name] = pos
		bad := func(what string) error { return notSlice(text, pos, "the header's %s is %s", name, what) }
		var err error
		switch name {
		case "session":
			if val == "" {
				return h, bad("empty")
			}
			h.session = val
		case "version":
			if h.version, err = strconv.ParseUint(val, 10, 64); err != nil {
				return h, bad("not a version")
			}
		case "anchors":
			h.anchors, err = count(val)
		case "k":
			h.k, err = count(val)
		case "rows":
			r, bd, ok := strings.Cut(val, "/")
			if h.rows, err = count(r); err == nil && ok {
				h.bound, err = count(bd)
			} else if !ok {
				return h, bad("not ROWS/BOUND")
			}
		case "sum":
			h.head = line[:off-1]
			if len(val) != 16 || strings.Trim(val, "0123456789abcdef") != "" {
				return h, bad("not 16 hex digits")
			}
			h.sum = val
		}
		if err != nil {
			return h, bad("not a count")
		}
		off += len(f) + 1
	}
	if b.Catalog != "" && h.session == b.Catalog {
		return h, gqlstatus.At(gqlstatus.ReadOnlySession, h.at["session"], text,
			"the slice was exported from the %s session, which is kept by the engine and is no slice's source; nothing applied", b.Catalog).
			WithHint("absorb slices of the sessions themselves")
	}
	rowsAt := h.at["rows"]
	switch {
	case h.rows > h.bound:
		return h, gqlstatus.At(gqlstatus.CommitBudget, rowsAt, text,
			"the slice holds %d rows, over its bound of %d (M × %d %s); nothing applied", h.rows, h.bound, h.anchors, plural(h.anchors, "anchor", "anchors")).
			WithHint("a slice holds the neighbourhoods of its anchors, never a whole session: export it again")
	case b.Rows > 0 && h.bound > b.Rows, b.PerAnchor > 0 && h.bound > b.PerAnchor*h.anchors:
		return h, gqlstatus.At(gqlstatus.CommitBudget, rowsAt, text,
			"the slice's bound of %d rows is over this database's slice bound (%d rows, at most %d per anchor); nothing applied",
			h.bound, b.Rows, b.PerAnchor).
			WithHint("export it with a smaller M or fewer anchors")
	}
	return h, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// count reads a non-negative decimal count (no sign, no leading zero).
func count(s string) (int, error) {
	if s == "" || len(s) > 1 && s[0] == '0' || strings.Trim(s, "0123456789") != "" {
		return 0, strconv.ErrSyntax
	}
	n, err := strconv.ParseInt(s, 10, 32)
	return int(n), err
}

type anchorVar struct {
	name string
	pos  gqlstatus.Pos
}

// readAnchorsLine reads the line after the header: the anchors' variables.
func readAnchorsLine(text string, at int, h sliceHeader) ([]anchorVar, error) {
	line, _, _ := strings.Cut(text[at:], "\n")
	if !strings.HasPrefix(line, anchorsMark) {
		return nil, notSlice(text, posOf(text, at), "the header's next line lists the anchors: %q", anchorsMark+"…")
	}
	list := line[len(anchorsMark):]
	off := at + len(anchorsMark)
	var out []anchorVar
	if list != noAnchors {
		for _, v := range strings.Split(list, ", ") {
			out = append(out, anchorVar{v, posOf(text, off)})
			off += len(v) + 2
		}
	}
	if len(out) != h.anchors {
		return nil, notSlice(text, posOf(text, at), "the anchors line names %d anchors, the header %d", len(out), h.anchors)
	}
	return out, nil
}

// onlyComments checks that an empty slice holds nothing after its
// header but comment lines.
func onlyComments(text string, at int) error {
	for at < len(text) {
		line, _, _ := strings.Cut(text[at:], "\n")
		if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "//") {
			return notSlice(text, posOf(text, at), "the header says the slice holds no rows, but text follows")
		}
		at += len(line) + 1
	}
	return nil
}

// readInsert reads the slice's one INSERT: each node declared once as
// (v_ID:Labels {literals}), each edge as (a)-[e_ID:TYPE {literals}]->(b)
// between declared nodes.
func (d *SliceData) readInsert(p *planner.Plan, h sliceHeader) error {
	text := d.Text
	if len(p.Stmts) == 0 {
		return notSlice(text, posOf(text, len(text)), "the header says the slice holds %d rows, but the text ends before its INSERT: it was cut short", h.rows)
	}
	if len(p.Stmts) != 1 || p.RolledBack {
		at := gqlstatus.Pos{Line: 1, Col: 1}
		if len(p.Stmts) > 1 {
			at = p.Stmts[1].Pos
		}
		return notSlice(text, at, "a slice is one INSERT statement")
	}
	st := p.Stmts[0]
	if len(p.Params) > 0 {
		return notSlice(text, p.ParamPos[0], "a slice holds literal values, not $parameters")
	}
	if st.Call != nil || st.Define != nil || len(st.Steps) != 1 {
		return notSlice(text, st.Pos, "a slice is one INSERT statement")
	}
	ins, ok := st.Steps[0].(*planner.InsertStep)
	if !ok {
		return notSlice(text, st.Pos, "a slice is one INSERT statement")
	}
	node := make(map[int]int) // variable slot → position in Nodes
	ids := make(map[store.ID]string)
	claim := func(v string, pos gqlstatus.Pos, want string) (store.ID, error) {
		id, ok := varID(v, want)
		if !ok {
			form := "a prefix, '_' and its engine id in decimal (tsk_17)"
			if want != "" {
				form = want + "_ID, ID its engine id in decimal (" + want + "_17)"
			}
			return 0, notSlice(text, pos, "%s is not a slice variable: a slice names an element by %s", v, form)
		}
		if other, dup := ids[id]; dup {
			return 0, notSlice(text, pos, "id %d is given twice (%s and %s)", id, other, v)
		}
		ids[id] = v
		return id, nil
	}
	for _, pp := range ins.Patterns {
		switch {
		case len(pp.Nodes) == 1 && len(pp.Edges) == 0:
			np := pp.Nodes[0]
			if np.Slot < 0 || np.Bound {
				return notSlice(text, np.Pos, "a slice declares each node once, with its variable: (v_ID:Kind {…})")
			}
			v := st.Vars[np.Slot]
			id, err := claim(v, np.Pos, "")
			if err != nil {
				return err
			}
			props, err := sliceProps(text, np.Props)
			if err != nil {
				return err
			}
			if nick, ok := props.Get(store.NickKey); ok && nick.Kind() != values.KindString {
				return gqlstatus.At(gqlstatus.InvalidValueType, np.Pos, text, "nick must be a STRING, not %s", nick.Kind())
			}
			node[np.Slot] = len(d.Nodes)
			d.Nodes = append(d.Nodes, SliceNode{Var: v, ID: id, Labels: dedupe(np.Labels), Props: props, Pos: np.Pos})
		case len(pp.Nodes) == 2 && len(pp.Edges) == 1:
			ep := pp.Edges[0]
			from, okf := node[pp.Nodes[0].Slot]
			to, okt := node[pp.Nodes[1].Slot]
			if !okf || !okt || !pp.Nodes[0].Bound || !pp.Nodes[1].Bound {
				return notSlice(text, pp.Pos, "an edge of a slice joins two nodes declared before it: (a)-[e_ID:TYPE]->(b)")
			}
			if ep.Slot < 0 || ep.Dir != ast.DirOut {
				return notSlice(text, ep.Pos, "a slice writes an edge as -[e_ID:TYPE {…}]->")
			}
			v := st.Vars[ep.Slot]
			id, err := claim(v, ep.Pos, edgePrefix)
			if err != nil {
				return err
			}
			props, err := sliceProps(text, ep.Props)
			if err != nil {
				return err
			}
			d.Edges = append(d.Edges, SliceEdge{Var: v, ID: id, Type: ep.Types[0], From: from, To: to, Props: props, Pos: ep.Pos})
		default:
			return notSlice(text, pp.Pos, "a slice writes one node or one edge per pattern")
		}
	}
	if d.Rows() != h.rows {
		return notSlice(text, h.at["rows"], "the header says %d rows, the INSERT writes %d", h.rows, d.Rows())
	}
	return nil
}

// varID reads the id of a slice variable: prefix, '_', the id in
// decimal (no leading zero, not 0). An edge's prefix is want; a node's
// (want "") is any.
func varID(v, want string) (store.ID, bool) {
	i := strings.LastIndexByte(v, '_')
	if i < 1 || want != "" && v[:i] != want {
		return 0, false
	}
	digits := v[i+1:]
	if digits == "" || digits[0] == '0' || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	id, err := strconv.ParseUint(digits, 10, 64)
	return store.ID(id), err == nil
}

// sliceProps reads a pattern's properties: literals only, none null.
func sliceProps(text string, pps []planner.PropPlan) (values.Props, error) {
	if len(pps) == 0 {
		return nil, nil
	}
	m := make(map[string]values.Value, len(pps))
	for _, pp := range pps {
		if pp.Val.Const == nil {
			return nil, notSlice(text, pp.Val.Pos, "property %s is not a literal: a slice holds literal values", pp.Key)
		}
		if pp.Val.Const.IsNull() {
			return nil, notSlice(text, pp.Val.Pos, "property %s is null: a slice writes no null", pp.Key)
		}
		m[pp.Key] = *pp.Val.Const
	}
	return values.MakeProps(m), nil
}
