package planner

import (
	"fmt"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
)

// path plans a path pattern of a MATCH, or with insert of an INSERT,
// which creates what it names and so refuses what only a match can mean
// (a label expression, a bound variable given labels or properties, an
// edge without one direction and one type).
func (s *scope) path(pp *ast.PathPattern, insert bool) (*PathPlan, error) {
	if pp.Var != "" {
		return nil, refuse(s.text, pp.Pos, "path variable")
	}
	out := &PathPlan{Pos: pp.Pos}
	for i, np := range pp.Nodes {
		n, err := s.node(np, insert)
		if err != nil {
			return nil, err
		}
		out.Nodes = append(out.Nodes, n)
		if i < len(pp.Edges) {
			e, err := s.edge(pp.Edges[i], insert)
			if err != nil {
				return nil, err
			}
			out.Edges = append(out.Edges, e)
		}
	}
	return out, nil
}

func (s *scope) node(np *ast.NodePattern, insert bool) (*NodePlan, error) {
	slot, bound, err := s.declare(np.Var, VarNode, np.Pos)
	if err != nil {
		return nil, err
	}
	n := &NodePlan{Pos: np.Pos, Slot: slot, Bound: bound, Labels: np.Labels, LabelExpr: np.LabelExpr}
	if insert && np.LabelExpr != nil {
		return nil, s.errAt(gqlstatus.Syntax, np.LabelExpr.Pos, "INSERT gives a node the labels it names; |, ! and %% name no label to give").
			WithHint("write :A for one label, or :A:B for both A and B")
	}
	if insert && bound && (len(np.Labels) > 0 || len(np.Props) > 0) {
		return nil, s.errAt(gqlstatus.Syntax, np.Pos, "node %s is already bound; INSERT cannot add labels or properties to it", np.Var).
			WithHint(fmt.Sprintf("write (%s) here and use SET for labels and properties", np.Var))
	}
	if !insert && len(np.Labels) > MaxLabelTerms {
		return nil, s.labelsErr(np.Pos)
	}
	if np.LabelExpr != nil {
		le, err := s.labelExpr(np.LabelExpr)
		if err != nil {
			return nil, err
		}
		n.LabelExpr = le
		if names, ok := plainLabels(le, ast.LabelAnd); ok {
			n.Labels, n.LabelExpr = names, nil
		}
	}
	if n.Props, err = s.props(np.Props); err != nil {
		return nil, err
	}
	if np.Where != nil {
		if insert {
			return nil, s.errAt(gqlstatus.Syntax, np.Where.Position(), "WHERE inside an INSERT pattern")
		}
		if n.Where, err = s.compile(np.Where); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func (s *scope) edge(ep *ast.EdgePattern, insert bool) (*EdgePlan, error) {
	if ep.Quant != nil {
		return nil, refuse(s.text, ep.Quant.Pos, "quantified path")
	}
	slot, bound, err := s.declare(ep.Var, VarEdge, ep.Pos)
	if err != nil {
		return nil, err
	}
	e := &EdgePlan{Pos: ep.Pos, Slot: slot, Bound: bound, Types: ep.Types, TypeExpr: ep.TypeExpr, Dir: ep.Dir}
	if insert {
		switch {
		case bound:
			return nil, s.errAt(gqlstatus.Syntax, ep.Pos, "edge %s is already bound; INSERT creates new edges", ep.Var)
		case ep.Dir == ast.DirBoth:
			return nil, s.errAt(gqlstatus.Syntax, ep.Pos, "an inserted edge needs a direction").
				WithHint("write -[:TYPE]-> or <-[:TYPE]-")
		case len(ep.Types) != 1:
			return nil, s.errAt(gqlstatus.Syntax, ep.Pos, "an inserted edge needs exactly one type").
				WithHint("write -[:TYPE]->")
		}
	}
	if !insert && len(ep.Types) > MaxLabelTerms {
		return nil, s.labelsErr(ep.Pos)
	}
	if ep.TypeExpr != nil {
		te, err := s.labelExpr(ep.TypeExpr)
		if err != nil {
			return nil, err
		}
		e.TypeExpr = te
		if types, ok := plainLabels(te, ast.LabelOr); ok {
			e.Types, e.TypeExpr = types, nil
		}
	}
	if e.Props, err = s.props(ep.Props); err != nil {
		return nil, err
	}
	return e, nil
}

func (s *scope) props(entries []*ast.PropEntry) ([]PropPlan, error) {
	var out []PropPlan
	seen := map[string]bool{}
	for _, pe := range entries {
		if seen[pe.Key] {
			return nil, s.errAt(gqlstatus.DuplicateAssignment, pe.Pos, "property %s is given twice", pe.Key)
		}
		seen[pe.Key] = true
		v, err := s.value(pe.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, PropPlan{Pos: pe.Pos, Key: pe.Key, Val: v})
	}
	return out, nil
}
