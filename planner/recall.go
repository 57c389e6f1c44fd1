package planner

import (
	"strconv"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
)

// RecallPlan is a planned Recall: node patterns that seed the walk, the
// WHERE conditions split per seed variable, and an optional LIMIT.
type RecallPlan struct {
	// Seeds are the comma-separated node patterns; a node matching any of
	// them (and its conditions) is a candidate seed.
	Seeds []*NodePlan
	// Filters[i] are the WHERE conjuncts that name only Seeds[i]'s variable.
	Filters [][]*Program
	// Global are the WHERE conjuncts that name no variable (say, $flag).
	Global []*Program
	// Limit is the LIMIT value, nil when absent (the L budget applies).
	Limit *Value
	// Empty marks the empty token, MATCH (): the session outline.
	Empty bool
	// Key is the normalised token: the same for texts that differ only in
	// spacing, comments or keyword case. Shapes are cached by it.
	Key string
}

// planRecall turns a read-only statement into a RecallPlan, refusing the
// read forms outside the subset.
func planRecall(q *ast.Query, st *Statement, sc *scope) (*RecallPlan, error) {
	var match *ast.Match
	var mstep *MatchStep
	rp := &RecallPlan{}
	for i, c := range q.Clauses {
		switch x := c.(type) {
		case *ast.Match:
			if match != nil {
				return nil, sc.errAt(gqlstatus.Syntax, x.Pos, "a Recall has one MATCH").
					WithHint("write one MATCH with comma-separated node patterns: MATCH (a:TSK), (b:NOTE)")
			}
			match = x
			mstep = st.Steps[i].(*MatchStep)
		case *ast.Limit:
			v := st.Steps[i].(*LimitStep).Count
			rp.Limit = &v
		}
	}
	for _, pp := range match.Patterns {
		if len(pp.Edges) > 0 {
			return nil, sc.errAt(gqlstatus.Syntax, pp.Edges[0].Pos, "a Recall seeds with node patterns only").
				WithHint("drop the relationship pattern: the walk finds the neighbourhood within k hops")
		}
	}
	for _, p := range mstep.Patterns {
		rp.Seeds = append(rp.Seeds, p.Nodes[0])
	}
	rp.Filters = make([][]*Program, len(rp.Seeds))
	if match.Where != nil {
		for _, conj := range conjuncts(match.Where, nil) {
			vars := map[string]bool{}
			varsOf(conj, vars)
			prg, err := sc.compile(conj)
			if err != nil {
				return nil, err
			}
			switch len(vars) {
			case 0:
				rp.Global = append(rp.Global, prg)
			case 1:
				placed := false
				for i, np := range rp.Seeds {
					if np.Slot >= 0 && vars[sc.names[np.Slot]] {
						rp.Filters[i] = append(rp.Filters[i], prg)
						placed = true
					}
				}
				if !placed {
					return nil, sc.errAt(gqlstatus.InvalidReference, conj.Position(), "condition names no seed variable")
				}
			default:
				return nil, sc.errAt(gqlstatus.Syntax, conj.Position(), "a Recall condition may name one seed variable; this one names %d", len(vars)).
					WithHint("split it into conditions on each seed (joined with AND), or commit the relation as an edge and let the walk find it")
			}
		}
	}
	rp.Empty = match.Where == nil
	for _, np := range rp.Seeds {
		if len(np.Labels) > 0 || np.LabelExpr != nil || len(np.Props) > 0 || np.Where != nil {
			rp.Empty = false
		}
	}
	rp.Key = recallKey(rp)
	return rp, nil
}

// conjuncts flattens a tree of ANDs, in text order. It walks with a
// stack of its own, as varsOf does: a chain of operators is as deep as it
// is long.
func conjuncts(e ast.Expr, out []ast.Expr) []ast.Expr {
	stack := []ast.Expr{e}
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if b, ok := e.(*ast.Binary); ok && b.Op == ast.OpAnd {
			stack = append(stack, b.R, b.L)
			continue
		}
		out = append(out, e)
	}
	return out
}

// varsOf collects the variables an expression names.
func varsOf(e ast.Expr, out map[string]bool) {
	stack := []ast.Expr{e}
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := e.(type) {
		case *ast.Var:
			out[x.Name] = true
		case *ast.PropAccess:
			stack = append(stack, x.Subject)
		case *ast.Unary:
			stack = append(stack, x.X)
		case *ast.Binary:
			stack = append(stack, x.L, x.R)
		case *ast.IsNull:
			stack = append(stack, x.X)
		case *ast.LabelTest:
			stack = append(stack, x.X)
		case *ast.TruthTest:
			stack = append(stack, x.X)
		case *ast.ListLit:
			stack = append(stack, x.Elems...)
		case *ast.FuncCall:
			stack = append(stack, x.Args...)
		}
	}
}

// recallKey renders the plan in a normal form: labels, property values as
// canonical literals or parameter slots, and the compiled conditions. Every
// part that comes from the text (a label, a key, a literal, a condition's
// source) is written with its length first, so no two different plans
// share a key whatever bytes their names hold: (n:`A:B`) and (n:A:B), or
// {`a=1 b`: 2} and {a: 1, b: 2}, differ in their field counts and lengths.
func recallKey(rp *RecallPlan) string {
	var b []byte
	field := func(tag byte, s string) {
		b = append(b, tag)
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, ':')
		b = append(b, s...)
	}
	value := func(v Value) {
		switch {
		case v.Const != nil:
			field('c', v.Const.Literal())
		case v.Prog != nil:
			field('e', v.Prog.Source)
		default:
			field('p', strconv.Itoa(v.Param))
		}
	}
	for i, np := range rp.Seeds {
		b = append(b, '(')
		if np.Slot >= 0 {
			field('v', strconv.Itoa(np.Slot))
		}
		for _, l := range np.Labels {
			field('l', l)
		}
		if np.LabelExpr != nil {
			field('x', np.LabelExpr.String())
		}
		for _, pp := range np.Props {
			field('k', pp.Key)
			value(pp.Val)
		}
		if np.Where != nil {
			field('w', np.Where.Source)
		}
		for _, f := range rp.Filters[i] {
			field('f', f.Source)
		}
		b = append(b, ')')
	}
	for _, g := range rp.Global {
		field('g', g.Source)
	}
	if rp.Limit != nil {
		b = append(b, 'L')
		value(*rp.Limit)
	}
	return string(b)
}
