package planner

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	"github.com/goldfish-gql/goldfish/celval"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
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

func (e Element) props() values.Props {
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
func ToCEL(v values.Value) ref.Val { return celval.Of(v) }

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
// NaN or infinite float, lists nested deeper than values.MaxNesting, a
// DATE or DATETIME outside the years 0000–9999 (a DATETIME is written
// in UTC, which can leave that range when the value's own offset does
// not).
func FromCEL(v ref.Val) (values.Value, error) { return fromCEL(v, 0) }

// fromCEL is FromCEL for a value inside depth lists.
func fromCEL(v ref.Val, depth int) (values.Value, error) {
	switch x := v.(type) {
	case types.Null:
		return values.Null(), nil
	case types.Bool:
		return values.Bool(bool(x)), nil
	case types.Int:
		return values.Int(int64(x)), nil
	case types.Uint:
		if uint64(x) > math.MaxInt64 {
			return values.Value{}, ErrUnsupported{TypeName: "unsigned integer above the INTEGER range", Code: gqlstatus.NumericOutOfRange}
		}
		return values.Int(int64(x)), nil
	case types.Double:
		if !values.ValidFloat(float64(x)) {
			return values.Value{}, ErrUnsupported{TypeName: "FLOAT (NaN or infinity)", Code: gqlstatus.NumericOutOfRange}
		}
		return values.Float(float64(x)), nil
	case types.String:
		return values.String(string(x)), nil
	case types.Timestamp:
		t := x.Time.UTC()
		if celval.IsDate(x) {
			if !values.InDateTimeRange(t) {
				return values.Value{}, ErrUnsupported{TypeName: "DATE outside the years 0000 to 9999", Code: gqlstatus.DateTimeOverflow}
			}
			return values.DateValue(t.Format(time.DateOnly)), nil
		}
		if !values.InDateTimeRange(t) {
			return values.Value{}, ErrUnsupported{TypeName: "DATETIME outside the years 0000 to 9999 (UTC)", Code: gqlstatus.DateTimeOverflow}
		}
		return values.DateTimeValue(t.Format(time.RFC3339Nano)), nil
	case Element:
		return values.Value{}, ErrUnsupported{TypeName: "graph element"}
	case traits.Lister:
		if depth >= values.MaxNesting {
			return values.Value{}, ErrUnsupported{TypeName: fmt.Sprintf("LIST nested more than %d deep", values.MaxNesting), Code: gqlstatus.ValueBudget}
		}
		n := int(x.Size().(types.Int))
		out := make([]values.Value, n)
		for i := 0; i < n; i++ {
			e, err := fromCEL(x.Get(types.Int(i)), depth+1)
			if err != nil {
				return values.Value{}, err
			}
			out[i] = e
		}
		return values.List(out...), nil
	case traits.Mapper:
		return values.Value{}, ErrUnsupported{TypeName: "MAP"}
	case *types.Err:
		return values.Value{}, x
	}
	return values.Value{}, ErrUnsupported{TypeName: v.Type().TypeName()}
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
