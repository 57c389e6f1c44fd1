package values

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The JSON rendering of values, the one the server's parameters take:
// an INTEGER is a JSON integer, a FLOAT a JSON number with a fraction or
// an exponent (1.0, never 1), a STRING a JSON string, a BOOLEAN and null
// as they are, a LIST an array, and the values JSON has no literal for
// an object of one key: {"date": "2026-01-31"}, {"datetime":
// "2026-01-31T10:00:00Z"}. Props are an object in key order. Reading
// gives back the same Value, so a Shape's rows cross the wire whole.

// MarshalJSON writes v as above.
func (v Value) MarshalJSON() ([]byte, error) { return v.AppendJSON(nil) }

// AppendJSON appends v's JSON rendering to b.
func (v Value) AppendJSON(b []byte) ([]byte, error) {
	switch v.kind {
	case KindNull:
		return append(b, "null"...), nil
	case KindBool:
		return strconv.AppendBool(b, v.AsBool()), nil
	case KindInt:
		return strconv.AppendInt(b, v.AsInt(), 10), nil
	case KindFloat:
		f := v.AsFloat()
		if !ValidFloat(f) {
			return b, fmt.Errorf("the FLOAT %v has no JSON form", f)
		}
		return appendFloat(b, f), nil
	case KindString:
		s, _ := json.Marshal(v.s)
		return append(b, s...), nil
	case KindDate:
		return append(append(append(b, `{"date":"`...), v.s...), `"}`...), nil
	case KindDateTime:
		return append(append(append(b, `{"datetime":"`...), v.s...), `"}`...), nil
	case KindList:
		b = append(b, '[')
		for i, e := range v.AsList() {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = e.AppendJSON(b); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	}
	return b, fmt.Errorf("a value of kind %d has no JSON form", v.kind)
}

// UnmarshalJSON reads v as MarshalJSON writes it. A DATETIME is kept in
// the canonical form the store keeps (RFC 3339, its own offset).
func (v *Value) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return err
	}
	out, err := valueOfJSON(x, 0)
	if err == nil {
		*v = out
	}
	return err
}

func valueOfJSON(x any, depth int) (Value, error) {
	if depth > MaxNesting {
		return Value{}, ErrTooDeep
	}
	switch t := x.(type) {
	case nil:
		return Null(), nil
	case bool:
		return Bool(t), nil
	case string:
		return String(t), nil
	case json.Number:
		s := string(t)
		if !strings.ContainsAny(s, ".eE") {
			i, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return Value{}, fmt.Errorf("the number %s is outside INTEGER", s)
			}
			return Int(i), nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) {
			return Value{}, fmt.Errorf("the number %s is outside FLOAT", s)
		}
		return Float(f), nil
	case []any:
		l := make([]Value, len(t))
		for i, e := range t {
			var err error
			if l[i], err = valueOfJSON(e, depth+1); err != nil {
				return Value{}, err
			}
		}
		return Value{kind: KindList, l: &l}, nil
	case map[string]any:
		if len(t) == 1 {
			if s, ok := t["date"].(string); ok {
				if !ValidDate(s) {
					return Value{}, fmt.Errorf("DATE %q is not a date written YYYY-MM-DD", s)
				}
				return DateValue(s), nil
			}
			if s, ok := t["datetime"].(string); ok {
				tm, err := ParseDateTime(s)
				if err != nil {
					return Value{}, err
				}
				return DateTimeOf(tm)
			}
		}
	}
	return Value{}, fmt.Errorf("%T is not a value's JSON", x)
}

// MarshalJSON writes the properties as one object, in key order.
func (p Props) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, kv := range p {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(kv.Key)
		b = append(append(b, k...), ':')
		var err error
		if b, err = kv.Val.AppendJSON(b); err != nil {
			return nil, fmt.Errorf("property %s: %w", kv.Key, err)
		}
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads an object of properties (null values dropped).
func (p *Props) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	out := make(Props, 0, len(raw))
	for k, r := range raw {
		var v Value
		if err := v.UnmarshalJSON(r); err != nil {
			return fmt.Errorf("property %s: %w", k, err)
		}
		if !v.IsNull() {
			out = append(out, Prop{Key: k, Val: v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	if len(out) == 0 {
		out = nil
	}
	*p = out
	return nil
}

// dateTimeLayouts are the forms a DATETIME's text may take: RFC 3339
// first (what the store keeps), then ISO 8601's others.
var dateTimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04Z07:00",
	"2006-01-02 15:04",
}

// ParseDateTime parses DATETIME text in any of the forms a literal may
// take, with a lower-case 't' or 'z' as ISO 8601 allows; a time without
// an offset is UTC. It refuses (ErrDateFormat, ErrDateRange) text that
// is no date and time, or an instant outside the years 0000–9999 (the
// time it read is returned with ErrDateRange).
func ParseDateTime(s string) (time.Time, error) {
	t, ok := parseDateTime(s)
	if !ok {
		return time.Time{}, kinded(ErrDateFormat, "DATETIME '%s' is not an ISO 8601 date and time; write DATETIME '2026-01-31T12:00:00Z'", s)
	}
	if !InDateTimeRange(t) {
		return t, kinded(ErrDateRange, "DATETIME '%s' is outside the years 0000 to 9999 (UTC); write an instant within them", s)
	}
	return t, nil
}

func parseDateTime(s string) (time.Time, bool) {
	for _, l := range dateTimeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	if u := strings.ToUpper(s); u != s {
		return parseDateTime(u)
	}
	return time.Time{}, false
}

// ParseDate reads DATE text, YYYY-MM-DD, as a Date (ErrDateFormat
// otherwise).
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil || len(s) != len(time.DateOnly) {
		return Date{}, kinded(ErrDateFormat, "DATE '%s' is not a date written YYYY-MM-DD; write DATE '2026-01-31'", s)
	}
	return DateOf(t), nil
}
