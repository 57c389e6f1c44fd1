package planner

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/goldfish-gql/goldfish/celval"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/store"
)

// VarKind says what a variable is bound to.
type VarKind uint8

const (
	VarNode VarKind = iota
	VarEdge
)

// Plan is a planned script: the statements of one Commit, or one Recall.
type Plan struct {
	Text string
	// Params lists parameter names in slot order (p0, p1, …), ParamPos
	// where each is first named in Text.
	Params   []string
	ParamPos []ast.Pos
	Stmts    []*Statement
	// RolledBack is set when the text ends with ROLLBACK: nothing applies.
	RolledBack bool
	// Notices are the parser's warnings about the text (a comment that
	// swallowed a likely arrow), each also on its statement.
	Notices []gqlstatus.Notice
	// size is the estimate Size returns, taken once when planned.
	size int
}

// Size estimates the bytes the plan holds besides its text (Text), so a
// cache of plans can be bounded by memory rather than by count. The
// compiled CEL programs are shared between plans by source and kept in
// their own bounded cache; only the plan's references to them count here.
func (p *Plan) Size() int { return p.size }

// Read reports whether the plan is a single read-only MATCH: a Recall.
func (p *Plan) Read() bool {
	return len(p.Stmts) == 1 && p.Stmts[0].Read
}

// Statement is one planned statement.
type Statement struct {
	// Index is the 1-based number of the statement in the text.
	Index int
	Pos   ast.Pos
	Text  string
	// Vars and Kinds describe the variable slots (v0, v1, …).
	Vars  []string
	Kinds []VarKind
	Steps []Step
	// Read marks MATCH [WHERE] [LIMIT] with nothing else: a Recall.
	Read bool
	// Call is set for CALL name(args).
	Call *CallStep
	// Define is set for a registration or a drop of the vocabulary.
	Define *DefineStep
	// Recall is set when Read: the statement planned as a Recall.
	Recall *RecallPlan
	// Notices are the parser's warnings about this statement's text.
	Notices []gqlstatus.Notice
}

// Step is one stage of a statement, run over the rows bound so far.
type Step interface{ step() }

// MatchStep binds rows from patterns and filters them.
type MatchStep struct {
	Pos      ast.Pos
	Patterns []*PathPlan
	Where    *Program // nil when absent
}

// LimitStep keeps the first rows.
type LimitStep struct {
	Pos   ast.Pos
	Count Value
}

// InsertStep creates the patterns' new elements once per row.
type InsertStep struct {
	Pos      ast.Pos
	Patterns []*PathPlan
}

// SetStep applies items once per row.
type SetStep struct {
	Pos   ast.Pos
	Items []SetItem
}

// RemoveStep applies items once per row.
type RemoveStep struct {
	Pos   ast.Pos
	Items []RemoveItem
}

// DeleteStep recycles the bound elements of each row.
type DeleteStep struct {
	Pos    ast.Pos
	Detach bool
	Slots  []int
	Poses  []ast.Pos
}

// CallStep invokes a registered action. Names holds, per argument, the
// parameter it names, "" for a positional one.
type CallStep struct {
	Pos   ast.Pos
	Name  string
	Args  []Value
	Names []string
}

func (*MatchStep) step()  {}
func (*LimitStep) step()  {}
func (*InsertStep) step() {}
func (*SetStep) step()    {}
func (*RemoveStep) step() {}
func (*DeleteStep) step() {}
func (*CallStep) step()   {}

// PathPlan is a planned path pattern: Nodes[i] -Edges[i]- Nodes[i+1].
type PathPlan struct {
	Pos   ast.Pos
	Nodes []*NodePlan
	Edges []*EdgePlan
}

// NodePlan is a planned node pattern.
type NodePlan struct {
	Pos ast.Pos
	// Slot is the variable slot, or -1 for an anonymous node.
	Slot int
	// Bound is set when an earlier clause or pattern element binds Slot.
	Bound  bool
	Labels []string
	// LabelExpr is a label expression that is not a plain conjunction
	// (:A|B, :!A, :%); Labels is then nil (see LabelsMatch).
	LabelExpr *ast.LabelExpr
	Props     []PropPlan
	Where     *Program
}

