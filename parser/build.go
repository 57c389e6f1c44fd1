package parser

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/antlr4-go/antlr/v4"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/parser/gen"
)

// builder turns a parse tree into ast nodes. Errors unwind with panic
// (buildError) and are recovered in build.
type builder struct {
	text  string
	offs  []int // rune index -> byte offset; nil when text is ASCII
	lim   Limits
	depth int
}

type buildError struct{ err *gqlstatus.Error }

func build(text string, tree gen.IScriptContext, lim Limits) (s *ast.Script, gerr *gqlstatus.Error) {
	b := &builder{text: text, lim: lim}
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			b.offs = make([]int, 0, len(text)+1)
			for j := range text {
				b.offs = append(b.offs, j)
			}
			b.offs = append(b.offs, len(text))
			break
		}
	}
	defer func() {
		if r := recover(); r != nil {
			be, ok := r.(buildError)
			if !ok {
				panic(r)
			}
			s, gerr = nil, be.err
		}
	}()
	stmts := tree.AllStatement()
	s = &ast.Script{Text: text, Stmts: make([]ast.Stmt, 0, len(stmts))}
	for _, st := range stmts {
		s.Stmts = append(s.Stmts, b.stmt(st))
	}
	return s, nil
}

// ------------------------------------------------------------- positions

func (b *builder) off(runeIdx int) int {
	if b.offs == nil {
		if runeIdx > len(b.text) {
			return len(b.text)
		}
		return runeIdx
	}
	if runeIdx < 0 {
		return 0
	}
	if runeIdx >= len(b.offs) {
		return len(b.text)
	}
	return b.offs[runeIdx]
}

func (b *builder) pos(t antlr.Token) ast.Pos {
	return ast.Pos{Line: t.GetLine(), Col: t.GetColumn() + 1, Offset: b.off(t.GetStart())}
}

func (b *builder) cpos(ctx antlr.ParserRuleContext) ast.Pos { return b.pos(ctx.GetStart()) }

func (b *builder) source(ctx antlr.ParserRuleContext) string {
	start, stop := ctx.GetStart(), ctx.GetStop()
	if start == nil || stop == nil || stop.GetStop() < start.GetStart() {
		return ""
	}
	return b.text[b.off(start.GetStart()):b.off(stop.GetStop()+1)]
}

func (b *builder) fail(code gqlstatus.Code, pos ast.Pos, hint, format string, args ...any) {
	panic(buildError{gqlstatus.At(code, pos, b.text, format, args...).WithHint(hint)})
}

// ------------------------------------------------------------- statements

func (b *builder) stmt(ctx gen.IStatementContext) ast.Stmt {
	switch c := ctx.(type) {
	case *gen.StartTxContext:
		return &ast.StartTransaction{Pos: b.cpos(c)}
	case *gen.CommitTxContext:
		return &ast.CommitTx{Pos: b.cpos(c)}
	case *gen.RollbackTxContext:
		return &ast.RollbackTx{Pos: b.cpos(c)}
	case *gen.CallStmtContext:
		if y := c.YieldClause(); y != nil {
			// CALL … YIELD is outside the subset: a query the planner refuses.
			return &ast.Query{Pos: b.cpos(c), Text: b.source(c),
				Clauses: []ast.Clause{&ast.Refused{Pos: b.cpos(y), Feature: "YIELD"}}}
		}
		call := &ast.Call{Pos: b.cpos(c), Name: b.qualifiedName(c.QualifiedName())}
		if l := c.ExprList(); l != nil {
			call.Args = b.exprList(l)
		}
		return call
	case *gen.QueryStmtContext:
		clauses := c.AllClause()
		q := &ast.Query{Pos: b.cpos(c), Text: b.source(c), Clauses: make([]ast.Clause, 0, len(clauses))}
		for _, cl := range clauses {
			q.Clauses = append(q.Clauses, b.clause(cl))
		}
		return q
	}
	panic(fmt.Sprintf("parser: unknown statement %T", ctx))
}

func (b *builder) qualifiedName(ctx gen.IQualifiedNameContext) string {
	name := b.name(ctx.FuncName().GetStart())
	for _, part := range ctx.AllAnyName() {
		name += "." + b.name(part.GetStart())
	}
	return name
}

