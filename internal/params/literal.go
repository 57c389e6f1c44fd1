package params

import (
	"time"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
)

// CalendarDay is a caller's DATE value: anything that says its year,
// month and day as time.Time's Date does (a time.Time itself is a
// DATETIME, matched first).
type CalendarDay interface {
	Date() (year int, month time.Month, day int)
}

// dayValue checks d (a real day of the years 0000 to 9999) and returns
// its stored form.
func dayValue(d values.Date) (values.Value, error) {
	t := time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC)
	if y, m, day := t.Date(); y != d.Year || m != d.Month || day != d.Day {
		return values.Value{}, invalid(gqlstatus.InvalidDateTimeFormat, "pass a day that exists", "%s is not a calendar day", d)
	}
	if d.Year < 0 || d.Year > 9999 {
		return values.Value{}, invalid(gqlstatus.DateTimeOverflow, "pass a day in the years 0000 to 9999", "DATE %s is outside the years 0000 to 9999", d)
	}
	return values.DateValue(d.String()), nil
}
