package repl

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// Stmt is one statement cut out of a larger text by a Scanner. Text is the
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
	// Lead is the text of the statement's first line before it (at most
	// MaxLead bytes of it, starting at column LeadCol), kept for the caret
	// display of an error on that line.
	Lead    string
	LeadCol int
	// Source names the input in error messages: a file name, or "" for
	// standard input, -c and a terminal.
	Source string
}

// Meta is a meta-command line (":use work") found by a Scanner.
type Meta struct {
	// Text is the line without its leading blanks and trailing newline.
	Text   string
	Line   int
	Col    int // of the ':'
	Offset int
	Source string
	// Habit is what was written when the line was a psql or sqlite3
	// habit (exit, \q, .tables, \d KIND, help), which Text translates.
	Habit string
}

// Item is one piece of a script: a statement, a meta-command, or an error
// in the input itself (text that is not UTF-8, a statement over the size
// limit, a block comment never closed), which the parser never sees.
type Item struct {
	Stmt *Stmt
	Meta *Meta
	Err  *gqlstatus.Error
	// Source is the input's name, as in Stmt.
	Source string
}

// MaxStatementBytes is the most bytes one statement may hold: the
// parser's limit on one text, so a longer statement is refused as soon as
// the scanner has read that much of it, never buffered whole.
const MaxStatementBytes = 1 << 20

// MaxLead bounds Stmt.Lead: the caret display shows a window of a long
// line (gqlstatus.CaretWidth columns), so more of it is never needed.
const MaxLead = 512

// lexical states of a Scanner
const (
	inCode = iota
	inSingle
	inDouble
	inBack
	inLineComment
	inBlockComment
)

// Scanner cuts text into statements (at each ';' outside a string ('…' or
// "…", backslash escapes), a back-quoted name, a line comment (// … or
// -- …) and a block comment (/* … */)) and, with MetaLines, meta-command
// lines, as the text arrives: Feed it what was read and take the complete
// items with Next, so a statement runs as soon as its ';' is read. It does
// not parse. Each byte is looked at once and only a bounded window of the
// text before the current statement is kept, so the work is linear in the
// input and the memory is bounded by the longest statement.
//
// A meta-command is a line whose first non-blank character is ':' and
// that starts where a statement could start: no statement text is pending
// before it (blanks and comments only) and it is not inside a string or
// comment. A line starting with ':' in the middle of a statement
// ("INSERT (\n:A)") is part of the statement.
type Scanner struct {
	// Source names the input in the items (see Stmt.Source).
	Source string
	// MetaLines makes the scanner recognise meta-command lines.
	MetaLines bool
	// MaxStatement is the most bytes of one statement or meta-command
	// line; 0 means MaxStatementBytes.
	MaxStatement int

	buf       []byte
	base      int // input offset of buf[0]
	i         int // scan position in buf
	line, col int // of buf[i]
	lineAt    int // input offset where the current line starts
	lineBlank bool
	state     int
	ended     bool
	started   bool // past the byte-order mark check

	// the segment since the last ';'
	tok              int // input offset of its first token; -1 before it
	tokLine, tokCol  int
	lead             string
	leadCol          int
	openLine, openCl int // where an open block comment before any token began
	skip             bool
	skipLine         bool // discarding an over-long meta-command line
	index            int
}

// NewScanner returns a scanner for the input named source.
func NewScanner(source string, metaLines bool) *Scanner {
	return &Scanner{Source: source, MetaLines: metaLines, line: 1, col: 1, tok: -1, lineBlank: true}
}

func (s *Scanner) limit() int {
	if s.MaxStatement > 0 {
		return s.MaxStatement
	}
	return MaxStatementBytes
}

// Feed adds text read from the input.
func (s *Scanner) Feed(text string) {
	s.compact()
	s.buf = append(s.buf, text...)
}

// End says the input is over: Next then returns what is left, the last
// statement unterminated.
func (s *Scanner) End() { s.ended = true }

// Pending reports whether a statement has begun and not ended (text, an
// open string or an open comment): a person is shown the continuation
// prompt.
func (s *Scanner) Pending() bool {
	return s.tok >= 0 || s.state != inCode || s.skip || s.skipLine
}

