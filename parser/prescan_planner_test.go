package parser

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/planner"
)

// exprGen writes random expressions over the node n and the edge r, of
// the forms the planner writes as CEL, with short strings and names of
// every kind of character a quoted literal may hold.
type exprGen struct {
	r *rand.Rand
}

var (
	genOps   = []string{"OR", "AND", "XOR", "=", "<>", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "||", "IN", "CONTAINS", "STARTS WITH", "ENDS WITH"}
	genTests = []string{"IS NULL", "IS NOT NULL", "IS TRUE", "IS NOT FALSE", "IS UNKNOWN", "IS NOT UNKNOWN"}
	genChars = []string{"a", "Z", "_", "\"", "\\\\", "\\n", "\\u0001", "\x01", "\t", "é", "中", "\u00ad", "\U0001F600", "\U000E0001", "''"}
)

func (g *exprGen) word() string {
	n := 1 + g.r.Intn(6)
	var b strings.Builder
	for range n {
		b.WriteByte("abcxyzAB_"[g.r.Intn(9)])
	}
	return b.String()
}

func (g *exprGen) str() string {
	var b strings.Builder
	b.WriteByte('\'')
	for range g.r.Intn(12) {
		b.WriteString(genChars[g.r.Intn(len(genChars))])
	}
	b.WriteByte('\'')
	return b.String()
}

// label writes a label expression; after IS, whose label expression
// takes no ':', colon is false.
func (g *exprGen) label(colon bool) string {
	names := []string{"A", "Bc", "%", "`x y`", "OR", "`é\u00ad`"}
	var b strings.Builder
	for i := range 1 + g.r.Intn(4) {
		if i > 0 {
			seps := []string{"|", "&", "|", ":"}
			if !colon {
				seps = seps[:3]
			}
			b.WriteString(seps[g.r.Intn(len(seps))])
		}
		if g.r.Intn(4) == 0 {
			b.WriteByte('!')
		}
		b.WriteString(names[g.r.Intn(len(names))])
	}
	return b.String()
}

func (g *exprGen) operand(depth int) string {
	switch k := g.r.Intn(16); {
	case k < 3:
		return "n." + g.word()
	case k == 3:
		return "n.`" + g.word() + "é`"
	case k == 4:
		return "$" + g.word()
	case k == 5:
		return fmt.Sprint(g.r.Intn(100000))
	case k == 6:
		return []string{"1.5", "0.1", "1e9", "2.5e-300", "0x1F", "1_000", "-9223372036854775808", "1.7976931348623157e308"}[g.r.Intn(8)]
	case k == 7:
		return g.str()
	case k == 8:
		return []string{"true", "NULL", "DATE '2026-01-31'", "DATETIME '2026-01-31T14:05Z'", "TIMESTAMP '2026-01-31 14:05:00.123456789+05:30'"}[g.r.Intn(5)]
	case k == 9 && depth < 4:
		var b strings.Builder
		b.WriteByte('[')
		for i := range g.r.Intn(6) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(g.expr(depth+1, 3))
		}
		b.WriteByte(']')
		return b.String()
	case k == 10 && depth < 4:
		return "(" + g.expr(depth+1, 4) + ")"
	case k == 11:
		return "NOT " + g.operand(depth)
	case k == 12:
		return "- " + g.operand(depth)
	case k == 13:
		return "(n:" + g.label(true) + ")"
	case k == 14:
		return "(n IS " + []string{"", "LABELED "}[g.r.Intn(2)] + g.label(false) + ")"
	}
	return "n"
}

func (g *exprGen) expr(depth, n int) string {
	var b strings.Builder
	b.WriteString(g.operand(depth))
	for range g.r.Intn(n + 1) {
		if g.r.Intn(5) == 0 {
			b.WriteString(" " + genTests[g.r.Intn(len(genTests))])
			continue
		}
		b.WriteString(" " + genOps[g.r.Intn(len(genOps))] + " ")
		b.WriteString(g.operand(depth))
	}
	return b.String()
}

// programs collects the CEL of every program in a plan.
func programs(v reflect.Value, seen map[uintptr]bool, out *[]string) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		if p, ok := v.Interface().(*planner.Program); ok {
			*out = append(*out, p.Source)
			return
		}
		programs(v.Elem(), seen, out)
	case reflect.Interface:
		if !v.IsNil() {
			programs(v.Elem(), seen, out)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				programs(v.Field(i), seen, out)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			programs(v.Index(i), seen, out)
		}
	}
}