func (b *builder) clause(ctx gen.IClauseContext) ast.Clause {
	switch c := ctx.(type) {
	case *gen.MatchClauseContext:
		m := &ast.Match{Pos: b.cpos(c), Patterns: b.patterns(c.PathPatterns())}
		if e := c.Expr(); e != nil {
			m.Where = b.expr(e)
		}
		return m
	case *gen.OptionalMatchClauseContext:
		m := &ast.Match{Pos: b.cpos(c), Optional: true, Patterns: b.patterns(c.PathPatterns())}
		if e := c.Expr(); e != nil {
			m.Where = b.expr(e)
		}
		return m
	case *gen.LimitClauseContext:
		return &ast.Limit{Pos: b.cpos(c), Count: b.expr(c.Expr())}
	case *gen.InsertClauseContext:
		return &ast.Insert{Pos: b.cpos(c), Patterns: b.patterns(c.PathPatterns())}
	case *gen.SetClauseContext:
		items := c.AllSetItem()
		s := &ast.Set{Pos: b.cpos(c), Items: make([]ast.SetItem, 0, len(items))}
		for _, it := range items {
			s.Items = append(s.Items, b.setItem(it))
		}
		return s
	case *gen.RemoveClauseContext:
		items := c.AllRemoveItem()
		r := &ast.Remove{Pos: b.cpos(c), Items: make([]ast.RemoveItem, 0, len(items))}
		for _, it := range items {
			r.Items = append(r.Items, b.removeItem(it))
		}
		return r
	case *gen.DeleteClauseContext:
		d := &ast.Delete{Pos: b.cpos(c), Detach: c.DETACH() != nil}
		for _, e := range c.AllExpr() {
			d.Exprs = append(d.Exprs, b.expr(e))
		}
		return d
	case *gen.ReturnClauseContext:
		return b.refused(c, "RETURN")
	case *gen.WithClauseContext:
		return b.refused(c, "WITH")
	case *gen.OrderByClauseContext:
		return b.refused(c, "ORDER BY")
	case *gen.SkipClauseContext:
		return b.refused(c, "SKIP")
	case *gen.OffsetClauseContext:
		return b.refused(c, "OFFSET")
	case *gen.UnwindClauseContext:
		return b.refused(c, "UNWIND")
	case *gen.CreateClauseContext:
		return b.refused(c, "CREATE")
	case *gen.MergeClauseContext:
		return b.refused(c, "MERGE")
	case *gen.FilterClauseContext:
		return b.refused(c, "FILTER")
	case *gen.LetClauseContext:
		return b.refused(c, "LET")
	case *gen.ForClauseContext:
		return b.refused(c, "FOR")
	case *gen.UnionClauseContext:
		return b.refused(c, "UNION")
	}
	panic(fmt.Sprintf("parser: unknown clause %T", ctx))
}

func (b *builder) refused(ctx antlr.ParserRuleContext, feature string) ast.Clause {
	return &ast.Refused{Pos: b.cpos(ctx), Feature: feature}
}

func (b *builder) setItem(ctx gen.ISetItemContext) ast.SetItem {
	switch c := ctx.(type) {
	case *gen.SetPropItemContext:
		return &ast.SetProp{Pos: b.cpos(c), Var: b.name(c.VarName().GetStart()),
			Key: b.name(c.AnyName().GetStart()), Value: b.expr(c.Expr())}
	case *gen.SetAllItemContext:
		return &ast.SetAllProps{Pos: b.cpos(c), Var: b.name(c.VarName().GetStart()), Map: b.mapLit(c.MapLiteral())}
	case *gen.SetMergeItemContext:
		return &ast.SetAllProps{Pos: b.cpos(c), Var: b.name(c.VarName().GetStart()), Map: b.mapLit(c.MapLiteral()), Merge: true}
	case *gen.SetLabelsItemContext:
		return &ast.SetLabels{Pos: b.cpos(c), Var: b.name(c.VarName().GetStart()), Labels: b.labels(c.LabelSpec(), labelsConj)}
	}
	panic(fmt.Sprintf("parser: unknown SET item %T", ctx))
}

