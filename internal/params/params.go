// Package params turns the Go values a caller passes (Commit and Recall
// parameters) into stored values under the R byte budget. (Stored values
// become Go values by values.Value.Go.)
package params

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
)

// Parameters arrive as Go values and leave as stored values that the
// cabinet's log must hold and hydrate must read back (docs/design.md#persistence-and-history), so they
// are refused here, before anything applies, when no property could hold
// them: lists nested deeper than values.MaxNesting (22Q05) or holding
// themselves (22G03), strings that are not UTF-8 (22G03), NaN and infinite
// floats (22003), times outside the years 0000–9999 (22008), Go types with
// no GQL value (22G03). They are also
// measured while they are converted, as the bytes of their GQL literals,
// and the conversion stops as soon as the bound is passed, so a huge
// parameter costs the bound's worth of work, never its own size.

// Commit converts a Commit's parameters. Together (names and
// literals) they take at most limit bytes, R's byte budget (limit ≤ 0
// means values.DefaultBudget's); over it the Δ fails whole with the R
// budget's error (22Q02), naming the parameter where the bound was
// passed. A parameter no property can hold fails (22G03 and the codes
// above), whether or not the Δ uses it: every parameter goes into the log.
func Commit(params map[string]any, limit int) (map[string]values.Value, error) {
	if len(params) == 0 {
		return nil, nil
	}
	if limit <= 0 {
		limit = values.DefaultBudget.Bytes
	}
	out := make(map[string]values.Value, len(params))
	if name, err := convertParams(out, params, limit); err != nil {
		return nil, paramError(name, err, limit, true)
	}
	return out, nil
}

// Recall converts a Recall's parameters into out. A Recall
// parameter is part of the token and goes into the Shape cache's key, so
// it is held to what a Commit parameter is: a value a property could hold
// (22G03 and the codes above), and together at most limit bytes as GQL
// literals, the R byte budget of the database the Recall reads (≤ 0:
// values.DefaultBudget's; over it, R's error, 22Q02).
func Recall(out map[string]values.Value, params map[string]any, limit int) error {
	if limit <= 0 {
		limit = values.DefaultBudget.Bytes
	}
	if name, err := convertParams(out, params, limit); err != nil {
		return paramError(name, err, limit, false)
	}
	return nil
}

// Converter converts Recall parameters one at a time under one
// running byte bound (the R byte budget), with Recall's errors: for
// the Shape cache's key, which reads the caller's values without
// building a map of them.
type Converter struct {
	c     converter
	limit int
}

func NewConverter(limit int) Converter {
	if limit <= 0 {
		limit = values.DefaultBudget.Bytes
	}
	return Converter{c: converter{left: limit}, limit: limit}
}

// Recall converts the Recall parameter name.
func (p *Converter) Recall(name string, v any) (values.Value, error) {
	if err := p.c.spend(len(name)); err != nil {
		return values.Value{}, paramError(name, err, p.limit, false)
	}
	sv, err := p.c.value(v, 0)
	if err != nil {
		return values.Value{}, paramError(name, err, p.limit, false)
	}
	return sv, nil
}

// convertParams converts params into out under one running byte bound
// and returns the name of the parameter that failed. The fast pass goes
// in map order; when it fails, a second pass in name order finds the
// parameter to report, so the same call always fails the same way.
func convertParams(out map[string]values.Value, params map[string]any, limit int) (string, error) {
	c := converter{left: limit}
	for k, v := range params {
		if err := c.param(out, k, v); err != nil {
			if len(params) == 1 {
				return k, err
			}
			clear(out)
			return convertSorted(out, params, limit)
		}
	}
	return "", nil
}

func convertSorted(out map[string]values.Value, params map[string]any, limit int) (string, error) {
	names := make([]string, 0, len(params))
	for k := range params {
		names = append(names, k)
	}
	sort.Strings(names)
	c := converter{left: limit}
	for _, k := range names {
		if err := c.param(out, k, params[k]); err != nil {
			return k, err
		}
	}
	return "", nil
}

