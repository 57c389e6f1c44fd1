package parser

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// rBudget is the R byte budget a Recall's token or a Δ is held to before
// it is parsed (values.DefaultBudget.Bytes): the largest text an outside
// client has parsed.
const rBudget = 256 << 10

// fill repeats unit between prefix and suffix up to size bytes.
func fill(size int, prefix, unit, suffix string) string {
	n := (size - len(prefix) - len(suffix)) / len(unit)
	return prefix + strings.Repeat(unit, n) + suffix
}

// keyed writes n entries "a0: 1, a1: 1, …": keys given once each.
func keyed(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "a%d: 1", i)
	}
	return b.String()
}

// oversize are texts of 256 KB, within the byte budgets, that the
// pre-scan refuses for a list's items, an expression's size or a label
// expression's terms. at is where the refusal points: the start of the
// item past the bound, or (-1) a token the test finds by the prefix that
// passes (see refusedAt).
func oversize() []struct {
	name, text, msg string
	at              int
} {
	in := "MATCH (n:TSK) WHERE n.v IN ["
	ins := "INSERT (:TSK {v: ["
	set := "MATCH (n:TSK) SET n.v = ["
	args := "MATCH (n:TSK) WHERE f("
	props := "INSERT (:TSK {" + keyed(20_000) + "})"
	nested := "MATCH (n:TSK) WHERE n.v IN [" + strings.Repeat("["+strings.Repeat("1,", 9_000)+"1],", 14) + "[1]]"
	return []struct {
		name, text, msg string
		at              int
	}{
		{"IN list", fill(rBudget, in, "1,", "1]"), "list holds more than 10000 items", len(in) + 2*DefaultMaxItems},
		{"IN list of strings", fill(rBudget, in, "'1',", "'1']"), "list holds more than 10000 items", len(in) + 4*DefaultMaxItems},
		{"INSERT list", fill(rBudget, ins, "1,", "1]})"), "list holds more than 10000 items", len(ins) + 2*DefaultMaxItems},
		{"SET list", fill(rBudget, set, "1,", "1]"), "list holds more than 10000 items", len(set) + 2*DefaultMaxItems},
		{"SET list, blanks and comments", fill(rBudget, set, "1 /* , */ , ", "1]"), "list holds more than 10000 items", len(set) + 12*DefaultMaxItems},
		{"properties", props, "map holds more than 10000 entries", strings.Index(props, "a10000:")},
		{"arguments", fill(rBudget, args, "1,", "1)"), "parentheses hold more than 10000 items", len(args) + 2*DefaultMaxItems},
		{"nested lists", nested, "size budget", -1},
		{"OR chain", fill(rBudget, "MATCH (n:TSK) WHERE n.v = 1", " OR n.v = 1", ""), "size budget", -1},
		{"+ chain", fill(rBudget, "MATCH (n:TSK) WHERE n.v = 1", "+1", ""), "size budget", -1},
		{"property chain", fill(rBudget, "MATCH (n:TSK) WHERE n.v", ".v", " = 1"), "size budget", -1},
		{"IS NULL chain", fill(rBudget, "MATCH (n:TSK) WHERE n.v", " IS NULL", ""), "size budget", -1},
		{"SET value", fill(rBudget, "MATCH (n:TSK) SET n.v = 1", " + n.v", ""), "size budget", -1},
		{"one path", fill(rBudget, "MATCH (a:TSK)", "-[]->()", ""), "size budget", -1},
		{"one INSERT path", fill(rBudget, "INSERT (:TSK)", "-[:R]->(:TSK)", ""), "size budget", -1},
		{"labels", fill(rBudget, "MATCH (n:TSK", "|TSK", ")"), "label expression is over its size budget", -1},
		{"labels in WHERE", fill(rBudget, "MATCH (n) WHERE n:TSK", "&!TSK", ""), "label expression is over its size budget", -1},
		{"labels named IS", fill(rBudget, "MATCH (n) WHERE n IS TSK", "|IS|LABELED", ""), "label expression is over its size budget", -1},
	}
}

// refusedAt reports whether the pre-scan's refusal of text points at the
// token that passes a bound: the text before it passes, and the text up
// to its end does not.
func refusedAt(t *testing.T, text string, off int) bool {
	t.Helper()
	end := off + 1
	for end < len(text) && isWordByte(text[end-1]) && isWordByte(text[end]) {
		end++
	}
	_, before := prescan(text[:off], DefaultLimits, nil)
	_, through := prescan(text[:end], DefaultLimits, nil)
	return before == nil && through != nil
}

