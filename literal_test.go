package goldfish_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
)

// TestParseLiteral: one GQL literal read by the parser's rules, as the Go
// value a parameter takes, and refused with its code when it is not one.
func TestParseLiteral(t *testing.T) {
	dt, _ := time.Parse(time.RFC3339, "2026-01-31T12:00:00Z")
	ok := []struct {
		text string
		want any
	}{
		{"1", int64(1)},
		{"-9223372036854775808", int64(-9223372036854775808)},
		{"2.5", 2.5},
		{"1e3", 1000.0},
		{"'it''s'", "it's"},
		{`"a\nb"`, "a\nb"},
		{"true", true},
		{"null", nil},
		{"DATE '2026-01-31'", goldfish.Date{Year: 2026, Month: 1, Day: 31}},
		{"DATETIME '2026-01-31T12:00:00Z'", dt},
		{"[1, 'a', [true]]", []any{int64(1), "a", []any{true}}},
	}
	for _, c := range ok {
		got, err := goldfish.ParseLiteral(c.text)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseLiteral(%q) = %#v, %v; want %#v", c.text, got, err, c.want)
		}
	}
	bad := []struct {
		text string
		code goldfish.Code
	}{
		{"99999999999999999999", goldfish.CodeNumericOutOfRange},
		{"DATE '2026-02-30'", goldfish.CodeInvalidDateTimeFormat},
		{"1}), (:X {y: 2", goldfish.CodeSyntax},
		{"open", goldfish.CodeInvalidReference},
		{"", goldfish.CodeSyntax},
		{"1 + 2", goldfish.CodeSyntax},
	}
	for _, c := range bad {
		_, err := goldfish.ParseLiteral(c.text)
		var ge *goldfish.Error
		if !errors.As(err, &ge) || ge.Code != c.code {
			t.Errorf("ParseLiteral(%q): %v, want GQLSTATUS %s", c.text, err, c.code)
		}
	}
}

// TestDateParameter: a goldfish.Date parameter is stored as a DATE, the
// same as the literal.
func TestDateParameter(t *testing.T) {
	ctx := context.Background()
	db, _ := goldfish.Open()
	defer db.Close()
	s, _ := db.Session(ctx, "s")
	if _, err := s.Commit(ctx, `INSERT (:D {d: $d}), (:E {d: DATE '2026-01-31'})`, map[string]any{"d": goldfish.Date{Year: 2026, Month: 1, Day: 31}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, `INSERT (:D {d: $d})`, map[string]any{"d": goldfish.Date{Year: 2026, Month: 2, Day: 30}}); err == nil {
		t.Fatal("February 30th was stored")
	}
	sh, err := s.Recall(ctx, `MATCH (d:D {d: DATE '2026-01-31'})`, goldfish.RecallOptions{})
	if err != nil || sh.Cue != goldfish.CueMatch {
		t.Fatalf("the DATE parameter does not match the DATE literal: %+v, %v", sh, err)
	}
}
