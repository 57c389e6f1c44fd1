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
	// refusals are the refused forms of the statement being built, and
	// err the first error found in it: building goes on past an error, so
	// that a refused form later in the statement is still found.
	refusals []*ast.Refused
	err      *gqlstatus.Error
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

// fail records the statement's first error; the caller goes on with a
// stand-in value.
func (b *builder) fail(code gqlstatus.Code, pos ast.Pos, hint, format string, args ...any) {
	if b.err == nil {
		b.err = gqlstatus.At(code, pos, b.text, format, args...).WithHint(hint)
	}
}

// refuse records a form outside the subset at pos.
func (b *builder) refuse(pos ast.Pos, feature string) *ast.Refused {
	r := &ast.Refused{Pos: pos, Feature: feature}
	b.refusals = append(b.refusals, r)
	return r
}

// refusedExpr records an expression outside the subset and stands in for it.
func (b *builder) refusedExpr(pos ast.Pos, feature string) ast.Expr {
	b.refuse(pos, feature)
	return &ast.RefusedExpr{Pos: pos, Feature: feature}
}

// ------------------------------------------------------------- statements

func (b *builder) stmt(ctx gen.IStatementContext) ast.Stmt {
	b.refusals = nil
	switch c := ctx.(type) {
	case *gen.StartTxContext:
		if c.TRANSACTION() == nil {
			// START DATABASE x, Cypher's START n = node(1), …
			feature := "START"
			if w := wordAfter(c.GetChildren(), 0); w != "" {
				feature += " " + w
			}
			return b.refusedStmt(c, b.cpos(c), feature)
		}
		if iso := c.ISOLATION(); iso != nil {
			return b.refusedStmt(c, b.pos(iso.GetSymbol()), "ISOLATION LEVEL")
		}
		s := &ast.StartTransaction{Pos: b.cpos(c)}
		if m := c.TxMode(); m != nil {
			s.ReadOnly = m.ONLY() != nil
		}
		return s
	case *gen.CommitTxContext:
		return &ast.CommitTx{Pos: b.cpos(c)}
	case *gen.RollbackTxContext:
		if c.TO() != nil {
			feature := "ROLLBACK TO"
			if w := wordAfter(c.RefusedTail().GetChildren(), -1); w == "SAVEPOINT" {
				feature += " SAVEPOINT"
			}
			return b.refusedStmt(c, b.cpos(c), feature)
		}
		return &ast.RollbackTx{Pos: b.cpos(c)}
	case *gen.QueryStmtContext:
		return b.query(c)
	}
	panic(fmt.Sprintf("parser: unknown statement %T", ctx))
}

// refusedStmt is a statement that is one refused form.
func (b *builder) refusedStmt(ctx antlr.ParserRuleContext, pos ast.Pos, feature string) *ast.Query {
	r := b.refuse(pos, feature)
	return &ast.Query{Pos: b.cpos(ctx), Text: b.source(ctx), Clauses: []ast.Clause{r}, Refusals: b.refusals}
}

// query builds a linear statement, or the action call CALL name(args)
// sent alone. A statement that holds a form outside the subset is refused
// by name whatever else it holds: an error found while building it (a
// literal out of range, a bad escape) gives way to its refused forms.
func (b *builder) query(c *gen.QueryStmtContext) ast.Stmt {
	b.err = nil
	clauses := c.AllClause()
	q := &ast.Query{Pos: b.cpos(c), Text: b.source(c), Clauses: make([]ast.Clause, 0, len(clauses))}
	var alone ast.Stmt // a statement that is one clause of its own kind
	if cc, ok := clauses[0].(*gen.CallClauseContext); ok && len(clauses) == 1 && cc.QualifiedName() != nil &&
		cc.YIELD() == nil && cc.WHERE() == nil && cc.EQ() == nil {
		call := &ast.Call{Pos: b.cpos(cc), Name: b.qualifiedName(cc.QualifiedName())}
		if l := cc.ActionArgs(); l != nil {
			for _, a := range l.AllActionArg() {
				name := ""
				if n := a.AnyName(); n != nil {
					name = b.name(n.GetStart())
				}
				call.Args = append(call.Args, b.expr(a.Expr()))
				call.Names = append(call.Names, name)
			}
		}
		alone = call
	} else if v := b.vocabStmt(clauses[0], c); v != nil {
		if len(clauses) > 1 {
			b.fail(gqlstatus.Syntax, b.cpos(clauses[1]), "end it with ';' before the next statement",
				"%s is a statement of its own", vocabVerb(v))
		}
		alone = v
	} else {
		for _, cl := range clauses {
			if v := b.vocabStmt(cl, c); v != nil {
				b.fail(gqlstatus.Syntax, b.cpos(cl), "write it as a statement of its own, ended by ';'",
					"%s is a statement of its own", vocabVerb(v))
			}
			q.Clauses = append(q.Clauses, b.clause(cl))
		}
	}
	if len(b.refusals) > 0 {
		q.Refusals = sortRefusals(b.refusals)
		return q
	}
	if b.err != nil {
		panic(buildError{b.err})
	}
	if alone != nil {
		return alone
	}
	return q
}

