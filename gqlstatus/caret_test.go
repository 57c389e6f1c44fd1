package gqlstatus

import (
	"strings"
	"testing"
)

func TestCaret(t *testing.T) {
	long := strings.Repeat("abcdefghij", 1000) // 10,000 columns
	cases := []struct {
		name    string
		line    string
		lineCol int
		col     int
		want    string
	}{
		{"short", "INSERT (:A {x: });", 0, 16, "  INSERT (:A {x: });\n                 ^"},
		{"tab is one column", "\tINSERT (:A {x: });", 0, 17, "   INSERT (:A {x: });\n                  ^"},
		{"past the end", "INSERT (:A", 0, 11, "  INSERT (:A\n            ^"},
		{"after wide runes", `INSERT (:A {x: "日本語"}) X`, 0, 25, "  INSERT (:A {x: \"日本語\"}) X\n" + strings.Repeat(" ", 2+24+3) + "^"},
		{"combining mark takes no column", "e\u0301 X", 0, 4, "  e\u0301 X\n    ^"},
		{"not UTF-8", "ab\xffc", 0, 4, "  ab\ufffdc\n     ^"},
		{"a window of a long line", long, 0, 5005,
			// two thirds of 76 columns before the caret (the caret's own
			// column included), the rest after
			"  …" + long[5004-49:5004+27] + "…\n  " + strings.Repeat(" ", 1+49) + "^"},
		{"the start of a long line", long, 0, 3, "  " + long[:76] + "…\n    ^"},
		{"the end of a long line", long, 0, 10000, "  …" + long[10000-76:] + "\n  " + strings.Repeat(" ", 76) + "^"},
		{"a line kept from column 101", "0123456789", 101, 105, "  …0123456789\n       ^"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := &Error{Code: Syntax, Msg: "x", Pos: Pos{Line: 1, Col: c.col}, Line: c.line, LineCol: c.lineCol}
			got := e.Caret()
			if got != c.want {
				t.Errorf("Caret:\n%s\nwant:\n%s", got, c.want)
			}
			for _, l := range strings.Split(got, "\n") {
				if w := widths.StringWidth(l); w > CaretWidth+2 {
					t.Errorf("a line %d columns wide", w)
				}
			}
		})
	}
}