// TestOversizeRefusedBeforeParse: a text within the byte budgets whose
// list, expression, pattern or label expression is over its budget is
// refused by the pre-scan, before the lexer runs, with 42Q01, the bound
// and the position of the item or token that passes it, allocating at
// most 16 bytes per byte of text. Parsed, each of these costs hundreds of
// bytes per byte (a 256 KB IN list of 130,000 items: 131 MiB) before the
// planner or the Δ's budget refuses it.
func TestOversizeRefusedBeforeParse(t *testing.T) {
	for _, c := range oversize() {
		t.Run(c.name, func(t *testing.T) {
			if len(c.text) > rBudget {
				t.Fatalf("the text is %d bytes, over R", len(c.text))
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := Parse(c.text)
			runtime.ReadMemStats(&after)
			n := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes refused with %d bytes allocated (%.3f per byte)", len(c.text), n, float64(n)/float64(len(c.text)))
			ge, ok := err.(*gqlstatus.Error)
			if !ok || ge.Code != gqlstatus.TextLimit || !strings.Contains(ge.Msg, c.msg) || ge.Hint == "" {
				t.Fatalf("%.300v, want GQLSTATUS %s saying %q, with a hint", err, gqlstatus.TextLimit, c.msg)
			}
			if n > 16*uint64(len(c.text)) {
				t.Errorf("the refusal allocated %d bytes, over 16 per byte of text", n)
			}
			// The caret shows the token refused, from the part of the line
			// kept around it: a few hundred bytes, not the whole line.
			if len(ge.Line) > 2*window+1 {
				t.Errorf("the error keeps %d bytes of its line", len(ge.Line))
			}
			lines := strings.Split(ge.Caret(), "\n")
			if col := strings.Index(lines[1], "^"); len(lines) != 2 || col < 0 || col >= len([]rune(lines[0])) ||
				[]rune(lines[0])[col] != rune(c.text[ge.Pos.Offset]) {
				t.Errorf("the caret does not point at %q:\n%s", c.text[ge.Pos.Offset], ge.Caret())
			}
			switch {
			case c.at >= 0 && ge.Pos != posAtOffset(c.text, c.at):
				t.Errorf("refused at %+v, want %+v", ge.Pos, posAtOffset(c.text, c.at))
			case c.at < 0 && !refusedAt(t, c.text, ge.Pos.Offset):
				t.Errorf("refused at %+v (%q), not at the token that passes the bound", ge.Pos, c.text[ge.Pos.Offset:min(ge.Pos.Offset+12, len(c.text))])
			}
		})
	}
}

// TestLiteralsNotSized: a property's or a SET's literal value is stored
// as it is, never written as CEL, so the expression size budget does not
// hold it: long strings and lists of them, as a Shape or a slice writes a
// memory's observations, pass. Its items count; brackets, commas and
// quotes inside strings and comments do not. The same values in a
// condition, which the planner writes as CEL, are held to it.
func TestLiteralsNotSized(t *testing.T) {
	obs := "[" + strings.TrimSuffix(strings.Repeat(`"an observation of a hundred bytes, [with, brackets] and {braces}, 'quotes', and more text",`, 2000), ",") + "]"
	doc := "'" + strings.Repeat("(text, [of] {a} document) ", 8_000) + "'"
	pass := []string{
		"INSERT (:MEM {nick: 'MEM_a', obs: " + obs + "})",
		"INSERT (m:MEM {obs: " + obs + "})-[:R {w: " + obs + "}]->(:MEM {obs: " + obs + "})",
		"MATCH (m:MEM {nick: 'MEM_a'}) SET m.obs = " + obs + ", m.doc = " + doc + ", m.n = [-1, -2.5e-3, DATE '2026-01-31', null]",
		"MATCH (m:MEM {nick: 'MEM_a'}) SET m.obs = " + obs + " REMOVE m.draft SET m.w = " + obs + " WHERE m.x = 1",
		"MATCH (m:MEM) WHERE m.nick = 'MEM_a' SET m.`the doc` = " + doc,
		"INSERT (:DOC {body: " + doc + ", `key`: " + obs + ", \"quoted key\": " + obs + "})",
		"CALL remember(" + doc + ", " + obs + ")",
		"INSERT (:EMB {v: [" + strings.TrimSuffix(strings.Repeat("-0.0123456789,", DefaultMaxItems), ",") + "]})",
		"MATCH (n) WHERE n.v IN [" + strings.TrimSuffix(strings.Repeat("'TSK_login',", 5_000), ",") + "] SET n.w = 1",
	}
	for _, text := range pass {
		if _, err := prescan(text, DefaultLimits, nil); err != nil {
			t.Errorf("%.120s…: %v", text, err)
		}
	}
	fail := []string{
		"MATCH (m:MEM) WHERE m.obs = " + obs + " SET m.x = 1",
		"MATCH (m:MEM) SET m.obs = m.obs + " + obs,
		"INSERT (:MEM {obs: " + obs + " + []})",
		"INSERT (:MEM {obs: [- -1, " + strings.TrimPrefix(obs, "[") + "})",
		"MATCH (m:MEM) SET m.x = [" + strings.TrimSuffix(strings.Repeat("m.v,", 9_000), ",") + "]",
	}
	for _, text := range fail {
		if _, err := prescan(text, DefaultLimits, nil); err == nil || !strings.Contains(err.Msg, "size budget") {
			t.Errorf("%.120s…: %v, want the size budget", text, err)
		}
	}
}

// TestAcceptedNearTheBounds logs what the largest texts the pre-scan
// passes cost to parse, per byte: the cost of a parse, which the budgets
// bound by bounding what one list, expression or label expression holds,
// not what a whole text holds (a slice of 1 MiB is one INSERT).
func TestAcceptedNearTheBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("parses texts of 256 KB")
	}
	list := strings.TrimSuffix(strings.Repeat("1,", DefaultMaxItems), ",")
	for _, c := range []struct{ name, text string }{
		{"INSERT of 24,000 nodes", fill(rBudget, "INSERT ", "(:A {v: 1}), ", "(:A)")},
		{"INSERT of 87,000 bare nodes", fill(rBudget, "INSERT ", "(),", "()")},
		{"INSERT of 13 lists of 10,000 items", fill(rBudget, "INSERT ", "(:A {v: ["+list+"]}), ", "(:A)")},
		{"SET of 29,000 properties", fill(rBudget, "MATCH (n:A) SET ", "n.v = 1, ", "n.w = 1")},
		{"21,000 statements", fill(rBudget, "", "INSERT (:A);", "INSERT (:A)")},
		{"MATCH of 37,000 node patterns", fill(rBudget, "MATCH (n:TSK)", ",(:TSK)", "")},
		{"one list of 10,000 items", "MATCH (n:TSK) WHERE n.v IN [" + list + "]"},
		{"an OR chain of 2,300 terms", "MATCH (n:TSK) WHERE n.v = 1" + strings.Repeat(" OR n.v = 1", 2_300)},
		{"a label expression of 499 |", "MATCH (n:TSK" + strings.Repeat("|TSK", 499) + ")"},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := Parse(c.text)
		runtime.ReadMemStats(&after)
		n := after.TotalAlloc - before.TotalAlloc
		if err != nil {
			t.Errorf("%s: %.200v", c.name, err)
		}
		t.Logf("%-36s %7d bytes parsed: %10d bytes allocated, %4.0f per byte", c.name, len(c.text), n, float64(n)/float64(len(c.text)))
	}
}

