package vocab

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	"github.com/goldfish-gql/goldfish/celval"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// Result is one view's value at one version, or why it is broken.
type Result struct {
	// Text is the value as a literal, at most MaxValueText bytes (cut
	// with "…"); "" when the view is broken.
	Text string
	// Value is the value as Go data (nil, bool, int64, float64, string,
	// time.Time, []any, map[string]any), nil when broken.
	Value any
	// Err says why the view is broken; nil when it is not.
	Err error
	// Cost is the CEL cost units its evaluation spent.
	Cost uint64
}

// Broken reports whether the view failed.
func (r Result) Broken() bool { return r.Err != nil }

// MaxValueText is the longest literal of a view's value a Result keeps.
const MaxValueText = 200

// Values are the views of one version, by name.
type Values struct {
	Version uint64
	Results map[string]Result
	// Cost is what the evaluation spent in all.
	Cost uint64
}

// evaluation computes the views of one read, each once, in dependency
// order through view(), spending one budget.
type evaluation struct {
	ctx    context.Context
	r      *reader
	done   map[string]Result
	vals   map[string]ref.Val
	busy   map[string]bool
	budget uint64 // what is left of ReadCostBudget
	// untracked, when set, is the program of the view named top to run
	// in its place: the same expression, its cost bounded under the
	// limit beforehand (CheckView).
	top       string
	untracked cel.Program
}

// Evaluate computes every view of state over snap: in name order, each
// at most once (a view another names is computed when first named), each
// under ViewCostLimit and together under ReadCostBudget. A view that
// fails is broken, its Result holding the error. Only the context
// stopping the evaluation is an error of Evaluate itself (the values are
// then not to be kept).
func Evaluate(ctx context.Context, snap *store.Snapshot, state *State) (*Values, error) {
	ev := &evaluation{ctx: ctx, done: map[string]Result{}, vals: map[string]ref.Val{}, busy: map[string]bool{},
		budget: ReadCostBudget}
	ev.r = &reader{snap: snap, state: state, ev: ev, limit: ViewCostLimit}
	for _, v := range state.Views() {
		ev.value(v.Name)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	out := &Values{Version: snap.Version(), Results: ev.done}
	for _, r := range ev.done {
		out.Cost += r.Cost
	}
	return out, nil
}

// errCycle marks a view that names itself through view().
var errCycle = errors.New("a cycle through view()")

// value returns the named view's value, computing it first if it must.
func (ev *evaluation) value(name string) ref.Val {
	if ev.done == nil {
		ev.done, ev.vals, ev.busy = map[string]Result{}, map[string]ref.Val{}, map[string]bool{}
	}
	if v, ok := ev.vals[name]; ok {
		return v
	}
	if r, ok := ev.done[name]; ok {
		return types.WrapErr(fmt.Errorf("view %s is broken: %w", name, r.Err))
	}
	view, ok := ev.r.state.View(name)
	if !ok {
		return types.NewErr("no view named %s is registered", name)
	}
	if ev.busy[name] {
		return types.WrapErr(fmt.Errorf("view %s: %w", name, errCycle))
	}
	ev.busy[name] = true
	defer delete(ev.busy, name)
	res, val := ev.run(view)
	ev.done[name] = res
	if res.Err == nil {
		ev.vals[name] = val
		return val
	}
	return types.WrapErr(fmt.Errorf("view %s is broken: %w", name, res.Err))
}

func (ev *evaluation) run(v *View) (Result, ref.Val) {
	if ev.budget == 0 {
		return Result{Err: fmt.Errorf("the read's budget of %d cost units for views is spent", uint64(ReadCostBudget))}, nil
	}
	prog := v.prog
	if ev.untracked != nil && v.Name == ev.top {
		prog = ev.untracked
	}
	out, det, err := prog.ContextEval(ev.ctx, &activation{r: ev.r})
	var cost uint64
	if det != nil && det.ActualCost() != nil {
		cost = *det.ActualCost()
	}
	ev.budget -= min(ev.budget, cost)
	if err != nil {
		return Result{Err: evalErr(err), Cost: cost}, nil
	}
	text, value, err := render(out)
	if err != nil {
		return Result{Err: err, Cost: cost}, nil
	}
	return Result{Text: text, Value: value, Cost: cost}, out
}

// ErrCostLimit is the error of an evaluation stopped at its cost limit:
// a caller gives it the cost budget's code (22Q04).
var ErrCostLimit = errors.New("over its cost limit")

// evalErr words a CEL evaluation error: the cost limit by its name, the
// rest as CEL says them, without its "<input>" positions.
func evalErr(err error) error {
	msg := err.Error()
	if strings.Contains(msg, "cost limit exceeded") || strings.Contains(msg, "actual cost limit exceeded") {
		return fmt.Errorf("%w of %d units", ErrCostLimit, uint64(ViewCostLimit))
	}
	if strings.Contains(msg, "operation interrupted") {
		return context.Canceled
	}
	if strings.HasPrefix(msg, "no such overload") {
		return errors.New("an operator or function applied to values of types it does not take (" + msg + ")")
	}
	return errors.New(strings.TrimPrefix(msg, "<input>:"))
}

// Precondition evaluates an action's IF with args (its parameters by
// name, already of their types) over snap: true lets the call apply.
// The session functions are as in views; view() reads views computed
// for this call alone, under the same limits.
func (a *Action) Precondition(ctx context.Context, snap *store.Snapshot, state *State, args map[string]values.Value) (bool, error) {
	if a.ifProg == nil {
		return true, nil
	}
	return a.precondition(ctx, snap, state, celArgs(args), false)
}

// celArgs are a precondition's arguments as CEL values.
func celArgs(args map[string]values.Value) map[string]ref.Val {
	params := make(map[string]ref.Val, len(args))
	for k, v := range args {
		params[k] = celval.Of(v)
	}
	return params
}

// precondition is Precondition with its arguments as CEL values; fast
// runs the IF untracked where its cost is bounded under the limit
// beforehand (untrackedFor), for the registration check.
func (a *Action) precondition(ctx context.Context, snap *store.Snapshot, state *State, params map[string]ref.Val, fast bool) (bool, error) {
	// The views are computed only if the precondition names one.
	ev := &evaluation{ctx: ctx, budget: ReadCostBudget}
	ev.r = &reader{snap: snap, state: state, ev: ev, limit: ViewCostLimit}
	prog := a.ifProg
	if fast {
		prog = untrackedFor(prog, snap, paramSizes(params))
	}
	act := &activation{r: ev.r, params: params}
	var out ref.Val
	var err error
	if ctx.Done() == nil {
		out, _, err = prog.Eval(act) // a context that never ends needs no interrupt checks
	} else {
		out, _, err = prog.ContextEval(ctx, act)
	}
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, evalErr(err)
	}
	b, ok := out.(types.Bool)
	if !ok {
		return false, fmt.Errorf("the precondition gives %s, not a BOOLEAN", out.Type().TypeName())
	}
	return bool(b), nil
}

