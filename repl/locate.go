package repl

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// sourceMap relates the text sent to the engine (statements joined with
// ";\n") to the input they were cut from. Each statement carries its own
// text and the start of its first line, so a transaction gathered over
// many prompts still points into what was typed at each.
type sourceMap struct {
	text string
	at   []int // byte offset of each statement in text
	st   []Stmt
	// given reports whether a $parameter has a value, to point a missing
	// one out.
	given func(name string) bool
}

// synthetic marks a statement the shell adds to what the user wrote (the
// ROLLBACK that ends a check): errors never point into it.
const synthetic = -1

func syntheticStmt(text string) Stmt { return Stmt{Text: text, Index: synthetic} }

func newSourceMap(stmts []Stmt) *sourceMap {
	m := &sourceMap{st: stmts}
	var b strings.Builder
	for i, s := range stmts {
		if i > 0 {
			b.WriteString(";\n")
		}
		m.at = append(m.at, b.Len())
		b.WriteString(s.Text)
	}
	m.text = b.String()
	return m
}

// segment returns the index of the statement holding byte offset off of
// the joined text.
func (m *sourceMap) segment(off int) int {
	i := 0
	for i+1 < len(m.at) && m.at[i+1] <= off {
		i++
	}
	return i
}

// pos maps a position in the joined text to the input, with the source
// line it falls on.
func (m *sourceMap) pos(p gqlstatus.Pos) (gqlstatus.Pos, int) {
	if !p.Valid() {
		return p, -1
	}
	off := offsetOf(m.text, p.Line, p.Col)
	seg := m.segment(off)
	st := m.st[seg]
	local := min(off-m.at[seg], len(st.Text))
	line, col := lineCol(st.Text, local)
	if line == 1 {
		col += st.Col - 1
	}
	return gqlstatus.Pos{Line: st.Line + line - 1, Col: col, Offset: st.Offset + local}, seg
}

// user returns the statement errors are pinned to when they point at no
// statement of the user's: the last one the user wrote.
func (m *sourceMap) user() int {
	for i := len(m.st) - 1; i >= 0; i-- {
		if m.st[i].Index != synthetic {
			return i
		}
	}
	return 0
}

// locate rewrites an engine error so its position, source line and
// statement number refer to the input. An error the engine gives without
// a position (a missing parameter, a budget, the size of the text) is
// pinned to the statement it is about: the missing $parameter in it, else
// its first token.
func (m *sourceMap) locate(err error) error {
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) {
		return err
	}
	out := *ge
	seg := -1
	if ge.Pos.Valid() {
		var p gqlstatus.Pos
		p, seg = m.pos(ge.Pos)
		if m.st[seg].Index == synthetic {
			seg = -1
		} else {
			out.Pos = p
		}
	}
	if seg < 0 {
		switch {
		case ge.Stmt > 0 && ge.Stmt <= len(m.st) && m.st[ge.Stmt-1].Index != synthetic:
			seg = ge.Stmt - 1
		default:
			seg = m.user()
		}
		st := m.st[seg]
		out.Pos = gqlstatus.Pos{Line: st.Line, Col: st.Col, Offset: st.Offset}
		if ge.Code == gqlstatus.InvalidReference && m.given != nil {
			if p, ok := missingParam(st, m.given); ok {
				out.Pos = p
			}
		}
	}
	st := m.st[seg]
	out.Stmt = st.Index
	out.Line, out.LineCol = st.sourceLine(out.Pos.Line)
	return inFile(st.Source, &out)
}

// sourceLine returns line n of the input (1-based, as Stmt.Line counts)
// as far as the statement holds it: its first line from the kept lead
// (starting at column col), its last up to the ';'.
func (s Stmt) sourceLine(n int) (line string, col int) {
	k := n - s.Line // line of Text, 0-based
	if k < 0 {
		return "", 0
	}
	text := s.Text
	for i := 0; i < k; i++ {
		j := strings.IndexByte(text, '\n')
		if j < 0 {
			return "", 0
		}
		text = text[j+1:]
	}
	last := true
	if j := strings.IndexByte(text, '\n'); j >= 0 {
		text, last = text[:j], false
	}
	if last && s.Terminated {
		text += ";"
	}
	text = strings.TrimRight(text, "\r")
	if k == 0 {
		return s.Lead + text, s.LeadCol
	}
	return text, 0
}

// at pins err (which has no position) to the start of statement st.
func (s Stmt) at(err *gqlstatus.Error) error {
	err.Pos = gqlstatus.Pos{Line: s.Line, Col: s.Col, Offset: s.Offset}
	err.Line, err.LineCol = s.sourceLine(s.Line)
	if s.Index > 0 {
		err.Stmt = s.Index
	}
	return inFile(s.Source, err)
}

// missingParam finds the first $parameter of st without a value, outside
// strings and comments.
func missingParam(st Stmt, given func(string) bool) (gqlstatus.Pos, bool) {
	text := st.Text
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(text, i, c)
			continue
		case c == '/' && i+1 < len(text) && text[i+1] == '/',
			c == '-' && i+1 < len(text) && text[i+1] == '-':
			i = skipLine(text, i)
			continue
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			i = skipBlock(text, i)
			continue
		case c == '$':
			j := i + 1
			for j < len(text) {
				r, n := utf8.DecodeRuneInString(text[j:])
				if !isWordRune(r) {
					break
				}
				j += n
			}
			if name := text[i+1 : j]; name != "" && !given(name) {
				line, col := lineCol(text, i)
				if line == 1 {
					col += st.Col - 1
				}
				return gqlstatus.Pos{Line: st.Line + line - 1, Col: col, Offset: st.Offset + i}, true
			}
			i = j
			continue
		}
		i++
	}
	return gqlstatus.Pos{}, false
}

// fileError is an error in a named file, printed as psql and compilers
// print them: "FILE:LINE:COL: GQLSTATUS …".
type fileError struct {
	File string
	Err  *gqlstatus.Error
}

func (e *fileError) Error() string {
	return e.prefix() + e.message()
}

func (e *fileError) prefix() string {
	if !e.Err.Pos.Valid() {
		return e.File + ": "
	}
	return fmt.Sprintf("%s:%d:%d: ", e.File, e.Err.Pos.Line, e.Err.Pos.Col)
}

// message is the error's line without its position, which the prefix
// gives.
func (e *fileError) message() string {
	c := *e.Err
	c.Pos = gqlstatus.Pos{}
	return c.Error()
}

func (e *fileError) Unwrap() error { return e.Err }

// inFile names the file err is in; "" leaves it as it is.
func inFile(file string, err *gqlstatus.Error) error {
	if file == "" {
		return err
	}
	return &fileError{File: file, Err: err}
}
