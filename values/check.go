package values

import (
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

// MaxNesting is the deepest LIST nesting a stored value may have: a
// scalar is nested 0 deep, [1] 1 deep, [[1]] 2 deep. It is the one limit
// every layer holds values to, so that whatever a Commit accepts is read
// back by hydrate and re-parsed from a Shape:
//
//   - Commit refuses a deeper value (22Q05) whether it comes from a
//     parameter, a literal or a computed expression (Value.Check);
//   - the cabinet's decoder refuses to read a deeper one, and its
//     encoder is only ever given values that passed Check;
//   - the parser's nesting limit (parser.DefaultMaxDepth) is MaxNesting
//     plus the two brackets of the element pattern a Shape writes a
//     property in, "(v:K {p: …})" or "-[:T {p: …}]->", so the Shape of
//     the deepest value parses again.
const MaxNesting = 64

// Check reports why v cannot be stored as a property, or nil: lists
// nested deeper than MaxNesting, NaN or infinite floats, strings that
// are not valid UTF-8, DATE text that is not a date YYYY-MM-DD, and
// DATETIME text that is not canonical RFC 3339 (as
// time.Time.Format(time.RFC3339Nano) writes it) of an instant in the
// years 0000–9999, UTC. Those are the values whose literal parses back
// to the same value and whose cabinet encoding decodes. Check reads at
// most MaxNesting+1 levels of v, whatever its depth. Its error is one of
// the kinds below (errors.Is), so the layer that words it for the user
// can give each its code.
func (v Value) Check() error { return v.check(0) }

// The kinds of Check's errors.
var (
	ErrTooDeep    = fmt.Errorf("lists are nested more than %d deep", MaxNesting)
	ErrNotFinite  = errors.New("NaN and infinite floats cannot be stored")
	ErrNotUTF8    = errors.New("the string is not valid UTF-8")
	ErrDateFormat = errors.New("not ISO 8601 date or date-time text")
	ErrDateRange  = errors.New("outside the years 0000 to 9999")
)

// kindError is an error of one of Check's kinds, with its own message.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

func kinded(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

func (v Value) check(depth int) error {
	switch v.kind {
	case KindFloat:
		if !ValidFloat(v.AsFloat()) {
			return ErrNotFinite
		}
	case KindString:
		if !utf8.ValidString(v.s) {
			return kinded(ErrNotUTF8, "the string is not valid UTF-8 (byte %d)", invalidUTF8At(v.s))
		}
	case KindDate:
		if !ValidDate(v.s) {
			return kinded(ErrDateFormat, "DATE %s is not a date written YYYY-MM-DD", strconv.Quote(v.s))
		}
	case KindDateTime:
		if err := CheckDateTime(v.s); err != nil {
			return err
		}
	case KindList:
		if depth >= MaxNesting {
			return ErrTooDeep
		}
		for i, e := range v.AsList() {
			if err := e.check(depth + 1); err != nil {
				if err == ErrTooDeep {
					return err
				}
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
	}
	return nil
}

// invalidUTF8At returns the byte offset of the first invalid UTF-8
// sequence in s (len(s) when there is none).
func invalidUTF8At(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(s)
}

// ValidDate reports whether s is a DATE's text: a calendar date written
// YYYY-MM-DD (years 0000–9999).
func ValidDate(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil && len(s) == len(time.DateOnly)
}

// CheckDateTime reports why s is not a DATETIME's text, or nil: it must be
// canonical RFC 3339 (time.RFC3339Nano as Go formats it, so the text is
// the same however it is written back) and name an instant in the years
// 0000–9999 in UTC as well as in its own offset, since a computed
// DATETIME is written in UTC and must stay a literal the parser reads.
func CheckDateTime(s string) error {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.Format(time.RFC3339Nano) != s {
		return kinded(ErrDateFormat, "DATETIME %s is not ISO 8601 date-time text in RFC 3339 form", strconv.Quote(s))
	}
	if !InDateTimeRange(t) {
		return kinded(ErrDateRange, "DATETIME %s is outside the years 0000 to 9999 (UTC)", strconv.Quote(s))
	}
	return nil
}

// InDateTimeRange reports whether t falls in the years 0000–9999 both in
// UTC and in its own location: the instants a DATETIME literal can write.
func InDateTimeRange(t time.Time) bool {
	u := t.UTC().Year()
	l := t.Year()
	return u >= 0 && u <= 9999 && l >= 0 && l <= 9999
}

// DateTimeOf returns the DATETIME of t: its RFC 3339 text in t's own
// offset when RFC 3339 can write that offset exactly (whole minutes,
// under 24 hours), in UTC otherwise, so the text always names t's
// instant. It fails for an instant outside InDateTimeRange.
func DateTimeOf(t time.Time) (Value, error) {
	if !InDateTimeRange(t.UTC()) {
		return Value{}, kinded(ErrDateRange, "time %s is outside the years 0000 to 9999 (UTC) a DATETIME can hold", t.UTC().Format(time.RFC3339Nano))
	}
	if _, off := t.Zone(); off%60 != 0 || off <= -24*3600 || off >= 24*3600 || !InDateTimeRange(t) {
		t = t.UTC()
	}
	return DateTimeValue(t.Format(time.RFC3339Nano)), nil
}

// Nesting returns how deep v's lists are nested: 0 for a scalar, 1 for
// [1], 2 for [[1], 2]. It counts no further than MaxNesting+1, so it
// reads a bounded part of v however deep v is.
func (v Value) Nesting() int { return v.nesting(MaxNesting) }

func (v Value) nesting(limit int) int {
	if v.kind != KindList {
		return 0
	}
	if limit == 0 {
		return 1
	}
	n := 0
	for _, e := range v.AsList() {
		if d := e.nesting(limit - 1); d > n {
			n = d
			if n >= limit {
				break
			}
		}
	}
	return n + 1
}