// LabelsMatch reports whether node n has the labels the pattern asks for.
func (np *NodePlan) LabelsMatch(n *store.Node) bool {
	for _, l := range np.Labels {
		if !n.HasLabel(l) {
			return false
		}
	}
	return np.LabelExpr == nil || labelExprMatch(np.LabelExpr, n.HasLabel, len(n.Labels) > 0)
}

// EdgePlan is a planned edge pattern.
type EdgePlan struct {
	Pos   ast.Pos
	Slot  int
	Bound bool
	Types []string
	// TypeExpr is a type expression that is not one type or a plain
	// alternation (:!T, :%); Types is then nil (see TypeMatches).
	TypeExpr *ast.LabelExpr
	Dir      ast.Direction
	Props    []PropPlan
}

// TypeMatches reports whether an edge of type typ has the type the
// pattern asks for.
func (ep *EdgePlan) TypeMatches(typ string) bool {
	if len(ep.Types) > 0 {
		for _, t := range ep.Types {
			if t == typ {
				return true
			}
		}
		return false
	}
	return ep.TypeExpr == nil || labelExprMatch(ep.TypeExpr, func(l string) bool { return l == typ }, true)
}

// labelExprMatch evaluates a label expression over an element's labels:
// has tells whether it carries a label, any whether it carries one at all.
func labelExprMatch(e *ast.LabelExpr, has func(string) bool, any bool) bool {
	switch e.Op {
	case ast.LabelName:
		return has(e.Name)
	case ast.LabelAny:
		return any
	case ast.LabelNot:
		return !labelExprMatch(e.Args[0], has, any)
	case ast.LabelAnd:
		for _, a := range e.Args {
			if !labelExprMatch(a, has, any) {
				return false
			}
		}
		return true
	case ast.LabelOr:
		for _, a := range e.Args {
			if labelExprMatch(a, has, any) {
				return true
			}
		}
	}
	return false
}

// PropPlan is key: value in a pattern or in SET n = {…}.
type PropPlan struct {
	Pos ast.Pos
	Key string
	Val Value
}

// Value is an expression folded to a constant when it is one, else a
// parameter slot or a CEL program.
type Value struct {
	Pos   ast.Pos
	Const *store.Value
	Param int // parameter slot when Const and Prog are nil
	Prog  *Program
}

// SetItem is one planned SET item; exactly one form is filled.
type SetItem struct {
	Pos    ast.Pos
	Slot   int
	Key    string     // SET v.key = Val
	Val    Value      //
	All    []PropPlan // SET v = {…} / v += {…}
	IsAll  bool
	Merge  bool
	Labels []string // SET v:Label
}

// RemoveItem is one planned REMOVE item.
type RemoveItem struct {
	Pos    ast.Pos
	Slot   int
	Key    string
	Labels []string
}

// Build plans a parsed script.
func Build(script *ast.Script) (*Plan, error) {
	p, err := build(script)
	if script.ArrowsRead {
		// The parser read "--" as edges only to find what the text holds
		// outside the subset: say so with the refusal; such a text never
		// runs.
		var ge *gqlstatus.Error
		if err == nil || !errors.As(err, &ge) {
			return nil, gqlstatus.Errorf(gqlstatus.Syntax, "the text does not parse with \"--\" read as a comment").
				WithHint("write edges as -> or -[:TYPE]->")
		}
		if len(script.Notices) > 0 {
			n := script.Notices[0]
			ge.Hint += fmt.Sprintf(`; this reads the "--" at %s as an edge, as Cypher does: GQL reads it as a comment, and the text does not parse that way`, n.Pos)
		}
		return nil, ge
	}
	if err != nil && len(script.Notices) > 0 {
		// A comment that hid a likely arrow may be why the text fails (it
		// can swallow a ';', joining two statements): the error says so.
		var ge *gqlstatus.Error
		if n := script.Notices[0]; errors.As(err, &ge) && ge.Pos.Valid() && ge.Pos.Offset > n.Pos.Offset {
			ge.Hint = strings.TrimPrefix(ge.Hint+"; also: "+n.Msg, "; ")
		}
	}
	return p, err
}

