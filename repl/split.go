package repl

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Stmt is one statement cut out of a larger text by Split. Text is the
// statement's source without its terminating ';'. Line, Col and Offset give
// where Text starts in the original input (1-based line, 1-based column in
// runes, 0-based byte offset), so a position inside Text can be mapped back
// to the input the user wrote.
type Stmt struct {
	Text   string
	Line   int
	Col    int
	Offset int
	// Index is the 1-based number of the statement in the input; empty
	// statements (only blanks and comments) are dropped and not counted.
	Index int
	// Terminated reports whether a ';' ended the statement; only the last
	// statement of an input may lack one.
	Terminated bool
}

// Split cuts text into statements at each ';' that is outside a string
// ('…' or "…", backslash escapes), a back-quoted name, a line comment
// (// … or -- …) or a block comment (/* … */). It does not parse: a
// string or comment left open runs to the end of the text, and the parser
// then reports it at its true position. Statements holding only blanks and
// comments are dropped. Leading blanks and comments are kept in Text, so
// the positions the parser reports stay the ones of the original text once
// shifted by the statement's start (see Stmt.MapPos).
func Split(text string) []Stmt {
	stmts, _ := scan(text, false)
	return stmts
}

// Meta is a meta-command line (":use work") found by Segment.
type Meta struct {
	// Text is the line without its leading blanks and trailing newline.
	Text   string
	Line   int
	Offset int
}

// Item is one piece of a script: a statement or a meta-command.
type Item struct {
	Stmt *Stmt
	Meta *Meta
}

// Segment cuts a script into statements and meta-commands, in order. A
// meta-command is a line whose first non-blank character is ':' and that
// starts where a statement could start: no statement text is pending before
// it (blanks and comments only) and it is not inside a string or comment.
// A line starting with ':' in the middle of a statement ("INSERT (\n:A)")
// is part of the statement. Statements keep the positions and numbering
// they have in the whole script, so errors point into the file as written.
func Segment(text string) []Item {
	stmts, metas := scan(text, true)
	items := make([]Item, 0, len(stmts)+len(metas))
	i, j := 0, 0
	for i < len(stmts) || j < len(metas) {
		if j == len(metas) || (i < len(stmts) && stmts[i].Offset < metas[j].Offset) {
			items = append(items, Item{Stmt: &stmts[i]})
			i++
		} else {
			items = append(items, Item{Meta: &metas[j]})
			j++
		}
	}
	return items
}

// scan is Split, optionally recognising meta-command lines (see Segment).
func scan(text string, metaLines bool) ([]Stmt, []Meta) {
	var out []Stmt
	var metas []Meta
	start := 0
	i := 0
	emit := func(end int, terminated bool) {
		seg := text[start:end]
		lead := leadingSkip(seg)
		if lead < len(seg) {
			// Start the statement at its first token so that column 1 of
			// its first line is where the user's statement begins.
			off := start + lead
			line, col := lineCol(text, off)
			out = append(out, Stmt{Text: text[off:end], Line: line, Col: col, Offset: off,
				Index: len(out) + 1, Terminated: terminated})
		}
	}
	for i < len(text) {
		if metaLines && (i == 0 || text[i-1] == '\n') && leadingSkip(text[start:i]) == i-start {
			lineEnd := len(text)
			if k := strings.IndexByte(text[i:], '\n'); k >= 0 {
				lineEnd = i + k
			}
			body := strings.TrimLeft(text[i:lineEnd], " \t")
			if strings.HasPrefix(body, ":") {
				off := lineEnd - len(body)
				line, _ := lineCol(text, off)
				metas = append(metas, Meta{Text: strings.TrimRight(body, " \t\r"), Line: line, Offset: off})
				i = lineEnd
				start = i
				continue
			}
		}
		c := text[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(text, i, c)
		case c == '/' && i+1 < len(text) && text[i+1] == '/',
			c == '-' && i+1 < len(text) && text[i+1] == '-':
			i = skipLine(text, i)
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			i = skipBlock(text, i)
		case c == ';':
			emit(i, true)
			i++
			start = i
		default:
			i++
		}
	}
	emit(len(text), false)
	return out, metas
}

