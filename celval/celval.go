// Package celval is how goldfish's values read in CEL. Every CEL program
// goldfish runs converts a stored value with Of: WHERE predicates and
// computed values (package planner) as much as views and action
// preconditions (package vocab), so a property compares, equals and
// shows the same wherever it is read. It also places the issues of a CEL
// expression that does not compile (Issues), the one shape both report
// them in.
//
// # DATE and DATETIME
//
// Both are CEL timestamps (types.Timestamp), so cel-go's own timestamp
// operators and functions take them in a view or a precondition, and a
// DATE compares with a DATETIME as the instant of its midnight (UTC). A
// DATE is not a CEL type of its own because cel-go's timestamp methods
// accept only their own Go type as the other operand: a wrapper would
// make timestamp(…) < d an error where d < timestamp(…) is not.
//
// What marks a timestamp as a DATE, so that it converts back to a DATE
// rather than a DATETIME, is its location: the zone DATE, whose offset is
// UTC's, so every timestamp function reads it as UTC. Only Date and
// IsDate look at the mark.
//
// It imports store and cel-go only, so the planner and the vocabulary,
// which stand on it, share it without depending on each other.
package celval

import (
	"errors"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/goldfish-gql/goldfish/values"
)

// Of converts a stored value to its CEL value: BOOLEAN, INTEGER, FLOAT
// and STRING to CEL's bool, int, double and string; DATE and DATETIME to
// timestamps (see the package comment); a LIST to a CEL list of its
// elements converted; anything else to null.
func Of(v values.Value) ref.Val {
	switch v.Kind() {
	case values.KindBool:
		return types.Bool(v.AsBool())
	case values.KindInt:
		return types.Int(v.AsInt())
	case values.KindFloat:
		return types.Double(v.AsFloat())
	case values.KindString:
		return types.String(v.AsString())
	case values.KindDate:
		d, _ := Date(v.AsString())
		return d
	case values.KindDateTime:
		t, _ := ParseDateTime(v.AsString())
		return types.Timestamp{Time: t}
	case values.KindList:
		elems := v.AsList()
		out := make([]ref.Val, len(elems))
		for i, e := range elems {
			out[i] = Of(e)
		}
		return types.NewRefValList(types.DefaultTypeAdapter, out)
	}
	return types.NullValue
}

// dateZone is the location that marks a timestamp as a DATE.
var dateZone = time.FixedZone("DATE", 0)

// Date returns the CEL value of a DATE written YYYY-MM-DD: the timestamp
// of its midnight, marked as a DATE. ok is false when text is no date.
func Date(text string) (d types.Timestamp, ok bool) {
	t, err := time.Parse(time.DateOnly, text)
	return types.Timestamp{Time: t.In(dateZone)}, err == nil
}

// IsDate reports whether ts is a DATE: a timestamp Date made, or one a
// view computed from it that is still at a midnight (d + duration("24h")
// is the next day; d + duration("1h") is a DATETIME).
func IsDate(ts types.Timestamp) bool {
	t := ts.Time
	return t.Location() == dateZone && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0
}

// ParseDateTime parses DATETIME text in any of the forms a literal may
// take (values.ParseDateTime): a stored DATETIME is normally RFC 3339,
// the first form tried; a session saved by an older release may hold one
// in another of the forms, and it reads as the same instant.
func ParseDateTime(s string) (time.Time, bool) {
	t, err := values.ParseDateTime(s)
	if errors.Is(err, values.ErrDateRange) {
		return t, true // the range is the caller's to check
	}
	return t, err == nil
}

// Issue is one error of a CEL expression that does not compile, placed
// in the CEL text.
type Issue struct {
	Msg string
	// Line and Col place it in the CEL text (1-based; 0 when cel-go
	// gives no place).
	Line, Col int
}

// Issues lists the errors of a failed compile, in cel-go's order.
func Issues(iss *cel.Issues) []Issue {
	errs := iss.Errors()
	out := make([]Issue, len(errs))
	for i, e := range errs {
		out[i] = Issue{Msg: e.Message}
		if line := e.Location.Line(); line > 0 {
			out[i].Line, out[i].Col = line, e.Location.Column()+1
		}
	}
	return out
}
