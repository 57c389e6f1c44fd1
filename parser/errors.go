package parser

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/antlr4-go/antlr/v4"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/parser/gen"
)

// describeSyntaxError turns ANTLR's view of a syntax error into a message
// that names what was found and a hint that says what was expected.
func describeSyntaxError(text string, p antlr.Parser, tok antlr.Token, line, column int) *gqlstatus.Error {
	var pos ast.Pos
	found := "unexpected end of input"
	ttype := antlr.TokenEOF
	if tok != nil {
		ttype = tok.GetTokenType()
		off := runeIndexToOffset(text, tok.GetStart(), line, column)
		if ttype == antlr.TokenEOF {
			off = len(text)
		}
		pos = posAtOffset(text, off)
		if ttype != antlr.TokenEOF {
			found = fmt.Sprintf("unexpected %s", quoteToken(tok.GetText()))
		}
	} else {
		pos = posAtOffset(text, runeIndexToOffset(text, -1, line, column))
	}
	var expected *antlr.IntervalSet
	rule := -1
	if p != nil {
		func() {
			defer func() { _ = recover() }() // expected-token sets are best effort
			expected = p.GetExpectedTokens()
		}()
		if ctx := p.GetParserRuleContext(); ctx != nil {
			rule = ctx.GetRuleIndex()
		}
	}
	if ttype == gen.GoldfishGQLParserUNTERMINATED_COMMENT {
		return gqlstatus.At(gqlstatus.Syntax, pos, text, "unterminated comment").WithHint("close the comment with */")
	}
	// A '$' without a name: reported at the '$', whether the parser
	// stopped on it or on what came after it.
	dollar := tok
	if prev := prevToken(p); ttype != gen.GoldfishGQLParserDOLLAR && prev != nil && prev.GetTokenType() == gen.GoldfishGQLParserDOLLAR {
		dollar = prev
	}
	if dollar != nil && dollar.GetTokenType() == gen.GoldfishGQLParserDOLLAR {
		dpos := posAtOffset(text, runeIndexToOffset(text, dollar.GetStart(), dollar.GetLine(), dollar.GetColumn()))
		return gqlstatus.At(gqlstatus.Syntax, dpos, text, `"$" must be followed by a parameter name`).
			WithHint("write parameters as $name")
	}
	hint := syntaxHint(rule, expected, ttype)
	switch rule {
	case gen.GoldfishGQLParserRULE_pathBody, gen.GoldfishGQLParserRULE_parenBody, gen.GoldfishGQLParserRULE_pathPattern,
		gen.GoldfishGQLParserRULE_pathFactor, gen.GoldfishGQLParserRULE_pathPatterns:
		// No alternative fits at the end of the text: say whether a node
		// pattern is missing after an edge or is still open.
		if ttype == antlr.TokenEOF {
			hint = "close the node pattern with ')'"
			if prev := prevToken(p); prev != nil {
				switch prev.GetTokenType() {
				case gen.GoldfishGQLParserRBRACK, gen.GoldfishGQLParserMINUS, gen.GoldfishGQLParserGT:
					hint = "expected a node pattern such as (n:Label) after the edge"
				}
			}
		}
	}
	// After a whole START TRANSACTION, COMMIT or ROLLBACK, say what these
	// take rather than only that the statement should end.
	if prev := prevToken(p); prev != nil && ttype != antlr.TokenEOF {
		switch prev.GetTokenType() {
		case gen.GoldfishGQLParserTRANSACTION:
			hint = "START TRANSACTION may be followed by READ ONLY or READ WRITE, and then ';'"
		case gen.GoldfishGQLParserCOMMIT, gen.GoldfishGQLParserROLLBACK:
			hint = "COMMIT and ROLLBACK may be followed by WORK, and then ';'"
		}
	}
	return gqlstatus.At(gqlstatus.Syntax, pos, text, "%s", found).WithHint(hint)
}

