// Package parser turns GQL text into goldfish's syntax tree (package ast).
//
// The ANTLR parser in parser/gen is an implementation detail: no ANTLR type
// leaves this package. Parse first tries SLL prediction with an error
// strategy that bails out at the first error; only text that fails there is
// parsed again in full LL mode to find and describe the first real error.
// Lexers and parsers are pooled; each parse uses one of them alone.
//
// The grammar also reads the GQL and Cypher forms outside the subset, so
// that the planner can refuse them by name (ast.Query.Refusals); a bare
// syntax error is left for text it cannot read at all. "--" starts a
// comment, as in ISO GQL; one that starts right after ')', ']', '-' or
// '<' was more likely meant as a Cypher arrow, and the script carries a
// warning for it (ast.Script.Notices). A text that fails to parse that way
// is read once more with those "--" as edges, only to find what it holds
// outside the subset (ast.Script.ArrowsRead).
package parser

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/antlr4-go/antlr/v4"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/parser/gen"
)

// Limits bound what Parse accepts. Zero fields take the defaults. All
// but MaxBytes are checked by a pass over the text before it is parsed,
// so a text over any of them is refused at little cost, with the
// position of the item, token or label that passes the bound.
type Limits struct {
	// MaxBytes is the largest text accepted, in bytes (default 1 MiB).
	MaxBytes int
	// MaxDepth is the deepest nesting accepted: parentheses, lists, maps,
	// function calls and prefix operators (default DefaultMaxDepth).
	MaxDepth int
	// MaxItems is the most items one list, map or argument list holds
	// (default DefaultMaxItems).
	MaxItems int
	// MaxExprSize bounds one expression or pattern: its size as the CEL
	// the planner would write for it, estimated from above token by token
	// (default DefaultMaxExprSize). A property's or a SET's literal value
	// is stored as it is, never written as CEL, and is not held to it.
	MaxExprSize int
	// MaxLabelTerms bounds the labels and operators of one label
	// expression, each :, |, & and IS counted with the label after it
	// (default DefaultMaxLabelTerms).
	MaxLabelTerms int
}

// Default limits.
const (
	DefaultMaxBytes = 1 << 20
	// DefaultMaxDepth is the store's value nesting limit (values.MaxNesting,
	// 64) plus the two brackets a Shape writes around a property value,
	// "(v:K {p: …})" or "-[:T {p: …}]->": the Shape of the deepest list a
	// property may hold parses again. (The parser does not import the
	// store; a test ties the two.)
	DefaultMaxDepth = 64 + 2
	// DefaultMaxItems is well above any list a statement spells out
	// (an embedding of 8,192 numbers passes); a longer one is a
	// $parameter's work.
	DefaultMaxItems = 10_000
	// DefaultMaxExprSize is the planner's size budget for the CEL of one
	// expression (planner.MaxSource): an expression the pre-scan passes
	// is never refused for its size after its parse, unless a string or
	// name in it is over 250 characters, which makes its parse cheap next
	// to its bytes. (A test ties the two.)
	DefaultMaxExprSize = 100_000
	// DefaultMaxLabelTerms is the planner's budget for one label
	// expression (planner.MaxLabelTerms; a test ties the two).
	DefaultMaxLabelTerms = 1_000
)

// DefaultLimits are the limits Parse uses.
var DefaultLimits = Limits{MaxBytes: DefaultMaxBytes, MaxDepth: DefaultMaxDepth,
	MaxItems: DefaultMaxItems, MaxExprSize: DefaultMaxExprSize, MaxLabelTerms: DefaultMaxLabelTerms}

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxItems <= 0 {
		l.MaxItems = DefaultMaxItems
	}
	if l.MaxExprSize <= 0 {
		l.MaxExprSize = DefaultMaxExprSize
	}
	if l.MaxLabelTerms <= 0 {
		l.MaxLabelTerms = DefaultMaxLabelTerms
	}
	return l
}

// Parse parses text with DefaultLimits. Errors are *gqlstatus.Error.
func Parse(text string) (*ast.Script, error) {
	return ParseWith(text, DefaultLimits)
}

// ParseWith parses text under lim. Errors are *gqlstatus.Error: 42001 for
// syntax (with the position of the offending token, what was found, and a
// hint), 42Q01 for text over a limit, 22003 for numbers out of range and
// 22007 for malformed DATE/DATETIME text; a statement that holds a form
// outside the subset is returned with its Refusals rather than with such
// an error. Warnings about the text are the script's Notices.
func ParseWith(text string, lim Limits) (script *ast.Script, err error) {
	s, gerr := parse(text, lim.withDefaults(), true)
	if gerr != nil {
		return nil, gerr
	}
	return s, nil
}