func vocabVerb(s ast.Stmt) string {
	switch x := s.(type) {
	case *ast.DefineView:
		return "CREATE VIEW"
	case *ast.DefineAction:
		return "CREATE ACTION"
	case *ast.DropVocab:
		if x.Action {
			return "DROP ACTION"
		}
		return "DROP VIEW"
	}
	return "the statement"
}

// vocabStmt builds the registration a CREATE or DROP clause makes (CREATE
// VIEW, CREATE ACTION, DROP VIEW, DROP ACTION), or returns nil for any
// other clause (a CREATE or DROP of something else is refused as a
// clause). stmt is the statement it is in, whose text an action keeps.
func (b *builder) vocabStmt(cl gen.IClauseContext, stmt *gen.QueryStmtContext) ast.Stmt {
	switch c := cl.(type) {
	case *gen.CreateClauseContext:
		cb := c.CreateBody()
		replace := cb.REPLACE() != nil
		switch {
		case cb.VIEW() != nil:
			strs := cb.AllSTRING()
			v := &ast.DefineView{Pos: b.cpos(c), Replace: replace, Name: b.name(cb.AnyName().GetStart())}
			if cb.INTENT() != nil {
				v.Intent = b.str(strs[0].GetSymbol())
			}
			last := strs[len(strs)-1].GetSymbol()
			v.Expr, v.ExprPos = b.str(last), b.afterQuote(last)
			return v
		case cb.ACTION() != nil:
			return b.defineAction(c, cb, stmt)
		}
	case *gen.DropClauseContext:
		db := c.DropBody()
		if db.VIEW() != nil || db.ACTION() != nil {
			return &ast.DropVocab{Pos: b.cpos(c), Action: db.ACTION() != nil, Name: b.name(db.AnyName().GetStart())}
		}
	}
	return nil
}

// afterQuote is the position of the first character inside a string
// literal's quotes.
func (b *builder) afterQuote(t antlr.Token) ast.Pos {
	p := b.pos(t)
	p.Col++
	p.Offset++
	return p
}

func (b *builder) defineAction(c *gen.CreateClauseContext, cb gen.ICreateBodyContext, stmt *gen.QueryStmtContext) *ast.DefineAction {
	a := &ast.DefineAction{Pos: b.cpos(c), Replace: cb.REPLACE() != nil, Name: b.name(cb.AnyName().GetStart()), Text: b.source(stmt)}
	for _, pc := range cb.AllActionParam() {
		p := &ast.ActionParam{Pos: b.cpos(pc), Name: b.name(pc.VarName().GetStart()),
			Type: b.name(pc.AnyName().GetStart()), TypePos: b.cpos(pc.AnyName())}
		if e := pc.Expr(); e != nil {
			p.Default = b.expr(e)
		}
		a.Params = append(a.Params, p)
	}
	// INTENT and IF are optional and both strings: the INTENT keyword's
	// token tells them apart.
	strs := cb.AllSTRING()
	i := 0
	if cb.INTENT() != nil {
		a.Intent = b.str(strs[i].GetSymbol())
		i++
	}
	if cb.IF() != nil {
		a.If, a.IfPos = b.str(strs[i].GetSymbol()), b.afterQuote(strs[i].GetSymbol())
	}
	// The body is parsed as a script of its own: the whole text with
	// everything outside the braces blanked (line breaks kept), so every
	// position in it is the position in the CREATE text.
	lb, rb := cb.LBRACE().GetSymbol(), cb.RBRACE().GetSymbol()
	from, to := b.off(lb.GetStart())+1, b.off(rb.GetStart())
	masked := []byte(b.text)
	for i := range masked {
		if (i < from || i >= to) && masked[i] != '\n' && masked[i] != '\r' {
			masked[i] = ' '
		}
	}
	body, err := parse(string(masked), b.lim, true)
	if err != nil {
		if err.Pos.Valid() {
			err.Locate(err.Pos, b.text)
		}
		panic(buildError{err})
	}
	body.Text = b.text
	a.Body = body
	return a
}

// sortRefusals orders refusals by position; they are recorded mostly in
// order already (a list comprehension records its elements first).
func sortRefusals(rs []*ast.Refused) []*ast.Refused {
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j].Pos.Offset < rs[j-1].Pos.Offset; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
	return rs
}

func (b *builder) qualifiedName(ctx gen.IQualifiedNameContext) string {
	name := b.name(ctx.VarName().GetStart())
	for _, part := range ctx.AllAnyName() {
		name += "." + b.name(part.GetStart())
	}
	return name
}