func (b *builder) removeItem(ctx gen.IRemoveItemContext) ast.RemoveItem {
	switch c := ctx.(type) {
	case *gen.RemovePropItemContext:
		return &ast.RemoveProp{Pos: b.cpos(c), Var: b.name(c.VarName().GetStart()), Key: b.name(c.AnyName().GetStart())}
	case *gen.RemoveLabelsItemContext:
		return &ast.RemoveLabels{Pos: b.cpos(c), Var: b.name(c.VarName().GetStart()), Labels: b.labels(c.LabelSpec(), labelsConj)}
	}
	panic(fmt.Sprintf("parser: unknown REMOVE item %T", ctx))
}

// --------------------------------------------------------------- patterns

func (b *builder) patterns(ctx gen.IPathPatternsContext) []*ast.PathPattern {
	all := ctx.AllPathPattern()
	out := make([]*ast.PathPattern, 0, len(all))
	for _, p := range all {
		out = append(out, b.path(p))
	}
	return out
}

func (b *builder) path(ctx gen.IPathPatternContext) *ast.PathPattern {
	p := &ast.PathPattern{Pos: b.cpos(ctx)}
	for _, ch := range ctx.GetChildren() {
		switch c := ch.(type) {
		case *gen.VarNameContext:
			p.Var = b.name(c.GetStart())
		case *gen.NodePatternContext:
			p.Nodes = append(p.Nodes, b.node(c))
		case *gen.EdgeInContext:
			p.Edges = append(p.Edges, b.edge(c, ast.DirIn, c.EdgeBody(), c.Quantifier()))
		case *gen.EdgeOutOrBothContext:
			dir := ast.DirBoth
			if c.GT() != nil {
				dir = ast.DirOut
			}
			p.Edges = append(p.Edges, b.edge(c, dir, c.EdgeBody(), c.Quantifier()))
		}
	}
	return p
}

func (b *builder) node(ctx *gen.NodePatternContext) *ast.NodePattern {
	n := &ast.NodePattern{Pos: b.cpos(ctx)}
	if v := ctx.VarName(); v != nil {
		n.Var = b.name(v.GetStart())
	}
	if l := ctx.LabelSpec(); l != nil {
		n.Labels = b.labels(l, labelsConj)
	}
	if pr := ctx.Properties(); pr != nil {
		n.Props = b.mapLit(pr.MapLiteral()).Entries
	}
	if e := ctx.Expr(); e != nil {
		n.Where = b.expr(e)
	}
	return n
}

func (b *builder) edge(ctx antlr.ParserRuleContext, dir ast.Direction, body gen.IEdgeBodyContext, q gen.IQuantifierContext) *ast.EdgePattern {
	e := &ast.EdgePattern{Pos: b.cpos(ctx), Dir: dir}
	if body != nil {
		if v := body.VarName(); v != nil {
			e.Var = b.name(v.GetStart())
		}
		if l := body.LabelSpec(); l != nil {
			e.Types = b.labels(l, labelsAlt)
		}
		if cq := body.CypherQuantifier(); cq != nil {
			e.Quant = b.cypherQuant(cq)
		}
		if pr := body.Properties(); pr != nil {
			e.Props = b.mapLit(pr.MapLiteral()).Entries
		}
		if w := body.WHERE(); w != nil {
			b.fail(gqlstatus.Syntax, b.pos(w.GetSymbol()),
				"move the condition into the MATCH … WHERE clause",
				"WHERE inside an edge pattern is not supported")
		}
	}
	if q != nil && e.Quant == nil {
		e.Quant = b.gqlQuant(q)
	}
	return e
}

