package repl

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// ParseValue reads a :param value as a GQL literal, by the rules a
// statement's literals follow (goldfish.ParseLiteral: the parser's own):
// integers are 64-bit (a larger one is an error, never a float), floats
// must be finite, DATE and DATETIME literals are typed values, strings
// take '…' or "…" with backslash escapes, lists nest. Errors are the
// parser's, with their columns counted from the start of s.
func ParseValue(s string) (any, error) {
	if strings.TrimSpace(s) == "" {
		return nil, metaErrorf(codeLiteral, "", "no value given")
	}
	return goldfish.ParseLiteral(s)
}

// FormatValue writes a parameter value back as a literal.
func FormatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case goldfish.Date:
		return "DATE '" + x.String() + "'"
	case time.Time:
		return "DATETIME '" + x.Format(time.RFC3339Nano) + "'"
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

// maxShown is the most bytes of a parameter's literal :param and :params
// print; a longer one is cut, with its size.
const maxShown = 200

func shortValue(v any) string {
	s := FormatValue(v)
	if len(s) <= maxShown {
		return s
	}
	return cutRunes([]byte(s), maxShown) + "… (" + byteCount(len(s)) + ")"
}

func validParamName(name string) bool {
	for i, r := range name {
		if !(r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return name != ""
}

// metaParamLine runs ":param NAME VALUE": rest is the line after
// ":param", which starts at byte at of m.Text.
func (sh *Shell) metaParamLine(ctx context.Context, m Meta, rest string, at int) error {
	trimmed := strings.TrimLeft(rest, " \t")
	at += len(rest) - len(trimmed)
	name, val, _ := strings.Cut(trimmed, " ")
	valAt := at + len(name) + 1
	name = strings.TrimPrefix(strings.TrimSpace(name), "$")
	if v := strings.TrimLeft(val, " \t"); v != val {
		valAt += len(val) - len(v)
		val = v
	}
	val = strings.TrimSpace(val)
	if name == "" {
		return metaErrorf(codeUsage, ":params lists them",
			"usage: :param NAME VALUE (VALUE a GQL literal: 1, 2.5, true, null, 'text', [1, 2], DATE '2026-01-31')")
	}
	if !validParamName(name) {
		return metaErrorf(codeName, "", "parameter name %q: use letters, digits and '_', not starting with a digit", name)
	}
	if val == "" {
		if _, ok := sh.r.Params[name]; !ok {
			return metaErrorf(codeNoSuch, fmt.Sprintf(":param %s VALUE sets it", name), "no parameter $%s", name)
		}
		delete(sh.r.Params, name)
		sh.printf("$%s removed\n", name)
		return nil
	}
	v, err := ParseValue(val)
	if err != nil {
		var ge *gqlstatus.Error
		if !errors.As(err, &ge) {
			return err
		}
		out := *ge
		out.Msg = "$" + name + ": " + out.Msg
		// Point into the meta-command line: the value starts at valAt.
		col := 1
		if ge.Pos.Valid() {
			col = ge.Pos.Col
		}
		out.Pos = gqlstatus.Pos{Line: m.Line, Col: m.Col + len([]rune(m.Text[:valAt])) + col - 1, Offset: m.Offset + valAt}
		out.Line = strings.Repeat(" ", max(m.Col-1, 0)) + m.Text
		return &out
	}
	if sh.r.Params == nil {
		sh.r.Params = map[string]any{}
	}
	sh.r.Params[name] = v
	sh.printf("$%s = %s\n", name, shortValue(v))
	return nil
}

func (sh *Shell) metaParams(_ context.Context, args []string) error {
	if err := wantArgs(args, 0, 1, ":params [clear]"); err != nil {
		return err
	}
	if len(args) == 1 {
		if args[0] != "clear" {
			return metaErrorf(codeUsage, "", "usage: :params [clear]")
		}
		n := len(sh.r.Params)
		sh.r.Params = nil
		sh.printf("%d %s removed\n", n, plural(n, "parameter", "parameters"))
		return nil
	}
	if len(sh.r.Params) == 0 {
		sh.printf("no parameters; :param NAME VALUE sets one\n")
		return nil
	}
	names := make([]string, 0, len(sh.r.Params))
	for n := range sh.r.Params {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		sh.printf("$%s = %s\n", n, shortValue(sh.r.Params[n]))
	}
	return nil
}
