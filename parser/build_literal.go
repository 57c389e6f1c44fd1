// Literal values and names: numbers, strings and their escapes, temporal
// literals, maps, and quoted names.

package parser

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/antlr4-go/antlr/v4"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/parser/gen"
)

func (b *builder) mapLit(ctx gen.IMapLiteralContext) *ast.MapLit {
	entries := ctx.AllMapEntry()
	m := &ast.MapLit{Pos: b.cpos(ctx), Entries: make([]*ast.PropEntry, 0, len(entries))}
	for _, e := range entries {
		k := e.GetStart()
		key := ""
		if e.STRING() != nil {
			// "key": a delimited identifier (ISO); 'key' is a string
			if k.GetText()[0] != '"' {
				b.fail(gqlstatus.Syntax, b.pos(k), "write the key as a name, in double quotes or in backquotes: {key: 1}, {\"my key\": 1}",
					"a property key is a name, not a string in single quotes")
			}
			key = b.str(k)
			if key == "" {
				b.fail(gqlstatus.Syntax, b.pos(k), "write a name between the quotes", "empty quoted name")
			}
		} else {
			key = b.name(k)
		}
		m.Entries = append(m.Entries, &ast.PropEntry{Pos: b.pos(k), Key: key, Value: b.expr(e.Expr())})
	}
	return m
}

func (b *builder) literal(t antlr.Token) *ast.Literal {
	pos := b.pos(t)
	switch t.GetTokenType() {
	case gen.GoldfishGQLParserINTEGER, gen.GoldfishGQLParserFLOAT:
		return b.number(t, false)
	case gen.GoldfishGQLParserSTRING:
		return &ast.Literal{Pos: pos, Kind: ast.LitString, Str: b.str(t)}
	case gen.GoldfishGQLParserTRUE:
		return &ast.Literal{Pos: pos, Kind: ast.LitBool, Bool: true}
	case gen.GoldfishGQLParserFALSE:
		return &ast.Literal{Pos: pos, Kind: ast.LitBool}
	case gen.GoldfishGQLParserNULL:
		return &ast.Literal{Pos: pos, Kind: ast.LitNull}
	}
	panic(fmt.Sprintf("parser: unknown literal token %d", t.GetTokenType()))
}

// temporal builds DATE '…' and DATETIME '…' (also written TIMESTAMP
// '…' or ZONED DATETIME '…': a stored DATETIME keeps its offset),
// checking the text. word is the keyword as the user wrote it, upper-cased.
// TIME, LOCAL TIME, ZONED TIME, LOCAL DATETIME and DURATION literals have
// no stored kind that holds them faithfully: primary refuses them by name.
func (b *builder) temporal(kw, st antlr.Token, word string) ast.Expr {
	pos := b.pos(kw)
	s := b.str(st)
	if word == "DATE" {
		if _, err := time.Parse("2006-01-02", s); err != nil {
			b.fail(gqlstatus.InvalidDateTimeFormat, b.pos(st), "write dates as DATE 'YYYY-MM-DD', for example DATE '2026-01-31'",
				"invalid DATE literal %q", s)
		}
		return &ast.Literal{Pos: pos, Kind: ast.LitDate, Str: s}
	}
	if !validDateTime(s) {
		b.fail(gqlstatus.InvalidDateTimeFormat, b.pos(st),
			"write date-times in ISO 8601, for example "+word+" '2026-01-31T14:05:00Z'",
			"invalid %s literal %q", word, s)
	}
	return &ast.Literal{Pos: pos, Kind: ast.LitDateTime, Str: s}
}

var dateTimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04Z07:00",
	"2006-01-02 15:04",
}

func validDateTime(s string) bool {
	for _, l := range dateTimeLayouts {
		if _, err := time.Parse(l, s); err == nil {
			return true
		}
	}
	// lower-case t/z are ISO 8601 too
	if u := strings.ToUpper(s); u != s {
		return validDateTime(u)
	}
	return false
}

func (b *builder) number(t antlr.Token, neg bool) *ast.Literal {
	txt := t.GetText()
	pos := b.pos(t)
	if t.GetTokenType() == gen.GoldfishGQLParserINTEGER {
		v, err := parseInt(txt, neg)
		if err != nil {
			s := txt
			if neg {
				s = "-" + txt
			}
			b.fail(gqlstatus.NumericOutOfRange, pos,
				"integers are 64-bit (up to 9223372036854775807); use a float or a string for larger numbers",
				"integer literal %s is out of range", s)
		}
		return &ast.Literal{Pos: pos, Kind: ast.LitInt, Int: v}
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(txt, "_", ""), 64)
	if err != nil {
		b.fail(gqlstatus.NumericOutOfRange, pos, "floats are 64-bit IEEE 754", "float literal %s is out of range", txt)
	}
	if neg {
		v = -v
	}
	return &ast.Literal{Pos: pos, Kind: ast.LitFloat, Float: v}
}

// parseInt converts an INTEGER token's text, negated when neg: decimal
// digits, or 0x, 0o and 0b digits, with '_' between digits. A leading
// zero is decimal (007 is 7), not octal.
func parseInt(txt string, neg bool) (int64, error) {
	sign := ""
	if neg {
		sign = "-"
	}
	if len(txt) > 1 && txt[0] == '0' {
		switch txt[1] {
		case 'x', 'X', 'o', 'O', 'b', 'B':
			// strconv's base 0 reads exactly these prefixes, with '_'
			// allowed after the prefix and between digits.
			return strconv.ParseInt(sign+txt, 0, 64)
		}
	}
	return strconv.ParseInt(sign+strings.ReplaceAll(txt, "_", ""), 10, 64)
}

