package parser

import (
	"runtime"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// overBudget are texts of about 1 MB that the parser's own budgets refuse
// (bytes, nesting), each with where the refusal points: a byte offset
// into the text, or -1 for the byte budget, which points nowhere.
func overBudget() []struct {
	name string
	text string
	off  int
} {
	inList := "MATCH (n) WHERE n.v IN [" + strings.Repeat("1,", DefaultMaxBytes/2) + "1]"
	// Brackets and commas inside strings and comments do not count; the
	// 67th real bracket passes the bound.
	hidden := "MATCH (n) WHERE n.a = '" + strings.Repeat("[(,{", 60_000) + "' /* " + strings.Repeat("[,", 60_000) +
		" */ // " + strings.Repeat("(", 60_000) + "\n AND n.b = "
	deep := hidden + strings.Repeat("[", DefaultMaxDepth+1) + "1" + strings.Repeat("]", DefaultMaxDepth+1)
	return []struct {
		name string
		text string
		off  int
	}{
		{"bytes", inList, -1},
		{"brackets", "MATCH (n) WHERE n.v IN " + strings.Repeat("[", 1_000_000), len("MATCH (n) WHERE n.v IN ") + DefaultMaxDepth},
		{"prefix", "MATCH (n) WHERE n.v = " + strings.Repeat("- ", 500_000) + "1", len("MATCH (n) WHERE n.v = ") + 2*DefaultMaxDepth},
		{"hidden", deep, len(hidden) + DefaultMaxDepth},
		// Each ! of a label expression nests one level, as a prefix
		// operator does: inside the node's bracket, the 66th passes.
		{"negations", "MATCH (n:" + strings.Repeat("!", 1_048_000) + "A)", len("MATCH (n:") + DefaultMaxDepth - 1},
	}
}

// TestOverBudgetRefusedCheaply: a text over the parser's byte or nesting
// budget is refused before the lexer runs, with the position of the
// bracket or operator that passes the bound, and the refusal allocates
// little whatever the text's size.
func TestOverBudgetRefusedCheaply(t *testing.T) {
	for _, c := range overBudget() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := Parse(c.text)
		runtime.ReadMemStats(&after)
		ge, ok := err.(*gqlstatus.Error)
		if !ok || ge.Code != gqlstatus.TextLimit {
			t.Errorf("%s: %v, want GQLSTATUS %s", c.name, err, gqlstatus.TextLimit)
			continue
		}
		if c.off >= 0 && ge.Pos != posAtOffset(c.text, c.off) {
			t.Errorf("%s: refused at %+v, want %+v", c.name, ge.Pos, posAtOffset(c.text, c.off))
		}
		if c.off < 0 && ge.Pos.Valid() {
			t.Errorf("%s: the byte budget points at %+v", c.name, ge.Pos)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
			t.Errorf("%s: the refusal allocated %d bytes, want under 4 MiB", c.name, n)
		}
	}
}

// BenchmarkRefuseOverBudget: the cost of refusing a text of about 1 MB
// over the byte or the nesting budget.
func BenchmarkRefuseOverBudget(b *testing.B) {
	for _, c := range overBudget() {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Parse(c.text); err == nil {
					b.Fatal("accepted")
				}
			}
		})
	}
}
