package planner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"

	"github.com/goldfish-gql/goldfish/celval"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/values"
)

// CostLimit bounds one evaluation of a predicate or computed value, in CEL
// cost units (celcost.go prices goldfish's own functions). A predicate over
// its cost is an error, never a hang.
const CostLimit = 100_000

// MaxSource bounds the CEL text of one expression, in code points: cel-go's
// own parser limit, set here so that an expression over it is refused with
// a message naming the budget rather than cel-go's.
const MaxSource = 100_000

// interruptEvery is how many iterations of a comprehension pass between
// two looks at the context.
const interruptEvery = 64

// Program is an expression compiled to CEL. Variables are addressed by slot
// (v0, v1, … for the statement's variables; p0, p1, … for parameters), so
// the same source text always compiles to the same program and the cache
// can be keyed by it.
type Program struct {
	Source string
	Pos    ast.Pos
	prg    cel.Program
	// fold is set when the program holds a comprehension: only then can
	// one evaluation loop, and only then is it run under the context.
	fold bool
	// keyword is set when the whole program is the keyword token
	// var CONTAINS 'word' (or $param) on a node: slot names the variable,
	// and word or param the word, so a seed scan tests it without CEL.
	keyword bool
	slot    int
	word    string
	param   int // parameter slot of the word, -1 when it is a literal
}

// Row is what a program reads: the statement's variable slots and the
// script's parameter values, both already in CEL form.
type Row struct {
	Vars   []Element
	Params []ref.Val
}

// ResolveName implements interpreter.Activation without building a map per row.
func (r *Row) ResolveName(name string) (any, bool) {
	if len(name) < 2 {
		return nil, false
	}
	i, err := strconv.Atoi(name[1:])
	if err != nil || i < 0 {
		return nil, false
	}
	switch name[0] {
	case 'v':
		if i < len(r.Vars) {
			if r.Vars[i].Node == nil && r.Vars[i].Edge == nil {
				return types.NullValue, true
			}
			return r.Vars[i], true
		}
	case 'p':
		if i < len(r.Params) {
			return r.Params[i], true
		}
	}
	return nil, false
}

// Parent implements interpreter.Activation.
func (r *Row) Parent() interpreter.Activation { return nil }

// Eval runs the program over one row and returns its value and what it
// cost in CEL units. A program with a comprehension runs under ctx, which
// stops it between iterations; any other program is one pass over its
// calls, each priced and refused before it runs when it would cost more
// than CostLimit, so its caller stops it by checking ctx between
// evaluations (a cancellable evaluation costs cel-go a frame and a child
// context per call, which nothing but a loop needs).
func (p *Program) Eval(ctx context.Context, r *Row) (ref.Val, uint64, error) {
	var (
		out ref.Val
		det *cel.EvalDetails
		err error
	)
	if p.fold && ctx != nil && ctx.Done() != nil {
		out, det, err = p.prg.ContextEval(ctx, r)
	} else {
		out, det, err = p.prg.Eval(r)
	}
	var cost uint64
	if det != nil {
		if c := det.ActualCost(); c != nil {
			cost = *c
		}
	}
	if err != nil {
		return nil, cost, p.evalErr(ctx, err)
	}
	return out, cost, nil
}