// Reset drops the statement being typed (Ctrl-C) and starts the line
// numbers again, as at the start of an input.
func (s *Scanner) Reset() {
	s.base += len(s.buf)
	s.buf, s.i = s.buf[:0], 0
	s.state, s.tok, s.skip, s.skipLine = inCode, -1, false, false
	s.Rebase()
}

// Rebase starts the line and statement numbers again at line 1 and
// statement 1, for the next thing a person types when nothing is pending:
// errors then point into what they typed since the prompt.
func (s *Scanner) Rebase() {
	if s.Pending() {
		return
	}
	s.line, s.col, s.index = 1, 1, 0
	s.lineAt, s.lineBlank = s.base+s.i, true
}

// compact drops the text no item needs any more: everything before the
// pending statement and before the window of its line kept for Lead. It
// copies only when that is at least half the buffer, so the copying stays
// linear in the input.
func (s *Scanner) compact() {
	keep := s.base + s.i
	if s.tok >= 0 {
		keep = s.tok
	}
	keep = min(keep, max(s.lineAt, s.base+s.i-MaxLead))
	dead := keep - s.base
	if dead <= 0 || dead < len(s.buf)/2 {
		return
	}
	n := copy(s.buf, s.buf[dead:])
	s.buf = s.buf[:n]
	s.base += dead
	s.i -= dead
}

// at returns the byte at input offset off, which must be in the buffer.
func (s *Scanner) at(off int) byte { return s.buf[off-s.base] }

// Next returns the next complete item, or false when more input is needed
// (or, after End, when the input is used up).
func (s *Scanner) Next() (Item, bool) {
	if !s.started && !s.skipBOM() {
		return Item{}, false
	}
	var it Item
	for s.i < len(s.buf) {
		switch s.scanByte(&it) {
		case gotItem:
			return it, true
		case needMore:
			return Item{}, false
		}
	}
	if !s.ended {
		return Item{}, false
	}
	return s.finish()
}

// scanResult says what reading at the scan position came to.
type scanResult int

const (
	goOn      scanResult = iota // the bytes were read: scan on
	gotItem                     // an item is complete
	needMore                    // the bytes that decide are not read yet
	plainByte                   // c is read as an ordinary byte of its state
)

// skipBOM passes a UTF-8 byte-order mark opening the input. It reports
// false while the first bytes read could still be the start of one.
func (s *Scanner) skipBOM() bool {
	if len(s.buf)-s.i < 3 && !s.ended && strings.HasPrefix("\xef\xbb\xbf", string(s.buf[s.i:])) {
		return false
	}
	s.started = true
	if strings.HasPrefix(string(s.buf[s.i:min(len(s.buf), s.i+3)]), "\xef\xbb\xbf") {
		s.i += 3 // a UTF-8 byte-order mark: not text, and not a column
		s.lineAt = s.base + s.i
	}
	return true
}

// scanByte reads the input at the scan position: one byte, or the few
// that make one token of the lexical state (a rune, an escape, "//", "*/",
// a meta-command line).
func (s *Scanner) scanByte(it *Item) scanResult {
	c := s.buf[s.i]
	if s.skipLine {
		s.step(c, 1)
		if c == '\n' {
			s.skipLine = false
		}
		return goOn
	}
	if c >= utf8.RuneSelf {
		return s.scanRune(c, it)
	}
	next := -1 // the byte after c, -1 when not read yet
	if s.i+1 < len(s.buf) {
		next = int(s.buf[s.i+1])
	}
	r := plainByte
	switch s.state {
	case inCode:
		r = s.scanCode(c, next, it)
	case inSingle, inDouble, inBack:
		r = s.scanQuoted(c, next)
	case inLineComment:
		if c == '\n' {
			s.state = inCode
		}
	case inBlockComment:
		r = s.scanBlockComment(c, next)
	}
	if r != plainByte {
		return r
	}
	if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
		s.lineBlank = false
	}
	s.step(c, 1)
	if s.pastLimit() {
		*it = s.tooLong()
		return gotItem
	}
	return goOn
}

