package store

import (
	"time"

	"github.com/goldfish-gql/goldfish/values"
)

// The store keeps the values of package values: one Value, one Props, for
// the store, the engine and the API's Shapes alike (a Shape's rows share
// a record's properties, never copy them).
type (
	Value     = values.Value
	ValueKind = values.ValueKind
	Prop      = values.Prop
	Props     = values.Props
)

// The kinds of a Value.
const (
	KindNull     = values.KindNull
	KindBool     = values.KindBool
	KindInt      = values.KindInt
	KindFloat    = values.KindFloat
	KindString   = values.KindString
	KindDate     = values.KindDate
	KindDateTime = values.KindDateTime
	KindList     = values.KindList
)

// Null returns the null value.
func Null() Value { return values.Null() }

// Bool returns a BOOLEAN value.
func Bool(b bool) Value { return values.Bool(b) }

// Int returns an INTEGER value.
func Int(i int64) Value { return values.Int(i) }

// Float returns a FLOAT value (see values.Float).
func Float(f float64) Value { return values.Float(f) }

// ValidFloat reports whether f can be stored (neither NaN nor infinite).
func ValidFloat(f float64) bool { return values.ValidFloat(f) }

// String returns a STRING value.
func String(s string) Value { return values.String(s) }

// Date returns a DATE value from validated ISO text.
func Date(iso string) Value { return values.DateValue(iso) }

// DateTime returns a DATETIME value from validated, normalised ISO text.
func DateTime(iso string) Value { return values.DateTimeValue(iso) }

// List returns a LIST value; the slice is copied.
func List(vs ...Value) Value { return values.List(vs...) }

// MakeProps builds Props from a map: sorted, nulls dropped.
func MakeProps(m map[string]Value) Props { return values.MakeProps(m) }

// NormalizeProps returns p in canonical form (see values.NormalizeProps).
func NormalizeProps(p Props) Props { return values.NormalizeProps(p) }

// QuotedSize returns the length of the canonical literal of the STRING s
// and whether s is valid UTF-8.
func QuotedSize(s string) (n int, valid bool) { return values.QuotedSize(s) }

// IsIdentifier reports whether s is a plain identifier.
func IsIdentifier(s string) bool { return values.IsIdentifier(s) }

// KeyLiteral returns key as a plain identifier or back-quoted.
func KeyLiteral(key string) string { return values.KeyLiteral(key) }

// MaxNesting is the deepest LIST nesting a stored value may have (see
// values.MaxNesting).
const MaxNesting = values.MaxNesting

// The kinds of Value.Check's errors.
var (
	ErrTooDeep    = values.ErrTooDeep
	ErrNotFinite  = values.ErrNotFinite
	ErrNotUTF8    = values.ErrNotUTF8
	ErrDateFormat = values.ErrDateFormat
	ErrDateRange  = values.ErrDateRange
)

// ValidDate reports whether s is a DATE's text (YYYY-MM-DD).
func ValidDate(s string) bool { return values.ValidDate(s) }

// CheckDateTime reports why s is not a DATETIME's text, or nil.
func CheckDateTime(s string) error { return values.CheckDateTime(s) }

// InDateTimeRange reports whether t falls in the years a DATETIME holds.
func InDateTimeRange(t time.Time) bool { return values.InDateTimeRange(t) }

// DateTimeOf returns the DATETIME of t (see values.DateTimeOf).
func DateTimeOf(t time.Time) (Value, error) { return values.DateTimeOf(t) }
