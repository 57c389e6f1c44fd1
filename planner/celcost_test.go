package planner

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/cel-go/common/types/ref"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// TestBudgetsOfBuiltinFunctions: goldfish's own CEL functions are priced
// by the sizes of the lists and strings they touch, and the values an
// expression builds are bounded, so an expression that would do a long
// piece of work fails at once with an error naming its budget (22Q04 for
// the evaluation budget, 22Q05 for the value budget),
// never cel-go's own text, instead of running for as long as its inputs
// are large. Each WHERE is tested on one node {v: -1}.
func TestBudgetsOfBuiltinFunctions(t *testing.T) {
	ints := func(n int) values.Value {
		vs := make([]values.Value, n)
		for i := range vs {
			vs[i] = values.Int(int64(i))
		}
		return values.List(vs...)
	}
	long := values.String(strings.Repeat("a", 100_000))
	huge := values.String(strings.Repeat("b", 1_500_000))
	for _, c := range []struct {
		name   string
		where  string
		params map[string]values.Value
		budget string // "" when the predicate must evaluate
	}{
		{"IN over a million elements", `n.v IN $list`, map[string]values.Value{"list": ints(1_000_000)}, "evaluation budget"},
		{"IN over a short list", `n.v IN $list`, map[string]values.Value{"list": ints(1000)}, ""},
		{"a long string concatenated 60 times", `n.v = $s` + strings.Repeat(" || $s", 60), map[string]values.Value{"s": long}, "value budget"},
		{"a long string added 60 times", `n.v = $s` + strings.Repeat(" + $s", 60), map[string]values.Value{"s": long}, "value budget"},
		{"a long string concatenated once", `n.v = $s || $s`, map[string]values.Value{"s": long}, ""},
		{"lists concatenated past the bound", `n.v IN $l || $l`, map[string]values.Value{"l": ints(40_000)}, "value budget"},
		{"CONTAINS over long strings", `$s CONTAINS $t`, map[string]values.Value{"s": huge, "t": huge}, "evaluation budget"},
		{"= over long strings", `$s = $t`, map[string]values.Value{"s": huge, "t": huge}, "evaluation budget"},
		{"STARTS WITH a long prefix", `$s STARTS WITH $t`, map[string]values.Value{"s": huge, "t": huge}, "evaluation budget"},
		{"= over long lists", `$l = $l`, map[string]values.Value{"l": ints(200_000)}, "evaluation budget"},
		{"comparisons of long strings add up", strings.Repeat(`$s = $s AND `, 11) + `$s = $s`, map[string]values.Value{"s": long}, "evaluation budget"},
		{"a few comparisons of long strings", `$s = $s AND $s = $s`, map[string]values.Value{"s": long}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := plan(t, `MATCH (n) WHERE `+c.where+` SET n.seen = true`)
			if err != nil {
				t.Fatal(err)
			}
			where := p.Stmts[0].Steps[0].(*MatchStep).Where
			params := make([]ref.Val, len(p.Params))
			for i, name := range p.Params {
				params[i] = ToCEL(c.params[name])
			}
			node := &store.Node{Labels: []string{"N"}, Props: values.MakeProps(map[string]values.Value{"v": values.Int(-1)})}
			row := &Row{Vars: []Element{{Node: node}}, Params: params}
			_, _, err = where.Test(context.Background(), row)
			if c.budget == "" {
				if err != nil {
					t.Fatalf("want an evaluation, got %v", err)
				}
				return
			}
			code := map[string]gqlstatus.Code{"evaluation budget": gqlstatus.CostBudget, "value budget": gqlstatus.ValueBudget}[c.budget]
			ge, ok := err.(*gqlstatus.Error)
			if !ok || ge.Code != code || !strings.Contains(ge.Msg, c.budget) {
				t.Fatalf("got %v, want a %s error naming the %s", err, code, c.budget)
			}
			if strings.Contains(ge.Error(), "<input>") || strings.Contains(ge.Error(), "operation cancelled") {
				t.Errorf("the message is cel-go's: %v", ge)
			}
		})
	}
}

// TestExpressionSizeBudget: an expression too long for CEL is refused with
// the budget it is over and what to do, not cel-go's located message.
func TestExpressionSizeBudget(t *testing.T) {
	_, err := plan(t, `MATCH (n) WHERE n.v = '`+strings.Repeat("a", 100_000)+`' SET n.seen = true`)
	ge, ok := err.(*gqlstatus.Error)
	if !ok || ge.Code != gqlstatus.TextLimit || !strings.Contains(ge.Msg, "size budget") || !strings.Contains(ge.Hint, "$parameters") {
		t.Fatalf("got %v, want a 42Q01 error naming the size budget", err)
	}
	if strings.Contains(ge.Error(), "<input>") {
		t.Errorf("the message is cel-go's: %v", ge)
	}
}

