package vocab

import (
	"math"
	"sync"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/overloads"
	celtypes "github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	"github.com/goldfish-gql/goldfish/store"
)

// Tracking the cost of an evaluation is dear in cel-go: every step is
// observed, and inside a comprehension its bookkeeping grows with the
// iterations, so a filter over n elements costs about n² of it. A
// registration check evaluates a view (or an IF) once on one known
// snapshot, where the cost can often be bounded before the evaluation:
// when the bound is well under ViewCostLimit, the limit cannot be met,
// and the same expression is evaluated without tracking, with the same
// value or error. When no bound is found the tracked program runs, as in
// a Recall.

// trackedProgram is a program compiled with cost tracking, with what an
// untracked twin is planned from, on first need.
type trackedProgram struct {
	cel.Program
	env     *cel.Env
	checked *cel.Ast

	once      sync.Once
	untracked cel.Program
}

// plain returns the program without cost tracking (nil when it cannot
// be planned: the caller keeps the tracked one).
func (p *trackedProgram) plain() cel.Program {
	p.once.Do(func() {
		prog, err := p.env.Program(p.checked, cel.InterruptCheckFrequency(64))
		if err == nil {
			p.untracked = prog
		}
	})
	return p.untracked
}

// untrackedFor returns prog without cost tracking when its evaluation
// over snap, with params (the sizes of the values bound to a
// precondition's parameters, as cel-go counts sizes), provably stays
// under half of ViewCostLimit; otherwise prog itself. A program that
// tracks nothing is returned as it is.
func untrackedFor(prog cel.Program, snap *store.Snapshot, params map[string]uint64) cel.Program {
	tp, ok := prog.(*trackedProgram)
	if !ok {
		return prog
	}
	b := &costBounder{snap: snap, ast: tp.checked.NativeRep(), params: params}
	if b.shadowed(b.ast.Expr()) {
		return prog
	}
	c, ok := b.cost(b.ast.Expr())
	if !ok || c > ViewCostLimit/2 {
		return prog
	}
	if plain := tp.plain(); plain != nil {
		return plain
	}
	return prog
}

// costBounder bounds from above the cost cel-go's tracker counts for an
// expression (interpreter.CostTracker: a select or identifier 1, a
// qualifier 1, a list or map made 10, most calls 1, the calls whose cost
// grows with their operands by their sizes, nodes() and edges() 1 and
// the elements they return). Each node is counted nodeCost plus what its
// call costs by its operands, a comprehension's condition and step once
// per element of its range, both branches of a conditional and every
// term of && and ||: more than any evaluation spends. What it cannot
// bound (a size it does not know, a function it does not price) gives
// no bound at all.
type costBounder struct {
	snap   *store.Snapshot
	ast    *ast.AST
	params map[string]uint64
}

const (
	nodeCost  = 10 // at least the most any one step costs by itself (a list or map made)
	sizeLimit = math.MaxUint64 / 4
)

func addCost(a, b uint64) uint64 {
	if a > sizeLimit || b > sizeLimit {
		return sizeLimit + 1
	}
	return a + b
}

func mulCost(a, b uint64) uint64 {
	if a != 0 && b > sizeLimit/a {
		return sizeLimit + 1
	}
	return a * b
}

// traversal is cel-go's cost of walking n runes, bytes or elements
// (common.StringTraversalCostFactor, 0.1, rounded up).
func traversal(n uint64) uint64 { return n/10 + 1 }

// shadowed reports whether a comprehension's variable hides a parameter
// whose size is known: the size would then be wrong inside it.
func (b *costBounder) shadowed(e ast.Expr) bool {
	if len(b.params) == 0 {
		return false
	}
	found := false
	ast.PostOrderVisit(e, ast.NewExprVisitor(func(x ast.Expr) {
		if x.Kind() != ast.ComprehensionKind {
			return
		}
		c := x.AsComprehension()
		for _, v := range []string{c.IterVar(), c.IterVar2(), c.AccuVar()} {
			if _, ok := b.params[v]; ok && v != "" {
				found = true
			}
		}
	}))
	return found
}

// scalar reports whether the checker typed e as a value cel-go gives the
// size 1 (it is no Sizer).
func (b *costBounder) scalar(e ast.Expr) bool {
	t := b.ast.GetType(e.ID())
	if t == nil {
		return false
	}
	switch t.Kind() {
	case celtypes.BoolKind, celtypes.IntKind, celtypes.UintKind, celtypes.DoubleKind,
		celtypes.NullTypeKind, celtypes.TimestampKind, celtypes.DurationKind:
		return true
	}
	return false
}

// size bounds the size cel-go gives e's value (runes of a string, bytes,
// entries of a list or map, 1 for a scalar).
func (b *costBounder) size(e ast.Expr) (uint64, bool) {
	if b.scalar(e) {
		return 1, true
	}
	switch e.Kind() {
	case ast.LiteralKind:
		switch v := e.AsLiteral().(type) {
		case celtypes.String:
			return uint64(utf8.RuneCountInString(string(v))), true
		case celtypes.Bytes:
			return uint64(len(v)), true
		}
		return 1, true
	case ast.IdentKind:
		n, ok := b.params[e.AsIdent()]
		return n, ok
	case ast.ListKind:
		return uint64(len(e.AsList().Elements())), true
	case ast.MapKind:
		return uint64(e.AsMap().Size()), true
	case ast.CallKind:
		return b.listSize(e)
	case ast.ComprehensionKind:
		// map() and filter() (the macros whose accumulator is a list)
		// add at most one element per element of their range.
		c := e.AsComprehension()
		if c.AccuInit().Kind() == ast.ListKind && len(c.AccuInit().AsList().Elements()) == 0 {
			return b.size(c.IterRange())
		}
	}
	return 0, false
}

