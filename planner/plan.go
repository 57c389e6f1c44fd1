package planner

import (
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
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
	// LabelExpr is a label expression, its runs of ! folded, that is
	// not a plain conjunction (:A|B, :!A, :%); Labels is then nil (see
	// LabelsMatch).
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
	// TypeExpr is a type expression, its runs of ! folded, that is not
	// one type or a plain alternation (:!T, :%); Types is then nil (see
	// TypeMatches).
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
	Const *values.Value
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
