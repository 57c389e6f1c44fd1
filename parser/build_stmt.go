// Statements and the clauses of a linear statement: transactions, the
// registrations of views and actions, MATCH, INSERT, SET, REMOVE, DELETE.

package parser

import (
	"fmt"

	"github.com/antlr4-go/antlr/v4"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/parser/gen"
)

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