// evalErr turns a failed evaluation into the error a user reads: a budget
// names itself, a stopped call says why, a data exception says which
// values did not mix. It matches cel-go's and its own errors by kind.
func (p *Program) evalErr(ctx context.Context, err error) error {
	var cancelled interpreter.EvalCancelledError
	var value *valueError
	var price *costError
	var mixed *mismatchError
	switch {
	case errors.As(err, &value):
		return &gqlstatus.Error{Code: gqlstatus.ValueBudget, Pos: p.Pos,
			Msg:  fmt.Sprintf("expression is over its value budget: %v", value),
			Hint: "build long values outside the statement and pass them as $parameters"}
	case errors.As(err, &price), errors.As(err, &cancelled) && cancelled.Cause == interpreter.CostLimitExceeded:
		msg := fmt.Sprintf("expression is over its evaluation budget (CEL cost limit %d)", CostLimit)
		if price != nil {
			msg += ": " + price.op + " alone would cost " + strconv.FormatUint(price.units, 10)
		}
		return &gqlstatus.Error{Code: gqlstatus.CostBudget, Pos: p.Pos, Msg: msg,
			Hint: "simplify the predicate, or compare with shorter strings and lists"}
	case ctx != nil && ctx.Err() != nil &&
		(errors.As(err, &cancelled) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		e := gqlstatus.Interrupted(ctx, "expression")
		e.Pos = p.Pos
		return e
	}
	var coded gqlstatus.Coded
	if !errors.As(err, &coded) {
		// cel-go's own: its words are about goldfish's CEL form, not the
		// user's text, so they stay in the cause.
		return &gqlstatus.Error{Code: gqlstatus.DataException, Pos: p.Pos, Cause: err,
			Msg:  "the expression cannot be evaluated on these values",
			Hint: "check the types of the properties and parameters it reads"}
	}
	e := &gqlstatus.Error{Code: coded.GQLStatus(), Pos: p.Pos, Msg: err.Error()}
	switch {
	case errors.As(err, &mixed) && e.Code == gqlstatus.NotComparable:
		e.Hint = "values of these types do not mix (only null is unknown): compare like with like"
	case errors.As(err, &mixed):
		e.Hint = "values of these types do not mix (only null is unknown): give the operator operands of the types it takes"
	case e.Code == gqlstatus.DivisionByZero:
		e.Hint = "divide by a value that is not 0"
	case errors.Is(err, errOverflow):
		e.Hint = "INTEGER is 64-bit: compute in FLOAT (multiply by 1.0) for larger results"
	case e.Code == gqlstatus.NumericOutOfRange:
		e.Hint = "FLOAT is 64-bit IEEE 754 (up to about 1.8e308): scale the operands down"
	}
	return e
}

// KeywordOf returns the word when the program is the keyword token on the
// variable in slot (var CONTAINS 'word' or $param bound to a string), so
// a seed can narrow its candidates through the store's text index.
func (p *Program) KeywordOf(slot int, r *Row) (string, bool) {
	if !p.keyword || p.slot != slot {
		return "", false
	}
	if p.param < 0 {
		return p.word, p.word != ""
	}
	s, ok := r.Params[p.param].(types.String)
	return string(s), ok && s != ""
}

// Test runs a predicate: true keeps the row; false and unknown drop it.
// It returns the CEL cost as Eval does.
func (p *Program) Test(ctx context.Context, r *Row) (bool, uint64, error) {
	if p.keyword {
		w := p.word
		if p.param >= 0 {
			s, ok := r.Params[p.param].(types.String)
			if !ok {
				return p.eval(ctx, r) // null or a mismatch: CEL says which
			}
			w = string(s)
		}
		if e := r.Vars[p.slot]; e.Node != nil && w != "" {
			return Keyword(e.Node.Props, w), 1, nil
		}
	}
	return p.eval(ctx, r)
}

func (p *Program) eval(ctx context.Context, r *Row) (bool, uint64, error) {
	out, cost, err := p.Eval(ctx, r)
	if err != nil {
		return false, cost, err
	}
	b, ok := out.(types.Bool)
	return ok && bool(b), cost, nil
}

var (
	celEnvOnce sync.Once
	celEnv     *cel.Env
	celEnvErr  error
	celCache   = newProgramCache(4096)
)

// maxSlots bounds the variables one statement may declare to CEL.
const maxSlots = 256

func env() (*cel.Env, error) {
	celEnvOnce.Do(func() {
		// The planner bounds what it writes by size (MaxSource) and by
		// nesting (MaxExprDepth), and a chain of operators nests one CEL
		// call per operator: cel-go's own nesting limit (250 by default)
		// is lifted to the size, which every level of nesting costs at
		// least a character of, so that any CEL within the size compiles.
		opts := append(celFunctions(), cel.ParserExpressionSizeLimit(MaxSource), cel.ParserRecursionLimit(MaxSource))
		for i := 0; i < maxSlots; i++ {
			opts = append(opts, cel.Variable("v"+strconv.Itoa(i), cel.DynType),
				cel.Variable("p"+strconv.Itoa(i), cel.DynType))
		}
		celEnv, celEnvErr = cel.NewEnv(opts...)
	})
	return celEnv, celEnvErr
}

// programCache keeps compiled programs by CEL source; bounded, and cleared
// whole when full (compiling is cheap next to keeping unbounded memory).
type programCache struct {
	mu  sync.Mutex
	max int
	m   map[string]compiled
}

type compiled struct {
	prg  cel.Program
	fold bool
}

func newProgramCache(max int) *programCache {
	return &programCache{max: max, m: make(map[string]compiled)}
}

// CompileError is CEL the planner wrote that cel-go does not compile. The
// planner writes only CEL it can compile, so it is a fault in goldfish,
// never in the statement: its code is 40Q01 (internal failure), and it is
// the cause of the statement's error, which points at the expression. Each
// issue is placed in Source, the CEL form, which has no map back to the
// statement's text.
type CompileError struct {
	Source string
	Issues []celval.Issue
}

// Error is the issues' messages, without their places (which would read
// as places in the statement).
func (e *CompileError) Error() string {
	msgs := make([]string, len(e.Issues))
	for i, is := range e.Issues {
		msgs[i] = is.Msg
	}
	return strings.Join(msgs, "; ")
}

// GQLStatus implements gqlstatus.Coded.
func (e *CompileError) GQLStatus() gqlstatus.Code { return gqlstatus.Internal }

// errSourceSize marks an expression whose CEL text is over MaxSource.
var errSourceSize = errors.New("expression too long")

func (c *programCache) get(src string) (compiled, error) {
	c.mu.Lock()
	prg, ok := c.m[src]
	c.mu.Unlock()
	if ok {
		return prg, nil
	}
	if utf8.RuneCountInString(src) > MaxSource {
		return compiled{}, errSourceSize
	}
	e, err := env()
	if err != nil {
		return compiled{}, err
	}
	checked, iss := e.Compile(src)
	if iss != nil && iss.Err() != nil {
		return compiled{}, &CompileError{Source: src, Issues: celval.Issues(iss)}
	}
	p, err := e.Program(checked, cel.CostLimit(CostLimit),
		cel.CostTrackerOptions(costTrackers()...),
		cel.InterruptCheckFrequency(interruptEvery))
	if err != nil {
		return compiled{}, err
	}
	prg = compiled{prg: p, fold: hasFold(checked)}
	c.mu.Lock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[src] = prg
	c.mu.Unlock()
	return prg, nil
}

// hasFold reports whether a checked program holds a comprehension.
func hasFold(a *cel.Ast) bool {
	nav := celast.NavigateAST(a.NativeRep())
	return len(celast.MatchDescendants(nav, celast.KindMatcher(celast.ComprehensionKind))) > 0
}

// scope maps the variables of one statement to slots and kinds.
type scope struct {
	text   string
	slots  map[string]int
	kinds  []VarKind
	names  []string
	params *paramTable
}

type paramTable struct {
	index map[string]int
	names []string
	poses []ast.Pos // where each is first named
}

func (t *paramTable) slot(name string, pos ast.Pos) int {
	if i, ok := t.index[name]; ok {
		return i
	}
	i := len(t.names)
	t.index[name] = i
	t.names = append(t.names, name)
	t.poses = append(t.poses, pos)
	return i
}

func (s *scope) errAt(code gqlstatus.Code, pos ast.Pos, format string, args ...any) *gqlstatus.Error {
	return gqlstatus.At(code, pos, s.text, format, args...)
}

// compile turns an expression into a Program.
func (s *scope) compile(e ast.Expr) (*Program, error) {
	var b celWriter
	if err := s.emit(&b, e, 0); err != nil {
		if errors.Is(err, errSourceSize) {
			return nil, s.sizeErr(e)
		}
		return nil, err
	}
	src := b.String()
	if len(s.params.names) > maxSlots {
		return nil, s.errAt(gqlstatus.TextLimit, e.Position(), "more than %d parameters in one text", maxSlots)
	}
	prg, err := celCache.get(src)
	if errors.Is(err, errSourceSize) {
		return nil, s.sizeErr(e)
	}
	if err != nil {
		// The planner writes only CEL it can compile, so this is a fault;
		// cel-go's words point into that CEL form and stay in the cause.
		ge := s.errAt(gqlstatus.CodeOf(err, gqlstatus.Internal), e.Position(), "goldfish could not compile this expression").
			WithHint("simplify the expression, and report the statement: this is a fault in goldfish")
		ge.Cause = err
		return nil, ge
	}
	p := &Program{Source: src, Pos: e.Position(), prg: prg.prg, fold: prg.fold}
	if b, ok := e.(*ast.Binary); ok && b.Op == ast.OpContains {
		if v, isVar := b.L.(*ast.Var); isVar {
			if slot, bound := s.slots[v.Name]; bound && s.kinds[slot] == VarNode {
				switch w := b.R.(type) {
				case *ast.Literal:
					if w.Kind == ast.LitString && w.Str != "" {
						p.keyword, p.slot, p.word, p.param = true, slot, w.Str, -1
					}
				case *ast.Param:
					p.keyword, p.slot, p.param = true, slot, s.params.slot(w.Name, w.Pos)
				}
			}
		}
	}
	return p, nil
}

var binaryFuncs = map[ast.BinaryOp]string{
	ast.OpOr: "gql_or", ast.OpXor: "gql_xor", ast.OpAnd: "gql_and",
	ast.OpEq: "gql_eq", ast.OpNe: "gql_ne", ast.OpLt: "gql_lt", ast.OpLe: "gql_le",
	ast.OpGt: "gql_gt", ast.OpGe: "gql_ge", ast.OpIn: "gql_in",
	ast.OpStartsWith: "gql_starts", ast.OpEndsWith: "gql_ends", ast.OpContains: "gql_contains",
	ast.OpAdd: "gql_add", ast.OpSub: "gql_sub", ast.OpMul: "gql_mul", ast.OpDiv: "gql_div",
	ast.OpMod: "gql_mod", ast.OpConcat: "gql_concat",
}

// MaxExprDepth bounds how deep the parts of one expression nest as the
// planner writes them: an operand inside an operator, an element inside a
// list, a label expression inside another. A chain of operators each
// taking the last one's result as its first operand (a OR b OR c,
// a + b - c, n.a.b, NOT NOT x, x IS NULL IS NULL), which the parser builds
// however long it is, is written in a loop at one depth, so only the size
// budget (MaxSource) bounds it. Any text within the parser's nesting
// budget (66 brackets and prefix operators, each holding a few levels of
// operator precedence) nests well within MaxExprDepth: the bound keeps
// any expression from exhausting the stack, however it was built.
const MaxExprDepth = 1_000

// celWriter is the CEL form of one expression as it is written, with its
// length in code points counted as it grows, so that writing stops as
// soon as it passes MaxSource.
type celWriter struct {
	strings.Builder
	counted int // bytes counted so far
	runes   int // code points in them
}

// over reports whether the text is over MaxSource code points. It counts
// only once the text holds more than MaxSource bytes, each byte once.
func (w *celWriter) over() bool {
	if w.Len() <= MaxSource {
		return false
	}
	s := w.String()
	w.runes += utf8.RuneCountInString(s[w.counted:])
	w.counted = len(s)
	return w.runes > MaxSource
}

// sizeErr refuses the expression e whose CEL form is over MaxSource.
func (s *scope) sizeErr(e ast.Expr) *gqlstatus.Error {
	return s.errAt(gqlstatus.TextLimit, e.Position(),
		"expression is over its size budget: more than %d characters as CEL", MaxSource).
		WithHint("pass long values as $parameters instead of writing them into the text")
}

// depthErr refuses a part of an expression at pos nested deeper than
// MaxExprDepth.
func (s *scope) depthErr(pos ast.Pos) *gqlstatus.Error {
	return s.errAt(gqlstatus.TextLimit, pos,
		"expression is over its nesting budget: its parts nest more than %d levels deep", MaxExprDepth).
		WithHint("write long chains flat (a OR b OR c) rather than nested in parentheses, or split the condition")
}

var unaryFuncs = [...]string{ast.OpNot: "gql_not", ast.OpNeg: "gql_neg", ast.OpPlus: "gql_plus"}

// emit writes the CEL form of e, whose parts nest depth levels inside the
// whole expression. A chain of operators (see MaxExprDepth) is walked in a
// loop: its openings are written from the outermost in, then its first
// operand, then each operator's other operands and closing from the
// innermost out. It returns errSourceSize as soon as the text passes
// MaxSource.
func (s *scope) emit(b *celWriter, e ast.Expr, depth int) error {
	if depth > MaxExprDepth {
		return s.depthErr(e.Position())
	}
	var spine [8]ast.Expr
	chain := spine[:0]
	for {
		next := s.opening(b, e)
		if next == nil {
			break
		}
		if b.over() {
			return errSourceSize
		}
		chain = append(chain, e)
		e = next
	}
	if err := s.emitOperand(b, e, depth); err != nil {
		return err
	}
	for i := len(chain) - 1; i >= 0; i-- {
		if err := s.closing(b, chain[i], depth); err != nil {
			return err
		}
		if b.over() {
			return errSourceSize
		}
	}
	return nil
}

// opening writes the opening of e when e is a link of a chain (an
// operator whose first operand is written in the chain's loop), and
// returns that operand; it returns nil, writing nothing, for any other e.
func (s *scope) opening(b *celWriter, e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.Binary:
		fn := binaryFuncs[x.Op]
		if x.Op == ast.OpContains {
			if v, ok := x.L.(*ast.Var); ok {
				if slot, bound := s.slots[v.Name]; bound && s.kinds[slot] == VarNode {
					fn = "gql_keyword"
				}
			}
		}
		b.WriteString(fn)
		b.WriteByte('(')
		return x.L
	case *ast.PropAccess:
		b.WriteString("gql_prop(")
		return x.Subject
	case *ast.Unary:
		if int(x.Op) < len(unaryFuncs) {
			b.WriteString(unaryFuncs[x.Op])
		}
		b.WriteByte('(')
		return x.X
	case *ast.IsNull:
		if x.Not {
			b.WriteString("gql_not(")
		}
		b.WriteString("gql_isnull(")
		return x.X
	case *ast.TruthTest:
		if x.Not {
			b.WriteString("gql_not(")
		}
		b.WriteString([...]string{ast.TruthTrue: "gql_istrue", ast.TruthFalse: "gql_isfalse", ast.TruthUnknown: "gql_isunknown"}[x.Value])
		b.WriteByte('(')
		return x.X
	}
	return nil
}