// prevToken returns the token before the parser's current one, if any.
func prevToken(p antlr.Parser) antlr.Token {
	if p == nil {
		return nil
	}
	ts, ok := p.GetTokenStream().(*antlr.CommonTokenStream)
	if !ok || ts.Index() == 0 {
		return nil
	}
	return ts.LT(-1)
}

func quoteToken(s string) string {
	if utf8.RuneCountInString(s) > 40 {
		r := []rune(s)
		s = string(r[:37]) + "..."
	}
	return fmt.Sprintf("%q", s)
}

func has(set *antlr.IntervalSet, t int) bool {
	if set == nil {
		return false
	}
	for _, iv := range set.GetIntervals() {
		if t >= iv.Start && t < iv.Stop {
			return true
		}
	}
	return false
}

func setLen(set *antlr.IntervalSet) int {
	if set == nil {
		return 0
	}
	n := 0
	for _, iv := range set.GetIntervals() {
		n += iv.Stop - iv.Start
	}
	return n
}

// syntaxHint maps the parser's position to advice in plain words.
func syntaxHint(rule int, exp *antlr.IntervalSet, found int) string {
	switch {
	case has(exp, gen.GoldfishGQLParserREAD) && has(exp, gen.GoldfishGQLParserSEMI):
		return "START TRANSACTION may be followed by READ ONLY or READ WRITE, and then ';'"
	case rule == gen.GoldfishGQLParserRULE_txMode:
		return "write START TRANSACTION READ ONLY or START TRANSACTION READ WRITE"
	case has(exp, gen.GoldfishGQLParserWORK) && has(exp, gen.GoldfishGQLParserSEMI):
		return "COMMIT and ROLLBACK may be followed by WORK, and then ';'"
	case has(exp, gen.GoldfishGQLParserLPAREN) && has(exp, gen.GoldfishGQLParserSHORTEST) && !has(exp, gen.GoldfishGQLParserSTRING):
		return "expected a node pattern such as (n:Label)"
	case rule == gen.GoldfishGQLParserRULE_script || rule == gen.GoldfishGQLParserRULE_statement && !has(exp, gen.GoldfishGQLParserLPAREN):
		if has(exp, gen.GoldfishGQLParserSEMI) && !has(exp, gen.GoldfishGQLParserMATCH) {
			return "expected ';' or the end of the text; separate statements with ';'"
		}
		if found == gen.GoldfishGQLParserSEMI || found == antlr.TokenEOF {
			return "expected a statement"
		}
		return "a statement starts with MATCH, INSERT, CALL, CREATE (a view or an action), DROP, START TRANSACTION, COMMIT or ROLLBACK; separate statements with ';'"
	case rule == gen.GoldfishGQLParserRULE_pathPatterns || rule == gen.GoldfishGQLParserRULE_pathPattern ||
		rule == gen.GoldfishGQLParserRULE_pathFactor || rule == gen.GoldfishGQLParserRULE_pathBody ||
		rule == gen.GoldfishGQLParserRULE_parenBody ||
		rule == gen.GoldfishGQLParserRULE_pathPrefix:
		if has(exp, gen.GoldfishGQLParserLPAREN) && !has(exp, gen.GoldfishGQLParserMINUS) || has(exp, gen.GoldfishGQLParserEQ) {
			return "expected a node pattern such as (n:Label)"
		}
		return "expected an edge such as -[:TYPE]-> and then a node pattern such as (n:Label)"
	case rule == gen.GoldfishGQLParserRULE_nodePattern && found == antlr.TokenEOF:
		return "close the node pattern with ')'"
	case rule == gen.GoldfishGQLParserRULE_nodePattern:
		return "a node pattern is (var:Label {key: value} WHERE condition); each part is optional; close it with ')'"
	case rule == gen.GoldfishGQLParserRULE_edgePattern || rule == gen.GoldfishGQLParserRULE_edgeBody ||
		rule == gen.GoldfishGQLParserRULE_cypherQuantifier || rule == gen.GoldfishGQLParserRULE_quantifier:
		return "an edge is -[e:TYPE {key: value}]->, <-[e:TYPE]- or -[e:TYPE]-, followed by a node pattern"
	case rule == gen.GoldfishGQLParserRULE_labelSpec || rule == gen.GoldfishGQLParserRULE_labelExpr ||
		rule == gen.GoldfishGQLParserRULE_labelFactor || rule == gen.GoldfishGQLParserRULE_isLabelExpr ||
		rule == gen.GoldfishGQLParserRULE_anyName || rule == gen.GoldfishGQLParserRULE_isLabelName:
		return "expected a name (a label, type or property key); quote unusual names with backquotes: `my name`"
	case rule == gen.GoldfishGQLParserRULE_mapEntry && has(exp, gen.GoldfishGQLParserID):
		return "expected a name (a label, type or property key); quote unusual names with backquotes: `my name`"
	case rule == gen.GoldfishGQLParserRULE_mapLiteral || rule == gen.GoldfishGQLParserRULE_mapEntry:
		return "a map is {key: value, key2: value2}; close it with '}'"
	case rule == gen.GoldfishGQLParserRULE_setItem:
		return "SET takes n.key = value, n = {key: value, …}, n += {key: value, …} or n:Label, separated by commas"
	case rule == gen.GoldfishGQLParserRULE_removeItem:
		return "REMOVE takes n.key or n:Label, separated by commas"
	case rule == gen.GoldfishGQLParserRULE_varName:
		return "expected a variable name"
	case rule == gen.GoldfishGQLParserRULE_qualifiedName:
		return "CALL takes an action name and arguments: CALL name(arg, ...)"
	}
	switch {
	case has(exp, gen.GoldfishGQLParserRPAREN) && setLen(exp) <= 2:
		return "expected ')'"
	case has(exp, gen.GoldfishGQLParserRBRACK) && setLen(exp) <= 2:
		return "expected ']'"
	case has(exp, gen.GoldfishGQLParserRBRACE) && setLen(exp) <= 2:
		return "expected '}'"
	case has(exp, gen.GoldfishGQLParserSTRING) && setLen(exp) == 1:
		return "expected a string such as '2026-01-31'"
	case has(exp, gen.GoldfishGQLParserINTEGER) && has(exp, gen.GoldfishGQLParserPARAM):
		return "expected an expression: a literal, a $parameter, a variable, n.key, f(args) or (expression)"
	case has(exp, gen.GoldfishGQLParserRPAREN):
		return "check the expression, or close the parenthesis with ')'"
	}
	if setLen(exp) > 0 && setLen(exp) <= 4 {
		names := make([]string, 0, 4)
		for _, iv := range exp.GetIntervals() {
			for t := iv.Start; t < iv.Stop && len(names) < 4; t++ {
				names = append(names, tokenDisplay(t))
			}
		}
		return "expected " + strings.Join(names, " or ")
	}
	return "check the syntax near this point"
}

func tokenDisplay(t int) string {
	if t == antlr.TokenEOF {
		return "the end of the text"
	}
	lits := gen.GoldfishGQLLexerLexerStaticData.LiteralNames
	if t > 0 && t < len(lits) && lits[t] != "" {
		return lits[t]
	}
	syms := gen.GoldfishGQLLexerLexerStaticData.SymbolicNames
	if t > 0 && t < len(syms) && syms[t] != "" {
		switch s := syms[t]; s {
		case "ID", "QUOTED_ID":
			return "a name"
		case "STRING":
			return "a string"
		case "INTEGER":
			return "an integer"
		case "FLOAT":
			return "a number"
		case "PARAM":
			return "a $parameter"
		case "SKIP_":
			return "SKIP"
		default:
			return s
		}
	}
	return fmt.Sprintf("token %d", t)
}
