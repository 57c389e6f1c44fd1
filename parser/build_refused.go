// Forms outside the subset: how they are recorded, and the names they are
// refused by, read from the words the user wrote.

package parser

import (
	"strings"

	"github.com/antlr4-go/antlr/v4"

	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/parser/gen"
)

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
