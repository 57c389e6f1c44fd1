package vocab

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
	"github.com/google/cel-go/parser"

	"github.com/goldfish-gql/goldfish/celval"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// The session functions are written nodes("KIND") and so on, but a CEL
// function binding is fixed when the environment is built, long before a
// snapshot exists. So each is a macro that passes the reader of the
// evaluation, a hidden variable of the activation, as a first argument:
// nodes(k) is sessionNodes(sessionVar, k).
const (
	sessionVar   = "__goldfish_session__"
	fnNodes      = "__goldfish_nodes__"
	fnEdges      = "__goldfish_edges__"
	fnCount      = "__goldfish_count__"
	fnView       = "__goldfish_view__"
	versionVar   = "version"
	sessionTypeN = "goldfish.session"
)

// MaxSource is the longest CEL text a view or precondition may hold.
const MaxSource = 16 << 10

// ViewCostLimit is the most CEL cost units one view (or one precondition)
// may spend; ReadCostBudget the most all the views of one read may spend
// together, as Kubernetes bounds CEL admission (a per-expression limit and
// a runtime budget across them).
const (
	ViewCostLimit  = 1_000_000
	ReadCostBudget = 10_000_000
)

var sessionType = cel.OpaqueType(sessionTypeN)

func sessionMacro(name, fn string) cel.Macro {
	return cel.GlobalMacro(name, 1, func(eh parser.ExprHelper, _ ast.Expr, args []ast.Expr) (ast.Expr, *common.Error) {
		return eh.NewCall(fn, eh.NewIdent(sessionVar), args[0]), nil
	})
}

var (
	envOnce sync.Once
	baseEnv *cel.Env
	envErr  error
)

func env() (*cel.Env, error) {
	envOnce.Do(func() {
		elems := cel.ListType(cel.MapType(cel.StringType, cel.DynType))
		baseEnv, envErr = cel.NewEnv(
			cel.Variable(sessionVar, sessionType),
			cel.Variable(versionVar, cel.IntType),
			cel.Macros(sessionMacro("nodes", fnNodes), sessionMacro("edges", fnEdges),
				sessionMacro("count", fnCount), sessionMacro("view", fnView)),
			cel.Function(fnNodes, cel.Overload(fnNodes+"_s", []*cel.Type{sessionType, cel.StringType}, elems,
				cel.BinaryBinding(func(r, k ref.Val) ref.Val { return r.(*reader).nodes(string(k.(types.String))) }))),
			cel.Function(fnEdges, cel.Overload(fnEdges+"_s", []*cel.Type{sessionType, cel.StringType}, elems,
				cel.BinaryBinding(func(r, k ref.Val) ref.Val { return r.(*reader).edges(string(k.(types.String))) }))),
			cel.Function(fnCount, cel.Overload(fnCount+"_s", []*cel.Type{sessionType, cel.StringType}, cel.IntType,
				cel.BinaryBinding(func(r, k ref.Val) ref.Val {
					return types.Int(r.(*reader).snap.KindCount(string(k.(types.String))))
				}))),
			cel.Function(fnView, cel.Overload(fnView+"_s", []*cel.Type{sessionType, cel.StringType}, cel.DynType,
				cel.BinaryBinding(func(r, k ref.Val) ref.Val { return r.(*reader).view(string(k.(types.String))) }))),
		)
	})
	return baseEnv, envErr
}

// CompileError is a view or precondition that does not compile: its
// message is the CEL checker's, positions relative to the CEL text. The
// registration it refuses is a syntax error of the statement (42001),
// placed in the statement by the caller from Line and Col.
type CompileError struct {
	// Msg is the first issue's message, and Line and Col place it in the
	// CEL text (1-based; 0 when unknown): what the statement's error says
	// and points at.
	Msg       string
	Line, Col int
	// Issues holds every error cel-go found, each placed in the CEL text;
	// it is empty when the expression was refused before cel-go read it
	// (its size, a reserved name).
	Issues []celval.Issue
}

func (e *CompileError) Error() string { return e.Msg }