// TestPlanSize: a plan's size estimate grows with what it holds, and
// leaves its text out (the plan cache adds the text's length).
func TestPlanSize(t *testing.T) {
	small, err := plan(t, `MATCH (t:TSK {nick: "a"}) SET t.done = true`)
	if err != nil {
		t.Fatal(err)
	}
	big, err := plan(t, `MATCH (t:TSK {nick: "a"}), (m:MOD {loc: "x"}) WHERE t.prio > 2 AND m.lines < 100 SET t.done = true, m.seen = true`)
	if err != nil {
		t.Fatal(err)
	}
	if small.Size() <= 0 || big.Size() <= small.Size() {
		t.Fatalf("sizes %d and %d: want positive and growing", small.Size(), big.Size())
	}
	padded, err := plan(t, `MATCH (t:TSK {nick: "a"}) SET t.done = true // `+strings.Repeat("x", 10_000))
	if err != nil {
		t.Fatal(err)
	}
	if padded.Size() != small.Size() {
		t.Fatalf("a comment changed the estimate from %d to %d: the text is counted apart", small.Size(), padded.Size())
	}
}

// TestComprehensionStopsWhenCancelled: a program that loops (a
// comprehension, which goldfish's own predicates never hold but CEL can)
// runs under the context and stops between iterations once it is done,
// with the error of a stopped call.
func TestComprehensionStopsWhenCancelled(t *testing.T) {
	prg, err := celCache.get(`p0.all(x, gql_ge(x, 0) == true)`)
	if err != nil {
		t.Fatal(err)
	}
	if !prg.fold {
		t.Fatal("a comprehension was not recognised")
	}
	p := &Program{prg: prg.prg, fold: prg.fold}
	vs := make([]values.Value, 1000)
	for i := range vs {
		vs[i] = values.Int(int64(i))
	}
	row := &Row{Params: []ref.Val{ToCEL(values.List(vs...))}}
	if _, _, err := p.Eval(context.Background(), row); err != nil {
		t.Fatalf("under a live context: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = p.Eval(ctx, row)
	ge, ok := err.(*gqlstatus.Error)
	if !ok || ge.Code != gqlstatus.Rollback || !errors.Is(err, context.Canceled) {
		t.Fatalf("under a cancelled context: %v, want 40000 wrapping context.Canceled", err)
	}
}

// TestEvaluationCodes: each data exception an expression raises has the
// standard's code for it, found by its kind, a message in GQL's words and
// advice: an ordering of different types is values not comparable
// (22G04), an operator on a type it does not take an invalid value type
// (22G03), a division by 0 22012, INTEGER overflow and a FLOAT that is not
// finite a numeric value out of range (22003).
func TestEvaluationCodes(t *testing.T) {
	for _, c := range []struct {
		where     string
		code      gqlstatus.Code
		msg, hint string
	}{
		{`n.v < 'a'`, gqlstatus.NotComparable, "cannot compare INTEGER with STRING by <", "like with like"},
		{`n.v >= [1]`, gqlstatus.NotComparable, "cannot compare INTEGER with LIST by >=", "like with like"},
		{`n.v + 'a' = 1`, gqlstatus.InvalidValueType, "cannot apply + to INTEGER and STRING", "operands of the types it takes"},
		{`n.v STARTS WITH 'a'`, gqlstatus.InvalidValueType, "cannot apply STARTS WITH to INTEGER and STRING", "operands"},
		{`n.v / 0 = 1`, gqlstatus.DivisionByZero, "division by zero in /", "not 0"},
		{`n.v % 0 = 1`, gqlstatus.DivisionByZero, "division by zero in %", "not 0"},
		{`n.big + 1 = 0`, gqlstatus.NumericOutOfRange, "INTEGER overflow in +", "FLOAT"},
		{`n.big * -2 = 0`, gqlstatus.NumericOutOfRange, "INTEGER overflow in *", "FLOAT"},
		{`n.f * n.f = 0`, gqlstatus.NumericOutOfRange, "the result of * is not a finite FLOAT", "1.8e308"},
		{`n.f / 0 = 0`, gqlstatus.DivisionByZero, "division by zero in /", "not 0"},
		{`n.f % 0.0 = 0`, gqlstatus.DivisionByZero, "division by zero in %", "not 0"},
	} {
		p, err := plan(t, `MATCH (n) WHERE `+c.where+` SET n.seen = true`)
		if err != nil {
			t.Fatal(err)
		}
		node := &store.Node{Props: values.MakeProps(map[string]values.Value{
			"v": values.Int(-1), "big": values.Int(math.MaxInt64), "f": values.Float(1e200)})}
		_, _, err = p.Stmts[0].Steps[0].(*MatchStep).Where.Test(context.Background(), &Row{Vars: []Element{{Node: node}}})
		ge, ok := err.(*gqlstatus.Error)
		if !ok || ge.Code != c.code || !strings.Contains(ge.Msg, c.msg) || !strings.Contains(ge.Hint, c.hint) || !ge.Pos.Valid() {
			t.Errorf("%s: got %v, want %s %q with advice %q", c.where, err, c.code, c.msg, c.hint)
		}
	}
}
