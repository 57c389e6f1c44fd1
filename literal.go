package goldfish

import (
	"fmt"
	"time"

	"github.com/goldfish-gql/goldfish/internal/engine"
)

// Date is a DATE: a calendar day with no time and no zone. As a
// parameter it is stored as a DATE (a time.Time is a DATETIME).
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf returns the calendar day of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{Year: y, Month: m, Day: d}
}

// String returns the day as ISO 8601 text, 2026-01-31.
func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day) }

// Date returns the day's year, month and day, as time.Time's Date does:
// what a parameter's conversion reads of it.
func (d Date) Date() (year int, month time.Month, day int) { return d.Year, d.Month, d.Day }

// ParseLiteral reads text as one GQL literal, by the rules of a
// statement's literals: 64-bit integers (a larger one is an error, never
// a float), finite floats, '…' or "…" strings with backslash escapes,
// true, false, null, DATE '…' and DATETIME '…', and lists of those. It
// returns the Go value a parameter takes for it: nil, bool, int64,
// float64, string, Date, time.Time (a DATETIME, in UTC or its own offset)
// or []any. Errors carry GQLSTATUS codes and columns counted from the
// start of text.
func ParseLiteral(text string) (any, error) {
	v, err := engine.ParseLiteral(text)
	if err != nil {
		return nil, err
	}
	return goValue(v), nil
}

// goValue gives a value the engine read the API's types: a DATE, which
// the engine hands up as a calendar day, becomes a Date, in lists too.
func goValue(v any) any {
	switch x := v.(type) {
	case engine.Day:
		return Date(x)
	case []any:
		for i := range x {
			x[i] = goValue(x[i])
		}
	}
	return v
}