// paramError words a conversion error of parameter name: the R budget's
// (22Q02) or an invalid value's (22G03, or the code of what is wrong with
// it: 22003 for a number out of range, say).
func paramError(name string, err error, limit int, commit bool) error {
	if errors.Is(err, errOverBudget) {
		if commit {
			return gqlstatus.Errorf(gqlstatus.CommitBudget,
				"Δ parameters are over the R budget of %d bytes (as GQL literals) at $%s; nothing applied", limit, name).
				WithHint("pass less data per Commit, or split the Δ into smaller commits")
		}
		return gqlstatus.Errorf(gqlstatus.CommitBudget,
			"Recall parameters are over the R budget of %d bytes (as GQL literals) at $%s", limit, name).
			WithHint("a codebook token is small: pass shorter values")
	}
	var ve *valueError
	if errors.As(err, &ve) {
		return gqlstatus.Errorf(ve.code, "parameter $%s%s: %s", name, ve.where(), ve.msg).WithHint(ve.hint)
	}
	return gqlstatus.Errorf(values.ValueCode(err), "parameter $%s: %v", name, err)
}

// errOverBudget ends a conversion that passed its byte bound.
var errOverBudget = errors.New("over the byte bound")

// valueError is a Go value no property can hold, with the list indexes
// that lead to it from the parameter.
type valueError struct {
	path      []int // outermost first
	code      gqlstatus.Code
	msg, hint string
}

func (e *valueError) Error() string {
	if len(e.path) == 0 {
		return e.msg
	}
	return "element " + e.where() + ": " + e.msg
}

func (e *valueError) where() string {
	var b strings.Builder
	for _, i := range e.path {
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(i))
		b.WriteByte(']')
	}
	return b.String()
}

func invalid(code gqlstatus.Code, hint, format string, args ...any) error {
	return &valueError{code: code, msg: fmt.Sprintf(format, args...), hint: hint}
}

// converter converts Go values to stored values, spending a running
// budget of literal bytes.
type converter struct {
	left int
	// lists are the Go slices being converted, outermost first: meeting
	// one again inside itself is a list that holds itself.
	lists []sliceRef
}

type sliceRef struct {
	data uintptr
	n    int
}

func (c *converter) spend(n int) error {
	c.left -= n
	if c.left < 0 {
		return errOverBudget
	}
	return nil
}

func (c *converter) param(out map[string]values.Value, name string, v any) error {
	if err := c.spend(len(name)); err != nil {
		return err
	}
	sv, err := c.value(v, 0)
	if err != nil {
		return err
	}
	out[name] = sv
	return nil
}

// scalar spends v's literal bytes and returns it.
func (c *converter) scalar(v values.Value) (values.Value, error) {
	return v, c.spend(v.Size())
}

// value converts v, which sits inside depth lists.
func (c *converter) value(v any, depth int) (values.Value, error) {
	switch x := v.(type) {
	case nil:
		return c.scalar(values.Null())
	case values.Value:
		return x, c.stored(x, depth)
	case bool:
		return c.scalar(values.Bool(x))
	case string:
		return c.str(x)
	case int:
		return c.scalar(values.Int(int64(x)))
	case int8:
		return c.scalar(values.Int(int64(x)))
	case int16:
		return c.scalar(values.Int(int64(x)))
	case int32:
		return c.scalar(values.Int(int64(x)))
	case int64:
		return c.scalar(values.Int(x))
	case uint8:
		return c.scalar(values.Int(int64(x)))
	case uint16:
		return c.scalar(values.Int(int64(x)))
	case uint32:
		return c.scalar(values.Int(int64(x)))
	case uint:
		return c.unsigned(uint64(x))
	case uint64:
		return c.unsigned(x)
	case float32:
		return c.float(float64(x))
	case float64:
		return c.float(x)
	case time.Time:
		dt, err := values.DateTimeOf(x)
		if err != nil {
			return values.Value{}, invalid(gqlstatus.DateTimeOverflow, "pass a time in the years 0000 to 9999", "%v", err)
		}
		return c.scalar(dt)
	case values.Date:
		return c.day(x)
	case CalendarDay:
		y, m, d := x.Date()
		return c.day(values.Date{Year: y, Month: m, Day: d})
	}
	return c.composite(v, depth)
}

func (c *converter) day(d values.Date) (values.Value, error) {
	v, err := dayValue(d)
	if err != nil {
		return values.Value{}, err
	}
	return c.scalar(v)
}

