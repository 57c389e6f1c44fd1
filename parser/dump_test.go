package parser

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish/parser/ast"
)

// dump renders a script as a compact, position-free S-expression so table
// tests can state the expected shape in one line.
func dump(s *ast.Script) string {
	parts := make([]string, len(s.Stmts))
	for i, st := range s.Stmts {
		parts[i] = dumpStmt(st)
	}
	return strings.Join(parts, " ; ")
}

func dumpStmt(s ast.Stmt) string {
	switch s := s.(type) {
	case *ast.StartTransaction:
		if s.ReadOnly {
			return "START READ ONLY"
		}
		return "START"
	case *ast.CommitTx:
		return "COMMIT"
	case *ast.RollbackTx:
		return "ROLLBACK"
	case *ast.Call:
		return fmt.Sprintf("(CALL %s%s)", s.Name, dumpExprs(s.Args))
	case *ast.Query:
		parts := make([]string, len(s.Clauses))
		for i, c := range s.Clauses {
			parts[i] = dumpClause(c)
		}
		out := strings.Join(parts, " ")
		if len(s.Refusals) > 0 {
			fs := make([]string, len(s.Refusals))
			for i, r := range s.Refusals {
				fs[i] = r.Feature
			}
			out += " !{" + strings.Join(fs, "; ") + "}"
		}
		return out
	}
	return fmt.Sprintf("?%T", s)
}

func dumpClause(c ast.Clause) string {
	switch c := c.(type) {
	case *ast.Match:
		kw := "MATCH"
		if c.Optional {
			kw = "OPTIONAL-MATCH"
		}
		s := "(" + kw + " " + dumpPaths(c.Patterns)
		if c.Where != nil {
			s += " WHERE " + dumpExpr(c.Where)
		}
		return s + ")"
	case *ast.Limit:
		return "(LIMIT " + dumpExpr(c.Count) + ")"
	case *ast.Insert:
		return "(INSERT " + dumpPaths(c.Patterns) + ")"
	case *ast.Set:
		parts := make([]string, len(c.Items))
		for i, it := range c.Items {
			switch it := it.(type) {
			case *ast.SetProp:
				parts[i] = fmt.Sprintf("%s.%s=%s", it.Var, it.Key, dumpExpr(it.Value))
			case *ast.SetAllProps:
				op := "="
				if it.Merge {
					op = "+="
				}
				parts[i] = it.Var + op + dumpExpr(it.Map)
			case *ast.SetLabels:
				parts[i] = it.Var + ":" + strings.Join(it.Labels, ":")
			}
		}
		return "(SET " + strings.Join(parts, ", ") + ")"
	case *ast.Remove:
		parts := make([]string, len(c.Items))
		for i, it := range c.Items {
			switch it := it.(type) {
			case *ast.RemoveProp:
				parts[i] = it.Var + "." + it.Key
			case *ast.RemoveLabels:
				parts[i] = it.Var + ":" + strings.Join(it.Labels, ":")
			}
		}
		return "(REMOVE " + strings.Join(parts, ", ") + ")"
	case *ast.Delete:
		kw := "DELETE"
		if c.Detach {
			kw = "DETACH-DELETE"
		}
		return "(" + kw + dumpExprs(c.Exprs) + ")"
	case *ast.Refused:
		return "(REFUSED " + c.Feature + ")"
	}
	return fmt.Sprintf("?%T", c)
}

