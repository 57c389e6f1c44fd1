package repl

import (
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

func TestSplit(t *testing.T) {
	type want struct {
		text      string
		line, col int
		term      bool
	}
	cases := []struct {
		name string
		in   string
		want []want
	}{
		{"empty", "", nil},
		{"blanks and comments only", "  // hi\n-- there\n/* x */ ;;\n", nil},
		{"one without semicolon", "INSERT (:A)", []want{{"INSERT (:A)", 1, 1, false}}},
		{"one with semicolon", "INSERT (:A);", []want{{"INSERT (:A)", 1, 1, true}}},
		{"two on one line", "INSERT (:A); INSERT (:B);", []want{
			{"INSERT (:A)", 1, 1, true}, {"INSERT (:B)", 1, 14, true}}},
		{"lines", "INSERT (:A);\n\n  MATCH (a:A)\n  SET a.x = 1;\n", []want{
			{"INSERT (:A)", 1, 1, true}, {"MATCH (a:A)\n  SET a.x = 1", 3, 3, true}}},
		{"single-quoted ;", "INSERT (:A {s: 'a;b'});INSERT (:B)", []want{
			{"INSERT (:A {s: 'a;b'})", 1, 1, true}, {"INSERT (:B)", 1, 24, false}}},
		{"double-quoted ;", `INSERT (:A {s: "a;b"})`, []want{{`INSERT (:A {s: "a;b"})`, 1, 1, false}}},
		{"escaped quote", `INSERT (:A {s: 'it\'s;'}); X`, []want{
			{`INSERT (:A {s: 'it\'s;'})`, 1, 1, true}, {"X", 1, 28, false}}},
		{"escaped backslash before quote", `INSERT (:A {s: 'a\\'}); X`, []want{
			{`INSERT (:A {s: 'a\\'})`, 1, 1, true}, {"X", 1, 25, false}}},
		{"back-quoted name", "INSERT (:`a;b` {`k;``;`: 1}); X", []want{
			{"INSERT (:`a;b` {`k;``;`: 1})", 1, 1, true}, {"X", 1, 31, false}}},
		{"line comment //", "INSERT (:A) // not; here\n; X", []want{
			{"INSERT (:A) // not; here\n", 1, 1, true}, {"X", 2, 3, false}}},
		{"line comment --", "INSERT (:A) -- a;b\nX", []want{{"INSERT (:A) -- a;b\nX", 1, 1, false}}},
		{"block comment", "INSERT /* ; */ (:A); /* lead; */ X", []want{
			{"INSERT /* ; */ (:A)", 1, 1, true}, {"X", 1, 34, false}}},
		{"leading comment skipped", "-- intro\n  INSERT (:A)", []want{{"INSERT (:A)", 2, 3, false}}},
		{"open string runs to end", "INSERT (:A {s: 'x;y", []want{{"INSERT (:A {s: 'x;y", 1, 1, false}}},
		{"open block comment is the input's error", "INSERT (:A); /* x;", []want{{"INSERT (:A)", 1, 1, true}}},
		{"open block comment inside a statement", "INSERT (:A) /* x;", []want{{"INSERT (:A) /* x;", 1, 1, false}}},
		{"runes in columns", "INSERT (:A {s: 'é'}); X", []want{
			{"INSERT (:A {s: 'é'})", 1, 1, true}, {"X", 1, 23, false}}},
		{"minus is not a comment", "MATCH (a) WHERE a.x = 1 - 2 SET a.y = 1; X", []want{
			{"MATCH (a) WHERE a.x = 1 - 2 SET a.y = 1", 1, 1, true}, {"X", 1, 42, false}}},
		{"division is not a comment", "MATCH (a) SET a.y = 4 / 2; X", []want{
			{"MATCH (a) SET a.y = 4 / 2", 1, 1, true}, {"X", 1, 28, false}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Split(c.in)
			if len(got) != len(c.want) {
				t.Fatalf("got %d statements %q, want %d", len(got), texts(got), len(c.want))
			}
			for i, g := range got {
				w := c.want[i]
				if g.Text != w.text || g.Line != w.line || g.Col != w.col || g.Terminated != w.term || g.Index != i+1 {
					t.Errorf("stmt %d: got %q at %d:%d term=%v index=%d, want %q at %d:%d term=%v",
						i+1, g.Text, g.Line, g.Col, g.Terminated, g.Index, w.text, w.line, w.col, w.term)
				}
				if !strings.HasPrefix(c.in[g.Offset:], g.Text) {
					t.Errorf("stmt %d: offset %d does not point at its text", i+1, g.Offset)
				}
				if l, col := lineCol(c.in, g.Offset); l != g.Line || col != g.Col {
					t.Errorf("stmt %d: offset %d is %d:%d, stmt says %d:%d", i+1, g.Offset, l, col, g.Line, g.Col)
				}
			}
		})
	}
}

func texts(ss []Stmt) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Text)
	}
	return out
}

func TestWords(t *testing.T) {
	cases := map[string]string{
		"START TRANSACTION":                "START TRANSACTION",
		"start  /* c */ transaction":       "START TRANSACTION",
		"-- c\ncommit":                     "COMMIT",
		"Rollback":                         "ROLLBACK",
		"MATCH (a) SET a.x = 1":            "MATCH",
		"INSERT(:A)":                       "INSERT",
		"(:A)":                             "",
		"START\n// between\nTRANSACTION\n": "START TRANSACTION",
		"COMMIT_WORK":                      "COMMIT_WORK",
	}
	for in, want := range cases {
		got := strings.Join(Stmt{Text: in}.Words(2), " ")
		if want == "MATCH" || want == "INSERT" {
			got = Stmt{Text: in}.Words(1)[0]
		}
		if got != want {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSourceMapPositions(t *testing.T) {
	src := "INSERT (:A);\n  START TRANSACTION;\n  INSERT (:B);\n\tMATCH (b:B)\n  SET b.x = 1;\nCOMMIT"
	stmts := Split(src)
	m := newSourceMap(stmts[2:4])
	for i, st := range m.st {
		for k := range st.Text {
			line, col := lineCol(m.text, m.at[i]+k)
			p, _ := m.pos(gqlstatus.Pos{Line: line, Col: col})
			if p.Offset != st.Offset+k {
				t.Fatalf("joined %d:%d maps to offset %d, want %d", line, col, p.Offset, st.Offset+k)
			}
			if l, c := lineCol(src, p.Offset); l != p.Line || c != p.Col {
				t.Fatalf("joined %d:%d maps to %d:%d but offset %d is %d:%d", line, col, p.Line, p.Col, p.Offset, l, c)
			}
		}
	}
}