// regionBound is the least expression size budget under which the
// pre-scan passes text: the weight of its heaviest region that is not a
// literal.
func regionBound(t *testing.T, text string) int {
	lo, hi := 1, 1<<30
	if _, err := prescan(text, Limits{MaxDepth: DefaultMaxDepth, MaxItems: DefaultMaxItems, MaxExprSize: hi, MaxLabelTerms: 1 << 30}, nil); err != nil {
		t.Fatalf("%.200s: %v", text, err)
	}
	for lo < hi {
		mid := (lo + hi) / 2
		_, err := prescan(text, Limits{MaxDepth: DefaultMaxDepth, MaxItems: DefaultMaxItems, MaxExprSize: mid, MaxLabelTerms: 1 << 30}, nil)
		if err != nil {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// TestPrescanBoundsThePlanner: the size the pre-scan estimates for a
// text's regions is at least the length of the CEL the planner writes
// for any expression in it, for random expressions with short strings
// and names of every kind of character; so a text the pre-scan passes is
// never refused by the planner for an expression's size (within
// planner.MaxSource) once it has paid for its parse.
var debugGen = false

func TestPrescanBoundsThePlanner(t *testing.T) {
	if DefaultMaxExprSize != planner.MaxSource {
		t.Fatalf("DefaultMaxExprSize is %d, planner.MaxSource %d", DefaultMaxExprSize, planner.MaxSource)
	}
	if DefaultMaxLabelTerms != planner.MaxLabelTerms {
		t.Fatalf("DefaultMaxLabelTerms is %d, planner.MaxLabelTerms %d", DefaultMaxLabelTerms, planner.MaxLabelTerms)
	}
	g := &exprGen{r: rand.New(rand.NewSource(1))}
	forms := []string{
		"MATCH (n)-[r]->(m) WHERE %s SET m.z = 1",
		"MATCH (n WHERE %s) SET n.y = 1",
		"MATCH (n) SET n.x = %s, n.y = 1",
		"MATCH (n) SET n.`x y` = %s REMOVE n.z",
		"MATCH (n:A {k: %s}) SET n.y = 1",
		"MATCH (n) WHERE n.v = 1 INSERT (:B {k: %s, j: 2})",
		"MATCH (n) WHERE %s",
	}
	checked, tightest := 0, 0.0
	for i := 0; i < 2000; i++ {
		text := fmt.Sprintf(forms[i%len(forms)], g.expr(0, 1+i%40))
		script, err := Parse(text)
		if err != nil {
			if debugGen && i < 400 {
				t.Logf("parse: %.150v", err)
			}
			continue
		}
		plan, err := planner.Build(script)
		if err != nil {
			if gqlstatus.CodeOf(err, "") == gqlstatus.TextLimit {
				t.Errorf("the planner refused for its size what the pre-scan passed: %v\n%.300s", err, text)
			}
			if debugGen && i < 400 {
				t.Logf("plan: %.150v\n%.300s", err, text)
			}
			continue
		}
		var srcs []string
		programs(reflect.ValueOf(plan), map[uintptr]bool{}, &srcs)
		bound := regionBound(t, text)
		for _, src := range srcs {
			checked++
			n := utf8.RuneCountInString(src)
			if r := float64(n) / float64(bound); r > tightest {
				tightest = r
			}
			if n > bound {
				t.Errorf("CEL of %d characters, over the pre-scan's estimate of %d:\n%s\nCEL: %s", n, bound, text, src)
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d programs checked", checked)
	}
	t.Logf("%d programs within the estimate; the closest CEL is %.0f%% of it", checked, 100*tightest)
}

// TestChainsAtTheBoundPlan: for each of the forms that weigh most per
// byte, the longest chain the pre-scan passes (in a statement whose
// variable is its 200th, written v199 in CEL) parses and plans: the
// planner refuses none for its size.
func TestChainsAtTheBoundPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("parses and plans texts of up to 100 KB")
	}
	var pats strings.Builder
	pats.WriteString("MATCH ")
	for i := range 200 {
		if i > 0 {
			pats.WriteString(", ")
		}
		fmt.Fprintf(&pats, "(v%d)", i)
	}
	head := pats.String() + " WHERE v199.k = 1"
	for _, c := range []struct{ name, head, unit, tail string }{
		{"OR", head, " OR v199.k = 1", ""},
		{"CONTAINS", head, " AND v199 CONTAINS 'x'", ""},
		{"IS NOT UNKNOWN", head, " IS NOT UNKNOWN", ""},
		{"STARTS WITH", head, " OR NOT v199.k STARTS WITH '\x01\u00ad'", ""},
		{"+ float", head, " + 1.5e-300", ""},
		{"|| unicode", head, " || '\u00ad\U000E0001'", ""},
		{"DATETIME", head, " OR v199.`é\u00ad` = DATETIME '2026-01-31T14:05Z'", ""},
		{"IN floats", head + " AND v199.k IN [", "1.7976931348623157e308, ", "1]"},
		{"labels &", pats.String() + " WHERE (v199:A", "&B", ")"},
		{"labels |!", pats.String() + " WHERE (v199:!A", "|!B", ")"},
		{"labels %", pats.String() + " WHERE (v199:%", "|%", ")"},
		{"SET value", pats.String() + " SET v199.k = 1", " + v199.`é`", ""},
	} {
		text := func(n int) string { return c.head + strings.Repeat(c.unit, n) + c.tail + " SET v0.x = 1" }
		lo, hi := 0, 1<<17
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if _, err := prescan(text(mid), DefaultLimits, nil); err == nil {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		s := text(lo)
		script, err := Parse(s)
		if err != nil {
			t.Errorf("%s ×%d: %v", c.name, lo, err)
			continue
		}
		plan, err := planner.Build(script)
		if err != nil {
			t.Errorf("%s ×%d: the planner refused what the pre-scan passed: %.300v", c.name, lo, err)
			continue
		}
		var srcs []string
		programs(reflect.ValueOf(plan), map[uintptr]bool{}, &srcs)
		longest := 0
		for _, src := range srcs {
			longest = max(longest, utf8.RuneCountInString(src))
		}
		t.Logf("%-14s ×%5d: %6d bytes, CEL of %6d characters", c.name, lo, len(s), longest)
	}
}
