// Package ast is goldfish's own syntax tree for the GQL subset. The parser
// builds it from ANTLR parse trees; nothing outside the parser ever sees an
// ANTLR type. Forms outside the subset that the grammar recognises (RETURN,
// ORDER BY, Cypher CREATE, …) appear as Refused clauses or flagged nodes so
// the planner can refuse them by name, with advice.
package ast

import (
	"strings"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// Pos is a position in the statement text.
type Pos = gqlstatus.Pos

// Script is a parsed text: its statements in order.
type Script struct {
	Text  string
	Stmts []Stmt
	// Notices are warnings about the text itself, in text order: a line
	// comment that starts right after ')', ']', '-' or '<', where "--"
	// was more likely meant as a Cypher arrow than as a comment.
	Notices []gqlstatus.Notice
	// ArrowsRead is set when the text did not parse with those comments
	// read as comments, and was read again with their "--" taken as
	// edges only to find what it holds outside the subset (which the
	// planner then refuses, whatever else it holds).
	ArrowsRead bool
}

// Stmt is one statement (ended by ';' or the end of the text).
type Stmt interface {
	Position() Pos
	stmt()
}

// Query is a linear statement: clauses in order, such as
// MATCH … WHERE … LIMIT, or MATCH … SET … REMOVE …, or INSERT ….
type Query struct {
	Pos     Pos
	Clauses []Clause
	// Text is the statement's own source text (without the ';').
	Text string
	// Refusals are the forms outside the subset the statement holds, in
	// text order: refused clauses (also in Clauses), and the refused forms
	// inside patterns and expressions. The planner refuses the first.
	Refusals []*Refused
}

// StartTransaction, Commit and Rollback delimit one atomic Δ. ReadOnly
// marks START TRANSACTION READ ONLY.
type StartTransaction struct {
	Pos      Pos
	ReadOnly bool
}
type CommitTx struct{ Pos Pos }
type RollbackTx struct{ Pos Pos }

// Call is CALL name(args): a registered action. Names holds, for each
// argument, the parameter it names (p: value), "" for a positional one.
type Call struct {
	Pos   Pos
	Name  string
	Args  []Expr
	Names []string
}

// DefineView is CREATE [OR REPLACE] VIEW name [INTENT '…'] AS '<CEL>'.
// ExprPos is where the CEL string's text starts (after its quote).
type DefineView struct {
	Pos     Pos
	Replace bool
	Name    string
	Intent  string
	Expr    string
	ExprPos Pos
}

// DefineAction is CREATE [OR REPLACE] ACTION name(params) [INTENT '…']
// [IF '<CEL>'] { body }. Body is the body's statements, parsed as a
// script of their own with positions in the whole text; Text is the
// CREATE ACTION statement's own source.
type DefineAction struct {
	Pos     Pos
	Replace bool
	Name    string
	Params  []*ActionParam
	Intent  string
	If      string
	IfPos   Pos
	Body    *Script
	Text    string
}

// ActionParam is one parameter of an action: name TYPE [= default].
type ActionParam struct {
	Pos     Pos
	Name    string
	Type    string
	TypePos Pos
	Default Expr // nil when none
}

// DropVocab is DROP VIEW name or DROP ACTION name.
type DropVocab struct {
	Pos    Pos
	Action bool // DROP ACTION; else DROP VIEW
	Name   string
}

func (s *Query) Position() Pos            { return s.Pos }
func (s *StartTransaction) Position() Pos { return s.Pos }
func (s *CommitTx) Position() Pos         { return s.Pos }
func (s *RollbackTx) Position() Pos       { return s.Pos }
func (s *Call) Position() Pos             { return s.Pos }
func (s *DefineView) Position() Pos       { return s.Pos }
func (s *DefineAction) Position() Pos     { return s.Pos }
func (s *DropVocab) Position() Pos        { return s.Pos }

func (*Query) stmt()            {}
func (*StartTransaction) stmt() {}
func (*CommitTx) stmt()         {}
func (*RollbackTx) stmt()       {}
func (*Call) stmt()             {}
func (*DefineView) stmt()       {}
func (*DefineAction) stmt()     {}
func (*DropVocab) stmt()        {}

// Clause is one clause of a Query.
type Clause interface {
	Position() Pos
	clause()
}

// Match is MATCH patterns [WHERE expr]. Optional marks OPTIONAL MATCH,
// which the planner refuses.
type Match struct {
	Pos      Pos
	Optional bool
	Patterns []*PathPattern
	Where    Expr // nil when absent
}

// Limit is LIMIT n.
type Limit struct {
	Pos   Pos
	Count Expr
}

// Insert is INSERT paths (comma-separated).
type Insert struct {
	Pos      Pos
	Patterns []*PathPattern
}

// Set is SET items (comma-separated).
type Set struct {
	Pos   Pos
	Items []SetItem
}

// Remove is REMOVE items (comma-separated).
type Remove struct {
	Pos   Pos
	Items []RemoveItem
}

// Delete is [DETACH] DELETE exprs.
type Delete struct {
	Pos    Pos
	Detach bool
	Exprs  []Expr
}

// Refused is a form the grammar recognises but goldfish does not run: a
// clause (RETURN, ORDER BY, CREATE GRAPH, …), a pattern form (ANY
// SHORTEST, a parenthesised path, …) or an expression (CASE, EXISTS, …).
// Feature names it as the planner's refusal says it ("RETURN", "ORDER
// BY", "CASE expression").
type Refused struct {
	Pos     Pos
	Feature string
}

func (c *Match) Position() Pos   { return c.Pos }
func (c *Limit) Position() Pos   { return c.Pos }
func (c *Insert) Position() Pos  { return c.Pos }
func (c *Set) Position() Pos     { return c.Pos }
func (c *Remove) Position() Pos  { return c.Pos }
func (c *Delete) Position() Pos  { return c.Pos }
func (c *Refused) Position() Pos { return c.Pos }

// Reads reports whether the statement only reads: at least one MATCH
// (with its WHERE) and LIMIT, and no clause that writes. The planner plans
// such a statement as a Recall (when the text holds it alone), and a
// client tells a Recall from a Commit by it without planning.
func (q *Query) Reads() bool {
	matched := false
	for _, c := range q.Clauses {
		switch c.(type) {
		case *Match:
			matched = true
		case *Limit:
		default:
			return false
		}
	}
	return matched
}

func (*Match) clause()   {}
func (*Limit) clause()   {}
func (*Insert) clause()  {}
func (*Set) clause()     {}
func (*Remove) clause()  {}
func (*Delete) clause()  {}
func (*Refused) clause() {}

// PathPattern is n0 -e0- n1 -e1- n2 …; len(Edges) == len(Nodes)-1.
// A single node pattern has no edges. Var is the path variable (p = …), "" if none.
type PathPattern struct {
	Pos   Pos
	Var   string
	Nodes []*NodePattern
	Edges []*EdgePattern
}

// NodePattern is (var :Label:Label {props}). Empty Var means anonymous.
// A label expression that is not a plain conjunction (:A|B, :!A, :%) is
// in LabelExpr, and Labels is nil.
type NodePattern struct {
	Pos       Pos
	Var       string
	Labels    []string
	LabelExpr *LabelExpr
	Props     []*PropEntry // in written order; nil when absent
	Where     Expr         // element-pattern WHERE, nil when absent
}

// LabelOp is the operator of a label expression.
type LabelOp uint8

const (
	LabelName LabelOp = iota // Name
	LabelAny                 // %: any label at all
	LabelNot                 // !Args[0]
	LabelAnd                 // Args[0] & Args[1] & …
	LabelOr                  // Args[0] | Args[1] | …
)

// LabelExpr is a label expression: a name, the wildcard %, or !, & and |
// over label expressions.
type LabelExpr struct {
	Pos  Pos
	Op   LabelOp
	Name string
	Args []*LabelExpr
}

// String renders the expression with every operation parenthesised, so
// two expressions render alike only when they are the same.
func (l *LabelExpr) String() string {
	switch l.Op {
	case LabelName:
		return "`" + strings.ReplaceAll(l.Name, "`", "``") + "`"
	case LabelAny:
		return "%"
	case LabelNot:
		return "!" + l.Args[0].String()
	}
	sep := "&"
	if l.Op == LabelOr {
		sep = "|"
	}
	parts := make([]string, len(l.Args))
	for i, a := range l.Args {
		parts[i] = a.String()
	}
	return "(" + strings.Join(parts, sep) + ")"
}

// Direction of an edge pattern as written.
type Direction uint8

const (
	DirOut  Direction = iota // -[ ]->
	DirIn                    // <-[ ]-
	DirBoth                  // -[ ]-   (either direction)
)

// EdgePattern is -[var :TYPE {props}]-> and its variants. Quant is non-nil
// for quantified or variable-length forms (*, *1..3, {1,3}, +), which the
// planner refuses.
//
// A type expression that is not one type or a plain alternation (:!T,
// :%, :(A|B)&!C) is in TypeExpr, and Types is nil.
type EdgePattern struct {
	Pos      Pos
	Var      string
	Types    []string // label alternatives as written; usually one
	TypeExpr *LabelExpr
	Props    []*PropEntry
	Dir      Direction
	Quant    *Quantifier
}

// Quantifier is a path quantifier; Max < 0 means unbounded.
type Quantifier struct {
	Pos  Pos
	Text string
	Min  int
	Max  int
}

// PropEntry is key: value inside braces.
type PropEntry struct {
	Pos   Pos
	Key   string
	Value Expr
}

// SetItem is one item of SET.
type SetItem interface {
	Position() Pos
	setItem()
}

// SetProp is SET var.key = value.
type SetProp struct {
	Pos   Pos
	Var   string
	Key   string
	Value Expr
}

// SetAllProps is SET var = {…} (replace all) or SET var += {…} (Merge).
type SetAllProps struct {
	Pos   Pos
	Var   string
	Map   *MapLit
	Merge bool
}

// SetLabels is SET var:Label:Label.
type SetLabels struct {
	Pos    Pos
	Var    string
	Labels []string
}

func (s *SetProp) Position() Pos     { return s.Pos }
func (s *SetAllProps) Position() Pos { return s.Pos }
func (s *SetLabels) Position() Pos   { return s.Pos }

func (*SetProp) setItem()     {}
func (*SetAllProps) setItem() {}
func (*SetLabels) setItem()   {}

// RemoveItem is one item of REMOVE.
type RemoveItem interface {
	Position() Pos
	removeItem()
}

// RemoveProp is REMOVE var.key.
type RemoveProp struct {
	Pos Pos
	Var string
	Key string
}

// RemoveLabels is REMOVE var:Label.
type RemoveLabels struct {
	Pos    Pos
	Var    string
	Labels []string
}

func (r *RemoveProp) Position() Pos   { return r.Pos }
func (r *RemoveLabels) Position() Pos { return r.Pos }

func (*RemoveProp) removeItem()   {}
func (*RemoveLabels) removeItem() {}

// Expr is an expression.
type Expr interface {
	Position() Pos
	expr()
}

// LitKind says which field of a Literal holds its value.
type LitKind uint8

const (
	LitNull LitKind = iota
	LitBool
	LitInt
	LitFloat
	LitString
	LitDate     // Str holds the text inside DATE '…'
	LitDateTime // Str holds the text inside DATETIME '…'
)

// Literal is a scalar literal. Str holds strings with escapes decoded.
type Literal struct {
	Pos   Pos
	Kind  LitKind
	Bool  bool
	Int   int64
	Float float64
	Str   string
}

// ListLit is [a, b, …].
type ListLit struct {
	Pos   Pos
	Elems []Expr
}

// MapLit is {k: v, …}.
type MapLit struct {
	Pos     Pos
	Entries []*PropEntry
}

// Param is $name.
type Param struct {
	Pos  Pos
	Name string
}

// Var is a variable reference.
type Var struct {
	Pos  Pos
	Name string
}

// PropAccess is Subject.Key.
type PropAccess struct {
	Pos     Pos
	Subject Expr
	Key     string
}

// UnaryOp is a prefix operator.
type UnaryOp uint8

const (
	OpNot UnaryOp = iota
	OpNeg
	OpPlus
)

// Unary is NOT x, -x or +x.
type Unary struct {
	Pos Pos
	Op  UnaryOp
	X   Expr
}

// BinaryOp is an infix operator.
type BinaryOp uint8

const (
	OpOr BinaryOp = iota
	OpXor
	OpAnd
	OpEq
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpIn
	OpStartsWith
	OpEndsWith
	OpContains
	OpAdd
	OpSub
	OpMul
	OpDiv
	OpMod
	OpConcat // ||
)

var binaryOpNames = [...]string{
	OpOr: "OR", OpXor: "XOR", OpAnd: "AND", OpEq: "=", OpNe: "<>", OpLt: "<",
	OpLe: "<=", OpGt: ">", OpGe: ">=", OpIn: "IN", OpStartsWith: "STARTS WITH",
	OpEndsWith: "ENDS WITH", OpContains: "CONTAINS", OpAdd: "+", OpSub: "-",
	OpMul: "*", OpDiv: "/", OpMod: "%", OpConcat: "||",
}

func (op BinaryOp) String() string {
	if int(op) < len(binaryOpNames) {
		return binaryOpNames[op]
	}
	return "?"
}

// Binary is L op R.
type Binary struct {
	Pos Pos
	Op  BinaryOp
	L   Expr
	R   Expr
}

// IsNull is X IS [NOT] NULL.
type IsNull struct {
	Pos Pos
	X   Expr
	Not bool
}

// LabelTest is var:Label (or var IS LABELED Label) inside an expression.
// Labels is a conjunction; a label expression that is not one (x:A|B,
// x IS !A) is in Expr, and Labels is nil.
type LabelTest struct {
	Pos    Pos
	X      Expr
	Labels []string
	Expr   *LabelExpr
}

// Truth is the truth value a TruthTest looks for.
type Truth uint8

const (
	TruthTrue Truth = iota
	TruthFalse
	TruthUnknown
)

// TruthTest is X IS [NOT] TRUE, FALSE or UNKNOWN: a boolean test that is
// always true or false itself (UNKNOWN is the null boolean).
type TruthTest struct {
	Pos   Pos
	X     Expr
	Value Truth
	Not   bool
}

// RefusedExpr is an expression outside the subset (CASE, EXISTS { … }, a
// list comprehension, =~, …); it is also among its statement's Refusals.
type RefusedExpr struct {
	Pos     Pos
	Feature string
}

// FuncCall is name(args). Aggregates (count, sum, collect, …) parse as
// FuncCall and are refused by the planner by name; Star marks count(*).
type FuncCall struct {
	Pos      Pos
	Name     string
	Args     []Expr
	Distinct bool
	Star     bool
}

func (e *Literal) Position() Pos     { return e.Pos }
func (e *ListLit) Position() Pos     { return e.Pos }
func (e *MapLit) Position() Pos      { return e.Pos }
func (e *Param) Position() Pos       { return e.Pos }
func (e *Var) Position() Pos         { return e.Pos }
func (e *PropAccess) Position() Pos  { return e.Pos }
func (e *Unary) Position() Pos       { return e.Pos }
func (e *Binary) Position() Pos      { return e.Pos }
func (e *IsNull) Position() Pos      { return e.Pos }
func (e *LabelTest) Position() Pos   { return e.Pos }
func (e *FuncCall) Position() Pos    { return e.Pos }
func (e *TruthTest) Position() Pos   { return e.Pos }
func (e *RefusedExpr) Position() Pos { return e.Pos }

func (*Literal) expr()     {}
func (*ListLit) expr()     {}
func (*MapLit) expr()      {}
func (*Param) expr()       {}
func (*Var) expr()         {}
func (*PropAccess) expr()  {}
func (*Unary) expr()       {}
func (*Binary) expr()      {}
func (*IsNull) expr()      {}
func (*LabelTest) expr()   {}
func (*FuncCall) expr()    {}
func (*TruthTest) expr()   {}
func (*RefusedExpr) expr() {}
