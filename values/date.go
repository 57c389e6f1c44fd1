package values

import (
	"fmt"
	"time"
)

// Date is a DATE: a calendar day with no time and no zone. As a
// parameter it is stored as a DATE (a time.Time is a DATETIME); read
// back as a Go value (Value.Go), a DATE is a Date.
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

// Go returns v as a Go value: nil, bool, int64, float64, string, Date
// (a DATE), time.Time (a DATETIME, in its own offset) or []any of
// those. It is the form the API takes parameters in and gives values
// back (ParseLiteral, a view's value, NodeByNick); a list is a new
// slice, the caller's.
func (v Value) Go() any {
	switch v.kind {
	case KindBool:
		return v.AsBool()
	case KindInt:
		return v.AsInt()
	case KindFloat:
		return v.AsFloat()
	case KindString:
		return v.s
	case KindDate:
		t, err := time.Parse(time.DateOnly, v.s)
		if err != nil {
			return v.s
		}
		return DateOf(t)
	case KindDateTime:
		t, err := time.Parse(time.RFC3339Nano, v.s)
		if err != nil {
			return v.s
		}
		return t
	case KindList:
		l := v.AsList()
		out := make([]any, len(l))
		for i, e := range l {
			out[i] = e.Go()
		}
		return out
	}
	return nil
}

// Map returns the properties as Go values by key (Value.Go): a map of
// the caller's own.
func (p Props) Map() map[string]any {
	out := make(map[string]any, len(p))
	for _, kv := range p {
		out[kv.Key] = kv.Val.Go()
	}
	return out
}