// Check makes the checks Parse makes before it reads a statement: the
// text's bytes, its UTF-8 and the pre-scan's bounds (a list's items, an
// expression's size, a label expression's terms, the nesting), under
// DefaultLimits. It returns the error Parse would return for them (a
// *gqlstatus.Error), or nil when Parse would go on to read the text.
// It allocates nothing for a text it takes: a caller holding text it
// has not yet decoded whole can refuse it at the cost of one scan.
func Check(text string) error {
	if _, gerr := checkTraps(text, DefaultLimits); gerr != nil {
		return gerr
	}
	return nil
}

// checkTraps makes Check's checks under lim and returns the pre-scan's
// comment traps (likely arrows that began a comment) too.
func checkTraps(text string, lim Limits) (traps []int, gerr *gqlstatus.Error) {
	if len(text) > lim.MaxBytes {
		return nil, gqlstatus.Errorf(gqlstatus.TextLimit,
			"statement text is %d bytes; the limit is %d bytes", len(text), lim.MaxBytes).
			WithHint("split the text into smaller statements")
	}
	if !utf8.ValidString(text) {
		off := firstInvalidUTF8(text)
		return nil, gqlstatus.At(gqlstatus.Syntax, posAtOffset(text, off), text,
			"statement text is not valid UTF-8").
			WithHint("send the text as UTF-8")
	}
	return prescan(text, lim, nil)
}

// parse is Parse with the pool switchable (for the cold benchmark).
func parse(text string, lim Limits, pooled bool) (script *ast.Script, gerr *gqlstatus.Error) {
	defer func() {
		if r := recover(); r != nil {
			script = nil
			gerr = gqlstatus.Errorf(gqlstatus.Internal, "internal parser error: %v", r).
				WithHint("this is a bug in goldfish's parser; please report the statement text")
		}
	}()
	traps, e := checkTraps(text, lim)
	if e != nil {
		return nil, e
	}

	var st *state
	if pooled {
		st = statePool.Get().(*state)
		defer statePool.Put(st)
	} else {
		st = newState()
	}
	tree, perr := st.run(text, st.lexer)
	if perr != nil {
		if len(traps) > 0 {
			if s := st.cypherReading(text, traps, lim); s != nil {
				return s, nil
			}
		}
		return nil, noteTraps(perr, text, traps)
	}
	script, gerr = build(text, tree, lim)
	if gerr != nil {
		return nil, noteTraps(gerr, text, traps)
	}
	for _, off := range traps {
		script.Notices = append(script.Notices, trapNotice(text, off))
	}
	return script, nil
}

// cypherReading reads a text that did not parse again, with the likely
// arrows that began comments taken as edges (Cypher's reading of "-->"),
// to find what it holds outside the subset. It returns the script only
// when that reading parses and refuses something: the text is then
// refused by name, as it would be had it been written without the
// comment trap; otherwise the first reading's error stands.
func (st *state) cypherReading(text string, traps []int, lim Limits) *ast.Script {
	at := make(map[int]bool, len(traps))
	for _, off := range traps {
		at[off] = true
	}
	if _, err := prescan(text, lim, at); err != nil {
		return nil
	}
	runes := make(map[int]bool, len(traps))
	for _, off := range traps {
		runes[utf8.RuneCountInString(text[:off])] = true
	}
	tree, err := st.run(text, &arrowSource{GoldfishGQLLexer: st.lexer, traps: runes})
	if err != nil {
		return nil
	}
	s, gerr := build(text, tree, lim)
	if gerr != nil {
		return nil
	}
	refused := false
	for _, stmt := range s.Stmts {
		if q, ok := stmt.(*ast.Query); ok && len(q.Refusals) > 0 {
			refused = true
		}
	}
	if !refused {
		return nil
	}
	s.ArrowsRead = true
	for _, off := range traps {
		s.Notices = append(s.Notices, trapNotice(text, off))
	}
	return s
}

// arrowSource is the lexer as the Cypher reading sees it: a line comment
// that starts at one of the traps (rune indexes) is lexed as two '-', and
// lexing goes on right after them, so the rest of the line is code.
type arrowSource struct {
	*gen.GoldfishGQLLexer
	traps   map[int]bool
	pending antlr.Token
}