// scanRune reads the rune of several bytes that starts with c, or reports
// the byte c when it does not start one.
func (s *Scanner) scanRune(c byte, it *Item) scanResult {
	r, n := utf8.DecodeRune(s.buf[s.i:])
	if r == utf8.RuneError && n <= 1 {
		if !utf8.FullRune(s.buf[s.i:]) && !s.ended {
			return needMore
		}
		if e, ok := s.invalidUTF8(); ok {
			*it = e
			s.step(c, 1)
			return gotItem
		}
		s.step(c, 1)
		return goOn
	}
	if s.state == inCode && s.tok < 0 && !unicode.IsSpace(r) {
		s.begin()
	}
	if !unicode.IsSpace(r) {
		s.lineBlank = false
	}
	s.step(c, n)
	if s.pastLimit() {
		*it = s.tooLong()
		return gotItem
	}
	return goOn
}

// scanCode reads c outside strings and comments: a meta-command line, the
// ';' that ends a statement, or what opens a string or a comment.
func (s *Scanner) scanCode(c byte, next int, it *Item) scanResult {
	if s.MetaLines && s.tok < 0 && s.lineBlank && !s.skip && strings.IndexByte(habitStarts, c) >= 0 {
		m, ok, wait := s.habitLine()
		if wait {
			return needMore
		}
		if ok {
			*it = m
			return gotItem
		}
	}
	switch {
	case c == ':' && s.MetaLines && s.tok < 0 && s.lineBlank && !s.skip:
		m, ok, wait := s.metaLine()
		if wait {
			return needMore
		}
		if ok {
			*it = m
			return gotItem
		}
		return goOn
	case c == ';':
		st, ok := s.endStatement(true)
		s.step(c, 1)
		if ok {
			*it = st
			return gotItem
		}
		return goOn
	case c == '\'' || c == '"' || c == '`':
		if s.tok < 0 {
			s.begin()
		}
		s.state = quoteState(c)
	case (c == '/' || c == '-') && next < 0 && !s.ended:
		return needMore // "//" or "--" may be cut by the chunk
	case (c == '/' && next == '/') || (c == '-' && next == '-'):
		s.state = inLineComment
		s.lineBlank = false
		s.step(c, 2)
		return goOn
	case c == '/' && next == '*':
		if s.tok < 0 {
			s.openLine, s.openCl = s.line, s.col
		}
		s.state = inBlockComment
		s.lineBlank = false
		s.step(c, 2)
		return goOn
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
	default:
		if s.tok < 0 {
			s.begin()
		}
	}
	return plainByte
}

// scanQuoted reads c inside a string or a back-quoted name: an escape, a
// doubled back-quote, or the closing quote.
func (s *Scanner) scanQuoted(c byte, next int) scanResult {
	switch {
	case (c == '\\' && s.state != inBack) || (c == '`' && s.state == inBack):
		if next < 0 && !s.ended {
			return needMore
		}
		if c == '\\' || next == '`' {
			// an escape, or a doubled back-quote standing for one
			if next >= utf8.RuneSelf || next < 0 {
				s.step(c, 1) // the escaped rune is read on its own
				return goOn
			}
			s.step(c, 1)
			s.step(byte(next), 1)
			return goOn
		}
		s.state = inCode
	case c == quoteOf(s.state):
		s.state = inCode
	}
	return plainByte
}

// scanBlockComment reads c inside a block comment, which only "*/" ends.
func (s *Scanner) scanBlockComment(c byte, next int) scanResult {
	if c == '*' && next < 0 && !s.ended {
		return needMore
	}
	if c == '*' && next == '/' {
		s.state = inCode
		s.step(c, 2)
		return goOn
	}
	return plainByte
}

// finish returns what is pending once the input is over and read to its
// end: the last statement, unterminated, or a block comment never closed.
func (s *Scanner) finish() (Item, bool) {
	switch {
	case s.skip || s.skipLine:
		s.skip, s.skipLine, s.tok = false, false, -1
	case s.tok >= 0:
		it, ok := s.endStatement(false)
		s.state = inCode
		return it, ok
	case s.state == inBlockComment:
		s.state = inCode
		s.index++
		return Item{Source: s.Source, Err: &gqlstatus.Error{Code: codeInput, Stmt: s.index,
			Pos: gqlstatus.Pos{Line: s.openLine, Col: s.openCl}, Msg: "a block comment opened here is never closed",
			Hint: "end it with */"}}, true
	}
	s.state = inCode
	return Item{}, false
}

// step moves past n bytes that start with c.
func (s *Scanner) step(c byte, n int) {
	s.i += n
	if c == '\n' {
		s.line++
		s.col = 1
		s.lineAt = s.base + s.i
		s.lineBlank = true
		return
	}
	s.col++
	if n == 2 && c < utf8.RuneSelf {
		s.col++ // two ASCII bytes ("//", "*/", an escape)
	}
}

