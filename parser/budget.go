// The pre-scan's budgets besides bytes and nesting: the items of one
// bracket, the size of one expression and the terms of one label
// expression. Each is what a later stage would refuse anyway, found
// before the lexer runs, so that a text refused for its size costs a pass
// over its bytes rather than a parse tree hundreds of times its size.

package parser

import (
	"strconv"
	"unicode/utf8"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// longToken bounds what one string or name adds to an expression's size
// estimate. Up to it the estimate is exact for the string, so an
// expression of short strings the pre-scan passes is never over the
// planner's size budget; a longer string costs its parse little next to
// its bytes, and the planner measures it when it writes the CEL.
const longToken = 256

// budget follows the tokens prescan finds and holds three budgets:
//
//   - items: the commas directly inside one (, [ or { count its items;
//   - size: the tokens of one region, a stretch of the text that holds
//     whole expressions, are weighed by the most characters each adds to
//     the CEL the planner writes for them (planner.MaxSource bounds that
//     CEL); a region of literals alone (a property's value, a SET's
//     value) is folded to a value and never written as CEL, so its
//     weight is not held to the bound;
//   - labels: one run of label tokens bounds the labels and operators of
//     the label expression the planner builds from it and holds to
//     planner.MaxLabelTerms (see labelRun); an INSERT's labels are the
//     labels to give, which no budget holds.
//
// Regions end at the points no expression spans: ';', a clause's keyword
// (MATCH, WHERE, SET, …: reserved words, so one at the top level that no
// '.', ':' or IS makes a name starts a clause), '{' and '}' (a map is
// never inside an expression the planner compiles), a comma at the top
// level of a statement or directly inside a map or parentheses (the
// parentheses of a call: no expression that compiles holds one), a '('
// right after a name (a call's arguments), and the '=' of a SET item
// var.key = value.
type budget struct {
	text string
	lim  Limits

	// depth open brackets: the innermost 80 in fixed (so a scan of text
	// at the default nesting limit allocates nothing), the rest in more
	depth int
	fixed [80]level
	more  []level
	// pending is set when the innermost bracket has MaxItems items and a
	// comma: the next token, unless it closes the bracket, is one item
	// too many.
	pending bool

	weight   int  // the region's size estimate
	constant bool // the region holds literals only, so far
	ntok     int  // the region's tokens
	key      bool // its first token is a name that may be a map key
	sign     bool // a '-' in a constant region waits for its number
	over     int  // offset of the token that took weight over the bound, or -1

	lab labelRun

	inSet    bool // in a SET clause
	item     int  // how much of a SET item's "var.key =" has been seen
	inInsert bool // in an INSERT clause, whose labels are given, not tested

	prev   tokKind
	prevKw kw
	prevOp string
}

// level is one open bracket.
type level struct {
	kind   byte // '(', '[' or '{'
	commas int
}

type tokKind uint8

const (
	tNone tokKind = iota
	tWord
	tNumber
	tString
	tName // a `quoted` name
	tPunct
	tOpen
	tClose
)

// kw is a keyword the budgets tell apart.
type kw uint8

const (
	kwNone kw = iota
	kwOr
	kwAnd
	kwXor
	kwNot
	kwIn
	kwIs
	kwContains
	kwStarts
	kwEnds
	kwWith
	kwLabeled
	kwDate
	kwDateTime // DATETIME, TIMESTAMP
	kwLiteral  // TRUE, FALSE, NULL, ZONED, LIST, ARRAY
	kwSet
	kwInsert
	kwClause // a clause that ends a SET or an INSERT clause
)

var keywords = map[string]kw{
	"or": kwOr, "and": kwAnd, "xor": kwXor, "not": kwNot, "in": kwIn, "is": kwIs,
	"contains": kwContains, "starts": kwStarts, "ends": kwEnds, "with": kwWith, "labeled": kwLabeled,
	"date": kwDate, "datetime": kwDateTime, "timestamp": kwDateTime,
	"true": kwLiteral, "false": kwLiteral, "null": kwLiteral, "zoned": kwLiteral, "list": kwLiteral, "array": kwLiteral,
	"set":    kwSet,
	"insert": kwInsert,
	"match":  kwClause, "optional": kwClause, "where": kwClause, "remove": kwClause,
	"delete": kwClause, "detach": kwClause, "nodetach": kwClause, "return": kwClause, "limit": kwClause,
	"order": kwClause, "create": kwClause, "merge": kwClause, "unwind": kwClause, "call": kwClause,
	"let": kwClause, "for": kwClause, "filter": kwClause, "yield": kwClause, "skip": kwClause,
	"offset": kwClause, "union": kwClause,
}

// keyword returns the keyword w is, case-insensitively, without
// allocating.
func keyword(w string) kw {
	if len(w) < 2 || len(w) > 9 {
		return kwNone
	}
	var low [9]byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	return keywords[string(low[:len(w)])]
}

// operator reports whether k joins or tests operands, so that a '('
// after it opens an operand rather than a call's arguments.
func (k kw) operator() bool {
	switch k {
	case kwOr, kwAnd, kwXor, kwNot, kwIn, kwIs, kwContains, kwStarts, kwEnds, kwWith, kwLabeled:
		return true
	}
	return false
}

// Weights of keywords and punctuation: the most characters of CEL each
// adds, as the planner writes it (planner/expr.go): an operator its
// function's name, parentheses and ", "; a label separator the gql_label
// call of the name after it, with the variable written again and the
// gql_and or gql_or that joins it; IS the longest of its tests.
func (k kw) weight() int {
	switch k {
	case kwOr, kwIn:
		return 10 // gql_or(, ) gql_in(, )
	case kwAnd, kwXor:
		return 11
	case kwNot:
		return 9 // gql_not()
	case kwIs:
		return 17 // gql_isunknown(), or gql_label(v255, ) of IS Label
	case kwContains:
		return 16 // gql_contains(, )
	case kwStarts:
		return 14 // gql_starts(, )
	case kwEnds:
		return 12
	case kwDate:
		return 10 // gql_date()
	case kwDateTime:
		return 50 // gql_datetime() and the canonical text, up to 37 characters quoted
	}
	return 0
}

func punctWeight(op string) int {
	switch op {
	case ",":
		return 2
	case ".":
		return 12 // gql_prop(, )
	case ":", "|", "&":
		return 28 // gql_and(, gql_label(v255, )) less the name
	case "%":
		return 18 // gql_anylabel(v255)
	case "!":
		return 9
	case "-", "+", "*", "/", "+=":
		return 11
	case "=", "<", ">", "<>", "<=", ">=", "!=":
		return 10
	case "||":
		return 14 // gql_concat(, )
	case "[", "]":
		return 1
	case "(", ")":
		return 0 // grouping is not written
	}
	return 16
}

// quotedLen is the most characters strconv.Quote writes for the decoded
// s, counted from its source text: an escape decodes to one character,
// which is at most as long quoted as the escape is written.
func quotedLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c < 0x20 || c == 0x7f:
				n += 4 // \x01
			case c == '"':
				n += 2
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case strconv.IsPrint(r):
			n++
		case r > 0xffff:
			n += 10 // \U0001ffff
		default:
			n += 6 // \u00ad
		}
		i += size
		if n > longToken {
			break
		}
	}
	return n
}