// GQLStatus implements gqlstatus.Coded: 42001, the code of the
// registration's error.
func (e *CompileError) GQLStatus() gqlstatus.Code { return gqlstatus.Syntax }

func compileErr(iss *cel.Issues) error {
	issues := celval.Issues(iss)
	if len(issues) == 0 {
		return &CompileError{Msg: strings.TrimSpace(iss.String())}
	}
	first := issues[0]
	return &CompileError{Msg: first.Msg, Line: first.Line, Col: first.Col, Issues: issues}
}

// compileView compiles a view's expression.
func compileView(expr string) (cel.Program, []string, error) {
	e, err := env()
	if err != nil {
		return nil, nil, err
	}
	return compile(e, expr)
}

// compileIf compiles a precondition with the action's parameters as
// variables of their types.
func compileIf(expr string, params []Param) (cel.Program, []string, error) {
	e, err := env()
	if err != nil {
		return nil, nil, err
	}
	opts := make([]cel.EnvOption, 0, len(params))
	for _, p := range params {
		if p.Name == sessionVar || p.Name == versionVar {
			return nil, nil, &CompileError{Msg: fmt.Sprintf("parameter %s hides the session's %s", p.Name, p.Name)}
		}
		opts = append(opts, cel.Variable(p.Name, p.Type.celType()))
	}
	if len(opts) > 0 {
		if e, err = e.Extend(opts...); err != nil {
			return nil, nil, &CompileError{Msg: err.Error()}
		}
	}
	return compile(e, expr)
}

func compile(e *cel.Env, expr string) (cel.Program, []string, error) {
	if len(expr) > MaxSource {
		return nil, nil, &CompileError{Msg: fmt.Sprintf("the expression is %d bytes, more than %d", len(expr), MaxSource)}
	}
	if strings.Contains(expr, "__goldfish_") {
		return nil, nil, &CompileError{Msg: "names starting __goldfish_ are the engine's"}
	}
	checked, iss := e.Compile(expr)
	if iss != nil && iss.Err() != nil {
		return nil, nil, compileErr(iss)
	}
	opts := []cel.ProgramOption{cel.InterruptCheckFrequency(64)}
	if !bounded(checked.NativeRep().Expr()) {
		// Tracking costs every step of the evaluation a little; it is
		// needed only where the cost can grow with the session.
		opts = append(opts, cel.CostLimit(ViewCostLimit),
			cel.CostTrackerOptions(
				interpreter.OverloadCostTracker(fnNodes+"_s", listCost),
				interpreter.OverloadCostTracker(fnEdges+"_s", listCost)))
	}
	prog, err := e.Program(checked, opts...)
	if err != nil {
		return nil, nil, &CompileError{Msg: err.Error()}
	}
	if len(opts) > 1 {
		// the registration check may evaluate it untracked (evalfast.go)
		prog = &trackedProgram{Program: prog, env: e, checked: checked}
	}
	return prog, viewRefs(checked.NativeRep().Expr()), nil
}

// bounded reports whether an expression's cost cannot grow with the
// session or its values: it calls only count() and operators that take a
// fixed number of steps whatever their operands (no comprehension, no
// nodes(), edges() or view(), no + that may concatenate long strings or
// lists, no function that walks a value). Such an expression costs at
// most a small multiple of its size and needs no cost tracking.
func bounded(e ast.Expr) bool {
	ok := true
	ast.PostOrderVisit(e, ast.NewExprVisitor(func(x ast.Expr) {
		switch x.Kind() {
		case ast.ComprehensionKind:
			ok = false
		case ast.CallKind:
			switch fn := x.AsCall().FunctionName(); fn {
			case fnCount, "_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_", "_&&_", "_||_", "!_",
				"_-_", "_*_", "_/_", "_%_", "-_", "_?_:_":
				// a fixed number of steps (comparisons of strings or lists
				// walk them, but at most once each)
			default:
				ok = false
			}
		}
	}))
	return ok
}