// Blank reports whether text holds only blanks and complete comments.
func Blank(text string) bool { return leadingSkip(text) == len(text) }

// HistoryLine folds a multi-line entry into the one line a history file
// can hold: line comments are dropped, other newlines become spaces (or
// \n inside a string), so recalling the entry runs the same statements.
func HistoryLine(text string) string {
	var b strings.Builder
	space := func() {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), " ") {
			b.WriteByte(' ')
		}
	}
	i := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := skipQuoted(text, i, c)
			b.WriteString(strings.ReplaceAll(strings.ReplaceAll(text[i:j], "\r", ""), "\n", `\n`))
			i = j
		case c == '/' && i+1 < len(text) && text[i+1] == '/',
			c == '-' && i+1 < len(text) && text[i+1] == '-':
			i = skipLine(text, i)
			space()
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			j := skipBlock(text, i)
			b.WriteString(strings.Join(strings.Fields(text[i:j]), " "))
			i = j
		case c == ' ' || c == '\n' || c == '\r' || c == '\t':
			space()
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return strings.TrimSpace(b.String())
}

// skipQuoted returns the offset just past the quoted run opening at i. In
// strings a backslash escapes the next character; in back-quoted names a
// doubled back-quote stands for one.
func skipQuoted(text string, i int, q byte) int {
	i++
	for i < len(text) {
		c := text[i]
		switch {
		case c == '\\' && q != '`':
			i += 2
		case c == q:
			if q == '`' && i+1 < len(text) && text[i+1] == '`' {
				i += 2
				continue
			}
			return i + 1
		default:
			i++
		}
	}
	return len(text)
}

func skipLine(text string, i int) int {
	if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(text)
}

func skipBlock(text string, i int) int {
	if j := strings.Index(text[i+2:], "*/"); j >= 0 {
		return i + 2 + j + 2
	}
	return len(text)
}

// leadingSkip returns the length of the blanks and comments that open seg.
func leadingSkip(seg string) int {
	i := 0
	for i < len(seg) {
		r, n := utf8.DecodeRuneInString(seg[i:])
		switch {
		case unicode.IsSpace(r):
			i += n
		case strings.HasPrefix(seg[i:], "//"), strings.HasPrefix(seg[i:], "--"):
			i = skipLine(seg, i)
		case strings.HasPrefix(seg[i:], "/*"):
			if !strings.Contains(seg[i+2:], "*/") {
				return i // an open comment is the parser's to report
			}
			i = skipBlock(seg, i)
		default:
			return i
		}
	}
	return i
}

// lineCol returns the 1-based line and rune column of byte offset off.
func lineCol(text string, off int) (line, col int) {
	line, col = 1, 1
	for _, r := range text[:off] {
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// offsetOf returns the byte offset of 1-based line and rune column in text,
// clamped to the text.
func offsetOf(text string, line, col int) int {
	l, c := 1, 1
	for i, r := range text {
		if l == line && c == col {
			return i
		}
		if r == '\n' {
			if l == line {
				return i // column past the end of the line
			}
			l++
			c = 1
		} else {
			c++
		}
	}
	return len(text)
}

// Words returns the first n words of the statement in upper case, skipping
// comments: enough to recognise START TRANSACTION, COMMIT and ROLLBACK
// without parsing.
func (s Stmt) Words(n int) []string {
	var words []string
	t := s.Text
	for len(words) < n {
		t = t[leadingSkip(t):]
		if t == "" {
			break
		}
		j := 0
		for j < len(t) {
			r, size := utf8.DecodeRuneInString(t[j:])
			if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') {
				break
			}
			j += size
		}
		if j == 0 {
			break
		}
		words = append(words, strings.ToUpper(t[:j]))
		t = t[j:]
	}
	return words
}