func build(script *ast.Script) (*Plan, error) {
	p := &Plan{Text: script.Text, Notices: script.Notices}
	params := &paramTable{index: map[string]int{}}
	inTx, ended, readOnly := false, false, false
	for i, st := range script.Stmts {
		index := i + 1
		if ended {
			return nil, gqlstatus.At(gqlstatus.InvalidTransactionState, st.Position(), script.Text,
				"statement after the end of the transaction").
				WithHint("one text is one Δ: end it with COMMIT or ROLLBACK, or send the rest separately")
		}
		switch s := st.(type) {
		case *ast.StartTransaction:
			if inTx || len(p.Stmts) > 0 {
				return nil, gqlstatus.At(txStartCode(inTx), s.Pos, script.Text,
					"START TRANSACTION must open the text, once").
					WithHint("one text is already one atomic Δ; transactions do not nest")
			}
			inTx, readOnly = true, s.ReadOnly
		case *ast.CommitTx, *ast.RollbackTx:
			if !inTx {
				return nil, gqlstatus.At(gqlstatus.InvalidTransactionState, s.Position(), script.Text,
					"%s without START TRANSACTION", txWord(s)).
					WithHint("a text sent alone is already one atomic Δ")
			}
			_, p.RolledBack = s.(*ast.RollbackTx)
			ended = true
		case *ast.Call:
			sc := &scope{text: script.Text, slots: map[string]int{}, params: params}
			cs := &CallStep{Pos: s.Pos, Name: s.Name, Names: s.Names}
			for _, a := range s.Args {
				v, err := sc.value(a)
				if err != nil {
					return nil, stmtErr(err, index)
				}
				cs.Args = append(cs.Args, v)
			}
			if readOnly {
				return nil, stmtErr(readOnlyErr(script.Text, s.Pos), index)
			}
			p.Stmts = append(p.Stmts, &Statement{Index: index, Pos: s.Pos, Call: cs, Text: script.Text})
		case *ast.DefineView, *ast.DefineAction, *ast.DropVocab:
			if readOnly {
				return nil, stmtErr(readOnlyErr(script.Text, s.Position()), index)
			}
			stmt, err := planDefine(s, script.Text, index)
			if err != nil {
				return nil, stmtErr(err, index)
			}
			p.Stmts = append(p.Stmts, stmt)
		case *ast.Query:
			stmt, err := planQuery(s, script.Text, params, index)
			if err != nil {
				return nil, stmtErr(err, index)
			}
			if readOnly && !stmt.Read {
				return nil, stmtErr(readOnlyErr(script.Text, s.Pos), index)
			}
			p.Stmts = append(p.Stmts, stmt)
		}
	}
	attachNotices(p, script)
	if inTx && !ended {
		return nil, gqlstatus.Errorf(gqlstatus.InvalidTransactionState, "START TRANSACTION without COMMIT or ROLLBACK").
			WithHint("end the transaction with COMMIT to apply it, or ROLLBACK to drop it")
	}
	p.Params, p.ParamPos = params.names, params.poses
	p.size = planSize(p)
	return p, nil
}

// Rough sizes of the planned structures: a struct with its slice headers
// and pointers, a string header, a slice element.
const (
	sizePlan    = 96
	sizeStmt    = 192
	sizeStep    = 64
	sizePath    = 64
	sizeNode    = 128
	sizeEdge    = 112
	sizeProp    = 96
	sizeProgram = 144
	sizeString  = 16
)

func planSize(p *Plan) int {
	n := sizePlan
	for _, name := range p.Params {
		n += sizeString + len(name)
	}
	for _, st := range p.Stmts {
		n += sizeStmt
		for _, v := range st.Vars {
			n += sizeString + len(v) + 1
		}
		for _, step := range st.Steps {
			n += sizeStep + stepSize(step)
		}
		if st.Call != nil {
			n += sizeStep + len(st.Call.Name) + len(st.Call.Args)*valueSize(Value{})
			for _, a := range st.Call.Args {
				n += valueSize(a)
			}
		}
		if d := st.Define; d != nil {
			n += sizeStep + len(d.Name) + len(d.Intent) + len(d.Expr) + len(d.Def.Source) + len(d.Def.If)
			if body, ok := d.Def.Body.(*Plan); ok {
				n += body.Size()
			}
		}
		if rp := st.Recall; rp != nil {
			n += sizeStep + len(rp.Key) + 8*len(rp.Seeds) + sizeString*len(rp.Filters)
			for _, fs := range rp.Filters {
				n += 8 * len(fs) // programs shared with the MATCH step
			}
		}
	}
	return n
}