func (b *builder) clause(ctx gen.IClauseContext) ast.Clause {
	switch c := ctx.(type) {
	case *gen.MatchClauseContext:
		if mm := c.MatchMode(); mm != nil {
			b.refuse(b.cpos(mm), "match mode "+upperWords(mm))
		}
		m := &ast.Match{Pos: b.cpos(c), Patterns: b.patterns(c.PathPatterns())}
		if e := c.Expr(); e != nil {
			m.Where = b.expr(e)
		}
		if y := c.YIELD(); y != nil {
			b.refuse(b.pos(y.GetSymbol()), "graph pattern YIELD")
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
	case *gen.CallClauseContext:
		switch {
		case c.QualifiedName() == nil:
			return b.refuse(b.cpos(c), "CALL { } subquery")
		case c.YIELD() != nil:
			// CALL … YIELD: a procedure returning rows.
			return b.refuse(b.pos(c.YIELD().GetSymbol()), "YIELD")
		case c.WHERE() != nil:
			return b.refuse(b.pos(c.WHERE().GetSymbol()), "WHERE after CALL")
		case c.EQ() != nil:
			return b.refuse(b.cpos(c), "CALL option = value")
		}
		return b.refuse(b.cpos(c), "CALL inside a statement")
	case *gen.RefusedClauseContext:
		return b.refuse(b.cpos(c), clauseFeature(c.RefusedWord().GetStart(), c.RefusedTail().GetChildren()))
	case *gen.CreateClauseContext:
		if b.vocabStmt(c, nil) != nil {
			return &ast.Refused{Pos: b.cpos(c), Feature: "CREATE"} // failed in query: not alone
		}
		return b.refuse(b.cpos(c), clauseFeature(c.CREATE().GetSymbol(), tailOf(c.CreateBody())))
	case *gen.DropClauseContext:
		if b.vocabStmt(c, nil) != nil {
			return &ast.Refused{Pos: b.cpos(c), Feature: "DROP"}
		}
		return b.refuse(b.cpos(c), clauseFeature(c.DROP().GetSymbol(), tailOf(c.DropBody())))
	}
	panic(fmt.Sprintf("parser: unknown clause %T", ctx))
}

// tailOf returns the tokens after CREATE or DROP in a refused form: the
// body's own children, the refused tail's children spliced in.
func tailOf(ctx antlr.ParserRuleContext) []antlr.Tree {
	var out []antlr.Tree
	for _, ch := range ctx.GetChildren() {
		if rt, ok := ch.(gen.IRefusedTailContext); ok {
			out = append(out, rt.GetChildren()...)
			continue
		}
		out = append(out, ch)
	}
	return out
}

// clauseFeature names a refused clause by its keyword and, where the
// keyword alone does not say what it is, the words after it: ORDER BY,
// OPTIONAL MATCH, CREATE GRAPH TYPE, DROP INDEX, SHOW DATABASES, LOAD CSV.
func clauseFeature(word antlr.Token, tail []antlr.Tree) string {
	kw := strings.ToUpper(word.GetText())
	switch kw {
	case "ORDER", "GROUP":
		return kw + " BY"
	case "GRAPH":
		return "GRAPH clause"
	case "OPTIONAL", "SESSION", "LOAD", "SHOW", "ALTER", "GRANT", "REVOKE", "DENY", "TERMINATE", "STOP", "RENAME", "RELEASE":
		if w := wordAfter(tail, -1); w != "" {
			return kw + " " + w
		}
	case "CREATE", "DROP":
		return kw + catalogObject(tail)
	}
	return kw
}

// catalogObject names what CREATE or DROP makes or removes (" GRAPH
// TYPE", " INDEX", …), or "" for Cypher's CREATE of a pattern.
func catalogObject(tail []antlr.Tree) string {
	var words []string
	for _, ch := range tail {
		t, ok := ch.(antlr.TerminalNode)
		if !ok || !isWord(t.GetSymbol()) || len(words) == 4 {
			break
		}
		words = append(words, strings.ToUpper(t.GetText()))
	}
	if len(words) >= 2 && words[0] == "OR" && words[1] == "REPLACE" {
		words = words[2:]
	}
	if len(words) >= 3 && words[0] == "IF" && words[1] == "NOT" && words[2] == "EXISTS" {
		words = words[3:]
	}
	if len(words) == 0 {
		return ""
	}
	switch words[0] {
	case "PROPERTY":
		if len(words) > 1 && words[1] == "GRAPH" {
			if len(words) > 2 && words[2] == "TYPE" {
				return " PROPERTY GRAPH TYPE"
			}
			return " PROPERTY GRAPH"
		}
	case "GRAPH":
		if len(words) > 1 && words[1] == "TYPE" {
			return " GRAPH TYPE"
		}
		return " GRAPH"
	case "SCHEMA", "INDEX", "CONSTRAINT", "DATABASE", "ALIAS", "USER", "ROLE", "SERVER":
		return " " + words[0]
	case "RANGE", "TEXT", "POINT", "LOOKUP", "FULLTEXT", "VECTOR", "BTREE":
		if len(words) > 1 && words[1] == "INDEX" {
			return " INDEX"
		}
	case "COMPOSITE":
		return " DATABASE"
	}
	return ""
}

// wordAfter returns, upper-cased, the word among nodes after index i,
// when the node right after i is one ("" otherwise).
func wordAfter(nodes []antlr.Tree, i int) string {
	if i+1 >= len(nodes) {
		return ""
	}
	t, ok := nodes[i+1].(antlr.TerminalNode)
	if !ok || !isWord(t.GetSymbol()) {
		return ""
	}
	return strings.ToUpper(t.GetText())
}

// isWord reports whether a token is a keyword or a plain identifier.
func isWord(t antlr.Token) bool {
	s := t.GetText()
	if s == "" || t.GetTokenType() == gen.GoldfishGQLParserQUOTED_ID {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// upperWords renders a context's tokens upper-cased, one blank apart:
// ANY SHORTEST, SHORTEST 2 GROUPS.
func upperWords(ctx antlr.ParserRuleContext) string {
	var parts []string
	for _, ch := range ctx.GetChildren() {
		switch t := ch.(type) {
		case antlr.TerminalNode:
			parts = append(parts, strings.ToUpper(t.GetText()))
		case antlr.ParserRuleContext:
			parts = append(parts, strings.ToUpper(t.GetText()))
		}
	}
	return strings.Join(parts, " ")
}

func (b *builder) setItem(c gen.ISetItemContext) ast.SetItem {
	pos := b.cpos(c)
	v := b.name(c.VarName().GetStart())
	switch {
	case c.DOT() != nil:
		return &ast.SetProp{Pos: pos, Var: v, Key: b.name(c.AnyName().GetStart()), Value: b.expr(c.Expr(0))}
	case c.LBRACK() != nil:
		b.refuse(b.pos(c.LBRACK().GetSymbol()), "dynamic property n[ ]")
		b.expr(c.Expr(0))
		return &ast.SetProp{Pos: pos, Var: v, Value: b.expr(c.Expr(1))}
	case c.PARAM() != nil:
		b.refuse(b.pos(c.PARAM().GetSymbol()), "properties from a parameter")
		return &ast.SetAllProps{Pos: pos, Var: v, Map: &ast.MapLit{Pos: pos}, Merge: c.PLUSEQ() != nil}
	case c.EQ() != nil:
		return &ast.SetAllProps{Pos: pos, Var: v, Map: b.mapLit(c.MapLiteral())}
	case c.PLUSEQ() != nil:
		return &ast.SetAllProps{Pos: pos, Var: v, Map: b.mapLit(c.MapLiteral()), Merge: true}
	default:
		return &ast.SetLabels{Pos: pos, Var: v, Labels: b.labelsToGive(c.LabelSpec(), "SET")}
	}
}

func (b *builder) removeItem(c gen.IRemoveItemContext) ast.RemoveItem {
	pos := b.cpos(c)
	v := b.name(c.VarName().GetStart())
	if c.DOT() != nil {
		return &ast.RemoveProp{Pos: pos, Var: v, Key: b.name(c.AnyName().GetStart())}
	}
	return &ast.RemoveLabels{Pos: pos, Var: v, Labels: b.labelsToGive(c.LabelSpec(), "REMOVE")}
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
	// Read from the children: the generated accessors that return lists
	// would allocate for every pattern.
	children := ctx.GetChildren()
	rest := children
	if v, ok := children[0].(*gen.VarNameContext); ok {
		switch {
		case len(children) == 1:
			// MATCH n: Cypher 1's node without parentheses
			b.refuse(b.cpos(v), "node pattern without parentheses")
			p.Nodes = []*ast.NodePattern{{Pos: b.cpos(v), Var: b.name(v.GetStart())}}
			return p
		case ctx.EQ() != nil:
			p.Var = b.name(v.GetStart())
			rest = children[2:]
		}
	}
	if len(rest) > 1 {
		if v, ok := rest[0].(*gen.VarNameContext); ok {
			// shortestPath((a)-[*]-(b)), allShortestPaths(…)
			b.refuse(b.cpos(v), v.GetText()+"()")
			inner := b.path(ctx.PathPattern())
			p.Nodes, p.Edges = inner.Nodes, inner.Edges
			return p
		}
	}
	if pp := ctx.PathPrefix(); pp != nil {
		b.pathPrefix(pp)
	}
	b.pathBodies(rest, p, true)
	return p
}

// pathPrefix names a path search prefix (ANY SHORTEST, SHORTEST 2 GROUPS)
// or, without one, a path mode (TRAIL, ACYCLIC PATHS).
func (b *builder) pathPrefix(ctx gen.IPathPrefixContext) {
	words := upperWords(ctx)
	kind := "path mode "
	for _, ch := range ctx.GetChildren() {
		if t, ok := ch.(antlr.TerminalNode); ok {
			switch t.GetSymbol().GetTokenType() {
			case gen.GoldfishGQLParserANY, gen.GoldfishGQLParserALL, gen.GoldfishGQLParserSHORTEST, gen.GoldfishGQLParserCHEAPEST:
				kind = "path search prefix "
			}
		}
	}
	b.refuse(b.cpos(ctx), kind+words)
}

// pathBodies reads the path of a pathPattern or a parenPath (among their
// other children, which it skips): the first body, written out among the
// children, into p; alternatives after | or |+| (pathBody, parenBody) are
// refused and read apart. At the top level an edge that starts a path is
// refused.
func (b *builder) pathBodies(children []antlr.Tree, p *ast.PathPattern, top bool) {
	first := true
	for i, ch := range children {
		switch c := ch.(type) {
		case *gen.PathFactorContext:
			first = false
		case gen.IEdgePatternContext:
			if first && top {
				b.refuse(b.cpos(c), "path starting with an edge")
			}
			first = false
		case antlr.TerminalNode:
			if c.GetSymbol().GetTokenType() == gen.GoldfishGQLParserPIPE && i+1 < len(children) {
				feature := "path pattern union |"
				if t, ok := children[i+1].(antlr.TerminalNode); ok && t.GetSymbol().GetTokenType() == gen.GoldfishGQLParserPLUS {
					feature = "path multiset alternation |+|"
				}
				b.refuse(b.pos(c.GetSymbol()), feature)
				b.pathAlternatives(children[i+1:])
				b.pathElements(children[:i], p)
				return
			}
		case *gen.ParenBodyContext:
			// inside parentheses every body is a parenBody
			b.pathElements(c.GetChildren(), p)
			b.pathAlternatives(children[i+1:])
			return
		}
	}
	b.pathElements(children, p)
}

// pathAlternatives reads the bodies after a | for the refused forms they
// hold.
func (b *builder) pathAlternatives(children []antlr.Tree) {
	for _, ch := range children {
		switch c := ch.(type) {
		case *gen.PathBodyContext:
			b.pathElements(c.GetChildren(), &ast.PathPattern{})
		case *gen.ParenBodyContext:
			b.pathElements(c.GetChildren(), &ast.PathPattern{})
		}
	}
}

// pathElements reads node patterns and edges in order into p. A
// parenthesised path is refused; two node patterns with nothing between
// them are an error.
func (b *builder) pathElements(children []antlr.Tree, p *ast.PathPattern) {
	lastNode := false // the previous element was a plain node pattern
	into := p
	for _, ch := range children {
		switch c := ch.(type) {
		case *gen.PathFactorContext:
			if c.ParenBody(0) != nil {
				b.parenPath(c)
				lastNode = false
				continue
			}
			if lastNode {
				b.fail(gqlstatus.Syntax, b.cpos(c), "write an edge between them, such as (a)-[:TYPE]->(b)",
					"two node patterns follow each other without an edge")
			}
			into.Nodes = append(into.Nodes, b.factorNode(c))
			lastNode = true
		case *gen.EdgeInContext:
			switch {
			case c.SimplifiedBody() != nil:
				b.refuse(b.cpos(c), "simplified path pattern -/ /->")
				into.Edges = append(into.Edges, &ast.EdgePattern{Pos: b.cpos(c), Dir: ast.DirIn})
			case c.TILDE(0) != nil:
				b.refuse(b.cpos(c), "undirected edge <~[ ]~")
				into.Edges = append(into.Edges, b.edge(c, ast.DirIn, c.EdgeBody(), c.Quantifier()))
			default:
				dir := ast.DirIn
				if c.GT() != nil {
					dir = ast.DirBoth // <-[ ]->: left or right
				}
				into.Edges = append(into.Edges, b.edge(c, dir, c.EdgeBody(), c.Quantifier()))
			}
			lastNode = false
		case *gen.EdgeOutOrBothContext:
			if c.SimplifiedBody() != nil {
				b.refuse(b.cpos(c), "simplified path pattern -/ /->")
				into.Edges = append(into.Edges, &ast.EdgePattern{Pos: b.cpos(c), Dir: ast.DirBoth})
				lastNode = false
				continue
			}
			dir := ast.DirBoth
			if c.GT() != nil {
				dir = ast.DirOut
			}
			if rb := c.RBRACK(); rb != nil && c.GetChild(c.GetChildCount()-1) == antlr.Tree(rb) {
				// -[e] with nothing after the bracket
				b.fail(gqlstatus.Syntax, b.pos(rb.GetSymbol()), "close the edge with ]-> or ]- and then write a node pattern",
					"an edge -[ ] needs - or -> after its ]")
			}
			into.Edges = append(into.Edges, b.edge(c, dir, c.EdgeBody(), c.Quantifier()))
			lastNode = false
		case *gen.EdgeTildeContext:
			switch {
			case c.SimplifiedBody() != nil:
				b.refuse(b.cpos(c), "simplified path pattern -/ /->")
				into.Edges = append(into.Edges, &ast.EdgePattern{Pos: b.cpos(c), Dir: ast.DirBoth})
			default:
				feature := "undirected edge ~[ ]~"
				if c.GT() != nil {
					feature = "undirected edge ~[ ]~>"
				}
				b.refuse(b.cpos(c), feature)
				into.Edges = append(into.Edges, b.edge(c, ast.DirBoth, c.EdgeBody(), c.Quantifier()))
			}
			lastNode = false
		}
	}
	tidy(p)
}

// tidy keeps len(Edges) == len(Nodes)-1 for every reader of a pattern
// whose refused elements (a parenthesised path) left the nodes and edges
// out of step; the planner refuses it before it reads them.
func tidy(p *ast.PathPattern) {
	switch {
	case len(p.Nodes) == 0:
		p.Edges = nil
	case len(p.Edges) >= len(p.Nodes):
		p.Edges = p.Edges[:len(p.Nodes)-1]
	case len(p.Nodes) > len(p.Edges)+1:
		p.Nodes = p.Nodes[:len(p.Edges)+1]
	}
}

// parenPath refuses a parenthesised path pattern ((a)-[:T]->(b)){1,3},
// and reads what it holds for the refused forms inside it.
func (b *builder) parenPath(c *gen.PathFactorContext) {
	if c.Quantifier() != nil {
		b.refuse(b.cpos(c), "quantified path")
	} else {
		b.refuse(b.cpos(c), "parenthesised path pattern")
	}
	if pp := c.PathPrefix(); pp != nil {
		b.pathPrefix(pp)
	}
	b.pathBodies(c.GetChildren(), &ast.PathPattern{}, false)
	if e := c.Expr(); e != nil {
		b.expr(e)
	}
}

// factorNode builds the node pattern of a pathFactor.
func (b *builder) factorNode(ctx *gen.PathFactorContext) *ast.NodePattern {
	n := &ast.NodePattern{Pos: b.cpos(ctx)}
	if v := ctx.VarName(); v != nil {
		n.Var = b.name(v.GetStart())
	}
	if l := ctx.LabelSpec(); l != nil {
		n.Labels, n.LabelExpr = b.labels(l)
	}
	if m := ctx.MapLiteral(); m != nil {
		n.Props = b.mapLit(m).Entries
	}
	if p := ctx.PARAM(); p != nil {
		b.refuse(b.pos(p.GetSymbol()), "properties from a parameter")
	}
	if e := ctx.Expr(); e != nil {
		n.Where = b.expr(e)
	}
	if q := ctx.Quantifier(); q != nil {
		b.refuse(b.cpos(q), "quantified path")
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
			e.Types, e.TypeExpr = b.edgeTypes(l)
		}
		if cq := body.CypherQuantifier(); cq != nil {
			e.Quant = b.cypherQuant(cq)
		}
		if m := body.MapLiteral(); m != nil {
			e.Props = b.mapLit(m).Entries
		}
		if p := body.PARAM(); p != nil {
			b.refuse(b.pos(p.GetSymbol()), "properties from a parameter")
		}
		if w, c := body.WHERE(), body.COST(); w != nil || c != nil {
			exprs := body.AllExpr()
			if w != nil {
				b.refuse(b.pos(w.GetSymbol()), "WHERE inside an edge pattern")
				b.expr(exprs[0])
				exprs = exprs[1:]
			}
			if c != nil {
				b.refuse(b.pos(c.GetSymbol()), "edge COST")
				b.expr(exprs[0])
			}
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
	if sh := ctx.SHORTEST(); sh != nil {
		// Kuzu's [r* SHORTEST 1..3]
		pos, feature := b.pos(sh.GetSymbol()), "path search prefix SHORTEST"
		if all := ctx.ALL(); all != nil {
			pos, feature = b.pos(all.GetSymbol()), "path search prefix ALL SHORTEST"
		}
		b.refuse(pos, feature)
	}
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
	v, err := parseInt(tok.GetText(), false)
	if err != nil || v > math.MaxInt32 {
		b.fail(gqlstatus.NumericOutOfRange, b.pos(tok), "use a smaller bound", "quantifier bound %s is out of range", tok.GetText())
	}
	return int(v)
}

// ------------------------------------------------------------------ labels

// labelExpr reads a flat label expression (labelSpec, labelExpr, the
// label part of an exprTail, isLabelExpr): & binds tighter than |, and
// Cypher's :A:B joins with AND last, so :A|B:C is (A|B)&C.
func (b *builder) labelExpr(ctx antlr.ParserRuleContext) *ast.LabelExpr {
	var colon, or, and []*ast.LabelExpr
	join := func(op ast.LabelOp, xs []*ast.LabelExpr) *ast.LabelExpr {
		if len(xs) == 1 {
			return xs[0]
		}
		return &ast.LabelExpr{Pos: xs[0].Pos, Op: op, Args: xs}
	}
	endAnd := func() { or, and = append(or, join(ast.LabelAnd, and)), nil }
	endOr := func() { endAnd(); colon, or = append(colon, join(ast.LabelOr, or)), nil }
	afterPipe := false
	for i, ch := range ctx.GetChildren() {
		switch c := ch.(type) {
		case antlr.TerminalNode:
			switch c.GetSymbol().GetTokenType() {
			case gen.GoldfishGQLParserPIPE:
				endAnd()
				afterPipe = true
				continue
			case gen.GoldfishGQLParserCOLON:
				// :A|:B (Cypher's alternative) is |; :A:B is AND.
				if i > 0 && !afterPipe {
					endOr()
				}
			}
		case *gen.LabelFactorContext:
			and = append(and, b.labelFactor(c))
		case *gen.AnyNameContext:
			and = append(and, b.labelName(c))
		case *gen.IsLabelNameContext:
			and = append(and, b.labelName(c))
		}
		afterPipe = false
	}
	endOr()
	return join(ast.LabelAnd, colon)
}

// labels reads a label expression as a plain conjunction of labels (:A,
// :A:B, :A&B: the common case, read without building a tree), or as the
// expression when it is not one.
func (b *builder) labels(ctx antlr.ParserRuleContext) ([]string, *ast.LabelExpr) {
	children := ctx.GetChildren()
	var names []string
	for i, ch := range children {
		switch c := ch.(type) {
		case antlr.TerminalNode:
			switch c.GetSymbol().GetTokenType() {
			case gen.GoldfishGQLParserCOLON, gen.GoldfishGQLParserAMP, gen.GoldfishGQLParserIS:
				continue
			}
			return conjunction(b.labelExpr(ctx))
		case *gen.AnyNameContext, *gen.IsLabelNameContext:
			if names == nil {
				names = make([]string, 0, (len(children)-i+1)/2)
			}
			names = append(names, b.name(c.(antlr.ParserRuleContext).GetStart()))
		default:
			return conjunction(b.labelExpr(ctx))
		}
	}
	return names, nil
}

func (b *builder) labelName(ctx antlr.ParserRuleContext) *ast.LabelExpr {
	return &ast.LabelExpr{Pos: b.cpos(ctx), Op: ast.LabelName, Name: b.name(ctx.GetStart())}
}

// labelFactor reads a factor of a label expression other than a name.
func (b *builder) labelFactor(ctx *gen.LabelFactorContext) *ast.LabelExpr {
	pos := b.cpos(ctx)
	switch ctx.GetStart().GetTokenType() {
	case gen.GoldfishGQLParserBANG:
		var arg *ast.LabelExpr
		if n := ctx.AnyName(); n != nil {
			arg = b.labelName(n)
		} else {
			arg = b.labelFactor(ctx.LabelFactor().(*gen.LabelFactorContext))
		}
		return &ast.LabelExpr{Pos: pos, Op: ast.LabelNot, Args: []*ast.LabelExpr{arg}}
	case gen.GoldfishGQLParserPERCENT:
		return &ast.LabelExpr{Pos: pos, Op: ast.LabelAny}
	case gen.GoldfishGQLParserLPAREN:
		return b.labelExpr(ctx.LabelExpr())
	}
	// $(expr), $any(expr), $all(expr)
	b.refuse(pos, "dynamic label")
	b.expr(ctx.Expr())
	return &ast.LabelExpr{Pos: pos, Op: ast.LabelAny}
}

// conjunction splits a label expression into a plain list of labels all
// required (A, A&B, :A:B), or returns it whole when it is not one.
func conjunction(e *ast.LabelExpr) ([]string, *ast.LabelExpr) {
	switch e.Op {
	case ast.LabelName:
		return []string{e.Name}, nil
	case ast.LabelAnd:
		var names []string
		for _, a := range e.Args {
			n, rest := conjunction(a)
			if rest != nil {
				return nil, e
			}
			names = append(names, n...)
		}
		return names, nil
	}
	return nil, e
}

// alternation splits a label expression into the plain alternatives of an
// edge's type (T, A|B), or returns it whole when it is not one.
func alternation(e *ast.LabelExpr) ([]string, *ast.LabelExpr) {
	switch e.Op {
	case ast.LabelName:
		return []string{e.Name}, nil
	case ast.LabelOr:
		var names []string
		for _, a := range e.Args {
			n, rest := alternation(a)
			if rest != nil {
				return nil, e
			}
			names = append(names, n...)
		}
		return names, nil
	}
	return nil, e
}

// edgeTypes reads an edge's type expression. A conjunction of plain
// types (:A:B, :A&B) can never match, since an edge has one type, and is
// an error rather than a pattern that binds nothing.
func (b *builder) edgeTypes(ctx gen.ILabelSpecContext) ([]string, *ast.LabelExpr) {
	if names, rest := b.labels(ctx); rest == nil && len(names) == 1 {
		return names, nil
	}
	e := b.labelExpr(ctx)
	if types, rest := alternation(e); rest == nil {
		return types, nil
	}
	if names, rest := conjunction(e); rest == nil && len(names) > 1 {
		pos := e.Args[1].Pos
		b.fail(gqlstatus.Syntax, pos, "an edge has one type; write alternatives as :A|B",
			"an edge cannot have several types at once")
	}
	return nil, e
}

// labelsToGive reads the labels SET adds or REMOVE takes away: names only.
func (b *builder) labelsToGive(ctx gen.ILabelSpecContext, verb string) []string {
	names, rest := b.labels(ctx)
	if rest == nil {
		return names
	}
	op, pos := firstLabelOp(rest)
	switch op {
	case "|":
		b.fail(gqlstatus.Syntax, pos,
			fmt.Sprintf("%s takes the labels themselves: write :A for one label, or :A:B for both A and B", verb),
			"%s cannot take a choice of labels ('|')", verb)
	case "%":
		b.fail(gqlstatus.Syntax, pos, fmt.Sprintf("name each label %s takes: :A:B", verb),
			"%s cannot take the wildcard label '%%'", verb)
	default:
		b.fail(gqlstatus.Syntax, pos, fmt.Sprintf("name each label %s takes: :A:B", verb),
			"%s cannot take a negated label ('!')", verb)
	}
	return nil
}

// firstLabelOp finds the first operator other than & in a label
// expression, and its position.
func firstLabelOp(e *ast.LabelExpr) (string, ast.Pos) {
	switch e.Op {
	case ast.LabelOr:
		return "|", e.Args[1].Pos
	case ast.LabelAny:
		return "%", e.Pos
	case ast.LabelNot:
		return "!", e.Pos
	case ast.LabelAnd:
		for _, a := range e.Args {
			if a.Op != ast.LabelName {
				return firstLabelOp(a)
			}
		}
	}
	return "", e.Pos
}

// ------------------------------------------------------------ expressions

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

func (b *builder) mapLit(ctx gen.IMapLiteralContext) *ast.MapLit {
	entries := ctx.AllMapEntry()
	m := &ast.MapLit{Pos: b.cpos(ctx), Entries: make([]*ast.PropEntry, 0, len(entries))}
	for _, e := range entries {
		k := e.GetStart()
		key := ""
		if e.STRING() != nil {
			// "key": a delimited identifier (ISO); 'key' is a string
			if k.GetText()[0] != '"' {
				b.fail(gqlstatus.Syntax, b.pos(k), "write the key as a name, in double quotes or in backquotes: {key: 1}, {\"my key\": 1}",
					"a property key is a name, not a string in single quotes")
			}
			key = b.str(k)
			if key == "" {
				b.fail(gqlstatus.Syntax, b.pos(k), "write a name between the quotes", "empty quoted name")
			}
		} else {
			key = b.name(k)
		}
		m.Entries = append(m.Entries, &ast.PropEntry{Pos: b.pos(k), Key: key, Value: b.expr(e.Expr())})
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

// temporal builds DATE '…' and DATETIME '…' (also written TIMESTAMP
// '…' or ZONED DATETIME '…': a stored DATETIME keeps its offset),
// checking the text. word is the keyword as the user wrote it, upper-cased.
// TIME, LOCAL TIME, ZONED TIME, LOCAL DATETIME and DURATION literals have
// no stored kind that holds them faithfully: primary refuses them by name.
func (b *builder) temporal(kw, st antlr.Token, word string) ast.Expr {
	pos := b.pos(kw)
	s := b.str(st)
	if word == "DATE" {
		if _, err := time.Parse("2006-01-02", s); err != nil {
			b.fail(gqlstatus.InvalidDateTimeFormat, b.pos(st), "write dates as DATE 'YYYY-MM-DD', for example DATE '2026-01-31'",
				"invalid DATE literal %q", s)
		}
		return &ast.Literal{Pos: pos, Kind: ast.LitDate, Str: s}
	}
	if !validDateTime(s) {
		b.fail(gqlstatus.InvalidDateTimeFormat, b.pos(st),
			"write date-times in ISO 8601, for example "+word+" '2026-01-31T14:05:00Z'",
			"invalid %s literal %q", word, s)
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
		v, err := parseInt(txt, neg)
		if err != nil {
			s := txt
			if neg {
				s = "-" + txt
			}
			b.fail(gqlstatus.NumericOutOfRange, pos,
				"integers are 64-bit (up to 9223372036854775807); use a float or a string for larger numbers",
				"integer literal %s is out of range", s)
		}
		return &ast.Literal{Pos: pos, Kind: ast.LitInt, Int: v}
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(txt, "_", ""), 64)
	if err != nil {
		b.fail(gqlstatus.NumericOutOfRange, pos, "floats are 64-bit IEEE 754", "float literal %s is out of range", txt)
	}
	if neg {
		v = -v
	}
	return &ast.Literal{Pos: pos, Kind: ast.LitFloat, Float: v}
}

// parseInt converts an INTEGER token's text, negated when neg: decimal
// digits, or 0x, 0o and 0b digits, with '_' between digits. A leading
// zero is decimal (007 is 7), not octal.
func parseInt(txt string, neg bool) (int64, error) {
	sign := ""
	if neg {
		sign = "-"
	}
	if len(txt) > 1 && txt[0] == '0' {
		switch txt[1] {
		case 'x', 'X', 'o', 'O', 'b', 'B':
			// strconv's base 0 reads exactly these prefixes, with '_'
			// allowed after the prefix and between digits.
			return strconv.ParseInt(sign+txt, 0, 64)
		}
	}
	return strconv.ParseInt(sign+strings.ReplaceAll(txt, "_", ""), 10, 64)
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
// resolved. A bad escape fails at its own position (and the string is
// then "").
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
			return ""
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
				return ""
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
					return ""
				}
				r = dec
				adv += 6
			}
			if !utf8.ValidRune(r) {
				b.badEscape(base+i, body[i:i+adv])
				return ""
			}
			sb.WriteRune(r)
			i += adv
			continue
		default:
			_, size := utf8.DecodeRuneInString(body[i+1:])
			b.badEscape(base+i, body[i:i+1+size])
			return ""
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