// closing writes the rest of the chain link e after its first operand.
func (s *scope) closing(b *celWriter, e ast.Expr, depth int) error {
	switch x := e.(type) {
	case *ast.Binary:
		b.WriteString(", ")
		if err := s.emit(b, x.R, depth+1); err != nil {
			return err
		}
	case *ast.PropAccess:
		b.WriteString(", ")
		b.WriteString(strconv.Quote(x.Key))
	case *ast.IsNull:
		if x.Not {
			b.WriteByte(')')
		}
	case *ast.TruthTest:
		if x.Not {
			b.WriteByte(')')
		}
	}
	b.WriteByte(')')
	return nil
}

// emitOperand writes an expression that is not a chain link.
func (s *scope) emitOperand(b *celWriter, e ast.Expr, depth int) error {
	switch x := e.(type) {
	case *ast.Literal:
		if x.Kind == ast.LitDateTime {
			// gql_datetime reads canonical text only; a literal in any
			// other ISO 8601 form would read as null.
			norm, err := s.dateTime(x)
			if err != nil {
				return err
			}
			fmt.Fprintf(b, "gql_datetime(%s)", strconv.Quote(norm))
			break
		}
		writeLiteral(&b.Builder, x)
	case *ast.ListLit:
		b.WriteByte('[')
		for i, el := range x.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			if err := s.emit(b, el, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case *ast.MapLit:
		return s.errAt(gqlstatus.InvalidValueType, x.Pos, "a map value is allowed only as a property map in a pattern or in SET n = {…}")
	case *ast.Param:
		fmt.Fprintf(b, "p%d", s.params.slot(x.Name, x.Pos))
	case *ast.Var:
		slot, ok := s.slots[x.Name]
		if !ok {
			return s.errAt(gqlstatus.InvalidReference, x.Pos, "variable %s is not bound", x.Name).
				WithHint("bind it in a MATCH or INSERT pattern before using it")
		}
		if slot >= maxSlots {
			return s.errAt(gqlstatus.TextLimit, x.Pos, "expressions may use the first %d variables of a statement; %s is later", maxSlots, x.Name).
				WithHint("split the statement")
		}
		fmt.Fprintf(b, "v%d", slot)
	case *ast.LabelTest:
		// A label test reads the labels of a node or the type of an edge;
		// on any other value it would be silently false, so it is refused.
		if _, ok := x.X.(*ast.Var); !ok {
			return s.errAt(gqlstatus.Syntax, x.Pos, "a label test needs a node or edge variable on its left").
				WithHint("write n:Label or n IS Label for a bound variable n; to compare a value, write n.key = 'text'")
		}
		if x.Expr != nil {
			le, err := s.labelExpr(x.Expr)
			if err != nil {
				return err
			}
			return s.emitLabelExpr(b, x.X, le, depth+1)
		}
		for i := 0; i < len(x.Labels)-1; i++ {
			b.WriteString("gql_and(")
			if b.over() {
				return errSourceSize
			}
		}
		for i, l := range x.Labels {
			b.WriteString("gql_label(")
			if err := s.emit(b, x.X, depth+1); err != nil {
				return err
			}
			b.WriteString(", ")
			b.WriteString(strconv.Quote(l))
			b.WriteByte(')')
			if i > 0 {
				b.WriteByte(')')
			}
			if i < len(x.Labels)-1 {
				b.WriteString(", ")
			}
			if b.over() {
				return errSourceSize
			}
		}
	case *ast.RefusedExpr:
		return refuse(s.text, x.Pos, x.Feature)
	case *ast.FuncCall:
		if f := refusedFunction(x); f != "" {
			return refuse(s.text, x.Pos, f)
		}
		return s.errAt(gqlstatus.InvalidReference, x.Pos, "unknown function %s()", x.Name).
			WithHint("goldfish predicates use comparisons, AND/OR/NOT, IN, IS NULL, STARTS WITH, ENDS WITH, CONTAINS and arithmetic")
	default:
		return s.errAt(gqlstatus.Syntax, e.Position(), "unsupported expression")
	}
	if b.over() {
		return errSourceSize
	}
	return nil
}

// emitLabelExpr writes the CEL form of a label expression (folded by
// labelExpr) over the element subject: & and | as GQL's AND and OR, ! as
// NOT, % as "has a label" (every edge has its type).
func (s *scope) emitLabelExpr(b *celWriter, subject ast.Expr, e *ast.LabelExpr, depth int) error {
	if depth > MaxExprDepth {
		return s.depthErr(e.Pos)
	}
	switch e.Op {
	case ast.LabelName:
		b.WriteString("gql_label(")
		if err := s.emit(b, subject, depth+1); err != nil {
			return err
		}
		b.WriteString(", ")
		b.WriteString(strconv.Quote(e.Name))
		b.WriteByte(')')
	case ast.LabelAny:
		b.WriteString("gql_anylabel(")
		if err := s.emit(b, subject, depth+1); err != nil {
			return err
		}
		b.WriteByte(')')
	case ast.LabelNot:
		b.WriteString("gql_not(")
		if err := s.emitLabelExpr(b, subject, e.Args[0], depth+1); err != nil {
			return err
		}
		b.WriteByte(')')
	default:
		fn := "gql_and("
		if e.Op == ast.LabelOr {
			fn = "gql_or("
		}
		for i := 0; i < len(e.Args)-1; i++ {
			b.WriteString(fn)
		}
		for i, a := range e.Args {
			if b.over() {
				return errSourceSize
			}
			if err := s.emitLabelExpr(b, subject, a, depth+1); err != nil {
				return err
			}
			if i > 0 {
				b.WriteByte(')')
			}
			if i < len(e.Args)-1 {
				b.WriteString(", ")
			}
		}
	}
	if b.over() {
		return errSourceSize
	}
	return nil
}

var aggregateNames = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true, "collect": true,
	"collect_list": true, "stddev_samp": true, "stddev_pop": true, "percentile_cont": true,
	"percentile_disc": true,
}

