package values

import "testing"

// TestKeyLiteralEscapes: a name that is no plain identifier is written in
// backquotes with its control characters as \uXXXX, as a string literal
// writes them, and a backslash before u or U as \u005C, so the text shows
// no control character raw and reads back as the name; Size counts the
// bytes written.
func TestKeyLiteralEscapes(t *testing.T) {
	for _, c := range []struct{ key, want string }{
		{"TSK", "TSK"},
		{"a b", "`a b`"},
		{"a`b", "`a``b`"},
		{"\x1b[2J", "`\\u001B[2J`"},
		{"\x1b]0;pwned\x07", "`\\u001B]0;pwned\\u0007`"},
		{"a\x00b", "`a\\u0000b`"},
		{"t\tn\nr\r", "`t\\u0009n\\u000Ar\\u000D`"},
		{"\x7f\u0085\u009b", "`\\u007F\\u0085\\u009B`"},
		{"\u2028\u2029", "`\\u2028\\u2029`"},
		{"bad\xff", "`bad\\uFFFD`"},
		{`C:\dir`, "`C:\\dir`"},
		{`a\u0041`, "`a\\u005Cu0041`"},
		{`\U0001F600`, "`\\u005CU0001F600`"},
		{`\\u`, "`\\\\u005Cu`"},
		{"é 世界 🐟", "`é 世界 🐟`"},
	} {
		if got := KeyLiteral(c.key); got != c.want {
			t.Errorf("KeyLiteral(%q) = %s, want %s", c.key, got, c.want)
		}
		if got := keyLiteralLen(c.key); got != len(c.want) {
			t.Errorf("keyLiteralLen(%q) = %d, want %d", c.key, got, len(c.want))
		}
		p := Props{{Key: c.key, Val: Int(1)}}
		if got, want := p.Literal(), "{"+c.want+": 1}"; got != want || p.Size() != len(want) {
			t.Errorf("%q: props %s (size %d), want %s", c.key, got, p.Size(), want)
		}
	}
	sh := &Shape{}
	sh.SetRows([]ShapeNode{{Var: "a", Labels: []string{"\x1b[2J", "\x00"}, Props: Props{{Key: "\u009b", Val: String("\x1b")}}}, {Var: "b"}},
		[]ShapeEdge{{Type: "\x07", From: 0, To: 1}})
	want := "INSERT\n  (a:`\\u001B[2J`:`\\u0000` {`\\u009B`: \"\\u001B\"}),\n  (b),\n  (a)-[:`\\u0007`]->(b)\n"
	if got := string(sh.AppendInsert(nil)); got != want {
		t.Errorf("AppendInsert:\n%s\nwant:\n%s", got, want)
	}
}
