package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
)

// Params are the values of a text's $parameters, as JSON gives them:
// an integer literal (no fraction, no exponent) is an INTEGER, any
// other number a FLOAT, strings, booleans, null and lists as they are,
// and {"date": "…"} or {"datetime": "…"} a DATE or a DATETIME. Read
// (UnmarshalJSON), they are the Go values the embedding API takes
// (int64, float64, values.Date, time.Time, …); EncodeParams writes Go
// values so.
type Params map[string]any

// UnmarshalJSON keeps integers and floats apart, which encoding/json's
// float64 would merge.
func (p *Params) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("params is an object of parameter names and values")
	}
	out := make(Params, len(raw))
	for k, v := range raw {
		var x any
		var err error
		dec := json.NewDecoder(strings.NewReader(string(v)))
		dec.UseNumber()
		if err = dec.Decode(&x); err != nil {
			return err
		}
		if out[k], err = ParamValue(x); err != nil {
			return err
		}
	}
	*p = out
	return nil
}

// ParamValue is the Go value of a parameter's JSON, decoded with
// UseNumber: json.Number becomes int64 or float64, an object of one
// "date" or "datetime" a values.Date or a time.Time, inside lists too.
func ParamValue(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		str := string(x)
		if !strings.ContainsAny(str, ".eE") {
			if i, err := strconv.ParseInt(str, 10, 64); err == nil {
				return i, nil
			}
		} else if f, err := strconv.ParseFloat(str, 64); err == nil && !math.IsInf(f, 0) {
			return f, nil
		}
		return nil, gqlstatus.Errorf(gqlstatus.NumericOutOfRange, "the parameter value %s is outside INTEGER and FLOAT", str).
			WithHint("integers are 64-bit; pass a larger number as a string")
	case []any:
		for i := range x {
			var err error
			if x[i], err = ParamValue(x[i]); err != nil {
				return nil, err
			}
		}
	case map[string]any:
		return temporalParam(x)
	}
	return v, nil
}

// temporalParam reads the JSON of a DATE or DATETIME parameter, which
// JSON has no literal for: {"date": "2026-01-31"} or {"datetime":
// "2026-01-31T10:00:00+02:00"}, by the rules of the GQL literals
// (values.ParseDate and values.ParseDateTime are those rules): text that
// is no date is 22007, an instant outside the years 0000–9999 22008.
func temporalParam(x map[string]any) (any, error) {
	bad := gqlstatus.Errorf(gqlstatus.InvalidValueType, "a parameter's value is an object, which GQL has no value for").
		WithHint(`pass a DATE as {"date": "2026-01-31"} and a DATETIME as {"datetime": "2026-01-31T10:00:00Z"}; other values as JSON numbers, strings, booleans, null or lists`)
	if len(x) != 1 {
		return nil, bad
	}
	for key, v := range x {
		// A quote or a backslash, which no DATE or DATETIME text holds,
		// is refused as an object GQL has no value for (22G03), as the
		// server has always answered it.
		text, ok := v.(string)
		if !ok || strings.ContainsAny(text, "'\\") {
			return nil, bad
		}
		switch key {
		case "date":
			d, err := values.ParseDate(text)
			if err != nil {
				return nil, gqlstatus.Errorf(gqlstatus.InvalidDateTimeFormat, "the parameter value {%q: %q} is not a date written YYYY-MM-DD", key, text).
					WithHint(`write a DATE as {"date": "2026-01-31"}`)
			}
			return d, nil
		case "datetime":
			t, err := values.ParseDateTime(text)
			switch {
			case errors.Is(err, values.ErrDateRange):
				return nil, gqlstatus.Errorf(gqlstatus.DateTimeOverflow, "the parameter value {%q: %q} is outside the years 0000 to 9999 (UTC)", key, text).
					WithHint("write an instant within the years 0000 to 9999, in UTC and in its own offset")
			case err != nil:
				return nil, gqlstatus.Errorf(gqlstatus.InvalidDateTimeFormat, "the parameter value {%q: %q} is not an ISO 8601 date and time", key, text).
					WithHint(`write a DATETIME as {"datetime": "2026-01-31T10:00:00Z"} (an offset such as +02:00 instead of Z; none: UTC)`)
			}
			return t, nil
		}
	}
	return nil, bad
}

// EncodeParams gives parameter values as the server reads them (the Go
// values the embedding API takes): a FLOAT with an integral value keeps
// a fraction (JSON would make it an INTEGER), a DATE is {"date": "…"}
// and a DATETIME {"datetime": "…"}. A value JSON cannot carry (NaN, ±Inf)
// or goldfish has no value for is refused (22G03), naming its parameter.
func EncodeParams(p map[string]any) (Params, error) {
	if len(p) == 0 {
		return nil, nil
	}
	out := make(Params, len(p))
	for k, v := range p {
		enc, err := encodeParam(k, v)
		if err != nil {
			return nil, err
		}
		out[k] = enc
	}
	return out, nil
}

func encodeParam(name string, v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string, int, int64, int32:
		return x, nil
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if strings.ContainsAny(s, "nN") { // NaN and ±Inf: JSON has none
			return nil, gqlstatus.Errorf(gqlstatus.InvalidValueType, "parameter $%s is %s, which a server's JSON cannot carry", name, s).
				WithHint("compute it in the statement instead")
		}
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return json.RawMessage(s), nil
	case values.Date:
		return map[string]string{"date": x.String()}, nil
	case time.Time:
		return map[string]string{"datetime": x.Format(time.RFC3339Nano)}, nil
	case []any:
		list := make([]any, len(x))
		for i, e := range x {
			var err error
			if list[i], err = encodeParam(name, e); err != nil {
				return nil, err
			}
		}
		return list, nil
	}
	return nil, gqlstatus.Errorf(gqlstatus.InvalidValueType, "parameter $%s is a %T, which goldfish has no value for", name, v).
		WithHint("pass an integer, float, string, boolean, null, DATE, DATETIME or a list of them")
}