// stringWeight is the weight of a quoted string or name whose content
// (between its quotes) is s.
func stringWeight(s string) int { return min(2+quotedLen(s), longToken) }

// nameWeight is the weight of a name: a variable (v255), a parameter
// (p255), a label or a key (quoted).
func nameWeight(s string) int { return max(4, stringWeight(s)) }

// numberWeight: an integer is written in decimal (a hexadecimal one may
// take two digits more), a float as strconv's 'e' format of its shortest
// form (a digit more than its mantissa, and e+00).
func numberWeight(s string) int {
	if len(s) > 1 && s[0] == '0' && (s[1]|0x20 == 'x' || s[1]|0x20 == 'o' || s[1]|0x20 == 'b') {
		return len(s) + 2
	}
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c == '.' || c == 'e' {
			return len(s) + 6
		}
	}
	return len(s)
}

func newBudget(text string, lim Limits) budget {
	return budget{text: text, lim: lim, constant: true, over: -1}
}

// top is the innermost open bracket; depth > 0.
func (b *budget) top() *level {
	if b.depth <= len(b.fixed) {
		return &b.fixed[b.depth-1]
	}
	return &b.more[b.depth-1-len(b.fixed)]
}

func (b *budget) push(c byte) {
	if b.depth < len(b.fixed) {
		b.fixed[b.depth] = level{kind: c}
	} else {
		b.more = append(b.more[:b.depth-len(b.fixed)], level{kind: c})
	}
	b.depth++
}

