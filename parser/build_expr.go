// Expressions: operator precedence over the flat expr rule, operands,
// postfix tests and function calls.

package parser

import (
	"fmt"
	"strings"

	"github.com/antlr4-go/antlr/v4"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/parser/gen"
)

// enter counts one level of nesting; too deep ends the parse at once.
func (b *builder) enter(pos ast.Pos) {
	b.depth++
	if b.depth > b.lim.MaxDepth {
		panic(buildError{gqlstatus.At(gqlstatus.TextLimit, pos, b.text, "nesting is deeper than %d levels", b.lim.MaxDepth).
			WithHint("flatten the expression or split the statement")})
	}
}

func (b *builder) exprList(ctx gen.IExprListContext) []ast.Expr {
	all := ctx.AllExpr()
	out := make([]ast.Expr, 0, len(all))
	for _, e := range all {
		out = append(out, b.expr(e))
	}
	return out
}

// Precedence levels, lowest first.
const (
	precOr = 1 + iota
	precXor
	precAnd
	precNot
	precCmp // comparisons, IN, STARTS/ENDS WITH, CONTAINS, IS NULL, labels
	precAdd
	precMul
	precPow
	precSign
)

type binInfo struct {
	op   ast.BinaryOp
	prec int
	// refused names an operator outside the subset (=~, ^).
	refused string
}

var binOps = map[int]binInfo{
	gen.GoldfishGQLParserOR:       {op: ast.OpOr, prec: precOr},
	gen.GoldfishGQLParserXOR:      {op: ast.OpXor, prec: precXor},
	gen.GoldfishGQLParserAND:      {op: ast.OpAnd, prec: precAnd},
	gen.GoldfishGQLParserEQ:       {op: ast.OpEq, prec: precCmp},
	gen.GoldfishGQLParserNEQ:      {op: ast.OpNe, prec: precCmp},
	gen.GoldfishGQLParserNEQ2:     {op: ast.OpNe, prec: precCmp},
	gen.GoldfishGQLParserLT:       {op: ast.OpLt, prec: precCmp},
	gen.GoldfishGQLParserLE:       {op: ast.OpLe, prec: precCmp},
	gen.GoldfishGQLParserGT:       {op: ast.OpGt, prec: precCmp},
	gen.GoldfishGQLParserGE:       {op: ast.OpGe, prec: precCmp},
	gen.GoldfishGQLParserIN:       {op: ast.OpIn, prec: precCmp},
	gen.GoldfishGQLParserCONTAINS: {op: ast.OpContains, prec: precCmp},
	gen.GoldfishGQLParserSTARTS:   {op: ast.OpStartsWith, prec: precCmp},
	gen.GoldfishGQLParserENDS:     {op: ast.OpEndsWith, prec: precCmp},
	gen.GoldfishGQLParserREGEX:    {prec: precCmp, refused: "regular expression match =~"},
	gen.GoldfishGQLParserBETWEEN:  {prec: precCmp, refused: "BETWEEN"},
	gen.GoldfishGQLParserLIKE:     {prec: precCmp, refused: "LIKE"},
	gen.GoldfishGQLParserPLUS:     {op: ast.OpAdd, prec: precAdd},
	gen.GoldfishGQLParserMINUS:    {op: ast.OpSub, prec: precAdd},
	gen.GoldfishGQLParserCONCAT:   {op: ast.OpConcat, prec: precAdd},
	gen.GoldfishGQLParserSTAR:     {op: ast.OpMul, prec: precMul},
	gen.GoldfishGQLParserSLASH:    {op: ast.OpDiv, prec: precMul},
	gen.GoldfishGQLParserPERCENT:  {op: ast.OpMod, prec: precMul},
	gen.GoldfishGQLParserCARET:    {prec: precPow, refused: "operator ^"},
}

// exprItem is one element of a flat expression: an operand (with its prefix
// operators), a binary operator, or a postfix tail (IS NULL, :Label).
type exprItem struct {
	operand *gen.OperandContext
	npre    int // prefix operators in operand
	pre     int // prefix operators already applied
	op      antlr.Token
	bin     binInfo
	tail    gen.IExprTailContext
}

// climber applies precedence to the items of one expr.
type climber struct {
	b     *builder
	items []exprItem
	i     int
}

