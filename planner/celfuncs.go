package planner

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	"github.com/goldfish-gql/goldfish/celval"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
)

func binary(name string, fn func(a, b ref.Val) ref.Val) cel.EnvOption {
	return cel.Function(name, cel.Overload(name+"_dyn_dyn",
		[]*cel.Type{cel.DynType, cel.DynType}, cel.DynType, cel.BinaryBinding(priced(name, fn))))
}

func unary(name string, fn func(a ref.Val) ref.Val) cel.EnvOption {
	return cel.Function(name, cel.Overload(name+"_dyn",
		[]*cel.Type{cel.DynType}, cel.DynType, cel.UnaryBinding(fn)))
}

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
		if !values.ValidFloat(r) {
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

// celFunctions are the gql_* functions the planner's CEL calls, one for
// each GQL operator, so that null is unknown throughout (celenv.go).
func celFunctions() []cel.EnvOption {
	return slices.Concat(logicFunctions(), truthFunctions(), comparisonFunctions(),
		stringFunctions(), arithmeticFunctions(), elementFunctions(), temporalFunctions())
}

// logicFunctions are AND, OR, XOR and NOT in GQL's three-valued logic: an
// unknown (null) operand leaves the result unknown unless the other decides it.
func logicFunctions() []cel.EnvOption {
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
	}
}

// truthFunctions are IS NULL and the truth-value tests IS TRUE, IS FALSE
// and IS UNKNOWN: true or false, never unknown themselves; a value that is
// not a boolean is a data exception.
func truthFunctions() []cel.EnvOption {
	return []cel.EnvOption{
		unary("gql_isnull", func(a ref.Val) ref.Val { return types.Bool(isNull(a)) }),
		unary("gql_istrue", truthTest("IS TRUE", func(b bool, known bool) bool { return known && b })),
		unary("gql_isfalse", truthTest("IS FALSE", func(b bool, known bool) bool { return known && !b })),
		unary("gql_isunknown", truthTest("IS UNKNOWN", func(_ bool, known bool) bool { return !known })),
	}
}

// comparisonFunctions are =, <>, the orderings and IN: unknown with
// null, and an ordering of values that do not compare is a data exception.
func comparisonFunctions() []cel.EnvOption {
	return []cel.EnvOption{
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
	}
}

// stringFunctions are STARTS WITH, ENDS WITH and CONTAINS on strings,
// and the keyword token: CONTAINS with a node on its left.
func stringFunctions() []cel.EnvOption {
	return []cel.EnvOption{
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
	}
}

// arithmeticFunctions are + - * / %, || and the signs: INTEGER when
// both operands are integers (overflow is an error, never a wrap), FLOAT
// otherwise; + and || also concatenate, within the value budget.
func arithmeticFunctions() []cel.EnvOption {
	return []cel.EnvOption{
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
	}
}

// elementFunctions read a bound node or edge: a property (null when it
// is missing), a label or an edge's type, whether it has any label.
func elementFunctions() []cel.EnvOption {
	return []cel.EnvOption{
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
	}
}

// temporalFunctions are DATE and DATETIME literals, their canonical text
// (as the planner writes it) as the CEL values celval gives stored ones.
func temporalFunctions() []cel.EnvOption {
	return []cel.EnvOption{
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
