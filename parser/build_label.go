// Label expressions, shared by node patterns, edge types, label tests and
// the labels SET and REMOVE take.

package parser

import (
	"fmt"

	"github.com/antlr4-go/antlr/v4"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/parser/gen"
)

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
