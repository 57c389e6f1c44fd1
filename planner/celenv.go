package planner

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	"github.com/goldfish-gql/goldfish/celval"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
)

// Predicates and computed values run as CEL programs over GQL values. GQL's
// three-valued logic has no CEL counterpart, so every operator is a gql_*
// function over dyn that treats null as "unknown": a comparison with null is
// null, NOT null is null, and a WHERE keeps a row only when it is true.

// Element is the CEL value of a variable bound to a node or an edge.
type Element struct {
	Node *store.Node
	Edge *store.Edge
}

var elementType = types.NewOpaqueType("gql.element")

// ConvertToNative implements ref.Val.
func (e Element) ConvertToNative(reflect.Type) (any, error) {
	return nil, fmt.Errorf("a graph element has no native form")
}

// ConvertToType implements ref.Val.
func (e Element) ConvertToType(t ref.Type) ref.Val {
	if t == elementType {
		return e
	}
	return types.NewErr("a graph element cannot be converted to %s", t.TypeName())
}

// Equal implements ref.Val: the same element.
func (e Element) Equal(o ref.Val) ref.Val {
	f, ok := o.(Element)
	if !ok {
		return types.False
	}
	if e.Node != nil {
		return types.Bool(f.Node != nil && f.Node.ID == e.Node.ID)
	}
	return types.Bool(f.Edge != nil && e.Edge != nil && f.Edge.ID == e.Edge.ID)
}

// Type implements ref.Val.
func (e Element) Type() ref.Type { return elementType }

// Value implements ref.Val.
func (e Element) Value() any { return e }

func (e Element) props() store.Props {
	if e.Node != nil {
		return e.Node.Props
	}
	if e.Edge != nil {
		return e.Edge.Props
	}
	return nil
}

// ToCEL converts a stored value to its CEL form: celval.Of, the one
// conversion views and preconditions read values by too.
func ToCEL(v store.Value) ref.Val { return celval.Of(v) }

// ErrUnsupported is returned by FromCEL for values a property cannot hold.
// Code is its GQLSTATUS when the value's type is not the trouble (a FLOAT
// that is not finite, a DATE out of range); empty means 22G03.
type ErrUnsupported struct {
	TypeName string
	Code     gqlstatus.Code
}

// GQLStatus implements gqlstatus.Coded.
func (e ErrUnsupported) GQLStatus() gqlstatus.Code {
	if e.Code == "" {
		return gqlstatus.InvalidValueType
	}
	return e.Code
}

func (e ErrUnsupported) Error() string {
	return fmt.Sprintf("a property cannot hold a value of type %s", e.TypeName)
}

// FromCEL converts a CEL result back to a stored value. It refuses what
// no property can hold and the literal syntax could not write back: a
// NaN or infinite float, lists nested deeper than store.MaxNesting, a
// DATE or DATETIME outside the years 0000–9999 (a DATETIME is written
// in UTC, which can leave that range when the value's own offset does
// not).
func FromCEL(v ref.Val) (store.Value, error) { return fromCEL(v, 0) }

// fromCEL is FromCEL for a value inside depth lists.
func fromCEL(v ref.Val, depth int) (store.Value, error) {
	switch x := v.(type) {
	case types.Null:
		return store.Null(), nil
	case types.Bool:
		return store.Bool(bool(x)), nil
	case types.Int:
		return store.Int(int64(x)), nil
	case types.Uint:
		if uint64(x) > math.MaxInt64 {
			return store.Value{}, ErrUnsupported{TypeName: "unsigned integer above the INTEGER range", Code: gqlstatus.NumericOutOfRange}
		}
		return store.Int(int64(x)), nil
	case types.Double:
		if !store.ValidFloat(float64(x)) {
			return store.Value{}, ErrUnsupported{TypeName: "FLOAT (NaN or infinity)", Code: gqlstatus.NumericOutOfRange}
		}
		return store.Float(float64(x)), nil
	case types.String:
		return store.String(string(x)), nil
	case types.Timestamp:
		t := x.Time.UTC()
		if celval.IsDate(x) {
			if !store.InDateTimeRange(t) {
				return store.Value{}, ErrUnsupported{TypeName: "DATE outside the years 0000 to 9999", Code: gqlstatus.DateTimeOverflow}
			}
			return store.Date(t.Format(time.DateOnly)), nil
		}
		if !store.InDateTimeRange(t) {
			return store.Value{}, ErrUnsupported{TypeName: "DATETIME outside the years 0000 to 9999 (UTC)", Code: gqlstatus.DateTimeOverflow}
		}
		return store.DateTime(t.Format(time.RFC3339Nano)), nil
	case Element:
		return store.Value{}, ErrUnsupported{TypeName: "graph element"}
	case traits.Lister:
		if depth >= store.MaxNesting {
			return store.Value{}, ErrUnsupported{TypeName: fmt.Sprintf("LIST nested more than %d deep", store.MaxNesting), Code: gqlstatus.ValueBudget}
		}
		n := int(x.Size().(types.Int))
		out := make([]store.Value, n)
		for i := 0; i < n; i++ {
			e, err := fromCEL(x.Get(types.Int(i)), depth+1)
			if err != nil {
				return store.Value{}, err
			}
			out[i] = e
		}
		return store.List(out...), nil
	case traits.Mapper:
		return store.Value{}, ErrUnsupported{TypeName: "MAP"}
	case *types.Err:
		return store.Value{}, x
	}
	return store.Value{}, ErrUnsupported{TypeName: v.Type().TypeName()}
}