func dumpPaths(ps []*ast.PathPattern) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		var sb strings.Builder
		if p.Var != "" {
			sb.WriteString(p.Var + "=")
		}
		for j, n := range p.Nodes {
			if j > 0 {
				e := p.Edges[j-1]
				inner := e.Var
				if len(e.Types) > 0 {
					inner += ":" + strings.Join(e.Types, "|")
				}
				if e.TypeExpr != nil {
					inner += ":" + dumpLabel(e.TypeExpr)
				}
				if e.Props != nil {
					inner += dumpProps(e.Props)
				}
				q := ""
				if e.Quant != nil {
					q = fmt.Sprintf("{%d,%d}", e.Quant.Min, e.Quant.Max)
				}
				switch e.Dir {
				case ast.DirOut:
					sb.WriteString("-[" + inner + "]->" + q)
				case ast.DirIn:
					sb.WriteString("<-[" + inner + "]-" + q)
				default:
					sb.WriteString("-[" + inner + "]-" + q)
				}
			}
			sb.WriteString("(" + n.Var)
			if len(n.Labels) > 0 {
				sb.WriteString(":" + strings.Join(n.Labels, ":"))
			}
			if n.LabelExpr != nil {
				sb.WriteString(":" + dumpLabel(n.LabelExpr))
			}
			if n.Props != nil {
				sb.WriteString(dumpProps(n.Props))
			}
			if n.Where != nil {
				sb.WriteString(" WHERE " + dumpExpr(n.Where))
			}
			sb.WriteString(")")
		}
		parts[i] = sb.String()
	}
	return strings.Join(parts, ", ")
}

func dumpProps(ps []*ast.PropEntry) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Key + ":" + dumpExpr(p.Value)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func dumpExprs(es []ast.Expr) string {
	var sb strings.Builder
	for _, e := range es {
		sb.WriteString(" " + dumpExpr(e))
	}
	return sb.String()
}

func dumpExpr(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Literal:
		switch e.Kind {
		case ast.LitNull:
			return "null"
		case ast.LitBool:
			return strconv.FormatBool(e.Bool)
		case ast.LitInt:
			return strconv.FormatInt(e.Int, 10)
		case ast.LitFloat:
			return "f" + strconv.FormatFloat(e.Float, 'g', -1, 64)
		case ast.LitString:
			return strconv.Quote(e.Str)
		case ast.LitDate:
			return "date" + strconv.Quote(e.Str)
		case ast.LitDateTime:
			return "datetime" + strconv.Quote(e.Str)
		}
	case *ast.ListLit:
		return "[" + strings.TrimPrefix(dumpExprs(e.Elems), " ") + "]"
	case *ast.MapLit:
		return dumpProps(e.Entries)
	case *ast.Param:
		return "$" + e.Name
	case *ast.Var:
		return e.Name
	case *ast.PropAccess:
		return dumpExpr(e.Subject) + "." + e.Key
	case *ast.Unary:
		op := [...]string{"NOT", "-", "+"}[e.Op]
		return "(" + op + " " + dumpExpr(e.X) + ")"
	case *ast.Binary:
		return "(" + e.Op.String() + " " + dumpExpr(e.L) + " " + dumpExpr(e.R) + ")"
	case *ast.IsNull:
		if e.Not {
			return "(NOTNULL " + dumpExpr(e.X) + ")"
		}
		return "(ISNULL " + dumpExpr(e.X) + ")"
	case *ast.LabelTest:
		if e.Expr != nil {
			return "(LABEL " + dumpExpr(e.X) + " " + dumpLabel(e.Expr) + ")"
		}
		return "(LABEL " + dumpExpr(e.X) + " " + strings.Join(e.Labels, "&") + ")"
	case *ast.TruthTest:
		v := [...]string{"TRUE", "FALSE", "UNKNOWN"}[e.Value]
		if e.Not {
			v = "NOT " + v
		}
		return "(IS " + v + " " + dumpExpr(e.X) + ")"
	case *ast.RefusedExpr:
		return "(REFUSED " + e.Feature + ")"
	case *ast.FuncCall:
		s := "(" + e.Name
		if e.Distinct {
			s += " DISTINCT"
		}
		if e.Star {
			s += " *"
		}
		return s + dumpExprs(e.Args) + ")"
	}
	return fmt.Sprintf("?%T", e)
}

func dumpLabel(e *ast.LabelExpr) string {
	switch e.Op {
	case ast.LabelName:
		return e.Name
	case ast.LabelAny:
		return "%"
	case ast.LabelNot:
		return "!" + dumpLabel(e.Args[0])
	}
	sep := "&"
	if e.Op == ast.LabelOr {
		sep = "|"
	}
	parts := make([]string, len(e.Args))
	for i, a := range e.Args {
		parts[i] = dumpLabel(a)
	}
	return "(" + strings.Join(parts, sep) + ")"
}