func (b *builder) expr(ctx gen.IExprContext) ast.Expr {
	b.enter(b.cpos(ctx))
	ch := ctx.GetChildren()
	var buf [8]exprItem
	items := buf[:0]
	for _, c := range ch {
		switch c := c.(type) {
		case *gen.OperandContext:
			n := 0
			for _, oc := range c.GetChildren() {
				if _, ok := oc.(antlr.TerminalNode); !ok {
					break
				}
				n++
			}
			items = append(items, exprItem{operand: c, npre: n})
		case *gen.BinaryOpContext:
			t := c.GetStart()
			bin := binOps[t.GetTokenType()]
			if t.GetTokenType() == gen.GoldfishGQLParserNOT {
				// NOT BETWEEN, NOT LIKE
				bin = binOps[c.GetStop().GetTokenType()]
				bin.refused = "NOT " + bin.refused
			}
			items = append(items, exprItem{op: t, bin: bin})
		case antlr.TerminalNode: // STARTS / ENDS (WITH is skipped)
			t := c.GetSymbol()
			if bi, ok := binOps[t.GetTokenType()]; ok {
				items = append(items, exprItem{op: t, bin: bi})
			}
		case gen.IExprTailContext:
			items = append(items, exprItem{tail: c})
		}
	}
	cl := climber{b: b, items: items}
	x := cl.parse(0)
	b.depth--
	return x
}

func (c *climber) parse(minPrec int) ast.Expr {
	b := c.b
	x := c.unary()
	var lastColon *ast.LabelTest // x:A:B merges into one LabelTest
	for c.i < len(c.items) {
		it := &c.items[c.i]
		if it.tail != nil {
			if precCmp < minPrec {
				break
			}
			c.i++
			x, lastColon = b.tail(it.tail, x, lastColon)
			continue
		}
		if it.bin.prec < minPrec {
			break
		}
		c.i++
		r := c.parse(it.bin.prec + 1)
		if it.bin.refused != "" {
			x = b.refusedExpr(b.pos(it.op), it.bin.refused)
		} else {
			x = &ast.Binary{Pos: b.pos(it.op), Op: it.bin.op, L: x, R: r}
		}
		lastColon = nil
	}
	return x
}

// unary applies the current operand's next prefix operator, or builds the
// operand's primary and property accesses.
func (c *climber) unary() ast.Expr {
	b := c.b
	it := &c.items[c.i]
	if it.pre < it.npre {
		t := it.operand.GetChild(it.pre).(antlr.TerminalNode).GetSymbol()
		it.pre++
		pos := b.pos(t)
		switch t.GetTokenType() {
		case gen.GoldfishGQLParserNOT:
			b.enter(pos)
			x := &ast.Unary{Pos: pos, Op: ast.OpNot, X: c.parse(precNot + 1)}
			b.depth--
			return x
		default:
			neg := t.GetTokenType() == gen.GoldfishGQLParserMINUS
			// A sign right before a bare number folds into the literal, so
			// -9223372036854775808 is representable.
			if it.pre == it.npre {
				if lit := bareNumber(it.operand); lit != nil {
					c.i++
					l := b.number(lit, neg)
					l.Pos = pos
					return l
				}
			}
			b.enter(pos)
			op := ast.OpPlus
			if neg {
				op = ast.OpNeg
			}
			x := &ast.Unary{Pos: pos, Op: op, X: c.parse(precSign)}
			b.depth--
			return x
		}
	}
	c.i++
	return b.operandBase(it.operand)
}

// bareNumber returns the INTEGER or FLOAT token when an operand's primary
// is a number without property accesses.
func bareNumber(o *gen.OperandContext) antlr.Token {
	if o.GetChildCount() > 0 && o.GetChild(o.GetChildCount()-1) != antlr.Tree(o.Primary()) {
		return nil // accesses or subscripts follow
	}
	lp, ok := o.Primary().(*gen.LiteralPrimaryContext)
	if !ok {
		return nil
	}
	t := lp.GetStart()
	if tt := t.GetTokenType(); tt == gen.GoldfishGQLParserINTEGER || tt == gen.GoldfishGQLParserFLOAT {
		return t
	}
	return nil
}