// split ends the region.
func (b *budget) split() {
	b.weight, b.constant, b.ntok, b.key, b.sign, b.over = 0, true, 0, false, false, -1
}

// start begins a token of kind (op for punctuation) at off: it checks the
// item budget, and settles what the region's last token left open.
func (b *budget) start(off int, kind tokKind, op string) *gqlstatus.Error {
	if b.key { // a name first in the region is a key only before ':'
		b.key = false
		if op != ":" {
			b.constant = false
		}
	}
	if b.sign { // a '-' in a literal is a number's sign
		b.sign = false
		if kind != tNumber {
			b.constant = false
		}
	}
	if !b.pending {
		return nil
	}
	b.pending = false
	if kind == tClose {
		return nil // a trailing comma
	}
	return b.itemsErr(off)
}

// add weighs one token of the region at off; literal says whether it may
// be part of a literal value.
func (b *budget) add(off, w int, literal bool) *gqlstatus.Error {
	if !literal {
		b.constant = false
	}
	b.ntok++
	b.weight += w
	if b.over < 0 && b.weight > b.lim.MaxExprSize {
		b.over = off
	}
	if b.over >= 0 && !b.constant {
		return b.sizeErr(b.over)
	}
	return nil
}

// labelRun follows one run of label tokens, as the parser reads a label
// expression after ':' or IS: names, '%' and '(' after a separator, the
// joiners ':', '|' and '&', and '!'. The planner counts the names,
// operators and negations of the expression it builds (n-ary: A|B|C is
// one operator), or the labels alone of a plain conjunction :A:B or
// :A&B. Each name but the first follows a joiner, and each operator
// starts at the first joiner, where the joiner changes or at a '(': so
// what the planner counts is at most terms.
type labelRun struct {
	started                        bool
	joiners, changes, groups, negs int
	last                           string // the last joiner
	plain                          bool   // only ':' and '&' joiners, no '!', '%' or '('
	afterSep                       bool   // the last token introduces a label name
}

func (l *labelRun) terms() int {
	n := l.joiners + 1
	if !l.plain {
		n += l.negs + 1 + l.changes + l.groups
	}
	return n
}

func (l *labelRun) start() { *l = labelRun{started: true, plain: true, afterSep: true} }

func (l *labelRun) joiner(op string) {
	if !l.started {
		l.start()
	}
	if l.last != "" && l.last != op {
		l.changes++
	}
	l.joiners++
	l.last = op
	l.plain = l.plain && op != "|"
	l.afterSep = true
}

// name is a name or '%' at a label's place, or any other word: one that
// follows no separator ends the run.
func (l *labelRun) name(wildcard bool) {
	if !l.afterSep {
		*l = labelRun{}
		return
	}
	l.afterSep = false
	l.plain = l.plain && !wildcard
}

// checkLabels refuses the run at off when its terms pass the bound.
func (b *budget) checkLabels(off int) *gqlstatus.Error {
	if b.lab.started && !b.inInsert && b.lab.terms() > b.lim.MaxLabelTerms {
		return b.labelsErr(off)
	}
	return nil
}

// endLabels ends the run of label tokens.
func (b *budget) endLabels() { b.lab = labelRun{} }

