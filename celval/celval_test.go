package celval

import (
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/goldfish-gql/goldfish/values"
)

// TestDateIsATimestamp: a DATE is a CEL timestamp to every timestamp
// operator and function, on either side, and still converts back to a
// DATE; a DATETIME at the same instant is not a DATE.
func TestDateIsATimestamp(t *testing.T) {
	d := Of(values.DateValue("2026-01-31"))
	midnight := Of(values.DateTimeValue("2026-01-31T00:00:00Z"))
	later := Of(values.DateTimeValue("2026-01-31 08:00"))
	if ts, ok := d.(types.Timestamp); !ok || !IsDate(ts) {
		t.Fatalf("DATE '2026-01-31' is %T %v, want a timestamp marked DATE", d, d)
	}
	if IsDate(midnight.(types.Timestamp)) || IsDate(later.(types.Timestamp)) {
		t.Fatal("a DATETIME reads as a DATE")
	}
	env, err := cel.NewEnv(cel.Variable("d", cel.DynType), cel.Variable("m", cel.DynType), cel.Variable("t", cel.DynType))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]any{"d": d, "m": midnight, "t": later}
	for _, c := range []struct {
		expr string
		want ref.Val
	}{
		{`d == m`, types.True},
		{`m == d`, types.True},
		{`d < t`, types.True},
		{`t > d`, types.True},
		{`timestamp("2026-01-01T00:00:00Z") < d`, types.True},
		{`d in [m]`, types.True},
		{`string(d)`, types.String("2026-01-31T00:00:00Z")},
		{`d.getDate()`, types.Int(31)},
		{`d.getHours()`, types.Int(0)},
		{`t - d`, types.Duration{Duration: 8 * 3600e9}},
	} {
		ast, iss := env.Compile(c.expr)
		if iss.Err() != nil {
			t.Fatalf("%s: %v", c.expr, iss.Err())
		}
		prg, err := env.Program(ast)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := prg.Eval(vars)
		if err != nil || got.Equal(c.want) != types.True {
			t.Errorf("%s = %v (%v), want %v", c.expr, got, err, c.want)
		}
	}
	for _, c := range []struct {
		expr string
		date bool
	}{
		{`d`, true},
		{`d + duration("24h")`, true}, // the next day
		{`d + duration("1h")`, false},
		{`m`, false},
		{`timestamp("2026-01-31T00:00:00Z")`, false},
	} {
		ast, _ := env.Compile(c.expr)
		prg, _ := env.Program(ast)
		got, _, err := prg.Eval(vars)
		ts, ok := got.(types.Timestamp)
		if err != nil || !ok || IsDate(ts) != c.date {
			t.Errorf("%s = %v (%v): a DATE %v, want %v", c.expr, got, err, ok && IsDate(ts), c.date)
		}
	}
}

// TestParseDateTime: every form of a DATETIME literal reads as the same
// instant; text that is none is refused.
func TestParseDateTime(t *testing.T) {
	want, _ := ParseDateTime("2026-01-31T14:05:00Z")
	for _, s := range []string{"2026-01-31T14:05:00", "2026-01-31T14:05Z", "2026-01-31T14:05",
		"2026-01-31 14:05:00Z", "2026-01-31 14:05:00", "2026-01-31 14:05+00:00", "2026-01-31 14:05",
		"2026-01-31t14:05z", "2026-01-31T16:05:00+02:00"} {
		if got, ok := ParseDateTime(s); !ok || !got.Equal(want) {
			t.Errorf("%q: %v, %v", s, got, ok)
		}
	}
	if _, ok := ParseDateTime("yesterday"); ok {
		t.Error("yesterday parses")
	}
}

// TestIssues: every error of a failed compile, placed 1-based in the CEL
// text.
func TestIssues(t *testing.T) {
	env, _ := cel.NewEnv()
	_, iss := env.Compile("1 +\n  nope + also_not")
	got := Issues(iss)
	if len(got) != 2 {
		t.Fatalf("%d issues (%+v), want 2", len(got), got)
	}
	if got[0].Line != 2 || got[0].Col != 3 || got[0].Msg != iss.Errors()[0].Message {
		t.Errorf("first issue %+v, want line 2, column 3, %q", got[0], iss.Errors()[0].Message)
	}
}
