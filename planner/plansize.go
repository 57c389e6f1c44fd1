package planner

import (
	"github.com/goldfish-gql/goldfish/parser/ast"
)

// Rough sizes of the planned structures: a struct with its slice headers
// and pointers, a string header, a slice element.
const (
	sizePlan    = 96
	sizeStmt    = 192
	sizeStep    = 64
	sizePath    = 64
	sizeNode    = 128
	sizeEdge    = 112
	sizeProp    = 96
	sizeProgram = 144
	sizeString  = 16
)

func planSize(p *Plan) int {
	n := sizePlan
	for _, name := range p.Params {
		n += sizeString + len(name)
	}
	for _, st := range p.Stmts {
		n += sizeStmt
		for _, v := range st.Vars {
			n += sizeString + len(v) + 1
		}
		for _, step := range st.Steps {
			n += sizeStep + stepSize(step)
		}
		if st.Call != nil {
			n += sizeStep + len(st.Call.Name) + len(st.Call.Args)*valueSize(Value{})
			for _, a := range st.Call.Args {
				n += valueSize(a)
			}
		}
		if d := st.Define; d != nil {
			n += sizeStep + len(d.Name) + len(d.Intent) + len(d.Expr) + len(d.Def.Source) + len(d.Def.If)
			if body, ok := d.Def.Body.(*Plan); ok {
				n += body.Size()
			}
		}
		if rp := st.Recall; rp != nil {
			n += sizeStep + len(rp.Key) + 8*len(rp.Seeds) + sizeString*len(rp.Filters)
			for _, fs := range rp.Filters {
				n += 8 * len(fs) // programs shared with the MATCH step
			}
		}
	}
	return n
}

func stepSize(step Step) int {
	switch s := step.(type) {
	case *MatchStep:
		return pathsSize(s.Patterns) + programSize(s.Where)
	case *InsertStep:
		return pathsSize(s.Patterns)
	case *LimitStep:
		return valueSize(s.Count)
	case *SetStep:
		n := 0
		for _, it := range s.Items {
			n += sizeProp + len(it.Key) + valueSize(it.Val) + propsSize(it.All) + stringsSize(it.Labels)
		}
		return n
	case *RemoveStep:
		n := 0
		for _, it := range s.Items {
			n += sizeProp + len(it.Key) + stringsSize(it.Labels)
		}
		return n
	case *DeleteStep:
		return 32 * len(s.Slots)
	}
	return 0
}

func pathsSize(paths []*PathPlan) int {
	n := 0
	for _, p := range paths {
		n += sizePath
		for _, np := range p.Nodes {
			n += sizeNode + stringsSize(np.Labels) + labelExprSize(np.LabelExpr) + propsSize(np.Props) + programSize(np.Where)
		}
		for _, ep := range p.Edges {
			n += sizeEdge + stringsSize(ep.Types) + labelExprSize(ep.TypeExpr) + propsSize(ep.Props)
		}
	}
	return n
}

func labelExprSize(e *ast.LabelExpr) int {
	if e == nil {
		return 0
	}
	n := sizeProp + len(e.Name)
	for _, a := range e.Args {
		n += labelExprSize(a)
	}
	return n
}

func propsSize(props []PropPlan) int {
	n := 0
	for _, pp := range props {
		n += sizeProp + len(pp.Key) + valueSize(pp.Val)
	}
	return n
}

func valueSize(v Value) int {
	n := 0
	if v.Const != nil {
		n += 32 + v.Const.Size()
	}
	return n + programSize(v.Prog)
}

func programSize(p *Program) int {
	if p == nil {
		return 0
	}
	return sizeProgram + len(p.Source) + len(p.word)
}

func stringsSize(ss []string) int {
	n := 0
	for _, s := range ss {
		n += sizeString + len(s)
	}
	return n
}