// setItem follows a SET item's "var.key =" at the top level; at its '='
// the value's region starts.
func (b *budget) setItem(kind tokKind, op string) {
	if b.depth > 0 || b.item == 0 {
		b.item = 0
		return
	}
	switch {
	case b.item == 1 && (kind == tWord || kind == tName),
		b.item == 2 && op == ".",
		b.item == 3 && (kind == tWord || kind == tName):
		b.item++
	case b.item == 4 && op == "=":
		b.item = 0
		b.split()
	default:
		b.item = 0
	}
}

// introducesName reports whether the last token puts a name, rather than
// a keyword, at the next word: a key after '.', a label after ':', '|',
// '&', '!', IS or LABELED.
func (b *budget) introducesName() bool {
	switch b.prev {
	case tPunct:
		switch b.prevOp {
		case ".", ":", "|", "&", "!":
			return true
		}
	case tWord:
		return b.prevKw == kwIs || b.prevKw == kwLabeled
	}
	return false
}

// valueStarts reports whether a literal value may start at the next
// token: first in the region, or after '[', a comma or a key's ':'.
func (b *budget) valueStarts() bool {
	return b.ntok == 0 || b.prev == tOpen || b.prev == tPunct && (b.prevOp == "," || b.prevOp == ":")
}

func (b *budget) done(kind tokKind, k kw, op string) {
	b.prev, b.prevKw, b.prevOp = kind, k, op
}

// word is a name, a keyword or a parameter at text[off:end]. A keyword
// weighs the most of what it may be: an operator, or a name (labels and
// keys may be any keyword).
func (b *budget) word(off, end int) *gqlstatus.Error {
	if err := b.start(off, tWord, ""); err != nil {
		return err
	}
	w := b.text[off:end]
	k := keyword(w)
	name := b.introducesName()
	clause := b.depth == 0 && !name && (k == kwSet || k == kwInsert || k == kwClause)
	if clause {
		b.split() // no expression spans a clause's keyword
	}
	literal := k == kwLiteral || k == kwDate || k == kwDateTime
	first := b.ntok == 0
	if err := b.add(off, max(k.weight(), nameWeight(w)), literal || first); err != nil {
		return err
	}
	b.key = first && !literal
	if k == kwIs && !name { // n:A|IS is a label named IS
		b.lab.start()
	} else {
		b.lab.name(false)
	}
	b.setItem(tWord, "")
	if clause {
		switch k {
		case kwSet:
			b.inSet, b.item, b.inInsert = true, 1, false
		case kwInsert:
			b.inSet, b.item, b.inInsert = false, 0, true
		case kwClause:
			b.inSet, b.item, b.inInsert = false, 0, false
		}
	}
	b.done(tWord, k, "")
	return nil
}

// number is a numeric literal at text[off:end].
func (b *budget) number(off, end int) *gqlstatus.Error {
	if err := b.start(off, tNumber, ""); err != nil {
		return err
	}
	if err := b.add(off, numberWeight(b.text[off:end]), true); err != nil {
		return err
	}
	b.endLabels()
	b.setItem(tNumber, "")
	b.done(tNumber, kwNone, "")
	return nil
}

// quoted is a string (q is ' or ") or a `name` at text[off:end].
func (b *budget) quoted(q byte, off, end int) *gqlstatus.Error {
	kind := tString
	if q == '`' {
		kind = tName
	}
	if err := b.start(off, kind, ""); err != nil {
		return err
	}
	w := stringWeight(b.text[off+1 : max(end-1, off+1)])
	first := b.ntok == 0
	if kind == tName {
		w = max(w, 4)
	}
	if err := b.add(off, w, kind == tString || first); err != nil {
		return err
	}
	if kind == tString {
		b.endLabels()
	} else {
		b.key = first
		b.lab.name(false)
	}
	b.setItem(kind, "")
	b.done(kind, kwNone, "")
	return nil
}