func isNull(v ref.Val) bool {
	_, ok := v.(types.Null)
	return ok
}

// truth maps a value to true, false or unknown (ok=false).
func truth(v ref.Val) (b, ok bool) {
	if x, isBool := v.(types.Bool); isBool {
		return bool(x), true
	}
	return false, false
}

func boolOrNull(b, ok bool) ref.Val {
	if !ok {
		return types.NullValue
	}
	return types.Bool(b)
}

func number(v ref.Val) (float64, bool) {
	switch x := v.(type) {
	case types.Int:
		return float64(x), true
	case types.Double:
		return float64(x), true
	case types.Uint:
		return float64(x), true
	}
	return 0, false
}

// compare orders two non-null values of comparable types; ok is false when
// they are not comparable (the comparison is then unknown).
func compare(a, b ref.Val) (c int, ok bool) {
	if ai, isInt := a.(types.Int); isInt {
		if bi, isInt := b.(types.Int); isInt {
			return cmp3(int64(ai) < int64(bi), int64(ai) > int64(bi)), true
		}
	}
	if af, aok := number(a); aok {
		if bf, bok := number(b); bok {
			return cmp3(af < bf, af > bf), true
		}
		return 0, false
	}
	switch x := a.(type) {
	case types.String:
		if y, ok := b.(types.String); ok {
			return strings.Compare(string(x), string(y)), true
		}
	case types.Bool:
		if y, ok := b.(types.Bool); ok {
			return cmp3(!bool(x) && bool(y), bool(x) && !bool(y)), true
		}
	case types.Timestamp:
		// DATE and DATETIME alike: a DATE is the instant of its midnight.
		y, ok := b.(types.Timestamp)
		if !ok || y.Time.IsZero() {
			return 0, false
		}
		return x.Time.Compare(y.Time), true
	}
	return 0, false
}

func cmp3(lt, gt bool) int {
	switch {
	case lt:
		return -1
	case gt:
		return 1
	}
	return 0
}

// equal is GQL equality: unknown with null, numbers by value, lists
// element-wise, elements by identity, different types unequal.
func equal(a, b ref.Val) (eq, ok bool) {
	if isNull(a) || isNull(b) {
		return false, false
	}
	if la, isList := a.(traits.Lister); isList {
		lb, isList := b.(traits.Lister)
		if !isList {
			return false, true
		}
		n := la.Size().(types.Int)
		if lb.Size().(types.Int) != n {
			return false, true
		}
		unknown := false
		for i := types.Int(0); i < n; i++ {
			e, known := equal(la.Get(i), lb.Get(i))
			if known && !e {
				return false, true
			}
			unknown = unknown || !known
		}
		return true, !unknown
	}
	if ea, isElem := a.(Element); isElem {
		return ea.Equal(b) == types.True, true
	}
	c, comparable := compare(a, b)
	if !comparable {
		return false, true
	}
	return c == 0, true
}

func binary(name string, fn func(a, b ref.Val) ref.Val) cel.EnvOption {
	return cel.Function(name, cel.Overload(name+"_dyn_dyn",
		[]*cel.Type{cel.DynType, cel.DynType}, cel.DynType, cel.BinaryBinding(priced(name, fn))))
}

func unary(name string, fn func(a ref.Val) ref.Val) cel.EnvOption {
	return cel.Function(name, cel.Overload(name+"_dyn",
		[]*cel.Type{cel.DynType}, cel.DynType, cel.UnaryBinding(fn)))
}

