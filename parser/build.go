// The builder's state, its entry point, and the positions and errors
// every part of the build shares.

package parser

import (
	"unicode/utf8"

	"github.com/antlr4-go/antlr/v4"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/parser/gen"
)

// builder turns a parse tree into ast nodes. Errors unwind with panic
// (buildError) and are recovered in build.
type builder struct {
	text  string
	offs  []int // rune index -> byte offset; nil when text is ASCII
	lim   Limits
	depth int
	// refusals are the refused forms of the statement being built, and
	// err the first error found in it: building goes on past an error, so
	// that a refused form later in the statement is still found.
	refusals []*ast.Refused
	err      *gqlstatus.Error
}

type buildError struct{ err *gqlstatus.Error }

func build(text string, tree gen.IScriptContext, lim Limits) (s *ast.Script, gerr *gqlstatus.Error) {
	b := &builder{text: text, lim: lim}
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			b.offs = make([]int, 0, len(text)+1)
			for j := range text {
				b.offs = append(b.offs, j)
			}
			b.offs = append(b.offs, len(text))
			break
		}
	}
	defer func() {
		if r := recover(); r != nil {
			be, ok := r.(buildError)
			if !ok {
				panic(r)
			}
			s, gerr = nil, be.err
		}
	}()
	stmts := tree.AllStatement()
	s = &ast.Script{Text: text, Stmts: make([]ast.Stmt, 0, len(stmts))}
	for _, st := range stmts {
		s.Stmts = append(s.Stmts, b.stmt(st))
	}
	return s, nil
}

func (b *builder) off(runeIdx int) int {
	if b.offs == nil {
		if runeIdx > len(b.text) {
			return len(b.text)
		}
		return runeIdx
	}
	if runeIdx < 0 {
		return 0
	}
	if runeIdx >= len(b.offs) {
		return len(b.text)
	}
	return b.offs[runeIdx]
}

func (b *builder) pos(t antlr.Token) ast.Pos {
	return ast.Pos{Line: t.GetLine(), Col: t.GetColumn() + 1, Offset: b.off(t.GetStart())}
}

func (b *builder) cpos(ctx antlr.ParserRuleContext) ast.Pos { return b.pos(ctx.GetStart()) }

func (b *builder) source(ctx antlr.ParserRuleContext) string {
	start, stop := ctx.GetStart(), ctx.GetStop()
	if start == nil || stop == nil || stop.GetStop() < start.GetStart() {
		return ""
	}
	return b.text[b.off(start.GetStart()):b.off(stop.GetStop()+1)]
}

// fail records the statement's first error; the caller goes on with a
// stand-in value.
func (b *builder) fail(code gqlstatus.Code, pos ast.Pos, hint, format string, args ...any) {
	if b.err == nil {
		b.err = gqlstatus.At(code, pos, b.text, format, args...).WithHint(hint)
	}
}