// writeLiteral writes the CEL form of a literal other than DATETIME (whose
// text emit normalises first).
func writeLiteral(b *strings.Builder, x *ast.Literal) {
	switch x.Kind {
	case ast.LitNull:
		b.WriteString("null")
	case ast.LitBool:
		b.WriteString(strconv.FormatBool(x.Bool))
	case ast.LitInt:
		if x.Int == math.MinInt64 {
			b.WriteString(`int("-9223372036854775808")`)
		} else {
			b.WriteString(strconv.FormatInt(x.Int, 10))
		}
	case ast.LitFloat:
		b.WriteString(strconv.FormatFloat(x.Float, 'e', -1, 64))
	case ast.LitString:
		b.WriteString(strconv.Quote(x.Str))
	case ast.LitDate:
		fmt.Fprintf(b, "gql_date(%s)", strconv.Quote(x.Str))
	}
}

// constValue folds a literal (or a list of literals) inside depth lists
// to a stored value at plan time, so INSERT of constants never runs CEL;
// ok is false when e is not constant. DATETIME text is normalised; a
// list nested deeper than a property can hold is refused at its bracket.
func (s *scope) constValue(e ast.Expr, depth int) (v values.Value, ok bool, err error) {
	switch x := e.(type) {
	case *ast.Literal:
		switch x.Kind {
		case ast.LitNull:
			return values.Null(), true, nil
		case ast.LitBool:
			return values.Bool(x.Bool), true, nil
		case ast.LitInt:
			return values.Int(x.Int), true, nil
		case ast.LitFloat:
			return values.Float(x.Float), true, nil
		case ast.LitString:
			return values.String(x.Str), true, nil
		case ast.LitDate:
			return values.DateValue(x.Str), true, nil
		case ast.LitDateTime:
			norm, err := s.dateTime(x)
			return values.DateTimeValue(norm), err == nil, err
		}
	case *ast.ListLit:
		if depth >= values.MaxNesting {
			return values.Value{}, false, s.errAt(gqlstatus.ValueBudget, x.Pos,
				"lists are nested more than %d deep; no property can hold them", values.MaxNesting).
				WithHint("flatten the list")
		}
		vs := make([]values.Value, len(x.Elems))
		for i, el := range x.Elems {
			v, ok, err := s.constValue(el, depth+1)
			if err != nil || !ok {
				return values.Value{}, false, err
			}
			vs[i] = v
		}
		return values.List(vs...), true, nil
	case *ast.Unary:
		if x.Op == ast.OpNeg {
			if l, ok := x.X.(*ast.Literal); ok {
				switch {
				case l.Kind == ast.LitInt && l.Int != math.MinInt64:
					return values.Int(-l.Int), true, nil
				case l.Kind == ast.LitFloat:
					return values.Float(-l.Float), true, nil
				}
			}
		}
	}
	return values.Value{}, false, nil
}