// gqlType names a CEL value's type the way GQL does, for messages.
func gqlType(v ref.Val) string {
	switch x := v.(type) {
	case types.Null:
		return "NULL"
	case types.Bool:
		return "BOOLEAN"
	case types.Int, types.Uint:
		return "INTEGER"
	case types.Double:
		return "FLOAT"
	case types.String:
		return "STRING"
	case types.Timestamp:
		if celval.IsDate(x) {
			return "DATE"
		}
		return "DATETIME"
	case Element:
		return "graph element"
	case traits.Lister:
		return "LIST"
	}
	return v.Type().TypeName()
}

// mismatch is the data exception of an operator applied to values of types
// it does not take (22G03); null is never a mismatch, it is unknown.
func mismatch(op string, a, b ref.Val) ref.Val {
	return types.WrapErr(&mismatchError{fmt.Sprintf("cannot apply %s to %s and %s", op, gqlType(a), gqlType(b)), gqlstatus.InvalidValueType})
}

// incomparable is an ordering between values of different types (22G04).
func incomparable(op string, a, b ref.Val) ref.Val {
	return types.WrapErr(&mismatchError{fmt.Sprintf("cannot compare %s with %s by %s", gqlType(a), gqlType(b), op), gqlstatus.NotComparable})
}

// truthTest builds a truth-value test: null is the unknown truth value,
// a boolean is known, anything else cannot be tested.
func truthTest(op string, test func(b, known bool) bool) func(a ref.Val) ref.Val {
	return func(a ref.Val) ref.Val {
		if isNull(a) {
			return types.Bool(test(false, false))
		}
		b, ok := a.(types.Bool)
		if !ok {
			return types.WrapErr(&mismatchError{fmt.Sprintf("cannot apply %s to %s: it tests a boolean", op, gqlType(a)), gqlstatus.InvalidValueType})
		}
		return types.Bool(test(bool(b), true))
	}
}

// mismatchError marks the data exception of mismatched operand types, so
// the message can be given its advice by kind.
type mismatchError struct {
	msg  string
	code gqlstatus.Code
}

func (e *mismatchError) Error() string             { return e.msg }
func (e *mismatchError) GQLStatus() gqlstatus.Code { return e.code }

func ordering(op string, test func(c int) bool) func(a, b ref.Val) ref.Val {
	return func(a, b ref.Val) ref.Val {
		if isNull(a) || isNull(b) {
			return types.NullValue
		}
		c, ok := compare(a, b)
		if !ok {
			return incomparable(op, a, b)
		}
		return types.Bool(test(c))
	}
}

func strings2(op string, test func(s, t string) bool) func(a, b ref.Val) ref.Val {
	return func(a, b ref.Val) ref.Val {
		if isNull(a) || isNull(b) {
			return types.NullValue
		}
		s, sok := a.(types.String)
		t, tok := b.(types.String)
		if !sok || !tok {
			return mismatch(op, a, b)
		}
		return types.Bool(test(string(s), string(t)))
	}
}

func arith(op string, ints func(x, y int64) (int64, error), floats func(x, y float64) float64) func(a, b ref.Val) ref.Val {
	return func(a, b ref.Val) ref.Val {
		if isNull(a) || isNull(b) {
			return types.NullValue
		}
		if x, ok := a.(types.Int); ok {
			if y, ok := b.(types.Int); ok {
				r, err := ints(int64(x), int64(y))
				if err != nil {
					return types.WrapErr(fmt.Errorf("%w in %s", err, op))
				}
				return types.Int(r)
			}
		}
		x, xok := number(a)
		y, yok := number(b)
		if !xok || !yok {
			return mismatch(op, a, b)
		}
		if y == 0 && (op == "/" || op == "%") {
			return types.WrapErr(fmt.Errorf("%w in %s", errDivZero, op)) // as for integers (ISO: any numeric type)
		}
		r := floats(x, y)
		if !store.ValidFloat(r) {
			return types.WrapErr(&codedError{gqlstatus.NumericOutOfRange, "the result of " + op + " is not a finite FLOAT"})
		}
		return types.Double(r)
	}
}

var (
	errOverflow = &codedError{gqlstatus.NumericOutOfRange, "INTEGER overflow"}
	errDivZero  = &codedError{gqlstatus.DivisionByZero, "division by zero"}
)

func overflowIf(b bool) error {
	if b {
		return errOverflow
	}
	return nil
}