func stepSize(step Step) int {
	switch s := step.(type) {
	case *MatchStep:
		return pathsSize(s.Patterns) + programSize(s.Where)
	case *InsertStep:
		return pathsSize(s.Patterns)
	case *LimitStep:
		return valueSize(s.Count)
	case *SetStep:
		n := 0
		for _, it := range s.Items {
			n += sizeProp + len(it.Key) + valueSize(it.Val) + propsSize(it.All) + stringsSize(it.Labels)
		}
		return n
	case *RemoveStep:
		n := 0
		for _, it := range s.Items {
			n += sizeProp + len(it.Key) + stringsSize(it.Labels)
		}
		return n
	case *DeleteStep:
		return 32 * len(s.Slots)
	}
	return 0
}

func pathsSize(paths []*PathPlan) int {
	n := 0
	for _, p := range paths {
		n += sizePath
		for _, np := range p.Nodes {
			n += sizeNode + stringsSize(np.Labels) + labelExprSize(np.LabelExpr) + propsSize(np.Props) + programSize(np.Where)
		}
		for _, ep := range p.Edges {
			n += sizeEdge + stringsSize(ep.Types) + labelExprSize(ep.TypeExpr) + propsSize(ep.Props)
		}
	}
	return n
}

func labelExprSize(e *ast.LabelExpr) int {
	if e == nil {
		return 0
	}
	n := sizeProp + len(e.Name)
	for _, a := range e.Args {
		n += labelExprSize(a)
	}
	return n
}

func propsSize(props []PropPlan) int {
	n := 0
	for _, pp := range props {
		n += sizeProp + len(pp.Key) + valueSize(pp.Val)
	}
	return n
}

func valueSize(v Value) int {
	n := 0
	if v.Const != nil {
		n += 32 + v.Const.Size()
	}
	return n + programSize(v.Prog)
}

func programSize(p *Program) int {
	if p == nil {
		return 0
	}
	return sizeProgram + len(p.Source) + len(p.word)
}

func stringsSize(ss []string) int {
	n := 0
	for _, s := range ss {
		n += sizeString + len(s)
	}
	return n
}

// readOnlyErr refuses a change inside START TRANSACTION READ ONLY.
func readOnlyErr(text string, pos ast.Pos) *gqlstatus.Error {
	return gqlstatus.At(gqlstatus.ReadOnlyTransaction, pos, text,
		"this statement changes data inside START TRANSACTION READ ONLY").
		WithHint("start the transaction with START TRANSACTION (or READ WRITE) to change data; a Recall reads without one")
}

// attachNotices gives each statement the warnings about its own text: a
// warning belongs to the last statement that starts at or before it.
func attachNotices(p *Plan, script *ast.Script) {
	if len(p.Stmts) == 0 {
		return
	}
	for _, n := range script.Notices {
		at := p.Stmts[0]
		for _, st := range p.Stmts[1:] {
			if st.Pos.Offset <= n.Pos.Offset {
				at = st
			}
		}
		at.Notices = append(at.Notices, n)
		if at.Recall != nil {
			at.Recall.Key += noticeKey(n)
		}
	}
}

// noticeKey is a warning's part of a Recall key: the Shape carries the
// warning, so a text with one and a text without never share a Shape.
func noticeKey(n gqlstatus.Notice) string {
	return "n" + strconv.Itoa(len(n.Msg)) + ":" + n.Msg + n.Pos.String()
}

func txWord(s ast.Stmt) string {
	if _, ok := s.(*ast.CommitTx); ok {
		return "COMMIT"
	}
	return "ROLLBACK"
}

func stmtErr(err error, index int) error {
	if e, ok := err.(*gqlstatus.Error); ok && e.Stmt == 0 {
		e.Stmt = index
	}
	return err
}

