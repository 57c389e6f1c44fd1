package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser"
	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// planBudget bounds how long planning one of the texts below may take:
// each is refused or planned in milliseconds; the bound is loose for the
// race detector.
const planBudget = 5 * time.Second

// buildTimed plans script, failing the test when planning takes longer
// than planBudget.
func buildTimed(t *testing.T, script *ast.Script) (*Plan, error) {
	t.Helper()
	start := time.Now()
	p, err := Build(script)
	if d := time.Since(start); d > planBudget {
		t.Errorf("planning took %v, want under %v", d, planBudget)
	}
	return p, err
}

// matchOf returns the first MATCH clause of the script's first statement.
func matchOf(t *testing.T, script *ast.Script) *ast.Match {
	t.Helper()
	return script.Stmts[0].(*ast.Query).Clauses[0].(*ast.Match)
}

// TestChainsOverTheSizeBudget: a chain of operators the parser builds as
// long as the text allows (it does not count a chain as nesting) is
// refused with 42Q01 and the size budget, at the expression, as soon as
// its CEL form passes MaxSource, and planning returns at once. Before
// emission was bounded, the first two texts (about 1 MB each) ended the
// process with "fatal error: stack overflow" in the recursion of
// (*scope).emit, one frame per operator, and the 1 MB run of ! was
// accepted and took minutes to plan (its recall key rendered the
// expression in time quadratic in its depth). The parser's pre-scan
// refuses the chains first, with the same budget; parsed under a size
// budget that lets them through, they reach the planner's.
func TestChainsOverTheSizeBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("parses texts of about 1 MB")
	}
	for _, c := range []struct {
		name, text, msg string
		planner         bool // refused by the planner (else by the parser's nesting budget)
	}{
		{"+1 repeated 520,000 times", "MATCH (n) WHERE n.v = 1" + strings.Repeat("+1", 520_000), "size budget", true},
		{".v repeated 520,000 times", "MATCH (n) WHERE n.v" + strings.Repeat(".v", 520_000), "size budget", true},
		{"IS NULL repeated 20,000 times", "MATCH (n) WHERE n.v" + strings.Repeat(" IS NULL", 20_000), "size budget", true},
		{"OR repeated 20,000 times", "MATCH (n) WHERE n.v = 1" + strings.Repeat(" OR n.v = 1", 20_000), "size budget", true},
		{"! repeated 1,048,000 times", "MATCH (n:" + strings.Repeat("!", 1_048_000) + "A)", "nesting", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			script, err := parser.Parse(c.text)
			if c.planner {
				ge, ok := err.(*gqlstatus.Error)
				if !ok || ge.Code != gqlstatus.TextLimit || !strings.Contains(ge.Msg, c.msg) || !strings.Contains(ge.Msg, fmt.Sprint(MaxSource)) {
					t.Fatalf("the parser: %.200v, want its size budget", err)
				}
				if script, err = parser.ParseWith(c.text, parser.Limits{MaxExprSize: 1 << 30}); err != nil {
					t.Fatalf("under a size budget of 1 GiB: %.200v", err)
				}
			}
			if err == nil {
				if !c.planner {
					t.Fatal("the parser accepted the text")
				}
				_, err = buildTimed(t, script)
			}
			ge, ok := err.(*gqlstatus.Error)
			if !ok || ge.Code != gqlstatus.TextLimit || !strings.Contains(ge.Msg, c.msg) {
				t.Fatalf("got %v, want 42Q01 naming the %s", err, c.msg)
			}
			if c.planner {
				if want := matchOf(t, script).Where.Position(); ge.Pos != want {
					t.Errorf("refused at %+v, want the expression's position %+v", ge.Pos, want)
				}
				if !strings.Contains(ge.Msg, fmt.Sprint(MaxSource)) || !strings.Contains(ge.Hint, "$parameters") {
					t.Errorf("message %q / hint %q: want the budget and the advice", ge.Msg, ge.Hint)
				}
			}
		})
	}
}