// name returns the name a token spells: backquotes removed, as written
// otherwise (labels and keys are case-sensitive, keywords used as names
// keep their case). In backquotes a doubled backquote is one, and
// \uXXXX and \UXXXXXXXX (a UTF-16 surrogate pair as two \u) stand for
// the character they name, as in a string and as ISO GQL's delimited
// identifiers take them: the way a name holding a control character is
// written (values.KeyLiteral). Any other backslash is itself, as it
// always was, so a name such as `C:\dir` keeps its meaning.
func (b *builder) name(t antlr.Token) string {
	s := t.GetText()
	if t.GetTokenType() != gen.GoldfishGQLParserQUOTED_ID {
		return s
	}
	s = s[1 : len(s)-1]
	if s == "" {
		b.fail(gqlstatus.Syntax, b.pos(t), "write a name between the backquotes", "empty quoted name")
	}
	return unescapeName(strings.ReplaceAll(s, "``", "`"))
}

// unescapeName resolves the \u and \U escapes of a quoted name's body;
// a backslash that starts none is kept.
func unescapeName(s string) string {
	at := strings.IndexByte(s, '\\')
	if at < 0 {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s))
	sb.WriteString(s[:at])
	for i := at; i < len(s); {
		r, adv := nameEscape(s, i)
		if adv == 0 {
			sb.WriteByte(s[i])
			i++
			continue
		}
		sb.WriteRune(r)
		i += adv
	}
	return sb.String()
}

// nameEscape reads the escape at s[i]: the character and the bytes it
// takes, or 0 bytes when s[i] starts none.
func nameEscape(s string, i int) (rune, int) {
	if s[i] != '\\' || i+1 >= len(s) || (s[i+1] != 'u' && s[i+1] != 'U') {
		return 0, 0
	}
	n := 4
	if s[i+1] == 'U' {
		n = 8
	}
	r, ok := hexRune(s, i+2, n)
	if !ok {
		return 0, 0
	}
	adv := 2 + n
	if utf16.IsSurrogate(r) {
		if i+adv+1 >= len(s) || s[i+adv] != '\\' || s[i+adv+1] != 'u' {
			return 0, 0
		}
		r2, ok := hexRune(s, i+adv+2, 4)
		if r = utf16.DecodeRune(r, r2); !ok || r == utf8.RuneError {
			return 0, 0
		}
		adv += 6
	}
	if !utf8.ValidRune(r) {
		return 0, 0
	}
	return r, adv
}

// str decodes a STRING token: quotes removed, escapes and doubled quotes
// resolved. A bad escape fails at its own position (and the string is
// then "").
func (b *builder) str(t antlr.Token) string {
	raw := t.GetText()
	q := raw[0]
	body := raw[1 : len(raw)-1]
	if strings.IndexByte(body, '\\') < 0 && strings.IndexByte(body, q) < 0 {
		return body
	}
	base := b.off(t.GetStart()) + 1 // byte offset of body in text
	var sb strings.Builder
	sb.Grow(len(body))
	for i := 0; i < len(body); {
		c := body[i]
		if c == q { // doubled quote (the lexer guarantees the pair)
			sb.WriteByte(q)
			i += 2
			continue
		}
		if c != '\\' {
			sb.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(body) {
			b.badEscape(base+i, "\\")
			return ""
		}
		e := body[i+1]
		switch e {
		case 'n':
			sb.WriteByte('\n')
		case 't':
			sb.WriteByte('\t')
		case 'r':
			sb.WriteByte('\r')
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case '0':
			sb.WriteByte(0)
		case '\\', '\'', '"', '/', '`':
			sb.WriteByte(e)
		case 'u', 'U':
			n := 4
			if e == 'U' {
				n = 8
			}
			r, ok := hexRune(body, i+2, n)
			if !ok {
				b.badEscape(base+i, body[i:min(len(body), i+2+n)])
				return ""
			}
			adv := 2 + n
			if utf16.IsSurrogate(r) {
				// \uD83D\uDE00: a UTF-16 surrogate pair
				r2, ok2 := rune(0), false
				if i+adv+1 < len(body) && body[i+adv] == '\\' && body[i+adv+1] == 'u' {
					r2, ok2 = hexRune(body, i+adv+2, 4)
				}
				dec := utf8.RuneError
				if ok2 {
					dec = utf16.DecodeRune(r, r2)
				}
				if dec == utf8.RuneError {
					b.badEscape(base+i, body[i:i+adv])
					return ""
				}
				r = dec
				adv += 6
			}
			if !utf8.ValidRune(r) {
				b.badEscape(base+i, body[i:i+adv])
				return ""
			}
			sb.WriteRune(r)
			i += adv
			continue
		default:
			_, size := utf8.DecodeRuneInString(body[i+1:])
			b.badEscape(base+i, body[i:i+1+size])
			return ""
		}
		i += 2
	}
	return sb.String()
}

func hexRune(s string, at, n int) (rune, bool) {
	if at+n > len(s) {
		return 0, false
	}
	v, err := strconv.ParseUint(s[at:at+n], 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(v), true
}

func (b *builder) badEscape(off int, esc string) {
	b.fail(gqlstatus.Syntax, posAtOffset(b.text, off),
		`valid escapes are \n \t \r \b \f \0 \\ \' \" \uXXXX and \UXXXXXXXX; write \\ for a backslash`,
		"invalid escape %q in string", esc)
}