// begin marks the statement's first token at the scan position and keeps
// the text of its line before it.
func (s *Scanner) begin() {
	if s.skip {
		return // the rest of a refused statement is not a statement
	}
	s.tok, s.tokLine, s.tokCol = s.base+s.i, s.line, s.col
	from := max(s.lineAt, s.tok-MaxLead, s.base)
	for from < s.tok && !utf8.RuneStart(s.at(from)) {
		from++
	}
	s.lead = string(s.buf[from-s.base : s.i])
	s.leadCol = s.tokCol - utf8.RuneCountInString(s.lead)
}

// endStatement ends the pending statement at the scan position.
func (s *Scanner) endStatement(terminated bool) (Item, bool) {
	tok := s.tok
	s.tok = -1
	if s.skip {
		s.skip = false
		return Item{}, false
	}
	if tok < 0 {
		return Item{}, false // blanks and comments, or a lone ';'
	}
	s.index++
	st := &Stmt{Text: string(s.buf[tok-s.base : s.i]), Line: s.tokLine, Col: s.tokCol, Offset: tok,
		Index: s.index, Terminated: terminated, Lead: s.lead, LeadCol: s.leadCol, Source: s.Source}
	return Item{Stmt: st, Source: s.Source}, true
}

// pastLimit reports whether the pending statement has passed the size
// limit without ending.
func (s *Scanner) pastLimit() bool {
	return s.tok >= 0 && !s.skip && s.base+s.i-s.tok > s.limit()
}

// tooLong reports the statement past the size limit, and discards the rest
// of it up to its ';'.
func (s *Scanner) tooLong() Item {
	s.index++
	err := &gqlstatus.Error{Code: codeTooLong, Stmt: s.index, Pos: gqlstatus.Pos{Line: s.tokLine, Col: s.tokCol, Offset: s.tok},
		Line: s.lead + cutRunes(s.buf[s.tok-s.base:], MaxLead), LineCol: s.leadCol,
		Msg:  "the statement starting here is longer than " + byteCount(s.limit()) + " (the most one statement may hold)",
		Hint: "end statements with ';', and split a large one into several"}
	err.Line, _, _ = strings.Cut(err.Line, "\n")
	s.skip = true
	s.tok = -1 // the text read so far need not be kept
	return Item{Source: s.Source, Err: err}
}

// invalidUTF8 reports a byte that is not UTF-8 at the scan position, once
// per statement, and discards the rest of the statement.
func (s *Scanner) invalidUTF8() (Item, bool) {
	if s.skip {
		return Item{}, false
	}
	s.index++
	lineFrom := max(s.lineAt, s.base+s.i-MaxLead, s.base)
	for lineFrom < s.base+s.i && !utf8.RuneStart(s.at(lineFrom)) {
		lineFrom++
	}
	lead := string(s.buf[lineFrom-s.base : s.i])
	rest, _, _ := strings.Cut(cutRunes(s.buf[s.i:], 64), "\n")
	err := &gqlstatus.Error{Code: codeInput, Stmt: s.index, Pos: gqlstatus.Pos{Line: s.line, Col: s.col, Offset: s.base + s.i},
		Line: lead + rest, LineCol: s.col - utf8.RuneCountInString(lead),
		Msg:  "the input is not valid UTF-8 here (byte 0x" + hexByte(s.buf[s.i]) + ")",
		Hint: "save the text as UTF-8; gqlsh reads text, not binary files"}
	s.skip = true
	s.tok = -1
	return Item{Source: s.Source, Err: err}, true
}

// habitStarts are the first bytes of the lines habit knows.
const habitStarts = `eqhEQH\.`

// habitLine reads the line at the scan position when it is a habit of
// psql or sqlite3 (habit): a meta-command line that says what was
// written. ok is false for any other line; wait says the line's end has
// not been read yet.
func (s *Scanner) habitLine() (it Item, ok, wait bool) {
	rest := s.buf[s.i:]
	n := bytes.IndexByte(rest, '\n')
	if n < 0 {
		if len(rest) > 64 {
			return Item{}, false, false // longer than any habit
		}
		if !s.ended {
			return Item{}, false, true
		}
		n = len(rest)
	}
	typed := strings.TrimRight(string(rest[:n]), " \t\r")
	text := habit(typed)
	if text == "" || !utf8.ValidString(typed) {
		return Item{}, false, false
	}
	return s.passLine(&Meta{Text: text, Habit: typed, Line: s.line, Col: s.col, Offset: s.base + s.i, Source: s.Source}, rest[:n]), true, false
}

