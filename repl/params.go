package repl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// ParseValue reads a :param value: a JSON literal (numbers, true, false,
// null, "strings", [lists]) or a single-quoted string as GQL writes it.
// Whole numbers become int64, other numbers float64, lists []any.
func ParseValue(s string) (any, error) {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return unquoteSingle(s[1 : len(s)-1])
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, gqlstatus.Errorf(gqlstatus.Syntax, "%q is not a literal; write 1, 2.5, true, false, null, \"text\" or [1, \"a\"]", s)
	}
	if dec.More() || dec.InputOffset() != int64(len(s)) {
		if rest := bytes.TrimSpace([]byte(s[dec.InputOffset():])); len(rest) > 0 {
			return nil, gqlstatus.Errorf(gqlstatus.Syntax, "%q is more than one literal; quote a string with spaces", s)
		}
	}
	if _, ok := v.(map[string]any); ok {
		return nil, gqlstatus.Errorf(gqlstatus.InvalidValueType, "maps are not GQL property values; use a list or a string")
	}
	return convertNumbers(v)
}

func convertNumbers(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, gqlstatus.Errorf(gqlstatus.NumericOutOfRange, "number %s is out of range", x)
		}
		return f, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := convertNumbers(e)
			if err != nil {
				return nil, err
			}
			if _, ok := c.(map[string]any); ok {
				return nil, gqlstatus.Errorf(gqlstatus.InvalidValueType, "maps are not GQL property values")
			}
			out[i] = c
		}
		return out, nil
	}
	return v, nil
}

// FormatValue writes a parameter value back as a literal.
func FormatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(x)
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEn") {
			s += ".0"
		}
		return s
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = FormatValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

func validParamName(name string) bool {
	for i, r := range name {
		if !(r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return name != ""
}

// unquoteSingle reads the body of a '…' string: a backslash escapes the
// next character (\n and \t are newline and tab).
func unquoteSingle(body string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == '\'' {
			return "", gqlstatus.Errorf(gqlstatus.Syntax, "unescaped ' inside '%s'; write \\'", body)
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(body) {
			return "", gqlstatus.Errorf(gqlstatus.Syntax, "string '%s' ends with a lone backslash", body)
		}
		switch body[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		default:
			b.WriteByte(body[i])
		}
	}
	return b.String(), nil
}
