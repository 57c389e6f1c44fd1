package goldfish

import (
	"time"

	"github.com/goldfish-gql/goldfish/internal/engine"
	"github.com/goldfish-gql/goldfish/values"
)

// Date is a DATE: a calendar day with no time and no zone. As a
// parameter it is stored as a DATE (a time.Time is a DATETIME).
type Date = values.Date

// DateOf returns the calendar day of t in t's location.
func DateOf(t time.Time) Date { return values.DateOf(t) }

// ParseLiteral reads text as one GQL literal, by the rules of a
// statement's literals: 64-bit integers (a larger one is an error, never
// a float), finite floats, '…' or "…" strings with backslash escapes,
// true, false, null, DATE '…' and DATETIME '…', and lists of those. It
// returns the Go value a parameter takes for it: nil, bool, int64,
// float64, string, Date, time.Time (a DATETIME, in UTC or its own offset)
// or []any. Errors carry GQLSTATUS codes and columns counted from the
// start of text.
func ParseLiteral(text string) (any, error) {
	return engine.ParseLiteral(text)
}