// TestCheckIsParsesFirstError: Check refuses what Parse refuses before
// reading the text, with the same error, and takes the rest without
// allocating.
func TestCheckIsParsesFirstError(t *testing.T) {
	list := strings.Repeat("1,", DefaultMaxItems+1) + "1"
	for _, text := range []string{
		"MATCH (n) WHERE n.v IN [" + list + "]",
		"INSERT (:X {v: [" + list + "]})",
		"MATCH (n:" + strings.Repeat("A|", DefaultMaxLabelTerms+1) + "B)",
		"MATCH (n) WHERE n.v = 1" + strings.Repeat(" OR n.v = 1", 20000),
		strings.Repeat("x", DefaultMaxBytes+1),
		"MATCH (n {v: '\xff'})",
	} {
		_, perr := Parse(text)
		cerr := Check(text)
		if perr == nil || cerr == nil || perr.Error() != cerr.Error() {
			t.Errorf("%.40q: Parse %.120v, Check %.120v", text, perr, cerr)
		}
	}
	ok := "MATCH (t:TSK {nick: $n}) WHERE t.v IN [1, 2, 3] LIMIT 4"
	if err := Check(ok); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { Check(ok) }); n != 0 {
		t.Errorf("Check of a text it takes allocates %v times", n)
	}
}