// Cypher: *, *n, *m..n, *..n, *m..   (inside the brackets)
func (b *builder) cypherQuant(ctx gen.ICypherQuantifierContext) *ast.Quantifier {
	q := &ast.Quantifier{Pos: b.cpos(ctx), Text: b.source(ctx), Min: 1, Max: -1}
	ints := ctx.AllINTEGER()
	dots := ctx.DOTDOT()
	switch {
	case dots == nil && len(ints) == 1:
		q.Min = b.smallInt(ints[0])
		q.Max = q.Min
	case dots != nil:
		for _, it := range ints {
			v := b.smallInt(it)
			if it.GetSymbol().GetStart() < dots.GetSymbol().GetStart() {
				q.Min = v
			} else {
				q.Max = v
			}
		}
	}
	return q
}

// GQL: {m,n}, {m}, {,n}, {m,}, +, *, ?   (after the edge)
func (b *builder) gqlQuant(ctx gen.IQuantifierContext) *ast.Quantifier {
	q := &ast.Quantifier{Pos: b.cpos(ctx), Text: b.source(ctx)}
	switch {
	case ctx.PLUS() != nil:
		q.Min, q.Max = 1, -1
	case ctx.STAR() != nil:
		q.Min, q.Max = 0, -1
	case ctx.QMARK() != nil:
		q.Min, q.Max = 0, 1
	default:
		comma := ctx.COMMA()
		ints := ctx.AllINTEGER()
		if comma == nil {
			if len(ints) == 1 {
				q.Min = b.smallInt(ints[0])
			}
			q.Max = q.Min
			break
		}
		q.Max = -1
		for _, it := range ints {
			v := b.smallInt(it)
			if it.GetSymbol().GetStart() < comma.GetSymbol().GetStart() {
				q.Min = v
			} else {
				q.Max = v
			}
		}
	}
	return q
}

func (b *builder) smallInt(t antlr.TerminalNode) int {
	tok := t.GetSymbol()
	v, err := strconv.Atoi(tok.GetText())
	if err != nil || v > math.MaxInt32 {
		b.fail(gqlstatus.InvalidValueType, b.pos(tok), "use a smaller bound", "quantifier bound %s is out of range", tok.GetText())
	}
	return v
}

type labelMode uint8

const (
	labelsConj labelMode = iota // nodes, SET, REMOVE: :A:B or :A&B
	labelsAlt                   // edges: :A|B
)

func (b *builder) labels(ctx gen.ILabelSpecContext, mode labelMode) []string {
	var out []string
	for _, ch := range ctx.GetChildren() {
		switch c := ch.(type) {
		case *gen.AnyNameContext:
			out = append(out, b.name(c.GetStart()))
		case *gen.IsLabelNameContext:
			out = append(out, b.name(c.GetStart()))
		case *gen.LabelSepContext:
			sep := c.GetStart()
			switch {
			case mode == labelsConj && sep.GetTokenType() == gen.GoldfishGQLParserPIPE:
				b.fail(gqlstatus.Syntax, b.pos(sep), "write :A:B (or :A&B) for an element with both labels",
					"label alternatives with '|' are not supported here")
			case mode == labelsAlt && sep.GetTokenType() != gen.GoldfishGQLParserPIPE:
				b.fail(gqlstatus.Syntax, b.pos(sep), "an edge has one type; write alternatives as :A|B",
					"an edge cannot have several types at once")
			}
		}
	}
	return out
}

// ------------------------------------------------------------ expressions

