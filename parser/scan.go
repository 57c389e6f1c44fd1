package parser

import (
	"strings"
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

// prescan holds the text to the budgets of lim but its bytes before ANTLR
// sees it, so that a text over one is refused at the cost of a pass over
// its bytes (a parse costs hundreds of bytes per token) and deep nesting
// can never exhaust the stack inside the generated recursive-descent
// code. It counts open brackets and runs of prefix operators (-, +, NOT,
// and the ! of a label expression) for the nesting, and follows the
// tokens for the other budgets (see budget), skipping strings, quoted
// names and comments the way the lexer does. On the way it returns the
// byte offsets of the line comments that are likely Cypher arrows (see
// arrowComment).
//
// With arrows set it checks the text as the Cypher reading sees it: the
// "--" at those offsets is two '-' and the rest of its line is code.
func prescan(text string, lim Limits, arrows map[int]bool) (traps []int, err *gqlstatus.Error) {
	b := newBudget(text, lim)
	run := 0 // consecutive prefix operators
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
			if err := b.quoted(c, i, min(j+1, len(text))); err != nil {
				return nil, err
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
			run = 0
			if b.depth >= lim.MaxDepth {
				return nil, tooDeep(text, i, lim.MaxDepth)
			}
			if err := b.open(c, i); err != nil {
				return nil, err
			}
		case c == ')' || c == ']' || c == '}':
			run = 0
			if err := b.close(c, i); err != nil {
				return nil, err
			}
		case c == '-' || c == '+',
			c == '!' && (i+1 == len(text) || text[i+1] != '='): // ! before a label, not !=
			run++
			if b.depth+run > lim.MaxDepth {
				return nil, tooDeep(text, i, lim.MaxDepth)
			}
			op := text[i : i+1]
			if c == '+' && i+1 < len(text) && text[i+1] == '=' {
				op = "+="
			}
			if err := b.punct(op, i); err != nil {
				return nil, err
			}
			i += len(op)
			continue
		case isWordByte(c):
			j := wordEnd(text, i)
			if c >= '0' && c <= '9' {
				j = numberEnd(text, i, j)
				if err := b.number(i, j); err != nil {
					return nil, err
				}
				run = 0
				i = j
				continue
			}
			if j-i == 3 && (text[i]|0x20) == 'n' && (text[i+1]|0x20) == 'o' && (text[i+2]|0x20) == 't' {
				run++
				if b.depth+run > lim.MaxDepth {
					return nil, tooDeep(text, i, lim.MaxDepth)
				}
			} else {
				run = 0
			}
			if err := b.word(i, j); err != nil {
				return nil, err
			}
			i = j
			continue
		default:
			run = 0
			op := text[i : i+1]
			if i+1 < len(text) && twoByteOp(text[i:i+2]) {
				op = text[i : i+2]
			}
			if err := b.punct(op, i); err != nil {
				return nil, err
			}
			i += len(op)
			continue
		}
		i++
	}
	return traps, nil
}

func wordEnd(text string, i int) int {
	for i < len(text) && isWordByte(text[i]) {
		i++
	}
	return i
}

// numberEnd extends the word text[i:j] that starts with a digit over a
// fraction and an exponent's sign, as the lexer reads 1.5e-3.
func numberEnd(text string, i, j int) int {
	digit := func(k int) bool { return k < len(text) && text[k] >= '0' && text[k] <= '9' }
	if j < len(text) && text[j] == '.' && digit(j+1) {
		j = wordEnd(text, j+1)
	}
	radix := j-i > 1 && text[i] == '0' && (text[i+1]|0x20 == 'x' || text[i+1]|0x20 == 'o' || text[i+1]|0x20 == 'b')
	if !radix && (text[j-1]|0x20) == 'e' && j < len(text) && (text[j] == '+' || text[j] == '-') && digit(j+1) {
		j = wordEnd(text, j+1)
	}
	return j
}

// twoByteOp reports whether s is one of the lexer's two-character
// operators that the pre-scan does not otherwise read as one.
func twoByteOp(s string) bool {
	switch s {
	case "<>", "<=", ">=", "!=", "=~", "..", "::", "||":
		return true
	}
	return false
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
	return limitAt(text, off, "nesting is deeper than %d levels", max).
		WithHint("flatten the expression or split the statement")
}

// window is how many runes of its source line on each side of the
// position a pre-scan refusal keeps for the caret display (which shows
// fewer).
const window = 160

// limitAt is a refusal (42Q01) at byte offset off of text. It keeps the
// part of the source line around off, not the whole line: a text over a
// budget is often one line of hundreds of KB, which each rendering of
// the caret would read rune by rune into memory.
func limitAt(text string, off int, format string, args ...any) *gqlstatus.Error {
	e := gqlstatus.At(gqlstatus.TextLimit, posAtOffset(text, off), text, format, args...)
	start := strings.LastIndexByte(text[:off], '\n') + 1
	end := start + len(e.Line)
	lo, back := off, 0
	for lo > start && back < window {
		_, n := utf8.DecodeLastRuneInString(text[start:lo])
		lo -= n
		back++
	}
	hi := off
	for k := 0; hi < end && k < window; k++ {
		_, n := utf8.DecodeRuneInString(text[hi:end])
		hi += n
	}
	e.Line = text[lo:hi]
	if lo > start {
		e.LineCol = e.Pos.Col - back
	}
	return e
}
