package planner

import (
	"testing"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/goldfish-gql/goldfish/celval"
	"github.com/goldfish-gql/goldfish/values"
)

// dayBefore is the DATE before the one written iso, as a view computes it
// (d - duration("24h")).
func dayBefore(t *testing.T, iso string) ref.Val {
	d, ok := celval.Date(iso)
	if !ok {
		t.Fatalf("%s is no DATE", iso)
	}
	d.Time = d.Time.Add(-24 * time.Hour)
	if !celval.IsDate(d) {
		t.Fatalf("the day before %s is no DATE", iso)
	}
	return d
}

// TestFromCELBounds: a CEL result is converted only when a property can
// hold it and its literal parses back: lists within values.MaxNesting,
// timestamps within the years 0000–9999 in UTC (a DATETIME computed by
// CEL is written in UTC).
func TestFromCELBounds(t *testing.T) {
	list := func(depth int) ref.Val {
		v := ref.Val(types.Int(1))
		for range depth {
			v = types.NewRefValList(types.DefaultTypeAdapter, []ref.Val{v})
		}
		return v
	}
	ts := func(tm time.Time) ref.Val { return types.Timestamp{Time: tm} }
	for _, c := range []struct {
		v  ref.Val
		ok bool
	}{
		{list(values.MaxNesting), true},
		{list(values.MaxNesting + 1), false},
		{ts(time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)), true},
		{ts(time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)), true},
		{ts(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)), false},
		{ts(time.Date(0, 1, 1, 0, 30, 0, 0, time.FixedZone("", 3600))), false}, // year -1 in UTC
		{dayBefore(t, "0000-01-01"), false},                                    // a DATE in year -1
	} {
		v, err := FromCEL(c.v)
		switch {
		case c.ok && err != nil:
			t.Errorf("%v: %v", c.v, err)
		case c.ok:
			if err := v.Check(); err != nil {
				t.Errorf("%v: converted to %s, which a property cannot hold: %v", c.v, v.Literal(), err)
			}
		case err == nil:
			t.Errorf("%v: converted to %s, want a refusal", c.v, v.Literal())
		}
	}
}

// TestDateTimeLiteralForms: every form of DATETIME text the parser
// accepts normalises, so a literal reads the same in a constant, in a
// list and inside a computed expression.
func TestDateTimeLiteralForms(t *testing.T) {
	for _, s := range []string{"2026-01-31T14:05:00Z", "2026-01-31T14:05:00", "2026-01-31T14:05Z", "2026-01-31T14:05",
		"2026-01-31 14:05:00Z", "2026-01-31 14:05:00", "2026-01-31 14:05+00:00", "2026-01-31 14:05", "2026-01-31t14:05z"} {
		got, err := NormalizeDateTime(s)
		if err != nil || got != "2026-01-31T14:05:00Z" {
			t.Errorf("%q: %q, %v", s, got, err)
		}
	}
}