// listCost prices nodes() and edges() by the elements they return.
func listCost(_ []ref.Val, result ref.Val) *uint64 {
	n := uint64(1)
	if l, ok := result.(traits.Lister); ok {
		if sz, ok := l.Size().(types.Int); ok {
			n += uint64(sz)
		}
	}
	return &n
}

// viewRefs lists the views an expression names with view("…") of a
// literal name, sorted.
func viewRefs(e ast.Expr) []string {
	var out []string
	ast.PostOrderVisit(e, ast.NewExprVisitor(func(x ast.Expr) {
		if x.Kind() != ast.CallKind || x.AsCall().FunctionName() != fnView {
			return
		}
		args := x.AsCall().Args()
		if len(args) == 2 && args[1].Kind() == ast.LiteralKind {
			if s, ok := args[1].AsLiteral().(types.String); ok && !slices.Contains(out, string(s)) {
				out = append(out, string(s))
			}
		}
	}))
	slices.Sort(out)
	return out
}

// reader is what the session functions read during one evaluation: a
// snapshot, the vocabulary, and the views' values as far as computed.
type reader struct {
	snap  *store.Snapshot
	state *State
	ev    *evaluation // nil in a precondition's evaluation outside a read
	limit uint64      // the most elements one nodes() or edges() may return
}

// ConvertToNative implements ref.Val.
func (r *reader) ConvertToNative(reflect.Type) (any, error) {
	return nil, errors.New("the session has no native form")
}

// ConvertToType implements ref.Val.
func (r *reader) ConvertToType(ref.Type) ref.Val {
	return types.NewErr("the session converts to nothing")
}

// Equal implements ref.Val.
func (r *reader) Equal(o ref.Val) ref.Val { return types.Bool(o == ref.Val(r)) }

// Type implements ref.Val.
func (r *reader) Type() ref.Type { return types.NewOpaqueType(sessionTypeN) }

// Value implements ref.Val.
func (r *reader) Value() any { return r }

func (r *reader) tooMany(fn, name string, n int) ref.Val {
	return types.NewErr("%s(%q) holds %d elements, more than one view may read (%d cost units)", fn, name, n, r.limit)
}

func (r *reader) nodes(kind string) ref.Val {
	if n := r.snap.KindCount(kind); uint64(n) >= r.limit {
		return r.tooMany("nodes", kind, n)
	}
	out := make([]ref.Val, 0, r.snap.KindCount(kind))
	r.snap.ScanKind(kind, func(n *store.Node) bool {
		out = append(out, &elemMap{r: r, node: n})
		return true
	})
	return types.NewRefValList(types.DefaultTypeAdapter, out)
}

func (r *reader) edges(typ string) ref.Val {
	if n := r.snap.EdgeTypeCount(typ); uint64(n) >= r.limit {
		return r.tooMany("edges", typ, n)
	}
	out := make([]ref.Val, 0, r.snap.EdgeTypeCount(typ))
	r.snap.ScanEdgeType(typ, func(e *store.Edge) bool {
		out = append(out, &elemMap{r: r, edge: e})
		return true
	})
	return types.NewRefValList(types.DefaultTypeAdapter, out)
}

func (r *reader) view(name string) ref.Val {
	if r.ev == nil {
		return types.NewErr("view(%q): no views are read here", name)
	}
	if Reserved(name) {
		return r.system(name)
	}
	return r.ev.value(name)
}

// endName is how an edge's end shows: its nick, else its loc, else null.
func (r *reader) endName(id store.ID) ref.Val {
	n, ok := r.snap.Node(id)
	if !ok {
		return types.NullValue
	}
	for _, key := range []string{store.NickKey, "loc"} {
		if v, ok := n.Props.Get(key); ok && v.Kind() == values.KindString {
			return types.String(v.AsString())
		}
	}
	return types.NullValue
}

// elemMap is a node or an edge as a CEL map: its properties, and "labels"
// for a node, "type", "from" and "to" for an edge (these names win over
// properties of the same names). Its entries are made when the map is
// first read: a filter that reads one key of many elements builds one
// entry of each.
type elemMap struct {
	r    *reader
	node *store.Node
	edge *store.Edge
}

