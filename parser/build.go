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

func (b *builder) setItem(c gen.ISetItemContext) ast.SetItem {
	pos := b.cpos(c)
	v := b.name(c.VarName().GetStart())
	switch {
	case c.DOT() != nil:
		return &ast.SetProp{Pos: pos, Var: v, Key: b.name(c.AnyName().GetStart()), Value: b.expr(c.Expr())}
	case c.EQ() != nil:
		return &ast.SetAllProps{Pos: pos, Var: v, Map: b.mapLit(c.MapLiteral())}
	case c.PLUSEQ() != nil:
		return &ast.SetAllProps{Pos: pos, Var: v, Map: b.mapLit(c.MapLiteral()), Merge: true}
	default:
		return &ast.SetLabels{Pos: pos, Var: v, Labels: b.labels(c.LabelSpec(), labelsConj)}
	}
}

func (b *builder) removeItem(c gen.IRemoveItemContext) ast.RemoveItem {
	pos := b.cpos(c)
	v := b.name(c.VarName().GetStart())
	if c.DOT() != nil {
		return &ast.RemoveProp{Pos: pos, Var: v, Key: b.name(c.AnyName().GetStart())}
	}
	return &ast.RemoveLabels{Pos: pos, Var: v, Labels: b.labels(c.LabelSpec(), labelsConj)}
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
	if m := ctx.MapLiteral(); m != nil {
		n.Props = b.mapLit(m).Entries
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
		if m := body.MapLiteral(); m != nil {
			e.Props = b.mapLit(m).Entries
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
		b.fail(gqlstatus.NumericOutOfRange, b.pos(tok), "use a smaller bound", "quantifier bound %s is out of range", tok.GetText())
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
		b.fail(gqlstatus.TextLimit, pos, "flatten the expression or split the statement",
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

// Precedence levels, lowest first.
const (
	precOr = 1 + iota
	precXor
	precAnd
	precNot
	precCmp // comparisons, IN, STARTS/ENDS WITH, CONTAINS, IS NULL, labels
	precAdd
	precMul
	precSign
)

type binInfo struct {
	op   ast.BinaryOp
	prec int
}

var binOps = map[int]binInfo{
	gen.GoldfishGQLParserOR:       {ast.OpOr, precOr},
	gen.GoldfishGQLParserXOR:      {ast.OpXor, precXor},
	gen.GoldfishGQLParserAND:      {ast.OpAnd, precAnd},
	gen.GoldfishGQLParserEQ:       {ast.OpEq, precCmp},
	gen.GoldfishGQLParserNEQ:      {ast.OpNe, precCmp},
	gen.GoldfishGQLParserNEQ2:     {ast.OpNe, precCmp},
	gen.GoldfishGQLParserLT:       {ast.OpLt, precCmp},
	gen.GoldfishGQLParserLE:       {ast.OpLe, precCmp},
	gen.GoldfishGQLParserGT:       {ast.OpGt, precCmp},
	gen.GoldfishGQLParserGE:       {ast.OpGe, precCmp},
	gen.GoldfishGQLParserIN:       {ast.OpIn, precCmp},
	gen.GoldfishGQLParserCONTAINS: {ast.OpContains, precCmp},
	gen.GoldfishGQLParserSTARTS:   {ast.OpStartsWith, precCmp},
	gen.GoldfishGQLParserENDS:     {ast.OpEndsWith, precCmp},
	gen.GoldfishGQLParserPLUS:     {ast.OpAdd, precAdd},
	gen.GoldfishGQLParserMINUS:    {ast.OpSub, precAdd},
	gen.GoldfishGQLParserCONCAT:   {ast.OpConcat, precAdd},
	gen.GoldfishGQLParserSTAR:     {ast.OpMul, precMul},
	gen.GoldfishGQLParserSLASH:    {ast.OpDiv, precMul},
	gen.GoldfishGQLParserPERCENT:  {ast.OpMod, precMul},
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
			items = append(items, exprItem{op: t, bin: binOps[t.GetTokenType()]})
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
		x = &ast.Binary{Pos: b.pos(it.op), Op: it.bin.op, L: x, R: r}
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
	if o.DOT(0) != nil {
		return nil
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

func (b *builder) operandBase(o *gen.OperandContext) ast.Expr {
	x := b.primary(o.Primary())
	if o.DOT(0) == nil {
		return x
	}
	pos := x.Position()
	for _, n := range o.AllAnyName() {
		x = &ast.PropAccess{Pos: pos, Subject: x, Key: b.name(n.GetStart())}
	}
	return x
}

func (b *builder) tail(c gen.IExprTailContext, x ast.Expr, lastColon *ast.LabelTest) (ast.Expr, *ast.LabelTest) {
	pos := b.cpos(c)
	if c.IS() != nil {
		if c.NULL() != nil {
			return &ast.IsNull{Pos: pos, X: x, Not: c.NOT() != nil}, nil
		}
		lt := &ast.LabelTest{Pos: pos, X: x, Labels: []string{b.name(c.IsLabelName().GetStart())}}
		for _, n := range c.AllAnyName() {
			lt.Labels = append(lt.Labels, b.name(n.GetStart()))
		}
		if c.NOT() != nil {
			return &ast.Unary{Pos: pos, Op: ast.OpNot, X: lt}, nil
		}
		return lt, nil
	}
	names := make([]string, 0, 1)
	for _, n := range c.AllAnyName() {
		names = append(names, b.name(n.GetStart()))
	}
	if lastColon != nil && x == ast.Expr(lastColon) {
		lastColon.Labels = append(lastColon.Labels, names...)
		return lastColon, lastColon
	}
	lt := &ast.LabelTest{Pos: pos, X: x, Labels: names}
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
		return b.temporal(c.GetStart(), c.STRING().GetSymbol())
	case *gen.ParamPrimaryContext:
		t := c.PARAM().GetSymbol()
		return &ast.Param{Pos: b.pos(t), Name: t.GetText()[1:]}
	case *gen.VarPrimaryContext:
		t := c.GetStart()
		if args := c.CallArgs(); args != nil {
			return b.call(t, args)
		}
		return &ast.Var{Pos: b.pos(t), Name: b.name(t)}
	case *gen.ParenPrimaryContext:
		return b.expr(c.Expr())
	case *gen.ListPrimaryContext:
		l := &ast.ListLit{Pos: b.cpos(c)}
		if el := c.ExprList(); el != nil {
			l.Elems = b.exprList(el)
		} else {
			l.Elems = []ast.Expr{}
		}
		return l
	case *gen.MapPrimaryContext:
		return b.mapLit(c.MapLiteral())
	}
	panic(fmt.Sprintf("parser: unknown primary %T", ctx))
}

func (b *builder) call(name antlr.Token, c gen.ICallArgsContext) ast.Expr {
	f := &ast.FuncCall{Pos: b.pos(name), Name: b.name(name), Star: c.STAR() != nil, Distinct: c.DISTINCT() != nil}
	if el := c.ExprList(); el != nil {
		f.Args = b.exprList(el)
	}
	return f
}

func (b *builder) mapLit(ctx gen.IMapLiteralContext) *ast.MapLit {
	entries := ctx.AllMapEntry()
	m := &ast.MapLit{Pos: b.cpos(ctx), Entries: make([]*ast.PropEntry, 0, len(entries))}
	for _, e := range entries {
		k := e.AnyName().GetStart()
		m.Entries = append(m.Entries, &ast.PropEntry{Pos: b.pos(k), Key: b.name(k), Value: b.expr(e.Expr())})
	}
	return m
}

// ---------------------------------------------------------------- literals

func (b *builder) literal(t antlr.Token) *ast.Literal {
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
	}
	panic(fmt.Sprintf("parser: unknown literal token %d", t.GetTokenType()))
}

// temporal builds DATE '…' and DATETIME '…', checking the text.
func (b *builder) temporal(kw, st antlr.Token) *ast.Literal {
	pos := b.pos(kw)
	s := b.str(st)
	if kw.GetTokenType() == gen.GoldfishGQLParserDATE {
		if _, err := time.Parse("2006-01-02", s); err != nil {
			b.fail(gqlstatus.InvalidDateTimeFormat, b.pos(st), "write dates as DATE 'YYYY-MM-DD', for example DATE '2026-01-31'",
				"invalid DATE literal %q", s)
		}
		return &ast.Literal{Pos: pos, Kind: ast.LitDate, Str: s}
	}
	if !validDateTime(s) {
		b.fail(gqlstatus.InvalidDateTimeFormat, b.pos(st),
			"write date-times in ISO 8601, for example DATETIME '2026-01-31T14:05:00Z'",
			"invalid DATETIME literal %q", s)
	}
	return &ast.Literal{Pos: pos, Kind: ast.LitDateTime, Str: s}
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
			b.fail(gqlstatus.NumericOutOfRange, pos,
				"integers are 64-bit (up to 9223372036854775807); use a float or a string for larger numbers",
				"integer literal %s is out of range", s)
		}
		return &ast.Literal{Pos: pos, Kind: ast.LitInt, Int: v}
	}
	v, err := strconv.ParseFloat(txt, 64)
	if err != nil {
		b.fail(gqlstatus.NumericOutOfRange, pos, "floats are 64-bit IEEE 754", "float literal %s is out of range", txt)
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