// TestFlatChainsWithinTheBudget: long chains of AND, OR and + whose CEL
// form is within MaxSource plan and match. (With cel-go's default nesting
// limit of 250, each of these was refused with 40Q01, a fault.)
func TestFlatChainsWithinTheBudget(t *testing.T) {
	join := func(n int, term, op string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(term, i)
		}
		return strings.Join(parts, op)
	}
	for _, c := range []struct {
		name, where string
		yes, no     int64 // a value of n.v that matches, and one that does not
	}{
		{"2,000 ORed comparisons", join(2000, "n.v = %d", " OR "), 1999, 2000},
		{"2,000 ANDed comparisons", join(2000, "n.v <> %d", " AND "), 2000, 1999},
		{"2,000 additions", "n.v" + strings.Repeat(" + 1", 2000) + " = 2005", 5, 6},
		{"8,000 additions", "n.v" + strings.Repeat("+1", 8000) + " = 8005", 5, 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := plan(t, `MATCH (n) WHERE `+c.where+` SET n.seen = true`)
			if err != nil {
				t.Fatal(err)
			}
			where := p.Stmts[0].Steps[0].(*MatchStep).Where
			for v, want := range map[int64]bool{c.yes: true, c.no: false} {
				node := &store.Node{Props: values.MakeProps(map[string]values.Value{"v": values.Int(v)})}
				got, _, err := where.Test(context.Background(), &Row{Vars: []Element{{Node: node}}})
				if err != nil || got != want {
					t.Errorf("v = %d: got %v, %v; want %v", v, got, err, want)
				}
			}
		})
	}
}

