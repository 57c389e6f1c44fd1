package planner

import (
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
)

// MaxLabelTerms bounds one label expression of a MATCH: the labels,
// wildcards and operators it holds once its double negations are folded,
// or the labels of a plain :A:B or types of a plain :A|B. A node or edge
// pattern tests it on every candidate element, so its size is the cost of
// each test.
const MaxLabelTerms = 1_000

// labelExpr returns the label expression e with each run of ! folded to
// one or none (!!A is A), refusing one that holds more than MaxLabelTerms
// terms or nests deeper than MaxExprDepth. A run of ! is walked in a loop
// (the parser nests one level per !), and every other level counts toward
// the nesting budget, so no label expression can exhaust the stack. It
// returns e itself when nothing folds, and never changes e.
func (s *scope) labelExpr(e *ast.LabelExpr) (*ast.LabelExpr, error) {
	terms := 0
	return s.foldLabels(e, 0, &terms)
}

func (s *scope) foldLabels(e *ast.LabelExpr, depth int, terms *int) (*ast.LabelExpr, error) {
	top, not := e, false
	for e.Op == ast.LabelNot && len(e.Args) == 1 {
		not = !not
		e = e.Args[0]
	}
	if depth > MaxExprDepth {
		return nil, s.depthErr(e.Pos)
	}
	*terms++
	if not {
		*terms++
	}
	if *terms > MaxLabelTerms {
		return nil, s.labelsErr(e.Pos)
	}
	out := e
	if e.Op == ast.LabelAnd || e.Op == ast.LabelOr {
		var args []*ast.LabelExpr // a copy, once an argument folds
		for i, a := range e.Args {
			f, err := s.foldLabels(a, depth+1, terms)
			if err != nil {
				return nil, err
			}
			if f != a && args == nil {
				args = make([]*ast.LabelExpr, len(e.Args))
				copy(args, e.Args[:i])
			}
			if args != nil {
				args[i] = f
			}
		}
		if args != nil {
			out = &ast.LabelExpr{Pos: e.Pos, Op: e.Op, Args: args}
		}
	}
	switch {
	case !not:
		return out, nil
	case out == e && top.Args[0] == e:
		return top, nil // a single !, over what did not fold
	}
	return &ast.LabelExpr{Pos: top.Pos, Op: ast.LabelNot, Args: []*ast.LabelExpr{out}}, nil
}

// labelsErr refuses a label expression, at pos, of more than MaxLabelTerms
// terms.
func (s *scope) labelsErr(pos ast.Pos) *gqlstatus.Error {
	return s.errAt(gqlstatus.TextLimit, pos,
		"label expression is over its size budget: more than %d labels and operators", MaxLabelTerms).
		WithHint("name fewer labels, or give the elements a label they share and match that")
}

// plainLabels returns the labels of a folded label expression that is a
// name or, with op, a run of names joined by op (& for a node's labels, |
// for an edge's types); ok is false for any other expression.
func plainLabels(e *ast.LabelExpr, op ast.LabelOp) (names []string, ok bool) {
	if e.Op == ast.LabelName {
		return []string{e.Name}, true
	}
	if e.Op != op {
		return nil, false
	}
	for _, a := range e.Args {
		if a.Op != ast.LabelName {
			return nil, false
		}
		names = append(names, a.Name)
	}
	return names, true
}