func (a *arrowSource) NextToken() antlr.Token {
	if t := a.pending; t != nil {
		a.pending = nil
		return t
	}
	t := a.GoldfishGQLLexer.NextToken()
	if t.GetTokenType() != gen.GoldfishGQLLexerLINE_COMMENT || !a.traps[t.GetStart()] {
		return t
	}
	start, line, col := t.GetStart(), t.GetLine(), t.GetColumn()
	f, pair := a.GetTokenFactory(), a.GetTokenSourceCharStreamPair()
	first := f.Create(pair, gen.GoldfishGQLLexerMINUS, "-", antlr.TokenDefaultChannel, start, start, line, col)
	a.pending = f.Create(pair, gen.GoldfishGQLLexerMINUS, "-", antlr.TokenDefaultChannel, start+1, start+1, line, col+1)
	// Reset clears the end-of-input flag (the comment may have run to the
	// end of the text); then lexing resumes after the two '-'.
	input := a.GetInputStream()
	a.Reset()
	input.Seek(start + 2)
	if sim, ok := a.Interpreter.(*antlr.LexerATNSimulator); ok {
		sim.Line, sim.CharPositionInLine = line, col+2
	}
	return first
}

// trapNotice is the warning for a line comment that likely swallowed a
// Cypher arrow: where it starts, and the text it made the parser ignore.
func trapNotice(text string, off int) gqlstatus.Notice {
	end := off
	for end < len(text) && text[end] != '\n' && text[end] != '\r' {
		end++
	}
	ignored := strings.TrimRight(text[off:end], " \t\f")
	if r := []rune(ignored); len(r) > 60 {
		ignored = string(r[:57]) + "..."
	}
	return gqlstatus.Notice{Code: gqlstatus.Warning, Pos: posAtOffset(text, off),
		Msg: fmt.Sprintf(`"--" right after %q began a comment, so %q was ignored; `+
			`write an edge as -[]->, <-[]- or -[]- (or ->, <-, -), or put a blank before "--" to keep the comment`,
			text[off-1:off], ignored)}
}

// noteTraps adds to an error's hint the likely arrows before it that were
// read as comments: the text they hid is often what the error misses.
func noteTraps(err *gqlstatus.Error, text string, traps []int) *gqlstatus.Error {
	for _, off := range traps {
		if err.Pos.Valid() && off > err.Pos.Offset {
			break
		}
		p := posAtOffset(text, off)
		note := fmt.Sprintf(`the "--" at line %d, column %d began a comment that hid the rest of its line`, p.Line, p.Col)
		if err.Hint == "" {
			err.Hint = note
		} else {
			err.Hint += "; " + note
		}
		break
	}
	return err
}

// state is one lexer+parser pair with its listeners; never shared.
type state struct {
	lexer  *gen.GoldfishGQLLexer
	tokens *antlr.CommonTokenStream
	parser *gen.GoldfishGQLParser
	lexErr lexListener
	synErr synListener
	bail   *bailStrategy
	dflt   *antlr.DefaultErrorStrategy
}

var statePool = sync.Pool{New: func() any { return newState() }}

func newState() *state {
	st := &state{}
	st.lexer = gen.NewGoldfishGQLLexer(nil)
	st.lexer.RemoveErrorListeners()
	st.lexer.AddErrorListener(&st.lexErr)
	st.tokens = antlr.NewCommonTokenStream(st.lexer, antlr.TokenDefaultChannel)
	st.parser = gen.NewGoldfishGQLParser(st.tokens)
	st.parser.RemoveErrorListeners()
	st.parser.AddErrorListener(&st.synErr)
	st.bail = &bailStrategy{DefaultErrorStrategy: antlr.NewDefaultErrorStrategy()}
	st.dflt = antlr.NewDefaultErrorStrategy()
	return st
}

// bailout is the panic value that ends a parse at its first error.
type bailout struct{}

// bailStrategy stops the SLL pass at the first error. The runtime's
// BailErrorStrategy records the error and lets the generated code carry on;
// panicking ends the pass at once (recovered in run).
type bailStrategy struct {
	*antlr.DefaultErrorStrategy
}

func (b *bailStrategy) ReportError(antlr.Parser, antlr.RecognitionException) { panic(bailout{}) }
func (b *bailStrategy) Recover(antlr.Parser, antlr.RecognitionException)     { panic(bailout{}) }
func (b *bailStrategy) RecoverInline(antlr.Parser) antlr.Token               { panic(bailout{}) }
func (b *bailStrategy) Sync(antlr.Parser)                                    {}