// render writes a view's value as a literal (cut to MaxValueText) and as
// Go data.
func render(v ref.Val) (string, any, error) {
	var b strings.Builder
	value, err := literal(&b, v, 0)
	if err != nil {
		return "", nil, err
	}
	text := b.String()
	if len(text) > MaxValueText {
		cut := MaxValueText
		for cut > 0 && text[cut]&0xC0 == 0x80 { // not inside a rune
			cut--
		}
		text = text[:cut] + "…"
	}
	return text, value, nil
}

// maxRender bounds how much of a value render walks: a view may return
// a list of thousands of elements, of which a literal shows the start.
const maxRender = 1 << 12

func literal(b *strings.Builder, v ref.Val, depth int) (any, error) {
	if depth > values.MaxNesting {
		return nil, fmt.Errorf("the value is nested more than %d deep", values.MaxNesting)
	}
	switch x := v.(type) {
	case types.Null:
		b.WriteString("null")
		return nil, nil
	case types.Bool:
		b.WriteString(strconv.FormatBool(bool(x)))
		return bool(x), nil
	case types.Int:
		b.WriteString(strconv.FormatInt(int64(x), 10))
		return int64(x), nil
	case types.Uint:
		b.WriteString(strconv.FormatUint(uint64(x), 10))
		if uint64(x) > math.MaxInt64 {
			return float64(x), nil
		}
		return int64(x), nil
	case types.Double:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, errors.New("the value is not a finite number")
		}
		b.WriteString(values.Float(f).Literal())
		return f, nil
	case types.String:
		b.WriteString(values.String(string(x)).Literal())
		return string(x), nil
	case types.Timestamp:
		if celval.IsDate(x) {
			b.WriteString(values.DateValue(x.Time.UTC().Format(time.DateOnly)).Literal())
			return x.Time.UTC(), nil
		}
		s := x.Time.UTC().Format(time.RFC3339Nano)
		b.WriteString("DATETIME '" + s + "'")
		return x.Time.UTC(), nil
	case types.Duration:
		b.WriteString(strconv.Quote(x.Duration.String()))
		return x.Duration.String(), nil
	case traits.Mapper:
		return mapLiteral(b, x, depth)
	case traits.Lister:
		n, _ := x.Size().(types.Int)
		out := make([]any, 0, min(int(n), maxRender))
		b.WriteByte('[')
		for i := types.Int(0); i < n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			if i >= maxRender || b.Len() > MaxValueText {
				b.WriteString("…")
				break
			}
			e, err := literal(b, x.Get(i), depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		b.WriteByte(']')
		return out, nil
	case *types.Err:
		return nil, x
	}
	b.WriteString(strconv.Quote(fmt.Sprint(v.Value())))
	return fmt.Sprint(v.Value()), nil
}

func mapLiteral(b *strings.Builder, m traits.Mapper, depth int) (any, error) {
	var keys []string
	it := m.Iterator()
	for it.HasNext() == types.True {
		k := it.Next()
		s, ok := k.(types.String)
		if !ok {
			s = types.String(fmt.Sprint(k.Value()))
		}
		keys = append(keys, string(s))
	}
	slices.Sort(keys)
	out := make(map[string]any, len(keys))
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		if b.Len() > MaxValueText {
			b.WriteString("…")
			break
		}
		b.WriteString(values.KeyLiteral(k))
		b.WriteString(": ")
		v, _ := m.Find(types.String(k))
		if v == nil {
			v = types.NullValue
		}
		e, err := literal(b, v, depth+1)
		if err != nil {
			return nil, err
		}
		out[k] = e
	}
	b.WriteByte('}')
	return out, nil
}
