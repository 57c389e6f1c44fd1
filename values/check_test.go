package values

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func nest(depth int, leaf Value) Value {
	for range depth {
		leaf = List(leaf)
	}
	return leaf
}

func TestValueCheck(t *testing.T) {
	cases := []struct {
		v    Value
		kind error  // nil when v can be stored
		at   string // where the message places the fault, when it does
	}{
		{Null(), nil, ""},
		{Float(math.Copysign(0, -1)), nil, ""},
		{Float(math.NaN()), ErrNotFinite, ""},
		{List(Int(1), Float(math.Inf(-1))), ErrNotFinite, "element 1: "},
		{String("é\u2028\x00"), nil, ""},
		{String("ok\xffno"), ErrNotUTF8, "(byte 2)"},
		{String("\xed\xa0\x80"), ErrNotUTF8, "(byte 0)"},
		{nest(MaxNesting, Int(1)), nil, ""},
		{nest(MaxNesting-1, List()), nil, ""},
		{nest(MaxNesting+1, Int(1)), ErrTooDeep, ""},
		{nest(MaxNesting, List()), ErrTooDeep, ""},
		{List(Int(1), nest(MaxNesting, List())), ErrTooDeep, ""},
		{nest(100000, Int(1)), ErrTooDeep, ""},
		{DateValue("0000-01-01"), nil, ""},
		{DateValue("9999-12-31"), nil, ""},
		{DateValue("2026-02-30"), ErrDateFormat, ""},
		{DateValue("2026-1-31"), ErrDateFormat, ""},
		{DateValue("10000-01-01"), ErrDateFormat, ""},
		{DateTimeValue("2026-01-31T12:00:00Z"), nil, ""},
		{DateTimeValue("2026-01-31T12:00:00.5+02:00"), nil, ""},
		{DateTimeValue("0000-01-01T00:00:00Z"), nil, ""},
		{DateTimeValue("9999-12-31T23:59:59.999999999Z"), nil, ""},
		{DateTimeValue("2026-01-31 12:00"), ErrDateFormat, ""},
		{DateTimeValue("2026-01-31T12:00:00+00:00"), ErrDateFormat, ""}, // written Z
		{DateTimeValue("2026-01-31T12:00:00.50Z"), ErrDateFormat, ""},   // written .5
		{DateTimeValue("-0001-12-31T23:00:00Z"), ErrDateFormat, ""},
		{DateTimeValue("10000-01-01T00:00:00Z"), ErrDateFormat, ""},
		{DateTimeValue("0000-01-01T00:30:00+01:00"), ErrDateRange, ""},
		{DateTimeValue("9999-12-31T23:30:00-01:00"), ErrDateRange, ""},
	}
	kinds := []error{ErrNotFinite, ErrNotUTF8, ErrTooDeep, ErrDateFormat, ErrDateRange}
	for _, c := range cases {
		err := c.v.Check()
		switch {
		case c.kind == nil && err != nil:
			t.Errorf("%.60s: %v", c.v.Literal(), err)
		case c.kind != nil && !errors.Is(err, c.kind):
			t.Errorf("%.60s: got %v, want an error of the kind %q", c.v.Literal(), err, c.kind)
		case c.kind != nil && !strings.Contains(err.Error(), c.at):
			t.Errorf("%.60s: %q does not say where: %q", c.v.Literal(), err, c.at)
		}
		for _, k := range kinds {
			if k != c.kind && errors.Is(err, k) {
				t.Errorf("%.60s: %v is also of the kind %q", c.v.Literal(), err, k)
			}
		}
	}
}

func TestNesting(t *testing.T) {
	for _, c := range []struct {
		v    Value
		want int
	}{
		{Int(1), 0},
		{List(), 1},
		{List(Int(1), List(List()), List()), 3},
		{nest(MaxNesting, Int(1)), MaxNesting},
		{nest(MaxNesting+1, Int(1)), MaxNesting + 1},
		{nest(1<<16, List()), MaxNesting + 1}, // counted no further
	} {
		if got := c.v.Nesting(); got != c.want {
			t.Errorf("%.40s: nesting %d, want %d", c.v.Literal(), got, c.want)
		}
	}
}

// TestDateTimeOf: the DATETIME of a time names its instant, in its own
// offset where RFC 3339 can write it, and passes Check.
func TestDateTimeOf(t *testing.T) {
	at := func(y int, off int) time.Time {
		return time.Date(y, 6, 1, 12, 0, 0, 5, time.FixedZone("", off))
	}
	for _, c := range []struct {
		t    time.Time
		want string // "" when refused
	}{
		{at(2026, 0), "2026-06-01T12:00:00.000000005Z"},
		{at(2026, 3600), "2026-06-01T12:00:00.000000005+01:00"},
		{at(2026, 3601), "2026-06-01T10:59:59.000000005Z"},
		{at(2026, 30*3600), "2026-05-31T06:00:00.000000005Z"},
		{at(2026, -24*3600), "2026-06-02T12:00:00.000000005Z"},
		{at(0, 0), "0000-06-01T12:00:00.000000005Z"},
		{at(10000, 0), ""},
		{at(-1, 0), ""},
		{time.Date(9999, 12, 31, 23, 30, 0, 0, time.FixedZone("", -3600)), ""},
		{time.Date(9999, 12, 31, 23, 30, 0, 0, time.FixedZone("", 3600)), "9999-12-31T23:30:00+01:00"},
		{time.Date(-1, 12, 31, 23, 30, 0, 0, time.FixedZone("", -3600)), "0000-01-01T00:30:00Z"}, // year -1 in its offset
	} {
		v, err := DateTimeOf(c.t)
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%v: got %s, want a refusal", c.t, v.Literal())
		case c.want != "" && err != nil:
			t.Errorf("%v: %v", c.t, err)
		case c.want != "" && v.AsString() != c.want:
			t.Errorf("%v: got %s, want %s", c.t, v.AsString(), c.want)
		case c.want != "":
			if err := v.Check(); err != nil {
				t.Errorf("%v: %v", c.t, err)
			}
			if back, _ := time.Parse(time.RFC3339Nano, v.AsString()); !back.Equal(c.t) {
				t.Errorf("%v: reads back as %v", c.t, back)
			}
		}
	}
}
