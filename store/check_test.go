package store

import (
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
		want string // "" when v can be stored
	}{
		{Null(), ""},
		{Float(math.Copysign(0, -1)), ""},
		{Float(math.NaN()), "NaN"},
		{List(Int(1), Float(math.Inf(-1))), "element 1: NaN and infinite"},
		{String("é\u2028\x00"), ""},
		{String("ok\xffno"), "not valid UTF-8 (byte 2)"},
		{String("\xed\xa0\x80"), "not valid UTF-8 (byte 0)"},
		{nest(MaxNesting, Int(1)), ""},
		{nest(MaxNesting-1, List()), ""},
		{nest(MaxNesting+1, Int(1)), "nested more than 64 deep"},
		{nest(MaxNesting, List()), "nested more than 64 deep"},
		{List(Int(1), nest(MaxNesting, List())), "nested more than 64 deep"},
		{nest(100000, Int(1)), "nested more than 64 deep"},
		{Date("0000-01-01"), ""},
		{Date("9999-12-31"), ""},
		{Date("2026-02-30"), "not a date"},
		{Date("2026-1-31"), "not a date"},
		{Date("10000-01-01"), "not a date"},
		{DateTime("2026-01-31T12:00:00Z"), ""},
		{DateTime("2026-01-31T12:00:00.5+02:00"), ""},
		{DateTime("0000-01-01T00:00:00Z"), ""},
		{DateTime("9999-12-31T23:59:59.999999999Z"), ""},
		{DateTime("2026-01-31 12:00"), "RFC 3339"},
		{DateTime("2026-01-31T12:00:00+00:00"), "RFC 3339"}, // written Z
		{DateTime("2026-01-31T12:00:00.50Z"), "RFC 3339"},   // written .5
		{DateTime("-0001-12-31T23:00:00Z"), "RFC 3339"},
		{DateTime("10000-01-01T00:00:00Z"), "RFC 3339"},
		{DateTime("0000-01-01T00:30:00+01:00"), "outside the years"},
		{DateTime("9999-12-31T23:30:00-01:00"), "outside the years"},
	}
	for _, c := range cases {
		err := c.v.Check()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%.60s: %v", c.v.Literal(), err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%.60s: got %v, want an error saying %q", c.v.Literal(), err, c.want)
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