func (m *elemMap) props() values.Props {
	if m.node != nil {
		return m.node.Props
	}
	return m.edge.Props
}

// extra returns the value of a key the element adds to its properties.
func (m *elemMap) extra(key string) (ref.Val, bool) {
	if m.node != nil {
		if key == "labels" {
			ls := make([]string, len(m.node.Labels))
			copy(ls, m.node.Labels)
			return types.NewStringList(types.DefaultTypeAdapter, ls), true
		}
		return nil, false
	}
	switch key {
	case "type":
		return types.String(m.edge.Type), true
	case "from":
		return m.r.endName(m.edge.From), true
	case "to":
		return m.r.endName(m.edge.To), true
	}
	return nil, false
}

func (m *elemMap) extraKeys() []string {
	if m.node != nil {
		return []string{"labels"}
	}
	return []string{"from", "to", "type"}
}

// keys returns the map's keys, sorted.
func (m *elemMap) keys() []string {
	extra := m.extraKeys()
	keys := make([]string, 0, len(m.props())+len(extra))
	for _, p := range m.props() {
		if !slices.Contains(extra, p.Key) {
			keys = append(keys, p.Key)
		}
	}
	keys = append(keys, extra...)
	slices.Sort(keys)
	return keys
}

// Find implements traits.Mapper.
func (m *elemMap) Find(key ref.Val) (ref.Val, bool) {
	k, ok := key.(types.String)
	if !ok {
		return nil, false
	}
	if v, ok := m.extra(string(k)); ok {
		return v, true
	}
	if v, ok := m.props().Get(string(k)); ok {
		return celval.Of(v), true
	}
	return nil, false
}

// Get implements traits.Indexer: a missing key is an error, which
// breaks the view that read it.
func (m *elemMap) Get(key ref.Val) ref.Val {
	if v, ok := m.Find(key); ok {
		return v
	}
	return types.NewErr("no such key: %v", key)
}

// Contains implements traits.Container.
func (m *elemMap) Contains(key ref.Val) ref.Val {
	_, ok := m.Find(key)
	return types.Bool(ok)
}

// Size implements traits.Sizer.
func (m *elemMap) Size() ref.Val { return types.Int(len(m.keys())) }

// Iterator implements traits.Iterable: the keys, sorted.
func (m *elemMap) Iterator() traits.Iterator {
	keys := m.keys()
	vals := make([]ref.Val, len(keys))
	for i, k := range keys {
		vals[i] = types.String(k)
	}
	return types.NewRefValList(types.DefaultTypeAdapter, vals).(traits.Iterable).Iterator()
}

// ConvertToNative implements ref.Val.
func (m *elemMap) ConvertToNative(t reflect.Type) (any, error) {
	return nil, fmt.Errorf("a graph element has no native form %v", t)
}

// ConvertToType implements ref.Val.
func (m *elemMap) ConvertToType(t ref.Type) ref.Val {
	if t == types.MapType {
		return m
	}
	if t == types.TypeType {
		return types.MapType
	}
	return types.NewErr("a graph element cannot be converted to %s", t.TypeName())
}

// Equal implements ref.Val: the same element.
func (m *elemMap) Equal(o ref.Val) ref.Val {
	x, ok := o.(*elemMap)
	if !ok {
		return types.False
	}
	return types.Bool(x.node == m.node && x.edge == m.edge)
}

// Type implements ref.Val.
func (m *elemMap) Type() ref.Type { return types.MapType }

// Value implements ref.Val.
func (m *elemMap) Value() any { return m }

// activation resolves the session, the version and a precondition's
// parameters.
type activation struct {
	r      *reader
	params map[string]ref.Val
}

// ResolveName implements interpreter.Activation.
func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case sessionVar:
		return a.r, true
	case versionVar:
		return types.Int(a.r.snap.Version()), true
	}
	v, ok := a.params[name]
	return v, ok
}

// Parent implements interpreter.Activation.
func (a *activation) Parent() interpreter.Activation { return nil }