func celFunctions() []cel.EnvOption {
	return []cel.EnvOption{
		binary("gql_and", func(a, b ref.Val) ref.Val {
			x, xok := truth(a)
			y, yok := truth(b)
			if (xok && !x) || (yok && !y) {
				return types.False
			}
			return boolOrNull(true, xok && yok)
		}),
		binary("gql_or", func(a, b ref.Val) ref.Val {
			x, xok := truth(a)
			y, yok := truth(b)
			if (xok && x) || (yok && y) {
				return types.True
			}
			return boolOrNull(false, xok && yok)
		}),
		binary("gql_xor", func(a, b ref.Val) ref.Val {
			x, xok := truth(a)
			y, yok := truth(b)
			return boolOrNull(x != y, xok && yok)
		}),
		unary("gql_not", func(a ref.Val) ref.Val {
			x, ok := truth(a)
			return boolOrNull(!x, ok)
		}),
		binary("gql_eq", func(a, b ref.Val) ref.Val { return boolOrNull(equal(a, b)) }),
		binary("gql_ne", func(a, b ref.Val) ref.Val {
			e, ok := equal(a, b)
			return boolOrNull(!e, ok)
		}),
		binary("gql_lt", ordering("<", func(c int) bool { return c < 0 })),
		binary("gql_le", ordering("<=", func(c int) bool { return c <= 0 })),
		binary("gql_gt", ordering(">", func(c int) bool { return c > 0 })),
		binary("gql_ge", ordering(">=", func(c int) bool { return c >= 0 })),
		binary("gql_in", func(a, b ref.Val) ref.Val {
			l, ok := b.(traits.Lister)
			if !ok || isNull(a) {
				return types.NullValue
			}
			unknown := false
			n := l.Size().(types.Int)
			for i := types.Int(0); i < n; i++ {
				e, known := equal(a, l.Get(i))
				if known && e {
					return types.True
				}
				unknown = unknown || !known
			}
			return boolOrNull(false, !unknown)
		}),
		binary("gql_starts", strings2("STARTS WITH", strings.HasPrefix)),
		binary("gql_ends", strings2("ENDS WITH", strings.HasSuffix)),
		binary("gql_contains", strings2("CONTAINS", strings.Contains)),
		binary("gql_keyword", func(a, b ref.Val) ref.Val {
			if isNull(a) || isNull(b) {
				return types.NullValue
			}
			e, ok := a.(Element)
			w, wok := b.(types.String)
			if !ok || !wok {
				return mismatch("CONTAINS", a, b)
			}
			return types.Bool(Keyword(e.props(), string(w)))
		}),
		binary("gql_add", func(a, b ref.Val) ref.Val {
			if s, ok := a.(types.String); ok {
				if t, ok := b.(types.String); ok {
					return joinStrings("+", s, t)
				}
			}
			return arith("+", func(x, y int64) (int64, error) {
				r := x + y
				return r, overflowIf((r > x) != (y > 0))
			}, func(x, y float64) float64 { return x + y })(a, b)
		}),
		binary("gql_sub", arith("-", func(x, y int64) (int64, error) {
			r := x - y
			return r, overflowIf((r < x) != (y > 0))
		}, func(x, y float64) float64 { return x - y })),
		binary("gql_mul", arith("*", func(x, y int64) (int64, error) {
			if x == 0 || y == 0 {
				return 0, nil
			}
			r := x * y
			return r, overflowIf(r/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64))
		}, func(x, y float64) float64 { return x * y })),
		binary("gql_div", arith("/", func(x, y int64) (int64, error) {
			switch {
			case y == 0:
				return 0, errDivZero
			case x == math.MinInt64 && y == -1:
				return 0, errOverflow
			}
			return x / y, nil
		}, func(x, y float64) float64 { return x / y })),
		binary("gql_mod", arith("%", func(x, y int64) (int64, error) {
			switch y {
			case 0:
				return 0, errDivZero
			case -1:
				return 0, nil
			}
			return x % y, nil
		}, math.Mod)),
		binary("gql_concat", func(a, b ref.Val) ref.Val {
			if s, ok := a.(types.String); ok {
				if t, ok := b.(types.String); ok {
					return joinStrings("||", s, t)
				}
			}
			la, aok := a.(traits.Lister)
			lb, bok := b.(traits.Lister)
			if aok && bok {
				return joinLists(la, lb)
			}
			return types.NullValue
		}),
		unary("gql_neg", func(a ref.Val) ref.Val {
			switch x := a.(type) {
			case types.Int:
				if x == math.MinInt64 {
					return types.NullValue
				}
				return -x
			case types.Double:
				return -x
			}
			return types.NullValue
		}),
		unary("gql_plus", func(a ref.Val) ref.Val {
			if _, ok := number(a); ok {
				return a
			}
			return types.NullValue
		}),
		unary("gql_isnull", func(a ref.Val) ref.Val { return types.Bool(isNull(a)) }),
		// IS TRUE, IS FALSE, IS UNKNOWN: true or false, never unknown
		// themselves; a value that is not a boolean is a data exception.
		unary("gql_istrue", truthTest("IS TRUE", func(b bool, known bool) bool { return known && b })),
		unary("gql_isfalse", truthTest("IS FALSE", func(b bool, known bool) bool { return known && !b })),
		unary("gql_isunknown", truthTest("IS UNKNOWN", func(_ bool, known bool) bool { return !known })),
		unary("gql_anylabel", func(a ref.Val) ref.Val {
			e, ok := a.(Element)
			if !ok {
				return types.NullValue
			}
			if e.Node != nil {
				return types.Bool(len(e.Node.Labels) > 0)
			}
			return types.Bool(e.Edge != nil)
		}),
		binary("gql_prop", func(a, b ref.Val) ref.Val {
			e, ok := a.(Element)
			k, kok := b.(types.String)
			if !ok || !kok {
				return types.NullValue
			}
			v, found := e.props().Get(string(k))
			if !found {
				return types.NullValue
			}
			return ToCEL(v)
		}),
		binary("gql_label", func(a, b ref.Val) ref.Val {
			e, ok := a.(Element)
			l, lok := b.(types.String)
			if !ok || !lok {
				return types.NullValue
			}
			if e.Node != nil {
				return types.Bool(e.Node.HasLabel(string(l)))
			}
			return types.Bool(e.Edge != nil && e.Edge.Type == string(l))
		}),
		unary("gql_date", func(a ref.Val) ref.Val {
			s, _ := a.(types.String)
			d, ok := celval.Date(string(s))
			if !ok {
				return types.NullValue
			}
			return d
		}),
		unary("gql_datetime", func(a ref.Val) ref.Val {
			s, _ := a.(types.String)
			t, err := time.Parse(time.RFC3339Nano, string(s))
			if err != nil {
				return types.NullValue
			}
			return types.Timestamp{Time: t}
		}),
	}
}

