package planner

import (
	"errors"
	"fmt"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"

	"github.com/goldfish-gql/goldfish/values"
)

// The cost of goldfish's own CEL functions. cel-go prices its standard
// library by the sizes of the values a call touches, but it knows nothing
// of the gql_* functions over dyn and would charge each call 1, so
// `x IN $list` over a million elements, or a long string concatenated
// again and again, would run for minutes under CostLimit. Each gql_*
// overload whose work grows with its arguments is priced here the way
// cel-go prices its own: one unit per list element visited, one per ten
// bytes of string traversed (cel-go's string traversal factor), one for
// anything of fixed size.
//
// cel-go charges a call after it returns, so a call that would by itself
// cost more than the whole CostLimit is refused before it does the work
// (the same price decides both), and no single call runs long. Values an
// expression builds (concatenated strings and lists) are bounded apart,
// by MaxBuiltBytes and MaxBuiltElems, before they are allocated.
//
// Programs are never checked statically against the limit: every variable
// and parameter is dyn, so a static estimate would be unbounded for any
// predicate that reads a list or a string. The runtime price is the bound.

// MaxBuiltBytes is the longest string, in bytes, an expression may build
// by concatenation: as much as a whole Δ may write under the default R, so
// a property value the default R allows is never refused by this bound.
const MaxBuiltBytes = 256 << 10

// MaxBuiltElems is the longest list an expression may build by
// concatenation.
const MaxBuiltElems = 1 << 16

// errOverCost marks a gql_* call whose own price is over CostLimit.
var errOverCost = errors.New("over the evaluation budget")

// overCost is the CEL error value of a call refused for its price.
func overCost(op string, units uint64) ref.Val {
	return types.WrapErr(&costError{op: op, units: units})
}

type costError struct {
	op    string
	units uint64
}

func (e *costError) Error() string {
	return fmt.Sprintf("%s would cost %d units, %v", e.op, e.units, errOverCost)
}

func (e *costError) Unwrap() error { return errOverCost }

// valueError marks a value an expression would build past MaxBuiltBytes
// or MaxBuiltElems.
type valueError struct {
	op    string
	what  string // "string" or "list"
	size  int
	limit int
	unit  string // "bytes" or "elements"
}

func (e *valueError) Error() string {
	return fmt.Sprintf("%s would build a %s of %d %s, over the value budget of %d %s",
		e.op, e.what, e.size, e.unit, e.limit, e.unit)
}

func tooLarge(op, what string, size, limit int, unit string) ref.Val {
	return types.WrapErr(&valueError{op: op, what: what, size: size, limit: limit, unit: unit})
}

// size is the price of touching v once: 1 for a value of fixed size, one
// more per ten bytes of a string and per element of a list. Elements of a
// list count one each, however large: the price stays O(1) to compute.
func size(v ref.Val) uint64 {
	switch x := v.(type) {
	case types.String:
		return 1 + uint64(len(x))/10
	case traits.Lister:
		n, _ := x.Size().(types.Int)
		return 1 + uint64(max(n, 0))
	}
	return 1
}

// stringCost prices a string traversal of n bytes.
func stringCost(n int) uint64 { return 1 + uint64(n)/10 }

// callPrices are the gql_* functions whose price grows with their
// arguments, by function name. The others cost 1, as cel-go charges any
// call it has no price for.
var callPrices = map[string]func(a, b ref.Val) uint64{
	// Equality and ordering stop at the shorter operand.
	"gql_eq": minSize, "gql_ne": minSize,
	"gql_lt": minSize, "gql_le": minSize, "gql_gt": minSize, "gql_ge": minSize,
	// x IN list compares x with every element.
	"gql_in": func(a, b ref.Val) uint64 { return safeMul(size(a), size(b)) },
	// A prefix or suffix test reads the shorter string; CONTAINS may read
	// both.
	"gql_starts": func(_, b ref.Val) uint64 { return size(b) },
	"gql_ends":   func(_, b ref.Val) uint64 { return size(b) },
	"gql_contains": func(a, b ref.Val) uint64 {
		return size(a) + size(b)
	},
	// Concatenation copies both operands.
	"gql_add":    concatCost,
	"gql_concat": concatCost,
}

// resultPrices are the functions priced by what they return: a property
// read converts a stored list element by element, and the keyword token
// reads every string of the element.
var resultPrices = map[string]func(args []ref.Val, result ref.Val) uint64{
	"gql_prop": func(_ []ref.Val, result ref.Val) uint64 {
		if _, ok := result.(traits.Lister); ok {
			return size(result)
		}
		return 1
	},
	"gql_keyword": func(args []ref.Val, _ ref.Val) uint64 {
		e, ok := args[0].(Element)
		if !ok {
			return 1
		}
		n := 1
		for _, p := range e.props() {
			n += stringBytes(p.Val)
		}
		return stringCost(n)
	},
}

func stringBytes(v values.Value) int {
	switch v.Kind() {
	case values.KindString:
		return len(v.AsString())
	case values.KindList:
		n := 0
		for _, e := range v.AsList() {
			n += stringBytes(e)
		}
		return n
	}
	return 0
}

func minSize(a, b ref.Val) uint64 { return min(size(a), size(b)) }

func concatCost(a, b ref.Val) uint64 {
	switch a.(type) {
	case types.String, traits.Lister:
		return size(a) + size(b)
	}
	return 1
}

func safeMul(a, b uint64) uint64 {
	if a != 0 && b > ^uint64(0)/a {
		return ^uint64(0)
	}
	return a * b
}

// priced wraps a binary binding so that a call whose price is over the
// whole CostLimit is refused before it runs.
func priced(name string, fn func(a, b ref.Val) ref.Val) func(a, b ref.Val) ref.Val {
	price, ok := callPrices[name]
	if !ok {
		return fn
	}
	op := opNames[name]
	return func(a, b ref.Val) ref.Val {
		if units := price(a, b); units > CostLimit {
			return overCost(op, units)
		}
		return fn(a, b)
	}
}

// opNames are the GQL operators behind the gql_* functions, for messages.
var opNames = map[string]string{
	"gql_eq": "=", "gql_ne": "<>", "gql_lt": "<", "gql_le": "<=", "gql_gt": ">", "gql_ge": ">=",
	"gql_in": "IN", "gql_starts": "STARTS WITH", "gql_ends": "ENDS WITH", "gql_contains": "CONTAINS",
	"gql_add": "+", "gql_concat": "||",
}

// costTrackers registers the prices with cel-go's runtime cost tracker.
func costTrackers() []interpreter.CostTrackerOption {
	var opts []interpreter.CostTrackerOption
	for name, price := range callPrices {
		opts = append(opts, interpreter.OverloadCostTracker(name+"_dyn_dyn",
			func(args []ref.Val, _ ref.Val) *uint64 {
				u := price(args[0], args[1])
				if u > CostLimit {
					u = 1 // refused before it ran (priced): its error says why
				}
				return units(u)
			}))
	}
	for name, price := range resultPrices {
		opts = append(opts, interpreter.OverloadCostTracker(name+"_dyn_dyn",
			func(args []ref.Val, result ref.Val) *uint64 { return units(price(args, result)) }))
	}
	return opts
}

// smallUnits spares the tracker an allocation per call: cel-go reads the
// price through a pointer and keeps none of them.
var smallUnits = func() (u [1024]uint64) {
	for i := range u {
		u[i] = uint64(i)
	}
	return u
}()

func units(n uint64) *uint64 {
	if n < uint64(len(smallUnits)) {
		return &smallUnits[n]
	}
	p := new(uint64)
	*p = n
	return p
}