// dateTime returns the canonical text of a DATETIME literal.
func (s *scope) dateTime(x *ast.Literal) (string, error) {
	norm, err := NormalizeDateTime(x.Str)
	if err != nil {
		return "", s.errAt(gqlstatus.CodeOf(err, gqlstatus.InvalidDateTimeFormat), x.Pos, "%v", err)
	}
	return norm, nil
}

// NormalizeDateTime parses ISO 8601 date-time text, in any of the forms a
// DATETIME literal may take, and returns its canonical RFC 3339 form
// (its own offset kept, UTC when none is written). It refuses an instant
// outside the years 0000–9999, in UTC or in its own offset: no DATETIME
// property can hold one (values.CheckDateTime).
func NormalizeDateTime(s string) (string, error) {
	t, ok := celval.ParseDateTime(s)
	if !ok {
		return "", &codedError{gqlstatus.InvalidDateTimeFormat, fmt.Sprintf("DATETIME '%s' is not an ISO 8601 date and time; write DATETIME '2026-01-31T12:00:00Z'", s)}
	}
	if !values.InDateTimeRange(t) {
		return "", &codedError{gqlstatus.DateTimeOverflow, fmt.Sprintf("DATETIME '%s' is outside the years 0000 to 9999 (UTC); write an instant within them", s)}
	}
	return t.Format(time.RFC3339Nano), nil
}
