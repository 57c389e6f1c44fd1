package parser

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/values"
)

// insertNames is the labels, edge type and property keys of the first
// node and edge of an INSERT.
func insertNames(t interface{ Fatalf(string, ...any) }, text string) (labels []string, typ string, keys []string) {
	s, err := Parse(text)
	if err != nil {
		t.Fatalf("Parse(%q): %v", text, err)
	}
	ins, ok := s.Stmts[0].(*ast.Query).Clauses[0].(*ast.Insert)
	if !ok {
		t.Fatalf("%q: not an INSERT", text)
	}
	p := ins.Patterns[0]
	for _, e := range p.Nodes[0].Props {
		keys = append(keys, e.Key)
	}
	if len(p.Edges) > 0 {
		typ = p.Edges[0].Types[0]
		for _, e := range p.Edges[0].Props {
			keys = append(keys, e.Key)
		}
	}
	return p.Nodes[0].Labels, typ, keys
}

// TestQuotedNameEscapes: in backquotes \uXXXX and \UXXXXXXXX stand for
// the character they name, a surrogate pair for one character; any other
// backslash, and an escape that names no character, is itself.
func TestQuotedNameEscapes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"`\\u001B[2J`", "\x1b[2J"},
		{"`a\\u0000b`", "a\x00b"},
		{"`\\u0085\\u009b`", "\u0085\u009b"},
		{"`a\\u0041`", "aA"},
		{"`\\u005cu0041`", `\u0041`},
		{"`\\U0001F600`", "😀"},
		{"`\\uD83D\\uDE00`", "😀"},
		{"`\\u0060x`", "`x"},
		{"`C:\\dir`", `C:\dir`},
		{"`a\\\\b`", `a\\b`},
		{"`\\uZZZZ`", `\uZZZZ`},
		{"`\\u00`", `\u00`},
		{"`\\uD83D`", `\uD83D`},
		{"`\\uD83Dx`", `\uD83Dx`},
		{"`\\U00110000`", `\U00110000`},
		{"`x\\`", `x\`},
		{"`a``b`", "a`b"},
	} {
		labels, _, _ := insertNames(t, "INSERT (:"+c.in+")")
		if len(labels) != 1 || labels[0] != c.want {
			t.Errorf("%s reads as %q, want %q", c.in, labels, c.want)
		}
	}
}

// TestRapidNameRoundTrip: every label, edge type and property key, its
// control characters, backslashes and backquotes included, written as
// values.KeyLiteral writes it, reads back as itself, so a Shape's or a
// dump's INSERT committed again makes the same names.
func TestRapidNameRoundTrip(t *testing.T) {
	char := rapid.SampledFrom([]rune{0, 1, '\t', '\n', '\r', 0x1b, 0x7f, 0x80, 0x85, 0x9b, 0x9f, 0x2028, 0x2029, 0x202e,
		'\\', 'u', 'U', '0', '1', 'b', 'D', 'F', '`', ' ', ':', 'a', 'é', '😀'})
	name := rapid.StringOfN(char, 1, 12, -1)
	rapid.Check(t, func(t *rapid.T) {
		label, typ, key := name.Draw(t, "label"), name.Draw(t, "type"), name.Draw(t, "key")
		extra := name.Filter(func(s string) bool { return s != label }).Draw(t, "extra")
		text := "INSERT (" + string(values.AppendLabels(nil, []string{label, extra})) + " {" + values.KeyLiteral(key) +
			": 1})-[:" + values.KeyLiteral(typ) + "]->()"
		for _, c := range text {
			if c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029 {
				t.Fatalf("%q holds %U raw", text, c)
			}
		}
		labels, gotType, keys := insertNames(t, text)
		if len(labels) != 2 || labels[0] != label || labels[1] != extra {
			t.Fatalf("%q: labels %q, want %q and %q", text, labels, label, extra)
		}
		if gotType != typ || len(keys) != 1 || keys[0] != key {
			t.Fatalf("%q: type %q keys %q, want %q and %q", text, gotType, keys, typ, key)
		}
	})
}