// composite converts a Go slice or array (kept out of value, whose
// scalar cases are the common parameters).
func (c *converter) composite(v any, depth int) (values.Value, error) {
	switch x := v.(type) {
	case []any:
		return c.list(len(x), x, depth, func(i, d int) (values.Value, error) { return c.value(x[i], d) })
	case []string:
		return c.list(len(x), nil, depth, func(i, _ int) (values.Value, error) { return c.str(x[i]) })
	}
	rv := reflect.ValueOf(v)
	elem := func(i, d int) (values.Value, error) { return c.value(rv.Index(i).Interface(), d) }
	switch rv.Kind() {
	case reflect.Slice:
		return c.list(rv.Len(), v, depth, elem)
	case reflect.Array:
		return c.list(rv.Len(), nil, depth, elem)
	}
	return values.Value{}, invalid(gqlstatus.InvalidValueType, "pass nil, a bool, an integer, a float, a string, a goldfish.Date, a time.Time or a slice of those",
		"a value of Go type %T cannot be a GQL value", v)
}

func (c *converter) str(s string) (values.Value, error) {
	// A literal is at least as long as its text plus its quotes: a huge
	// string is refused before it is read.
	if len(s)+2 > c.left {
		return values.Value{}, errOverBudget
	}
	n, ok := values.QuotedSize(s)
	if !ok {
		return values.Value{}, invalid(gqlstatus.InvalidValueType, "send text as UTF-8, or binary data encoded (base64, hex)", "%v", values.String(s).Check())
	}
	return values.String(s), c.spend(n)
}

func (c *converter) unsigned(u uint64) (values.Value, error) {
	if u > math.MaxInt64 {
		return values.Value{}, invalid(gqlstatus.NumericOutOfRange, "pass a float or a string for larger numbers", "%d is above the INTEGER range", u)
	}
	return c.scalar(values.Int(int64(u)))
}

func (c *converter) float(f float64) (values.Value, error) {
	v, err := floatValue(f)
	if err != nil {
		return values.Value{}, invalid(gqlstatus.NumericOutOfRange, "pass null, or a string such as \"NaN\"", "%v", err)
	}
	return c.scalar(v)
}

func floatValue(f float64) (values.Value, error) {
	if !values.ValidFloat(f) {
		return values.Value{}, values.ErrNotFinite
	}
	return values.Float(f), nil
}

// list converts the n elements of a Go slice or array, which sits inside
// depth lists, with elem (given the index and the elements' depth). A
// slice that could hold itself is passed as s, to be checked against the
// slices it is inside.
func (c *converter) list(n int, s any, depth int, elem func(i, depth int) (values.Value, error)) (values.Value, error) {
	if depth >= values.MaxNesting {
		return values.Value{}, tooDeep()
	}
	// Brackets, separators and at least one byte per element: a list too
	// long for the bound is refused before its elements are read.
	if err := c.spend(2 + max(0, 2*(n-1))); err != nil {
		return values.Value{}, err
	}
	if n > c.left {
		return values.Value{}, errOverBudget
	}
	if n == 0 {
		return values.List(), nil
	}
	if s != nil {
		ref := sliceRef{data: reflect.ValueOf(s).Pointer(), n: n}
		for _, up := range c.lists {
			if up == ref {
				return values.Value{}, invalid(gqlstatus.InvalidValueType, "break the cycle: a list cannot hold itself", "the list holds itself")
			}
		}
		c.lists = append(c.lists, ref)
		defer func() { c.lists = c.lists[:len(c.lists)-1] }()
	}
	elems := make([]values.Value, n)
	for i := range elems {
		e, err := elem(i, depth+1)
		if err != nil {
			var ve *valueError
			if errors.As(err, &ve) {
				ve.path = append([]int{i}, ve.path...)
			}
			return values.Value{}, err
		}
		elems[i] = e
	}
	return values.List(elems...), nil
}

// stored checks and spends a values.Value given as a Go value, which sits
// inside depth lists.
func (c *converter) stored(v values.Value, depth int) error {
	if v.Kind() != values.KindList {
		if err := v.Check(); err != nil {
			return invalid(values.ValueCode(err), "pass a value a property can hold", "%v", err)
		}
		return c.spend(v.Size())
	}
	if depth >= values.MaxNesting {
		return tooDeep()
	}
	l := v.AsList()
	if err := c.spend(2 + max(0, 2*(len(l)-1))); err != nil {
		return err
	}
	for i, e := range l {
		if err := c.stored(e, depth+1); err != nil {
			var ve *valueError
			if errors.As(err, &ve) {
				ve.path = append([]int{i}, ve.path...)
			}
			return err
		}
	}
	return nil
}

func tooDeep() error {
	return invalid(gqlstatus.ValueBudget, "flatten the value, or pass the inner lists as strings",
		"lists are nested more than %d deep", values.MaxNesting)
}
