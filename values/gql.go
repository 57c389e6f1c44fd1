package values

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// The GQL rendering of a Shape's rows: the INSERT statement its text ends
// with. The engine writes the text from the records' kept renderings for
// speed, and its tests hold that text byte-identical to this rendering of
// the rows, so a reader of either reads the same Shape.

// AppendInsert appends the INSERT statement of the Shape's rows, as its
// Text writes it after the comment lines: "INSERT", then each node
// "(var:Kind:Label {props})" and each edge "(a)-[:type {props}]->(b)",
// one to a line, and a final newline; nothing when the Shape has no row.
// A trimmed row shows its identity properties only, an elided value its
// parameter.
func (s *Shape) AppendInsert(b []byte) []byte {
	nodes, edges := s.Nodes(), s.Edges()
	if len(nodes) == 0 {
		return b
	}
	b = append(b, "INSERT"...)
	for i := range nodes {
		n := &nodes[i]
		if i == 0 {
			b = append(b, "\n  ("...)
		} else {
			b = append(b, ",\n  ("...)
		}
		b = AppendLabels(append(b, n.Var...), n.Labels)
		switch {
		case len(n.Elided) > 0:
			b = n.Props.AppendLiteralReplacing(append(b, ' '), func(key string) (string, bool) {
				for _, e := range n.Elided {
					if e.Key == key {
						return "$" + e.Param, true
					}
				}
				return "", false
			})
		case n.Brief && !n.Trimmed:
			b = appendKept(b, n.Props, BriefProp)
		default:
			b = appendShown(b, n.Props, n.Trimmed)
		}
		b = append(b, ')')
	}
	for i := range edges {
		e := &edges[i]
		b = append(append(b, ",\n  ("...), nodes[e.From].Var...)
		b = AppendKeyLiteral(append(b, ")-[:"...), e.Type)
		b = appendShown(b, e.Props, e.Trimmed)
		b = append(append(append(b, "]->("...), nodes[e.To].Var...), ')')
	}
	return append(b, '\n')
}

// appendShown appends " {…}" of the properties a row shows: all of them,
// or when trimmed its identity properties (nothing when it has none).
func appendShown(b []byte, p Props, trimmed bool) []byte {
	if !trimmed {
		if len(p) == 0 {
			return b
		}
		return p.AppendLiteral(append(b, ' '))
	}
	return appendKept(b, p, func(kv Prop) bool { return IdentityKey(kv.Key) })
}

// appendKept appends " {…}" of the properties of p keep keeps (nothing
// when it keeps none).
func appendKept(b []byte, p Props, keep func(Prop) bool) []byte {
	if !slices.ContainsFunc(p, keep) {
		return b
	}
	return p.AppendLiteralOf(append(b, ' '), keep)
}

// AppendLabels writes ":Label" for each label, the kind first and the
// others sorted, so the same node always reads the same whatever order its
// labels were set in.
func AppendLabels(b []byte, labels []string) []byte {
	if len(labels) == 0 {
		return b
	}
	b = AppendKeyLiteral(append(b, ':'), labels[0])
	var arr [8]string
	for _, l := range SortedExtraLabels(arr[:0], labels) {
		b = AppendKeyLiteral(append(b, ':'), l)
	}
	return b
}

// SortedExtraLabels returns the labels after the kind, sorted (in buf
// when there are two or more of them to sort).
func SortedExtraLabels(buf, labels []string) []string {
	if len(labels) <= 2 {
		return labels[min(1, len(labels)):]
	}
	rest := append(buf, labels[1:]...)
	sort.Strings(rest)
	return rest
}

// KeyLiteral returns key (a label, edge type or property key) as a plain
// identifier, or back-quoted when it is not one (see AppendKeyLiteral).
func KeyLiteral(key string) string { return string(AppendKeyLiteral(nil, key)) }

// AppendKeyLiteral appends key as KeyLiteral writes it. In back-quotes a
// back-quote is doubled, and the characters a string literal writes as
// \uXXXX (C0 and C1 controls, DEL, U+2028, U+2029) are written so too,
// so no name prints a control character raw on a terminal, and the parser
// reads the escape back as the character (\uXXXX is an escape in a quoted
// name as in a string). A backslash the name holds before a u or U is
// written \u005C so it reads back as itself; invalid UTF-8 is \uFFFD, as
// in a string.
func AppendKeyLiteral(b []byte, key string) []byte {
	if IsIdentifier(key) {
		return append(b, key...)
	}
	b = append(b, '`')
	for i := 0; i < len(key); {
		c := key[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '`':
				b = append(b, '`', '`')
			case c == '\\' && i+1 < len(key) && (key[i+1] == 'u' || key[i+1] == 'U'):
				b = append(b, `\u005C`...)
			case c < 0x20 || c == 0x7f:
				b = appendU(b, rune(c))
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(key[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\uFFFD`...)
		case needsUEscape(r):
			b = appendU(b, r)
		default:
			b = append(b, key[i:i+size]...)
		}
		i += size
	}
	return append(b, '`')
}

// keyLiteralLen is len(KeyLiteral(key)), counted without writing it for
// the common name that needs no escape.
func keyLiteralLen(key string) int {
	if IsIdentifier(key) {
		return len(key)
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c >= 0x7f || c == '\\' {
			return len(AppendKeyLiteral(nil, key))
		}
	}
	return len(key) + 2 + strings.Count(key, "`")
}