// TestNestingBudget: an expression whose parts nest deeper than
// MaxExprDepth (which no text within the parser's nesting budget can
// write, so the tree is built here) is refused with 42Q01 and the
// nesting budget, at the part that passes it; one within it compiles.
func TestNestingBudget(t *testing.T) {
	for _, c := range []struct {
		depth int
		ok    bool
	}{{MaxExprDepth - 10, true}, {5 * MaxExprDepth, false}, {500_000, false}} {
		t.Run(fmt.Sprint(c.depth), func(t *testing.T) {
			script, err := parser.Parse(`MATCH (n) WHERE n.v = 1 SET n.seen = true`)
			if err != nil {
				t.Fatal(err)
			}
			m := matchOf(t, script)
			pos := m.Where.Position()
			// 1 + (1 + (1 + … n.v)) = 1: right-nested, as parentheses nest.
			var r ast.Expr = &ast.PropAccess{Pos: pos, Subject: &ast.Var{Pos: pos, Name: "n"}, Key: "v"}
			for i := 0; i < c.depth; i++ {
				r = &ast.Binary{Pos: pos, Op: ast.OpAdd, L: &ast.Literal{Pos: pos, Kind: ast.LitInt, Int: 1}, R: r}
			}
			m.Where = &ast.Binary{Pos: pos, Op: ast.OpEq, L: r, R: &ast.Literal{Pos: pos, Kind: ast.LitInt, Int: 1}}
			_, err = buildTimed(t, script)
			if c.ok {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			ge, ok := err.(*gqlstatus.Error)
			if !ok || ge.Code != gqlstatus.TextLimit || !strings.Contains(ge.Msg, "nesting budget") ||
				!strings.Contains(ge.Msg, fmt.Sprint(MaxExprDepth)) {
				t.Fatalf("got %v, want 42Q01 naming the nesting budget", err)
			}
		})
	}
}

// notRun returns n ! over the label name.
func notRun(n int, name string, pos ast.Pos) *ast.LabelExpr {
	e := &ast.LabelExpr{Pos: pos, Op: ast.LabelName, Name: name}
	for i := 0; i < n; i++ {
		e = &ast.LabelExpr{Pos: pos, Op: ast.LabelNot, Args: []*ast.LabelExpr{e}}
	}
	return e
}

// TestNegationRunsFold: a run of ! in a label expression folds to one or
// none (!!A is A), in a loop, so a run of 1,048,000 (as the parser would
// build it under a nesting budget that let it through) plans in
// milliseconds; the folded pattern matches as the run does.
func TestNegationRunsFold(t *testing.T) {
	hasA := &store.Node{Labels: []string{"A"}}
	hasB := &store.Node{Labels: []string{"B"}}
	for _, c := range []struct {
		run    int
		labels []string // the plain labels the run folds to, nil for an expression
		matchA bool
	}{{1_048_000, []string{"A"}, true}, {1_048_001, nil, false}, {2, []string{"A"}, true}, {1, nil, false}} {
		t.Run(fmt.Sprint(c.run), func(t *testing.T) {
			script, err := parser.Parse(`MATCH (n:!A)`)
			if err != nil {
				t.Fatal(err)
			}
			np := matchOf(t, script).Patterns[0].Nodes[0]
			np.LabelExpr = notRun(c.run, "A", np.LabelExpr.Pos)
			p, err := buildTimed(t, script)
			if err != nil {
				t.Fatal(err)
			}
			seed := p.Stmts[0].Recall.Seeds[0]
			if fmt.Sprint(seed.Labels) != fmt.Sprint(c.labels) {
				t.Errorf("labels %v, want %v", seed.Labels, c.labels)
			}
			if seed.LabelsMatch(hasA) != c.matchA || seed.LabelsMatch(hasB) == c.matchA {
				t.Errorf("a node with A matches: %v, with B: %v; want %v and %v", seed.LabelsMatch(hasA), seed.LabelsMatch(hasB), c.matchA, !c.matchA)
			}
		})
	}
	// An edge's type and a label test in WHERE fold the same way.
	script, err := parser.Parse(`MATCH (a)-[e:!T]->(b) WHERE a:!A SET e.x = 1`)
	if err != nil {
		t.Fatal(err)
	}
	m := matchOf(t, script)
	ep := m.Patterns[0].Edges[0]
	ep.TypeExpr = notRun(1_048_000, "T", ep.TypeExpr.Pos)
	lt := m.Where.(*ast.LabelTest)
	lt.Expr = notRun(1_048_000, "A", lt.Expr.Pos)
	p, err := buildTimed(t, script)
	if err != nil {
		t.Fatal(err)
	}
	ms := p.Stmts[0].Steps[0].(*MatchStep)
	if e := ms.Patterns[0].Edges[0]; fmt.Sprint(e.Types) != "[T]" || e.TypeExpr != nil {
		t.Errorf("edge types %v / %v, want [T]", e.Types, e.TypeExpr)
	}
	if ms.Where.Source != `gql_label(v0, "A")` {
		t.Errorf("WHERE a:!!…A is %s, want the CEL of a:A", ms.Where.Source)
	}
	// The parser folds nothing: a run it accepts plans as it reads.
	for text, want := range map[string]string{
		`MATCH (n) WHERE n:!!!A SET n.x = 1`:    `gql_not(gql_label(v0, "A"))`,
		`MATCH (n) WHERE n:!(!A|%) SET n.x = 1`: `gql_not(gql_or(gql_not(gql_label(v0, "A")), gql_anylabel(v0)))`,
	} {
		p, err := plan(t, text)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Stmts[0].Steps[0].(*MatchStep).Where.Source; got != want {
			t.Errorf("%s: %s, want %s", text, got, want)
		}
	}
}

// TestLabelExpressionBudget: a label expression of more than MaxLabelTerms
// labels and operators is refused with 42Q01 and its size budget, in a
// pattern and in WHERE; one within it plans.
func TestLabelExpressionBudget(t *testing.T) {
	over := strings.Repeat("A|", MaxLabelTerms) + "A"
	within := strings.Repeat("A|", MaxLabelTerms/2) + "A"
	for text, ok := range map[string]bool{
		"MATCH (n:" + over + ")":                                   false,
		"MATCH (n) WHERE n:" + over + " SET n.x = 1":               false,
		"MATCH ()-[e:" + over + "]->() SET e.x = 1":                false, // a plain alternation of types
		"MATCH (n:" + strings.Repeat("A:", MaxLabelTerms) + "A)":   false, // a plain conjunction
		"MATCH (n:" + within + ")":                                 true,
		"MATCH (n:" + strings.Repeat("A:", MaxLabelTerms-1) + "A)": true,
		"INSERT (n:" + strings.Repeat("A:", MaxLabelTerms) + "A)":  true, // the labels to give, not a test
	} {
		// The parser's pre-scan holds label expressions to the same
		// budget; with its bound lifted, the planner's is tested.
		script, parseErr := parser.Parse(text)
		lifted, err := parser.ParseWith(text, parser.Limits{MaxLabelTerms: 1 << 30})
		if err != nil {
			t.Fatalf("%.40s…: %v", text, err)
		}
		_, err = Build(lifted)
		for _, err := range []error{parseErr, err} {
			if ok {
				if err != nil {
					t.Errorf("%.40s…: %v", text, err)
				}
				continue
			}
			ge, isGQL := err.(*gqlstatus.Error)
			if !isGQL || ge.Code != gqlstatus.TextLimit || !strings.Contains(ge.Msg, "label expression is over its size budget") || !ge.Pos.Valid() {
				t.Errorf("%.40s…: got %v, want 42Q01 naming the label expression's size budget", text, err)
			}
		}
		if ok {
			if _, err := Build(script); err != nil {
				t.Errorf("%.40s…: %v", text, err)
			}
		}
	}
}
