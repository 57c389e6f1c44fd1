package params

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/store"
)

// Day is a DATE: a calendar day with no time and no zone, as this
// package hands it up (the facade's Date has the same fields).
type Day struct {
	Year  int
	Month time.Month
	Day   int
}

// CalendarDay is a caller's DATE value: anything that says its year,
// month and day as time.Time's Date does (a time.Time itself is a
// DATETIME, matched first).
type CalendarDay interface {
	Date() (year int, month time.Month, day int)
}

// String returns the day as ISO 8601 text, 2026-01-31.
func (d Day) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day) }

// storeValue checks d (a real day of the years 0000 to 9999) and returns
// its stored form.
func (d Day) storeValue() (store.Value, error) {
	t := time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC)
	if y, m, day := t.Date(); y != d.Year || m != d.Month || day != d.Day {
		return store.Value{}, invalid(gqlstatus.InvalidDateTimeFormat, "pass a day that exists", "%s is not a calendar day", d)
	}
	if d.Year < 0 || d.Year > 9999 {
		return store.Value{}, invalid(gqlstatus.DateTimeOverflow, "pass a day in the years 0000 to 9999", "DATE %s is outside the years 0000 to 9999", d)
	}
	return store.Date(d.String()), nil
}

// literalOpen and literalClose wrap a literal into the statement that
// holds it, so ParseLiteral reads it with the parser and folds it with the
// planner exactly as a statement's literal is read; the close is on a line
// of its own, so a line comment in the literal cannot swallow it.
const (
	literalOpen  = "INSERT (:P {v: "
	literalClose = "\n})"
)

// ParseLiteral reads text as one GQL literal, planned by compile (the
// engine's one entry from text to plan), by the rules of a
// statement's literals: 64-bit integers (a larger one is an error, never
// a float), finite floats, '…' or "…" strings with backslash escapes,
// true, false, null, DATE '…' and DATETIME '…', and lists of those. It
// returns the Go value a parameter takes for it: nil, bool, int64,
// float64, string, Date, time.Time (a DATETIME, in UTC or its own offset)
// or []any. Errors carry GQLSTATUS codes and columns counted from the
// start of text.
func ParseLiteral(text string, compile func(string) (*planner.Plan, error)) (any, error) {
	if strings.TrimSpace(text) == "" {
		return nil, gqlstatus.Errorf(gqlstatus.Syntax, "no literal given").WithHint("write 1, 2.5, true, null, 'text', DATE '2026-01-31' or [1, 'a']")
	}
	v, err := parseLiteral(text, compile)
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
	return GoValue(v), nil
}

func parseLiteral(text string, compile func(string) (*planner.Plan, error)) (store.Value, error) {
	plan, err := compile(literalOpen + text + literalClose)
	if err != nil {
		return store.Value{}, err
	}
	notOne := gqlstatus.Errorf(gqlstatus.Syntax, "%q is not one literal", text).
		WithHint("write one value: quote a string that holds spaces or brackets")
	if len(plan.Stmts) != 1 || len(plan.Stmts[0].Steps) != 1 {
		return store.Value{}, notOne
	}
	ins, ok := plan.Stmts[0].Steps[0].(*planner.InsertStep)
	if !ok || len(ins.Patterns) != 1 || len(ins.Patterns[0].Nodes) != 1 || len(ins.Patterns[0].Edges) != 0 {
		return store.Value{}, notOne
	}
	props := ins.Patterns[0].Nodes[0].Props
	if len(props) != 1 || props[0].Key != "v" || props[0].Val.Const == nil {
		return store.Value{}, notOne
	}
	v := *props[0].Val.Const
	if err := v.Check(); err != nil {
		return store.Value{}, &gqlstatus.Error{Code: planner.ValueCode(err), Msg: err.Error(), Cause: err}
	}
	return v, nil
}

// GoValue returns the Go value of a stored value, as ParseLiteral and
// Vocabulary give them (a DATE as a Day).
func GoValue(v store.Value) any {
	switch v.Kind() {
	case store.KindBool:
		return v.AsBool()
	case store.KindInt:
		return v.AsInt()
	case store.KindFloat:
		return v.AsFloat()
	case store.KindString:
		return v.AsString()
	case store.KindDate:
		t, err := time.Parse(time.DateOnly, v.AsString())
		if err != nil {
			return v.AsString()
		}
		y, m, d := t.Date()
		return Day{Year: y, Month: m, Day: d}
	case store.KindDateTime:
		t, err := time.Parse(time.RFC3339Nano, v.AsString())
		if err != nil {
			return v.AsString()
		}
		return t
	case store.KindList:
		l := v.AsList()
		out := make([]any, len(l))
		for i, e := range l {
			out[i] = GoValue(e)
		}
		return out
	}
	return nil
}