func planQuery(q *ast.Query, text string, params *paramTable, index int) (*Statement, error) {
	if err := firstRefusal(q, text); err != nil {
		return nil, err
	}
	sc := &scope{text: text, slots: map[string]int{}, params: params}
	st := &Statement{Index: index, Pos: q.Pos, Text: q.Text}
	read := true
	sawMatch := false
	for _, c := range q.Clauses {
		switch x := c.(type) {
		case *ast.Match:
			if x.Optional {
				return nil, refuse(text, x.Pos, "OPTIONAL MATCH")
			}
			sawMatch = true
			m := &MatchStep{Pos: x.Pos}
			for _, pp := range x.Patterns {
				path, err := sc.path(pp, false)
				if err != nil {
					return nil, err
				}
				m.Patterns = append(m.Patterns, path)
			}
			if x.Where != nil {
				prg, err := sc.compile(x.Where)
				if err != nil {
					return nil, err
				}
				m.Where = prg
			}
			st.Steps = append(st.Steps, m)
		case *ast.Limit:
			v, err := sc.value(x.Count)
			if err != nil {
				return nil, err
			}
			if v.Const != nil {
				if v.Const.Kind() != store.KindInt {
					return nil, sc.errAt(gqlstatus.InvalidValueType, x.Count.Position(), "LIMIT takes an integer, not %s", v.Const.Kind())
				}
				if v.Const.AsInt() < 0 {
					return nil, sc.errAt(gqlstatus.NegativeLimit, x.Count.Position(), "LIMIT is negative (%d)", v.Const.AsInt()).
						WithHint("write LIMIT 0 or more")
				}
			}
			st.Steps = append(st.Steps, &LimitStep{Pos: x.Pos, Count: v})
		case *ast.Insert:
			read = false
			ins := &InsertStep{Pos: x.Pos}
			for _, pp := range x.Patterns {
				path, err := sc.path(pp, true)
				if err != nil {
					return nil, err
				}
				ins.Patterns = append(ins.Patterns, path)
			}
			st.Steps = append(st.Steps, ins)
		case *ast.Set:
			read = false
			s := &SetStep{Pos: x.Pos}
			for _, it := range x.Items {
				item, err := sc.setItem(it)
				if err != nil {
					return nil, err
				}
				s.Items = append(s.Items, item)
			}
			st.Steps = append(st.Steps, s)
		case *ast.Remove:
			read = false
			r := &RemoveStep{Pos: x.Pos}
			for _, it := range x.Items {
				item, err := sc.removeItem(it)
				if err != nil {
					return nil, err
				}
				r.Items = append(r.Items, item)
			}
			st.Steps = append(st.Steps, r)
		case *ast.Delete:
			read = false
			d := &DeleteStep{Pos: x.Pos, Detach: x.Detach}
			for _, e := range x.Exprs {
				v, ok := e.(*ast.Var)
				if !ok {
					return nil, sc.errAt(gqlstatus.Syntax, e.Position(), "DELETE takes variables").
						WithHint("bind the element in MATCH and DELETE its variable")
				}
				slot, err := sc.bound(v.Name, v.Pos)
				if err != nil {
					return nil, err
				}
				d.Slots = append(d.Slots, slot)
				d.Poses = append(d.Poses, v.Pos)
			}
			st.Steps = append(st.Steps, d)
		}
	}
	st.Read = read && sawMatch
	st.Vars = sc.names
	st.Kinds = sc.kinds
	if st.Read {
		rp, err := planRecall(q, st, sc)
		if err != nil {
			return nil, err
		}
		st.Recall = rp
	}
	if len(st.Steps) == 0 {
		return nil, sc.errAt(gqlstatus.Syntax, q.Pos, "empty statement")
	}
	if _, first := st.Steps[0].(*LimitStep); first {
		return nil, sc.errAt(gqlstatus.Syntax, q.Pos, "LIMIT needs a MATCH before it")
	}
	return st, nil
}

func (s *scope) bound(name string, pos ast.Pos) (int, error) {
	slot, ok := s.slots[name]
	if !ok {
		return 0, s.errAt(gqlstatus.InvalidReference, pos, "variable %s is not bound", name).
			WithHint("bind it in a MATCH or INSERT pattern first")
	}
	return slot, nil
}

// declare binds a variable to a slot, or checks an existing binding has the
// same kind. It reports whether the variable was bound before.
func (s *scope) declare(name string, kind VarKind, pos ast.Pos) (int, bool, error) {
	if name == "" {
		return -1, false, nil
	}
	if slot, ok := s.slots[name]; ok {
		if s.kinds[slot] != kind {
			what := map[VarKind]string{VarNode: "a node", VarEdge: "an edge"}
			return 0, false, s.errAt(gqlstatus.InvalidReference, pos,
				"variable %s is %s here but %s where it was bound", name, what[kind], what[s.kinds[slot]])
		}
		return slot, true, nil
	}
	slot := len(s.names)
	s.slots[name] = slot
	s.names = append(s.names, name)
	s.kinds = append(s.kinds, kind)
	return slot, false, nil
}