// punct is an operator or separator (one or two bytes) at off.
func (b *budget) punct(op string, off int) *gqlstatus.Error {
	// a key's ':' ("key": or key:) keeps the region a literal
	colon := op == ":" && b.ntok == 1 && (b.prev == tString || b.key)
	if err := b.start(off, tPunct, op); err != nil {
		return err
	}
	switch op {
	case ";":
		b.split()
		b.endLabels()
		b.inSet, b.item, b.inInsert = false, 0, false
		b.done(tPunct, kwNone, op)
		return nil
	case ",":
		return b.comma(off)
	}
	sign := op == "-" && b.constant && b.valueStarts()
	if err := b.add(off, punctWeight(op), sign || colon); err != nil {
		return err
	}
	b.sign = sign
	switch op {
	case ":":
		switch {
		case !b.lab.started:
			b.lab.start()
		case b.prev == tPunct && b.prevOp == "|": // |: is Cypher's |
		default:
			b.lab.joiner(op)
		}
	case "|", "&":
		b.lab.joiner(op)
	case "!":
		b.lab.negs++
		b.lab.plain, b.lab.afterSep = false, true
	case "%":
		b.lab.name(true)
	default:
		b.endLabels()
	}
	if err := b.checkLabels(off); err != nil {
		return err
	}
	b.setItem(tPunct, op)
	b.done(tPunct, kwNone, op)
	return nil
}

func (b *budget) comma(off int) *gqlstatus.Error {
	b.endLabels()
	b.item = 0
	b.done(tPunct, kwNone, ",")
	if b.depth == 0 {
		b.split()
		if b.inSet {
			b.item = 1
		}
		return nil
	}
	top := b.top()
	top.commas++
	if top.commas >= b.lim.MaxItems {
		b.pending = true
	}
	if top.kind != '[' {
		b.split()
		return nil
	}
	return b.add(off, punctWeight(","), true)
}

// open is a '(', '[' or '{' at off.
func (b *budget) open(c byte, off int) *gqlstatus.Error {
	if err := b.start(off, tOpen, ""); err != nil {
		return err
	}
	call := c == '(' && (b.prev == tWord && !b.prevKw.operator() || b.prev == tName)
	b.push(c)
	switch {
	case c == '{' || call:
		b.split()
	case c == '[':
		if err := b.add(off, punctWeight("["), b.valueStarts()); err != nil {
			return err
		}
	default:
		if err := b.add(off, punctWeight("("), false); err != nil {
			return err
		}
	}
	if c == '(' && b.lab.afterSep { // a label factor, :(A|B)
		b.lab.groups++
		b.lab.plain = false
		if err := b.checkLabels(off); err != nil {
			return err
		}
	} else {
		b.endLabels()
	}
	b.item = 0
	b.done(tOpen, kwNone, "")
	return nil
}

// close is a ')', ']' or '}' at off.
func (b *budget) close(c byte, off int) *gqlstatus.Error {
	if err := b.start(off, tClose, ""); err != nil {
		return err
	}
	if b.depth > 0 {
		b.depth--
	}
	switch c {
	case '}':
		b.split()
	case ']':
		if err := b.add(off, punctWeight("]"), true); err != nil {
			return err
		}
	}
	if c == ')' {
		b.lab.afterSep = false
	} else {
		b.endLabels()
	}
	b.item = 0
	b.done(tClose, kwNone, "")
	return nil
}

func (b *budget) itemsErr(off int) *gqlstatus.Error {
	max := b.lim.MaxItems
	switch b.top().kind {
	case '[':
		return limitAt(b.text, off, "the list holds more than %d items", max).
			WithHint("pass a long list as a $parameter, or split the statement")
	case '{':
		return limitAt(b.text, off, "the map holds more than %d entries", max).
			WithHint("set fewer properties in one map, or pass the map as a $parameter")
	}
	return limitAt(b.text, off, "the parentheses hold more than %d items", max).
		WithHint("pass fewer arguments, or a list as a $parameter")
}

func (b *budget) sizeErr(off int) *gqlstatus.Error {
	return limitAt(b.text, off, "expression is over its size budget: it passes %d characters as CEL here", b.lim.MaxExprSize).
		WithHint("split the condition or the pattern, and pass long lists and values as $parameters")
}

func (b *budget) labelsErr(off int) *gqlstatus.Error {
	return limitAt(b.text, off, "label expression is over its size budget: more than %d labels and operators", b.lim.MaxLabelTerms).
		WithHint("name fewer labels, or give the elements a label they share and match that")
}
