package repl

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// posIndex maps the positions of many notices of one Commit into the
// input at once. sourceMap.pos finds each position by scanning the joined
// text from its start, which is quadratic over a transaction of thousands
// of statements that each warn (a script of INSERTs loaded again with -1
// echoes every node); the index finds a line's start in one lookup and
// the statement by binary search.
type posIndex struct {
	m     *sourceMap
	lines []int // byte offset in m.text where each line starts
}

func newPosIndex(m *sourceMap) *posIndex {
	x := &posIndex{m: m, lines: []int{0}}
	for i := 0; ; {
		j := strings.IndexByte(m.text[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		x.lines = append(x.lines, i)
	}
	return x
}

// offset is offsetOf(m.text, line, col): the byte offset of 1-based
// line and rune column, at the line's end when the column is past it,
// at the text's end when the line is.
func (x *posIndex) offset(line, col int) int {
	text := x.m.text
	if line > len(x.lines) {
		return len(text)
	}
	i := x.lines[line-1]
	if col < 1 {
		col = len(text) + 1 // offsetOf never finds it: the line's end
	}
	for c := 1; c < col && i < len(text) && text[i] != '\n'; c++ {
		_, n := utf8.DecodeRuneInString(text[i:])
		i += n
	}
	return i
}

// pos is sourceMap.pos without its scan.
func (x *posIndex) pos(p gqlstatus.Pos) gqlstatus.Pos {
	if !p.Valid() {
		return p
	}
	m := x.m
	off := x.offset(p.Line, p.Col)
	seg := max(sort.Search(len(m.at), func(i int) bool { return m.at[i] > off })-1, 0)
	st := m.st[seg]
	local := min(off-m.at[seg], len(st.Text))
	line, col := lineCol(st.Text, local)
	if line == 1 {
		col += st.Col - 1
	}
	return gqlstatus.Pos{Line: st.Line + line - 1, Col: col, Offset: st.Offset + local}
}