// joinStrings concatenates s and t, unless the result would be over
// MaxBuiltBytes: then it is the value budget's error, before anything is
// allocated.
func joinStrings(op string, s, t types.String) ref.Val {
	if n := len(s) + len(t); n > MaxBuiltBytes {
		return tooLarge(op, "string", n, MaxBuiltBytes, "bytes")
	}
	return s + t
}

// joinLists concatenates two lists into one flat list, unless it would be
// over MaxBuiltElems. Flat, not cel-go's lazy concatenation: a chain of
// lazy lists makes every element read walk the chain.
func joinLists(a, b traits.Lister) ref.Val {
	na, nb := int(a.Size().(types.Int)), int(b.Size().(types.Int))
	if na+nb > MaxBuiltElems {
		return tooLarge("||", "list", na+nb, MaxBuiltElems, "elements")
	}
	out := make([]ref.Val, 0, na+nb)
	for i := 0; i < na; i++ {
		out = append(out, a.Get(types.Int(i)))
	}
	for i := 0; i < nb; i++ {
		out = append(out, b.Get(types.Int(i)))
	}
	return types.NewRefValList(types.DefaultTypeAdapter, out)
}

// Keyword reports whether any string property (or string element of a list
// property) contains w, case-insensitively: the keyword token of a Recall.
func Keyword(props store.Props, w string) bool {
	w = strings.ToLower(w)
	for _, p := range props {
		if keywordIn(p.Val, w) {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains the lower-case word w, ignoring
// case, without allocating when both are ASCII (the common case of a
// keyword scan over many nodes).
func containsFold(s, w string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(s), w)
		}
	}
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			return false // an ASCII s cannot hold a non-ASCII word
		}
	}
	if len(w) == 0 {
		return true
	}
	first := w[0]
	for i := 0; i+len(w) <= len(s); i++ {
		if lowerASCII(s[i]) != first {
			continue
		}
		j := 1
		for j < len(w) && lowerASCII(s[i+j]) == w[j] {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func keywordIn(v store.Value, w string) bool {
	switch v.Kind() {
	case store.KindString:
		return containsFold(v.AsString(), w)
	case store.KindList:
		for _, e := range v.AsList() {
			if keywordIn(e, w) {
				return true
			}
		}
	}
	return false
}
