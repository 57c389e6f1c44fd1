package parser

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestCommonPathIsLL1: the rules every statement goes through choose their
// alternatives by one token of lookahead, which the generated code does
// with a switch on the next token; a call to the prediction machinery
// there would make every parse pay for it (and, where the alternatives
// stay viable to the end of the text, make parsing quadratic). The forms
// outside the subset may predict further.
func TestCommonPathIsLL1(t *testing.T) {
	src, err := os.ReadFile("gen/goldfishgql_parser.go")
	if err != nil {
		t.Fatal(err)
	}
	funcs := regexp.MustCompile(`(?m)^func \(p \*GoldfishGQLParser\) ([A-Za-z]+)\(\)`).FindAllSubmatchIndex(src, -1)
	body := map[string]string{}
	for i, f := range funcs {
		end := len(src)
		if i+1 < len(funcs) {
			end = funcs[i+1][0]
		}
		body[string(src[f[2]:f[3]])] = string(src[f[0]:end])
	}
	for _, rule := range []string{
		"Script", "Statement", "Clause", "SetItem", "RemoveItem", "PathPatterns", "PathPattern",
		"PathFactor", "NodePattern", "LabelSpec", "LabelExpr", "LabelFactor", "IsLabelExpr",
		"EdgePattern", "EdgeBody", "CypherQuantifier", "Quantifier", "ExprList", "Expr", "BinaryOp",
		"Operand", "MapLiteral", "MapEntry", "VarName", "ExprVarName", "AnyName", "IsLabelName",
	} {
		b, ok := body[rule]
		if !ok {
			t.Errorf("no rule %s in the generated parser", rule)
			continue
		}
		if n := strings.Count(b, "AdaptivePredict"); n > 0 {
			t.Errorf("rule %s predicts with the ATN at %d decisions; keep it LL(1)", rule, n)
		}
	}
	// primary: the choice of alternative is a switch on one token; only
	// the forms inside some alternatives (CASE, lists, parentheses)
	// predict further.
	p := body["Primary"]
	if i, j := strings.Index(p, "switch p.GetTokenStream().LA(1)"), strings.Index(p, "AdaptivePredict"); i < 0 || j >= 0 && j < i {
		t.Error("primary does not choose its alternative by one token")
	}
}