// listSize is the number of elements nodes() or edges() of a literal
// name returns (at most, for one that is over the limit: an error).
func (b *costBounder) listSize(e ast.Expr) (uint64, bool) {
	call := e.AsCall()
	fn := call.FunctionName()
	if (fn != fnNodes && fn != fnEdges) || len(call.Args()) != 2 || call.Args()[1].Kind() != ast.LiteralKind {
		return 0, false
	}
	name, ok := call.Args()[1].AsLiteral().(celtypes.String)
	if !ok {
		return 0, false
	}
	if fn == fnNodes {
		return uint64(b.snap.KindCount(string(name))), true
	}
	return uint64(b.snap.EdgeTypeCount(string(name))), true
}

// cost bounds what one evaluation of e costs.
func (b *costBounder) cost(e ast.Expr) (uint64, bool) {
	sum := uint64(nodeCost)
	add := func(xs ...ast.Expr) bool {
		for _, x := range xs {
			c, ok := b.cost(x)
			if !ok {
				return false
			}
			sum = addCost(sum, c)
		}
		return sum <= sizeLimit
	}
	switch e.Kind() {
	case ast.LiteralKind, ast.IdentKind:
		return sum, true
	case ast.SelectKind:
		return sum, add(e.AsSelect().Operand())
	case ast.ListKind:
		return sum, add(e.AsList().Elements()...)
	case ast.MapKind:
		for _, en := range e.AsMap().Entries() {
			me := en.AsMapEntry()
			if !add(me.Key(), me.Value()) {
				return 0, false
			}
		}
		return sum, true
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		if !add(c.IterRange(), c.AccuInit(), c.Result()) {
			return 0, false
		}
		n, ok := b.size(c.IterRange())
		if !ok {
			return 0, false
		}
		cond, ok1 := b.cost(c.LoopCondition())
		step, ok2 := b.cost(c.LoopStep())
		if !ok1 || !ok2 {
			return 0, false
		}
		sum = addCost(sum, mulCost(n, addCost(cond, step)))
		return sum, sum <= sizeLimit
	case ast.CallKind:
		call := e.AsCall()
		if call.IsMemberFunction() && !add(call.Target()) {
			return 0, false
		}
		if !add(call.Args()...) {
			return 0, false
		}
		own, ok := b.callCost(e)
		if !ok {
			return 0, false
		}
		sum = addCost(sum, own)
		return sum, sum <= sizeLimit
	}
	return 0, false // a struct, or what is unknown
}

// callCost bounds a call's own cost beyond nodeCost, by the sizes of
// its operands where cel-go prices it so.
func (b *costBounder) callCost(e ast.Expr) (uint64, bool) {
	call := e.AsCall()
	args := call.Args()
	switch fn := call.FunctionName(); fn {
	case fnNodes, fnEdges:
		n, ok := b.listSize(e)
		return addCost(n, 1), ok
	case fnCount, fnView:
		return 1, true
	case operators.Equals, operators.NotEquals, operators.Less, operators.LessEquals,
		operators.Greater, operators.GreaterEquals:
		// the fewer runes, bytes or elements of the two
		sa, oka := b.size(args[0])
		sb, okb := b.size(args[1])
		switch {
		case oka && okb:
			return traversal(min(sa, sb)), true
		case oka:
			return traversal(sa), true
		case okb:
			return traversal(sb), true
		}
		return 0, false
	case operators.Add:
		if t := b.ast.GetType(e.ID()); t != nil && t.Kind() == celtypes.ListKind {
			return 1, true // concatenating lists is O(1)
		}
		if b.scalar(args[0]) || b.scalar(args[1]) {
			return 1, true // no string or bytes is made
		}
		sa, oka := b.size(args[0])
		sb, okb := b.size(args[1])
		if !oka || !okb {
			return 0, false
		}
		return traversal(addCost(sa, sb)), true
	case operators.In:
		n, ok := b.size(args[1])
		return addCost(n, 1), ok
	case overloads.StartsWith, overloads.EndsWith:
		if len(args) != 1 {
			return 0, false
		}
		n, ok := b.size(args[0])
		return traversal(n), ok
	case overloads.TypeConvertString, overloads.TypeConvertBytes:
		if len(args) != 1 {
			return 0, false
		}
		if b.scalar(args[0]) {
			return 1, true
		}
		n, ok := b.size(args[0])
		return traversal(n), ok
	case operators.LogicalNot, operators.Negate, operators.LogicalAnd, operators.LogicalOr,
		operators.Conditional, operators.Subtract, operators.Multiply, operators.Divide,
		operators.Modulo, operators.Index, operators.NotStrictlyFalse, operators.OldNotStrictlyFalse,
		overloads.Size, overloads.TypeConvertInt, overloads.TypeConvertUint, overloads.TypeConvertDouble,
		overloads.TypeConvertBool, overloads.TypeConvertDyn, overloads.TypeConvertType,
		overloads.TypeConvertTimestamp, overloads.TypeConvertDuration:
		return 1, true
	}
	return 0, false
}

// paramSizes are the sizes cel-go gives the values bound to parameters
// (interpreter.actualSize: a Sizer's size, else 1).
func paramSizes(params map[string]ref.Val) map[string]uint64 {
	out := make(map[string]uint64, len(params))
	for k, v := range params {
		out[k] = 1
		if sz, ok := v.(traits.Sizer); ok {
			n, ok := sz.Size().(celtypes.Int)
			if !ok || n < 0 {
				delete(out, k)
				continue
			}
			out[k] = uint64(n)
		}
	}
	return out
}