func (s *scope) path(pp *ast.PathPattern, insert bool) (*PathPlan, error) {
	if pp.Var != "" {
		return nil, refuse(s.text, pp.Pos, "path variable")
	}
	out := &PathPlan{Pos: pp.Pos}
	for i, np := range pp.Nodes {
		n, err := s.node(np, insert)
		if err != nil {
			return nil, err
		}
		out.Nodes = append(out.Nodes, n)
		if i < len(pp.Edges) {
			e, err := s.edge(pp.Edges[i], insert)
			if err != nil {
				return nil, err
			}
			out.Edges = append(out.Edges, e)
		}
	}
	return out, nil
}

func (s *scope) node(np *ast.NodePattern, insert bool) (*NodePlan, error) {
	slot, bound, err := s.declare(np.Var, VarNode, np.Pos)
	if err != nil {
		return nil, err
	}
	n := &NodePlan{Pos: np.Pos, Slot: slot, Bound: bound, Labels: np.Labels, LabelExpr: np.LabelExpr}
	if insert && np.LabelExpr != nil {
		return nil, s.errAt(gqlstatus.Syntax, np.LabelExpr.Pos, "INSERT gives a node the labels it names; |, ! and %% name no label to give").
			WithHint("write :A for one label, or :A:B for both A and B")
	}
	if insert && bound && (len(np.Labels) > 0 || len(np.Props) > 0) {
		return nil, s.errAt(gqlstatus.Syntax, np.Pos, "node %s is already bound; INSERT cannot add labels or properties to it", np.Var).
			WithHint(fmt.Sprintf("write (%s) here and use SET for labels and properties", np.Var))
	}
	if n.Props, err = s.props(np.Props); err != nil {
		return nil, err
	}
	if np.Where != nil {
		if insert {
			return nil, s.errAt(gqlstatus.Syntax, np.Where.Position(), "WHERE inside an INSERT pattern")
		}
		if n.Where, err = s.compile(np.Where); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func (s *scope) edge(ep *ast.EdgePattern, insert bool) (*EdgePlan, error) {
	if ep.Quant != nil {
		return nil, refuse(s.text, ep.Quant.Pos, "quantified path")
	}
	slot, bound, err := s.declare(ep.Var, VarEdge, ep.Pos)
	if err != nil {
		return nil, err
	}
	e := &EdgePlan{Pos: ep.Pos, Slot: slot, Bound: bound, Types: ep.Types, TypeExpr: ep.TypeExpr, Dir: ep.Dir}
	if insert {
		switch {
		case bound:
			return nil, s.errAt(gqlstatus.Syntax, ep.Pos, "edge %s is already bound; INSERT creates new edges", ep.Var)
		case ep.Dir == ast.DirBoth:
			return nil, s.errAt(gqlstatus.Syntax, ep.Pos, "an inserted edge needs a direction").
				WithHint("write -[:TYPE]-> or <-[:TYPE]-")
		case len(ep.Types) != 1:
			return nil, s.errAt(gqlstatus.Syntax, ep.Pos, "an inserted edge needs exactly one type").
				WithHint("write -[:TYPE]->")
		}
	}
	if e.Props, err = s.props(ep.Props); err != nil {
		return nil, err
	}
	return e, nil
}

func (s *scope) props(entries []*ast.PropEntry) ([]PropPlan, error) {
	var out []PropPlan
	seen := map[string]bool{}
	for _, pe := range entries {
		if seen[pe.Key] {
			return nil, s.errAt(gqlstatus.DuplicateAssignment, pe.Pos, "property %s is given twice", pe.Key)
		}
		seen[pe.Key] = true
		v, err := s.value(pe.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, PropPlan{Pos: pe.Pos, Key: pe.Key, Val: v})
	}
	return out, nil
}

// value plans a value expression: constants fold, parameters stay slots,
// the rest compiles to CEL. A constant no property can hold is refused
// here, at its literal, so a Commit never writes it.
func (s *scope) value(e ast.Expr) (Value, error) {
	if v, ok, err := s.constValue(e, 0); err != nil || ok {
		if err != nil {
			return Value{}, err
		}
		if err := v.Check(); err != nil {
			return Value{}, s.errAt(ValueCode(err), e.Position(), "%v", err).
				WithHint("write a value a property can hold")
		}
		return Value{Pos: e.Position(), Const: &v, Param: -1}, nil
	}
	if p, ok := e.(*ast.Param); ok {
		return Value{Pos: p.Pos, Param: s.params.slot(p.Name, p.Pos)}, nil
	}
	prg, err := s.compile(e)
	if err != nil {
		return Value{}, err
	}
	return Value{Pos: e.Position(), Prog: prg, Param: -1}, nil
}

func (s *scope) setItem(it ast.SetItem) (SetItem, error) {
	switch x := it.(type) {
	case *ast.SetProp:
		slot, err := s.bound(x.Var, x.Pos)
		if err != nil {
			return SetItem{}, err
		}
		v, err := s.value(x.Value)
		if err != nil {
			return SetItem{}, err
		}
		return SetItem{Pos: x.Pos, Slot: slot, Key: x.Key, Val: v}, nil
	case *ast.SetAllProps:
		slot, err := s.bound(x.Var, x.Pos)
		if err != nil {
			return SetItem{}, err
		}
		var entries []*ast.PropEntry
		if x.Map != nil {
			entries = x.Map.Entries
		}
		all, err := s.props(entries)
		if err != nil {
			return SetItem{}, err
		}
		return SetItem{Pos: x.Pos, Slot: slot, All: all, IsAll: true, Merge: x.Merge}, nil
	case *ast.SetLabels:
		slot, err := s.bound(x.Var, x.Pos)
		if err != nil {
			return SetItem{}, err
		}
		if s.kinds[slot] != VarNode {
			return SetItem{}, s.errAt(gqlstatus.InvalidValueType, x.Pos, "%s is an edge; an edge has one type and no labels to set", x.Var)
		}
		return SetItem{Pos: x.Pos, Slot: slot, Labels: x.Labels}, nil
	}
	return SetItem{}, gqlstatus.At(gqlstatus.Syntax, it.Position(), s.text, "unsupported SET item")
}

func (s *scope) removeItem(it ast.RemoveItem) (RemoveItem, error) {
	switch x := it.(type) {
	case *ast.RemoveProp:
		slot, err := s.bound(x.Var, x.Pos)
		if err != nil {
			return RemoveItem{}, err
		}
		return RemoveItem{Pos: x.Pos, Slot: slot, Key: x.Key}, nil
	case *ast.RemoveLabels:
		slot, err := s.bound(x.Var, x.Pos)
		if err != nil {
			return RemoveItem{}, err
		}
		if s.kinds[slot] != VarNode {
			return RemoveItem{}, s.errAt(gqlstatus.InvalidValueType, x.Pos, "%s is an edge; an edge has no labels to remove", x.Var)
		}
		return RemoveItem{Pos: x.Pos, Slot: slot, Labels: x.Labels}, nil
	}
	return RemoveItem{}, gqlstatus.At(gqlstatus.Syntax, it.Position(), s.text, "unsupported REMOVE item")
}

// NormalizeDateTime parses ISO 8601 date-time text, in any of the forms a
// DATETIME literal may take, and returns its canonical RFC 3339 form
// (its own offset kept, UTC when none is written). It refuses an instant
// outside the years 0000–9999, in UTC or in its own offset: no DATETIME
// property can hold one (store.CheckDateTime).
func NormalizeDateTime(s string) (string, error) {
	t, ok := celval.ParseDateTime(s)
	if !ok {
		return "", &codedError{gqlstatus.InvalidDateTimeFormat, fmt.Sprintf("DATETIME '%s' is not an ISO 8601 date and time; write DATETIME '2026-01-31T12:00:00Z'", s)}
	}
	if !store.InDateTimeRange(t) {
		return "", &codedError{gqlstatus.DateTimeOverflow, fmt.Sprintf("DATETIME '%s' is outside the years 0000 to 9999 (UTC); write an instant within them", s)}
	}
	return t.Format(time.RFC3339Nano), nil
}
