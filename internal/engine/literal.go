package engine

import (
	"errors"
	"strings"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/values"
)

// literalOpen and literalClose wrap a literal into the statement that
// holds it, so ParseLiteral reads it with the parser and folds it with the
// planner exactly as a statement's literal is read; the close is on a line
// of its own, so a line comment in the literal cannot swallow it.
const (
	literalOpen  = "INSERT (:P {v: "
	literalClose = "\n})"
)

// ParseLiteral reads text as one GQL literal, parsed and planned as a
// statement's are (compileText), by the rules of a
// statement's literals: 64-bit integers (a larger one is an error, never
// a float), finite floats, '…' or "…" strings with backslash escapes,
// true, false, null, DATE '…' and DATETIME '…', and lists of those. It
// returns the Go value a parameter takes for it: nil, bool, int64,
// float64, string, Date, time.Time (a DATETIME, in UTC or its own offset)
// or []any. Errors carry GQLSTATUS codes and columns counted from the
// start of text.
func ParseLiteral(text string) (any, error) {
	if strings.TrimSpace(text) == "" {
		return nil, gqlstatus.Errorf(gqlstatus.Syntax, "no literal given").WithHint("write 1, 2.5, true, null, 'text', DATE '2026-01-31' or [1, 'a']")
	}
	v, err := parseLiteral(text)
	if err != nil {
		var ge *gqlstatus.Error
		if !errors.As(err, &ge) {
			return nil, err
		}
		out := *ge
		out.Stmt, out.Line, out.LineCol, out.Pos = 0, "", 0, gqlstatus.Pos{}
		if ge.Pos.Valid() {
			// a column of the wrapper's first line, or the end of text
			col := len([]rune(text)) + 1
			if ge.Pos.Line == 1 {
				col = max(ge.Pos.Col-len(literalOpen), 1)
			}
			out.Pos = gqlstatus.Pos{Line: 1, Col: col}
		}
		return nil, &out
	}
	return v.Go(), nil
}

func parseLiteral(text string) (values.Value, error) {
	plan, err := compileText(literalOpen+text+literalClose, nil)
	if err != nil {
		return values.Value{}, err
	}
	notOne := gqlstatus.Errorf(gqlstatus.Syntax, "%q is not one literal", text).
		WithHint("write one value: quote a string that holds spaces or brackets")
	if len(plan.Stmts) != 1 || len(plan.Stmts[0].Steps) != 1 {
		return values.Value{}, notOne
	}
	ins, ok := plan.Stmts[0].Steps[0].(*planner.InsertStep)
	if !ok || len(ins.Patterns) != 1 || len(ins.Patterns[0].Nodes) != 1 || len(ins.Patterns[0].Edges) != 0 {
		return values.Value{}, notOne
	}
	props := ins.Patterns[0].Nodes[0].Props
	if len(props) != 1 || props[0].Key != "v" || props[0].Val.Const == nil {
		return values.Value{}, notOne
	}
	v := *props[0].Val.Const
	if err := v.Check(); err != nil {
		return values.Value{}, &gqlstatus.Error{Code: values.ValueCode(err), Msg: err.Error(), Cause: err}
	}
	return v, nil
}