func (b *builder) enter(pos ast.Pos) {
	b.depth++
	if b.depth > b.lim.MaxDepth {
		b.fail(gqlstatus.Syntax, pos, "flatten the expression or split the statement",
			"nesting is deeper than %d levels", b.lim.MaxDepth)
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

func (b *builder) expr(ctx gen.IExprContext) ast.Expr {
	b.enter(b.cpos(ctx))
	ch := ctx.GetChildren()
	x := b.xorExpr(ch[0].(gen.IXorExprContext))
	for i := 1; i+1 < len(ch); i += 2 {
		op := ch[i].(antlr.TerminalNode).GetSymbol()
		x = &ast.Binary{Pos: b.pos(op), Op: ast.OpOr, L: x, R: b.xorExpr(ch[i+1].(gen.IXorExprContext))}
	}
	b.depth--
	return x
}

func (b *builder) xorExpr(ctx gen.IXorExprContext) ast.Expr {
	ch := ctx.GetChildren()
	x := b.andExpr(ch[0].(gen.IAndExprContext))
	for i := 1; i+1 < len(ch); i += 2 {
		op := ch[i].(antlr.TerminalNode).GetSymbol()
		x = &ast.Binary{Pos: b.pos(op), Op: ast.OpXor, L: x, R: b.andExpr(ch[i+1].(gen.IAndExprContext))}
	}
	return x
}

func (b *builder) andExpr(ctx gen.IAndExprContext) ast.Expr {
	ch := ctx.GetChildren()
	x := b.notExpr(ch[0].(gen.INotExprContext))
	for i := 1; i+1 < len(ch); i += 2 {
		op := ch[i].(antlr.TerminalNode).GetSymbol()
		x = &ast.Binary{Pos: b.pos(op), Op: ast.OpAnd, L: x, R: b.notExpr(ch[i+1].(gen.INotExprContext))}
	}
	return x
}

func (b *builder) notExpr(ctx gen.INotExprContext) ast.Expr {
	if not := ctx.NOT(); not != nil {
		pos := b.pos(not.GetSymbol())
		b.enter(pos)
		x := &ast.Unary{Pos: pos, Op: ast.OpNot, X: b.notExpr(ctx.NotExpr())}
		b.depth--
		return x
	}
	return b.comparison(ctx.Comparison())
}

var compOps = map[int]ast.BinaryOp{
	gen.GoldfishGQLParserEQ:   ast.OpEq,
	gen.GoldfishGQLParserNEQ:  ast.OpNe,
	gen.GoldfishGQLParserNEQ2: ast.OpNe,
	gen.GoldfishGQLParserLT:   ast.OpLt,
	gen.GoldfishGQLParserLE:   ast.OpLe,
	gen.GoldfishGQLParserGT:   ast.OpGt,
	gen.GoldfishGQLParserGE:   ast.OpGe,
}

func (b *builder) comparison(ctx gen.IComparisonContext) ast.Expr {
	ch := ctx.GetChildren()
	x := b.additive(ch[0].(gen.IAdditiveContext))
	var lastColon *ast.LabelTest // x:A:B merges into one LabelTest
	for _, t := range ch[1:] {
		var colon *ast.LabelTest
		switch c := t.(type) {
		case *gen.BinaryTailContext:
			op := c.CompOp().GetStart()
			x = &ast.Binary{Pos: b.pos(op), Op: compOps[op.GetTokenType()], L: x, R: b.additive(c.Additive())}
		case *gen.InTailContext:
			x = &ast.Binary{Pos: b.cpos(c), Op: ast.OpIn, L: x, R: b.additive(c.Additive())}
		case *gen.StartsWithTailContext:
			x = &ast.Binary{Pos: b.cpos(c), Op: ast.OpStartsWith, L: x, R: b.additive(c.Additive())}
		case *gen.EndsWithTailContext:
			x = &ast.Binary{Pos: b.cpos(c), Op: ast.OpEndsWith, L: x, R: b.additive(c.Additive())}
		case *gen.ContainsTailContext:
			x = &ast.Binary{Pos: b.cpos(c), Op: ast.OpContains, L: x, R: b.additive(c.Additive())}
		case *gen.IsNullTailContext:
			x = &ast.IsNull{Pos: b.cpos(c), X: x, Not: c.NOT() != nil}
		case *gen.IsLabelTailContext:
			lt := &ast.LabelTest{Pos: b.cpos(c), X: x, Labels: []string{b.name(c.IsLabelName().GetStart())}}
			for _, n := range c.AllAnyName() {
				lt.Labels = append(lt.Labels, b.name(n.GetStart()))
			}
			if c.NOT() != nil {
				x = &ast.Unary{Pos: lt.Pos, Op: ast.OpNot, X: lt}
			} else {
				x = lt
			}
		case *gen.ColonLabelTailContext:
			var names []string
			for _, n := range c.AllAnyName() {
				names = append(names, b.name(n.GetStart()))
			}
			if lastColon != nil && x == ast.Expr(lastColon) {
				lastColon.Labels = append(lastColon.Labels, names...)
				colon = lastColon
			} else {
				colon = &ast.LabelTest{Pos: b.cpos(c), X: x, Labels: names}
				x = colon
			}
		}
		lastColon = colon
	}
	return x
}

func (b *builder) additive(ctx gen.IAdditiveContext) ast.Expr {
	ch := ctx.GetChildren()
	x := b.multiplicative(ch[0].(gen.IMultiplicativeContext))
	for i := 1; i+1 < len(ch); i += 2 {
		op := ch[i].(antlr.TerminalNode).GetSymbol()
		var bop ast.BinaryOp
		switch op.GetTokenType() {
		case gen.GoldfishGQLParserPLUS:
			bop = ast.OpAdd
		case gen.GoldfishGQLParserMINUS:
			bop = ast.OpSub
		default:
			bop = ast.OpConcat
		}
		x = &ast.Binary{Pos: b.pos(op), Op: bop, L: x, R: b.multiplicative(ch[i+1].(gen.IMultiplicativeContext))}
	}
	return x
}

func (b *builder) multiplicative(ctx gen.IMultiplicativeContext) ast.Expr {
	ch := ctx.GetChildren()
	x := b.unary(ch[0].(gen.IUnaryContext))
	for i := 1; i+1 < len(ch); i += 2 {
		op := ch[i].(antlr.TerminalNode).GetSymbol()
		var bop ast.BinaryOp
		switch op.GetTokenType() {
		case gen.GoldfishGQLParserSTAR:
			bop = ast.OpMul
		case gen.GoldfishGQLParserSLASH:
			bop = ast.OpDiv
		default:
			bop = ast.OpMod
		}
		x = &ast.Binary{Pos: b.pos(op), Op: bop, L: x, R: b.unary(ch[i+1].(gen.IUnaryContext))}
	}
	return x
}

func (b *builder) unary(ctx gen.IUnaryContext) ast.Expr {
	if pf := ctx.Postfix(); pf != nil {
		return b.postfix(pf)
	}
	sign := ctx.GetStart()
	pos := b.pos(sign)
	neg := sign.GetTokenType() == gen.GoldfishGQLParserMINUS
	inner := ctx.Unary()
	// A sign on a number literal folds into the literal, so that
	// -9223372036854775808 is representable.
	if lit := numberLiteral(inner); lit != nil {
		l := b.number(lit, neg)
		l.Pos = pos
		return l
	}
	b.enter(pos)
	op := ast.OpPlus
	if neg {
		op = ast.OpNeg
	}
	x := &ast.Unary{Pos: pos, Op: op, X: b.unary(inner)}
	b.depth--
	return x
}

// numberLiteral returns the INTEGER or FLOAT token when u is a bare number.
func numberLiteral(u gen.IUnaryContext) antlr.Token {
	pf := u.Postfix()
	if pf == nil || pf.GetChildCount() != 1 {
		return nil
	}
	lp, ok := pf.Primary().(*gen.LiteralPrimaryContext)
	if !ok {
		return nil
	}
	t := lp.Literal().GetStart()
	if tt := t.GetTokenType(); tt == gen.GoldfishGQLParserINTEGER || tt == gen.GoldfishGQLParserFLOAT {
		return t
	}
	return nil
}

func (b *builder) postfix(ctx gen.IPostfixContext) ast.Expr {
	x := b.primary(ctx.Primary())
	if ctx.GetChildCount() == 1 {
		return x
	}
	pos := x.Position()
	for _, n := range ctx.AllAnyName() {
		x = &ast.PropAccess{Pos: pos, Subject: x, Key: b.name(n.GetStart())}
	}
	return x
}

func (b *builder) primary(ctx gen.IPrimaryContext) ast.Expr {
	switch c := ctx.(type) {
	case *gen.LiteralPrimaryContext:
		return b.literal(c.Literal())
	case *gen.ParamPrimaryContext:
		t := c.PARAM().GetSymbol()
		return &ast.Param{Pos: b.pos(t), Name: t.GetText()[1:]}
	case *gen.VarPrimaryContext:
		t := c.GetStart()
		return &ast.Var{Pos: b.pos(t), Name: b.name(t)}
	case *gen.ParenPrimaryContext:
		return b.expr(c.Expr())
	case *gen.ListPrimaryContext:
		pos := b.cpos(c)
		b.enter(pos)
		l := &ast.ListLit{Pos: pos}
		if el := c.ExprList(); el != nil {
			l.Elems = b.exprList(el)
		} else {
			l.Elems = []ast.Expr{}
		}
		b.depth--
		return l
	case *gen.MapPrimaryContext:
		return b.mapLit(c.MapLiteral())
	case *gen.CallPrimaryContext:
		pos := b.cpos(c)
		b.enter(pos)
		f := &ast.FuncCall{Pos: pos, Name: b.name(c.FuncName().GetStart()),
			Star: c.STAR() != nil, Distinct: c.DISTINCT() != nil}
		if el := c.ExprList(); el != nil {
			f.Args = b.exprList(el)
		}
		b.depth--
		return f
	}
	panic(fmt.Sprintf("parser: unknown primary %T", ctx))
}

func (b *builder) mapLit(ctx gen.IMapLiteralContext) *ast.MapLit {
	pos := b.cpos(ctx)
	b.enter(pos)
	entries := ctx.AllMapEntry()
	m := &ast.MapLit{Pos: pos, Entries: make([]*ast.PropEntry, 0, len(entries))}
	for _, e := range entries {
		k := e.AnyName().GetStart()
		m.Entries = append(m.Entries, &ast.PropEntry{Pos: b.pos(k), Key: b.name(k), Value: b.expr(e.Expr())})
	}
	b.depth--
	return m
}

// ---------------------------------------------------------------- literals

func (b *builder) literal(ctx gen.ILiteralContext) *ast.Literal {
	t := ctx.GetStart()
	pos := b.pos(t)
	switch t.GetTokenType() {
	case gen.GoldfishGQLParserINTEGER, gen.GoldfishGQLParserFLOAT:
		return b.number(t, false)
	case gen.GoldfishGQLParserSTRING:
		return &ast.Literal{Pos: pos, Kind: ast.LitString, Str: b.str(t)}
	case gen.GoldfishGQLParserTRUE:
		return &ast.Literal{Pos: pos, Kind: ast.LitBool, Bool: true}
	case gen.GoldfishGQLParserFALSE:
		return &ast.Literal{Pos: pos, Kind: ast.LitBool}
	case gen.GoldfishGQLParserNULL:
		return &ast.Literal{Pos: pos, Kind: ast.LitNull}
	case gen.GoldfishGQLParserDATE:
		st := ctx.GetStop()
		s := b.str(st)
		if _, err := time.Parse("2006-01-02", s); err != nil {
			b.fail(gqlstatus.InvalidValueType, b.pos(st), "write dates as DATE 'YYYY-MM-DD', for example DATE '2026-01-31'",
				"invalid DATE literal %q", s)
		}
		return &ast.Literal{Pos: pos, Kind: ast.LitDate, Str: s}
	case gen.GoldfishGQLParserDATETIME:
		st := ctx.GetStop()
		s := b.str(st)
		if !validDateTime(s) {
			b.fail(gqlstatus.InvalidValueType, b.pos(st),
				"write date-times in ISO 8601, for example DATETIME '2026-01-31T14:05:00Z'",
				"invalid DATETIME literal %q", s)
		}
		return &ast.Literal{Pos: pos, Kind: ast.LitDateTime, Str: s}
	}
	panic(fmt.Sprintf("parser: unknown literal token %d", t.GetTokenType()))
}

var dateTimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04Z07:00",
	"2006-01-02 15:04",
}

func validDateTime(s string) bool {
	for _, l := range dateTimeLayouts {
		if _, err := time.Parse(l, s); err == nil {
			return true
		}
	}
	// lower-case t/z are ISO 8601 too
	if u := strings.ToUpper(s); u != s {
		return validDateTime(u)
	}
	return false
}

func (b *builder) number(t antlr.Token, neg bool) *ast.Literal {
	txt := t.GetText()
	pos := b.pos(t)
	if t.GetTokenType() == gen.GoldfishGQLParserINTEGER {
		s := txt
		if neg {
			s = "-" + txt
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			b.fail(gqlstatus.InvalidValueType, pos,
				"integers are 64-bit (up to 9223372036854775807); use a float or a string for larger numbers",
				"integer literal %s is out of range", s)
		}
		return &ast.Literal{Pos: pos, Kind: ast.LitInt, Int: v}
	}
	v, err := strconv.ParseFloat(txt, 64)
	if err != nil {
		b.fail(gqlstatus.InvalidValueType, pos, "floats are 64-bit IEEE 754", "float literal %s is out of range", txt)
	}
	if neg {
		v = -v
	}
	return &ast.Literal{Pos: pos, Kind: ast.LitFloat, Float: v}
}

// name returns the name a token spells: backquotes removed, as written
// otherwise (labels and keys are case-sensitive, keywords used as names
// keep their case).
func (b *builder) name(t antlr.Token) string {
	s := t.GetText()
	if t.GetTokenType() != gen.GoldfishGQLParserQUOTED_ID {
		return s
	}
	s = s[1 : len(s)-1]
	if s == "" {
		b.fail(gqlstatus.Syntax, b.pos(t), "write a name between the backquotes", "empty quoted name")
	}
	return strings.ReplaceAll(s, "``", "`")
}

// str decodes a STRING token: quotes removed, escapes and doubled quotes
// resolved. A bad escape fails at its own position.
func (b *builder) str(t antlr.Token) string {
	raw := t.GetText()
	q := raw[0]
	body := raw[1 : len(raw)-1]
	if strings.IndexByte(body, '\\') < 0 && strings.IndexByte(body, q) < 0 {
		return body
	}
	base := b.off(t.GetStart()) + 1 // byte offset of body in text
	var sb strings.Builder
	sb.Grow(len(body))
	for i := 0; i < len(body); {
		c := body[i]
		if c == q { // doubled quote (the lexer guarantees the pair)
			sb.WriteByte(q)
			i += 2
			continue
		}
		if c != '\\' {
			sb.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(body) {
			b.badEscape(base+i, "\\")
		}
		e := body[i+1]
		switch e {
		case 'n':
			sb.WriteByte('\n')
		case 't':
			sb.WriteByte('\t')
		case 'r':
			sb.WriteByte('\r')
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case '0':
			sb.WriteByte(0)
		case '\\', '\'', '"', '/', '`':
			sb.WriteByte(e)
		case 'u', 'U':
			n := 4
			if e == 'U' {
				n = 8
			}
			r, ok := hexRune(body, i+2, n)
			if !ok {
				b.badEscape(base+i, body[i:min(len(body), i+2+n)])
			}
			adv := 2 + n
			if utf16.IsSurrogate(r) {
				// \uD83D\uDE00: a UTF-16 surrogate pair
				r2, ok2 := rune(0), false
				if i+adv+1 < len(body) && body[i+adv] == '\\' && body[i+adv+1] == 'u' {
					r2, ok2 = hexRune(body, i+adv+2, 4)
				}
				dec := utf8.RuneError
				if ok2 {
					dec = utf16.DecodeRune(r, r2)
				}
				if dec == utf8.RuneError {
					b.badEscape(base+i, body[i:i+adv])
				}
				r = dec
				adv += 6
			}
			if !utf8.ValidRune(r) {
				b.badEscape(base+i, body[i:i+adv])
			}
			sb.WriteRune(r)
			i += adv
			continue
		default:
			_, size := utf8.DecodeRuneInString(body[i+1:])
			b.badEscape(base+i, body[i:i+1+size])
		}
		i += 2
	}
	return sb.String()
}

func hexRune(s string, at, n int) (rune, bool) {
	if at+n > len(s) {
		return 0, false
	}
	v, err := strconv.ParseUint(s[at:at+n], 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(v), true
}

func (b *builder) badEscape(off int, esc string) {
	b.fail(gqlstatus.Syntax, posAtOffset(b.text, off),
		`valid escapes are \n \t \r \b \f \0 \\ \' \" \uXXXX and \UXXXXXXXX; write \\ for a backslash`,
		"invalid escape %q in string", esc)
}