// operandBase builds a primary and what follows it: property accesses,
// subscripts (refused) and calls of dotted names such as apoc.coll.sum(x)
// (functions the planner refuses by name).
func (b *builder) operandBase(o *gen.OperandContext) ast.Expr {
	x := b.primary(o.Primary())
	children := o.GetChildren()
	past := false // past the primary
	for i := 0; i < len(children); i++ {
		switch c := children[i].(type) {
		case *gen.PrimaryContext, gen.IPrimaryContext:
			past = true
		case antlr.TerminalNode:
			if !past {
				continue // prefix operators, applied by the climber
			}
			switch c.GetSymbol().GetTokenType() {
			case gen.GoldfishGQLParserDOT:
				name := children[i+1].(*gen.AnyNameContext)
				key := b.name(name.GetStart())
				i++
				if i+1 < len(children) {
					if args, ok := children[i+1].(*gen.CallArgsContext); ok {
						i++
						x = b.callArgs(b.dottedName(x, key), x.Position(), args)
						continue
					}
				}
				x = &ast.PropAccess{Pos: x.Position(), Subject: x, Key: key}
			case gen.GoldfishGQLParserLBRACK:
				feature := "subscript [ ]"
				j := i + 1
				for ; j < len(children); j++ {
					if t, ok := children[j].(antlr.TerminalNode); ok {
						if t.GetSymbol().GetTokenType() == gen.GoldfishGQLParserDOTDOT {
							feature = "list slice [ .. ]"
						}
						if t.GetSymbol().GetTokenType() == gen.GoldfishGQLParserRBRACK {
							break
						}
					} else if e, ok := children[j].(*gen.ExprContext); ok {
						b.expr(e)
					}
				}
				x = b.refusedExpr(b.pos(c.GetSymbol()), feature)
				i = j
			}
		}
	}
	return x
}

// dottedName renders subject.key as the name of a function: a.b.c.
func (b *builder) dottedName(subject ast.Expr, key string) string {
	switch s := subject.(type) {
	case *ast.Var:
		return s.Name + "." + key
	case *ast.PropAccess:
		return b.dottedName(s.Subject, s.Key) + "." + key
	}
	return key
}

func (b *builder) tail(c gen.IExprTailContext, x ast.Expr, lastColon *ast.LabelTest) (ast.Expr, *ast.LabelTest) {
	pos := b.cpos(c)
	if c.IS() != nil {
		not := c.NOT() != nil
		isWords := "IS "
		if not {
			isWords = "IS NOT "
		}
		switch {
		case c.NULL() != nil:
			return &ast.IsNull{Pos: pos, X: x, Not: not}, nil
		case c.TRUE() != nil:
			return &ast.TruthTest{Pos: pos, X: x, Value: ast.TruthTrue, Not: not}, nil
		case c.FALSE() != nil:
			return &ast.TruthTest{Pos: pos, X: x, Value: ast.TruthFalse, Not: not}, nil
		case c.UNKNOWN() != nil:
			return &ast.TruthTest{Pos: pos, X: x, Value: ast.TruthUnknown, Not: not}, nil
		case c.DIRECTED() != nil:
			return b.refusedExpr(pos, isWords+"DIRECTED"), nil
		case c.NORMALIZED() != nil:
			return b.refusedExpr(pos, isWords+"NORMALIZED"), nil
		case c.TYPED() != nil:
			return b.refusedExpr(pos, "type predicate "+isWords+"TYPED"), nil
		case c.COLONCOLON() != nil:
			return b.refusedExpr(pos, "type predicate "+isWords+"::"), nil
		case c.SOURCE() != nil && c.OF() != nil:
			return b.refusedExpr(pos, isWords+"SOURCE OF"), nil
		case c.DESTINATION() != nil && c.OF() != nil:
			return b.refusedExpr(pos, isWords+"DESTINATION OF"), nil
		}
		lt := &ast.LabelTest{Pos: pos, X: x}
		lt.Labels, lt.Expr = b.labels(c.IsLabelExpr())
		if not {
			return &ast.Unary{Pos: pos, Op: ast.OpNot, X: lt}, nil
		}
		return lt, nil
	}
	names, expr := b.labels(c)
	if expr == nil && lastColon != nil && lastColon.Expr == nil && x == ast.Expr(lastColon) {
		lastColon.Labels = append(lastColon.Labels, names...)
		return lastColon, lastColon
	}
	if expr != nil && lastColon != nil && x == ast.Expr(lastColon) {
		// x:A:(B|C): one test of the conjunction
		prev := &ast.LabelExpr{Pos: lastColon.Pos, Op: ast.LabelAnd}
		if lastColon.Expr != nil {
			prev.Args = append(prev.Args, lastColon.Expr)
		}
		for _, n := range lastColon.Labels {
			prev.Args = append(prev.Args, &ast.LabelExpr{Pos: lastColon.Pos, Op: ast.LabelName, Name: n})
		}
		prev.Args = append(prev.Args, expr)
		lastColon.Labels, lastColon.Expr = nil, prev
		return lastColon, lastColon
	}
	lt := &ast.LabelTest{Pos: pos, X: x, Labels: names, Expr: expr}
	return lt, lt
}