// passLine moves the scan past line, the rest of the line m stands for,
// and its newline, and returns m as an item.
func (s *Scanner) passLine(m *Meta, line []byte) Item {
	s.col += utf8.RuneCount(line)
	s.i += len(line)
	if s.i < len(s.buf) {
		s.step('\n', 1)
	}
	return Item{Meta: m, Source: s.Source}
}

// metaLine reads the meta-command line at the scan position. wait says
// the line's end has not been read yet.
func (s *Scanner) metaLine() (it Item, ok, wait bool) {
	rest := s.buf[s.i:]
	n := bytes.IndexByte(rest, '\n')
	if n < 0 {
		if len(rest) > s.limit() {
			s.skipLine = true
			return Item{Source: s.Source, Err: &gqlstatus.Error{Code: codeTooLong, Pos: gqlstatus.Pos{Line: s.line, Col: s.col},
				Msg: "the meta-command line starting here is longer than " + byteCount(s.limit())}}, true, false
		}
		if !s.ended {
			return Item{}, false, true
		}
		n = len(rest)
	}
	if !utf8.Valid(rest[:n]) {
		s.skipLine = true
		return Item{Source: s.Source, Err: &gqlstatus.Error{Code: codeInput, Pos: gqlstatus.Pos{Line: s.line, Col: s.col},
			Msg: "the meta-command line starting here is not valid UTF-8", Hint: "save the text as UTF-8"}}, true, false
	}
	text := strings.TrimRight(string(rest[:n]), " \t\r")
	return s.passLine(&Meta{Text: text, Line: s.line, Col: s.col, Offset: s.base + s.i, Source: s.Source}, rest[:n]), true, false
}

func quoteState(q byte) int {
	switch q {
	case '\'':
		return inSingle
	case '"':
		return inDouble
	}
	return inBack
}

func quoteOf(state int) byte {
	switch state {
	case inSingle:
		return '\''
	case inDouble:
		return '"'
	}
	return '`'
}

// cutRunes returns at most n bytes of b, cut at a rune boundary.
func cutRunes(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n])
}

func hexByte(b byte) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[b>>4], digits[b&15]})
}

func byteCount(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return itoa(n>>20) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return itoa(n>>10) + " KiB"
	}
	return itoa(n) + " bytes"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// Items cuts a whole text into its items (statements and, with
// metaLines, meta-command lines), in order.
func Items(text string, metaLines bool) []Item {
	s := NewScanner("", metaLines)
	s.Feed(text)
	s.End()
	var out []Item
	for {
		it, ok := s.Next()
		if !ok {
			return out
		}
		out = append(out, it)
	}
}

// Split cuts text into statements, as a Scanner does without meta-command
// lines. A string left open runs to the end of the text, and the parser
// then reports it at its true position. Statements holding only blanks and
// comments are dropped. Leading blanks and comments are not part of Text,
// so the positions the parser reports stay the ones of the original text
// once shifted by the statement's start.
func Split(text string) []Stmt {
	var out []Stmt
	for _, it := range Items(text, false) {
		if it.Stmt != nil {
			out = append(out, *it.Stmt)
		}
	}
	return out
}

// Segment cuts a script into statements and meta-commands, in order (see
// Scanner). Statements keep the positions and numbering they have in the
// whole script, so errors point into the file as written.
func Segment(text string) []Item { return Items(text, true) }

// Blank reports whether text holds only blanks and comments (a line
// comment may end the text; a block comment must be closed).
func Blank(text string) bool { return len(Items(text, false)) == 0 }

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
				return i
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

// Verb returns the statement's first word (in upper case, "" for
// none) and its first two words: what tells a transaction's statements
// (START TRANSACTION, COMMIT, ROLLBACK) from the rest.
func (s Stmt) Verb() (verb string, words []string) {
	words = s.Words(2)
	if len(words) > 0 {
		verb = words[0]
	}
	return verb, words
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
