package parser

import (
	"unicode/utf8"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
)

// posAtOffset computes the position of byte offset off in text.
func posAtOffset(text string, off int) ast.Pos {
	if off > len(text) {
		off = len(text)
	}
	if off < 0 {
		off = 0
	}
	line, col := 1, 1
	for _, r := range text[:off] {
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return ast.Pos{Line: line, Col: col, Offset: off}
}

// runeIndexToOffset converts an ANTLR character index (runes) into a byte
// offset. When idx is unknown (< 0) it falls back to line and 0-based column.
func runeIndexToOffset(text string, idx, line, column int) int {
	if idx >= 0 {
		n := 0
		for i := range text {
			if n == idx {
				return i
			}
			n++
		}
		return len(text)
	}
	l, c := 1, 0
	for i, r := range text {
		if l == line && c == column {
			return i
		}
		if r == '\n' {
			l++
			c = 0
		} else {
			c++
		}
	}
	return len(text)
}

func firstInvalidUTF8(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(s)
}

// prescan bounds the nesting depth before ANTLR sees the text, so deep
// nesting is refused cheaply and can never exhaust the stack inside the
// generated recursive-descent code. It counts open brackets and runs of
// prefix operators (-, +, NOT, and the ! of a label expression), skipping
// strings, quoted names and comments the way the lexer does. On the way it
// returns the byte offsets of the line comments that are likely Cypher
// arrows (see arrowComment).
//
// With arrows set it checks the text as the Cypher reading sees it: the
// "--" at those offsets is two '-' and the rest of its line is code.
func prescan(text string, maxDepth int, arrows map[int]bool) (traps []int, err *gqlstatus.Error) {
	depth := 0 // open ( [ {
	run := 0   // consecutive prefix operators
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
			continue
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < len(text) {
				if text[j] == '\\' && c != '`' {
					j += 2
					continue
				}
				if text[j] == c {
					if j+1 < len(text) && text[j+1] == c { // doubled quote
						j += 2
						continue
					}
					break
				}
				j++
			}
			i = j + 1
			run = 0
			continue
		case c == '/' && i+1 < len(text) && text[i+1] == '/',
			c == '-' && i+1 < len(text) && text[i+1] == '-' && !arrows[i]:
			if c == '-' && arrowComment(text, i) {
				traps = append(traps, i)
			}
			for i < len(text) && text[i] != '\n' && text[i] != '\r' {
				i++
			}
			continue
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			j := i + 2
			for j+1 < len(text) && !(text[j] == '*' && text[j+1] == '/') {
				j++
			}
			i = j + 2
			continue
		case c == '(' || c == '[' || c == '{':
			depth++
			run = 0
			if depth > maxDepth {
				return nil, tooDeep(text, i, maxDepth)
			}
		case c == ')' || c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
			run = 0
		case c == '-' || c == '+',
			c == '!' && (i+1 == len(text) || text[i+1] != '='): // ! before a label, not !=
			run++
			if depth+run > maxDepth {
				return nil, tooDeep(text, i, maxDepth)
			}
		case isWordByte(c):
			j := i
			for j < len(text) && isWordByte(text[j]) {
				j++
			}
			if j-i == 3 && (text[i]|0x20) == 'n' && (text[i+1]|0x20) == 'o' && (text[i+2]|0x20) == 't' {
				run++
				if depth+run > maxDepth {
					return nil, tooDeep(text, i, maxDepth)
				}
			} else {
				run = 0
			}
			i = j
			continue
		default:
			run = 0
		}
		i++
	}
	return traps, nil
}

// arrowComment reports whether the "--" at off starts a comment where a
// Cypher arrow was more likely meant: right after ')', ']', '-' or '<'
// with no blank between, as in (a)-->(b), -[r]--(b) or (a)<--(b). ISO GQL
// reads "--" as a comment there too, so the rest of the line is ignored.
func arrowComment(text string, off int) bool {
	if off == 0 {
		return false
	}
	switch text[off-1] {
	case ')', ']', '-', '<':
		return true
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func tooDeep(text string, off, max int) *gqlstatus.Error {
	return gqlstatus.At(gqlstatus.TextLimit, posAtOffset(text, off), text,
		"nesting is deeper than %d levels", max).
		WithHint("flatten the expression or split the statement")
}