func (b *builder) primary(ctx gen.IPrimaryContext) ast.Expr {
	switch c := ctx.(type) {
	case *gen.LiteralPrimaryContext:
		return b.literal(c.GetStart())
	case *gen.TemporalPrimaryContext:
		if args := c.CallArgs(); args != nil {
			return b.call(c.GetStart(), args)
		}
		return b.temporal(c.GetStart(), c.STRING().GetSymbol(), strings.ToUpper(c.GetStart().GetText()))
	case *gen.TimePrimaryContext:
		// TIME '…' and the other literals, time(…), or the variable time
		t := c.GetStart()
		if args := c.CallArgs(); args != nil {
			return b.call(t, args)
		}
		st := c.STRING()
		if st == nil {
			return &ast.Var{Pos: b.pos(t), Name: b.name(t)}
		}
		word := strings.ToUpper(t.GetText())
		if c.GetChildCount() == 3 {
			word += " " + strings.ToUpper(c.GetChild(1).(antlr.TerminalNode).GetText())
		}
		switch word {
		case "TIMESTAMP", "ZONED DATETIME":
			return b.temporal(t, st.GetSymbol(), word)
		}
		return b.refusedExpr(b.pos(t), word+" literal")
	case *gen.ParamPrimaryContext:
		t := c.PARAM().GetSymbol()
		return &ast.Param{Pos: b.pos(t), Name: t.GetText()[1:]}
	case *gen.VarPrimaryContext:
		t := c.GetStart()
		if args := c.CallArgs(); args != nil {
			return b.call(t, args)
		}
		if c.LBRACE() != nil {
			feature := "map projection"
			switch strings.ToUpper(t.GetText()) {
			case "COUNT", "COLLECT", "VALUE":
				feature = strings.ToUpper(t.GetText()) + " { } subquery"
			case "RECORD":
				feature = "RECORD { } constructor"
			}
			return b.refusedExpr(b.pos(t), feature)
		}
		return &ast.Var{Pos: b.pos(t), Name: b.name(t)}
	case *gen.ParenPrimaryContext:
		if c.EdgePattern(0) != nil {
			return b.refusedExpr(b.cpos(c), "pattern predicate")
		}
		return b.expr(c.Expr())
	case *gen.ListPrimaryContext:
		if c.LBRACK() == nil {
			t := c.GetStart()
			return &ast.Var{Pos: b.pos(t), Name: b.name(t)} // the variable list or array
		}
		switch {
		case c.IN() != nil:
			return b.refusedExpr(b.cpos(c), "list comprehension")
		case c.EdgePattern(0) != nil:
			return b.refusedExpr(b.cpos(c), "pattern comprehension")
		}
		l := &ast.ListLit{Pos: b.cpos(c)}
		if el := c.ExprList(); el != nil {
			l.Elems = b.exprList(el)
		} else {
			l.Elems = []ast.Expr{}
		}
		return l
	case *gen.MapPrimaryContext:
		return b.mapLit(c.MapLiteral())
	case *gen.CasePrimaryContext:
		if c.GetChildCount() == 1 {
			t := c.GetStart()
			return &ast.Var{Pos: b.pos(t), Name: b.name(t)} // the variable case
		}
		for _, e := range c.AllExpr() {
			b.expr(e)
		}
		return b.refusedExpr(b.cpos(c), "CASE expression")
	case *gen.ExistsPrimaryContext:
		return b.refusedExpr(b.cpos(c), "EXISTS predicate")
	case *gen.DynamicPrimaryContext:
		b.expr(c.Expr())
		return b.refusedExpr(b.cpos(c), "dynamic expression $( )")
	}
	panic(fmt.Sprintf("parser: unknown primary %T", ctx))
}

func (b *builder) call(name antlr.Token, c gen.ICallArgsContext) ast.Expr {
	return b.callArgs(b.name(name), b.pos(name), c)
}

func (b *builder) callArgs(name string, pos ast.Pos, c gen.ICallArgsContext) ast.Expr {
	f := &ast.FuncCall{Pos: pos, Name: name, Star: c.STAR() != nil, Distinct: c.DISTINCT() != nil}
	for _, a := range c.AllCallArg() {
		// all(x IN l WHERE …), reduce(s = 0, x IN l | …), CAST(x AS T):
		// the function itself is refused; what follows WHERE, | or AS is
		// skipped.
		if e := a.Expr(); e != nil {
			f.Args = append(f.Args, b.expr(e))
		} else {
			f.Args = append(f.Args, &ast.Literal{Pos: b.cpos(a), Kind: ast.LitNull})
		}
	}
	return f
}
