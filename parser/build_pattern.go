// Path patterns: node and edge patterns, path prefixes, alternatives and
// quantifiers.

package parser

import (
	"math"

	"github.com/antlr4-go/antlr/v4"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/parser/gen"
)

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