// run parses text into a parse tree, or returns the first error. src is
// the lexer, or the lexer read through an arrowSource.
func (st *state) run(text string, src antlr.TokenSource) (tree gen.IScriptContext, gerr *gqlstatus.Error) {
	st.lexErr.reset(text)
	st.synErr.reset(text)
	input := antlr.NewInputStream(text)
	st.lexer.SetInputStream(input)
	st.tokens.SetTokenSource(src)

	p := st.parser
	p.SetInputStream(st.tokens)
	p.SetError(nil)
	p.SetErrorHandler(st.bail)
	p.GetInterpreter().SetPredictionMode(antlr.PredictionModeSLL)
	st.synErr.active = false
	if tree, ok := st.try(); ok {
		if st.lexErr.err != nil {
			return nil, st.lexErr.err
		}
		return tree, nil
	}

	// Second pass: full LL with error reporting, stopping at the first error.
	p.SetInputStream(st.tokens) // resets the parser (but does not rewind the tokens)
	st.tokens.Seek(0)
	p.SetError(nil)
	p.SetErrorHandler(st.dflt)
	p.GetInterpreter().SetPredictionMode(antlr.PredictionModeLL)
	st.synErr.active = true
	tree, ok := st.try()
	first := st.synErr.err
	if le := st.lexErr.err; le != nil && (first == nil || le.Pos.Offset <= first.Pos.Offset) {
		first = le
	}
	if first != nil {
		return nil, first
	}
	if !ok {
		return nil, gqlstatus.At(gqlstatus.Syntax, posAtOffset(text, 0), text, "invalid syntax")
	}
	return tree, nil // SLL was too weak but LL succeeded
}

// try runs the script rule; ok is false when the parse bailed out.
func (st *state) try() (tree gen.IScriptContext, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, is := r.(bailout); !is {
				panic(r)
			}
			tree, ok = nil, false
		}
	}()
	tree = st.parser.Script()
	if st.parser.HasError() || st.synErr.err != nil {
		return nil, false
	}
	return tree, true
}

// lexListener records the first lexer error in plain words.
type lexListener struct {
	antlr.DefaultErrorListener
	text string
	err  *gqlstatus.Error
}

func (l *lexListener) reset(text string) { l.text, l.err = text, nil }

func (l *lexListener) SyntaxError(rec antlr.Recognizer, _ any, line, column int, _ string, _ antlr.RecognitionException) {
	if l.err != nil {
		return
	}
	idx := -1
	if lx, ok := rec.(*gen.GoldfishGQLLexer); ok {
		idx = lx.TokenStartCharIndex
	}
	off := runeIndexToOffset(l.text, idx, line, column)
	pos := ast.Pos{Line: line, Col: column + 1, Offset: off}
	rest := l.text[off:]
	var msg, hint string
	switch {
	case rest == "":
		msg, hint = "unexpected end of input", "the statement is incomplete"
	case rest[0] == '\'' || rest[0] == '"':
		msg = "unterminated string"
		hint = fmt.Sprintf("close the string with a matching %c", rest[0])
	case rest[0] == '`':
		msg, hint = "unterminated quoted name", "close the name with a matching `"
	case len(rest) >= 2 && rest[:2] == "/*":
		msg, hint = "unterminated comment", "close the comment with */"
	case rest[0] == '$':
		msg, hint = `"$" must be followed by a parameter name`, "write parameters as $name"
	default:
		r, _ := utf8.DecodeRuneInString(rest)
		msg = fmt.Sprintf("unexpected character %q", r)
		hint = "remove the character, or put it inside a string"
	}
	l.err = gqlstatus.At(gqlstatus.Syntax, pos, l.text, "%s", msg).WithHint(hint)
}

// synListener records the first parser error of the LL pass and ends the
// pass there.
type synListener struct {
	antlr.DefaultErrorListener
	text   string
	err    *gqlstatus.Error
	active bool
}

func (l *synListener) reset(text string) { l.text, l.err, l.active = text, nil, false }

func (l *synListener) SyntaxError(rec antlr.Recognizer, sym any, line, column int, _ string, _ antlr.RecognitionException) {
	if !l.active || l.err != nil {
		return
	}
	p, _ := rec.(antlr.Parser)
	tok, _ := sym.(antlr.Token)
	l.err = describeSyntaxError(l.text, p, tok, line, column)
	panic(bailout{})
}

// IsRecall reports whether text is a Recall rather than a Δ: it parses,
// and it holds one statement (besides START TRANSACTION and its end)
// that only reads (ast.Query.Reads), as the planner plans a Recall. Text
// that does not parse is not a Recall: sent as a Δ, its error comes back
// from the engine, which parses it again. A client tells the verbs apart
// by it without planning.
func IsRecall(text string) bool {
	s, err := Parse(text)
	if err != nil {
		return false
	}
	var only ast.Stmt
	for _, st := range s.Stmts {
		switch st.(type) {
		case *ast.StartTransaction, *ast.CommitTx, *ast.RollbackTx:
			continue
		}
		if only != nil {
			return false
		}
		only = st
	}
	q, ok := only.(*ast.Query)
	return ok && q.Reads()
}
