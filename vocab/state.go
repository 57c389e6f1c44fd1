package vocab

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/cel-go/cel"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// Type is the type of an action's parameter.
type Type uint8

// The parameter types (docs/design.md#the-vocabulary-and-attention).
const (
	TypeString Type = iota + 1
	TypeInteger
	TypeFloat
	TypeBoolean
	TypeDate
	TypeDateTime
	TypeList
)

var typeNames = [...]string{TypeString: "STRING", TypeInteger: "INTEGER", TypeFloat: "FLOAT",
	TypeBoolean: "BOOLEAN", TypeDate: "DATE", TypeDateTime: "DATETIME", TypeList: "LIST"}

// String returns the type's GQL name.
func (t Type) String() string {
	if int(t) < len(typeNames) && typeNames[t] != "" {
		return typeNames[t]
	}
	return fmt.Sprintf("TYPE(%d)", t)
}

// ParseType reads a parameter type's name (case-insensitive).
func ParseType(name string) (Type, bool) {
	for t, n := range typeNames {
		if n != "" && strings.EqualFold(n, name) {
			return Type(t), true
		}
	}
	return 0, false
}

// Coerce returns v as a value of type t, or false when it is not one: an
// INTEGER is also a FLOAT, nothing else converts. Null is no value of
// any type (an argument must be given, or left to its default).
func (t Type) Coerce(v values.Value) (values.Value, bool) {
	switch k := v.Kind(); {
	case t == TypeString && k == values.KindString,
		t == TypeInteger && k == values.KindInt,
		t == TypeFloat && k == values.KindFloat,
		t == TypeBoolean && k == values.KindBool,
		t == TypeDate && k == values.KindDate,
		t == TypeDateTime && k == values.KindDateTime,
		t == TypeList && k == values.KindList:
		return v, true
	case t == TypeFloat && k == values.KindInt:
		return values.Float(float64(v.AsInt())), true
	}
	return values.Value{}, false
}

func (t Type) celType() *cel.Type {
	switch t {
	case TypeString:
		return cel.StringType
	case TypeInteger:
		return cel.IntType
	case TypeFloat:
		return cel.DoubleType
	case TypeBoolean:
		return cel.BoolType
	case TypeDate, TypeDateTime:
		return cel.TimestampType
	}
	return cel.ListType(cel.DynType)
}

// Param is one parameter of an action.
type Param struct {
	Name string
	Type Type
	// Default is the value an argument left out takes; nil when the
	// argument must be given.
	Default *values.Value
}

// Signature writes a parameter as CREATE ACTION declares it.
func (p Param) Signature() string {
	s := p.Name + " " + p.Type.String()
	if p.Default != nil {
		s += " = " + p.Default.Literal()
	}
	return s
}

// View is a registered view.
type View struct {
	Name, Intent, Expr string
	// Agent registered it ("" when the Commit named none).
	Agent string
	// Registered is the version of its first CREATE, Revised that of its
	// latest CREATE OR REPLACE (Registered until one), Revisions how many
	// CREATE OR REPLACE of it there were.
	Registered, Revised uint64
	Revisions           int
	// Refs are the views it names with view("…").
	Refs []string

	prog cel.Program
}

// ActionDef is an action as its CREATE ACTION statement defines it.
type ActionDef struct {
	Name, Intent string
	Params       []Param
	// If is the precondition's CEL text ("" for none).
	If string
	// Body is the planned body, for the executor (opaque here).
	Body any
	// Source is the CREATE ACTION statement as written: a snapshot keeps
	// it, and the executor plans it again when the snapshot is read.
	Source string
	// Writes are the targets its body writes (contested.go), which the
	// planner reads from the body when it plans the definition.
	Writes []Target
}

// Signature writes the action as a call declares it: name(p TYPE = …).
func (d *ActionDef) Signature() string {
	parts := make([]string, len(d.Params))
	for i, p := range d.Params {
		parts[i] = p.Signature()
	}
	return d.Name + "(" + strings.Join(parts, ", ") + ")"
}

// Action is a registered action with its counters.
type Action struct {
	ActionDef
	// Agent registered it; Registered, Revised and Revisions are as for
	// View.
	Agent               string
	Registered, Revised uint64
	Revisions           int
	// Invocations counts the CALLs that applied, LastInvoked is the
	// version the latest one made (0: never invoked).
	Invocations int
	LastInvoked uint64
	// Refs are the views its precondition names.
	Refs []string

	ifProg cel.Program
}

// State is a session's vocabulary at one version. It is immutable: the
// methods that change it return a new State and leave the receiver as it
// was. The nil *State is the empty vocabulary. Beside the vocabulary it
// holds the ledger of what the session's Commits wrote (ledger.go).
type State struct {
	views   map[string]*View
	actions map[string]*Action
	led     *ledger // nil: nothing recorded
	// contested is the actions' contested targets (contested.go),
	// computed when an action is registered or dropped.
	contested      []values.ContestedTarget
	contestedPrint uint64
}

// Errors of registrations and drops; match with errors.Is.
var (
	ErrExists = errors.New("vocab: the name is registered already")
	ErrNoSuch = errors.New("vocab: no such name is registered")
)

// Empty reports whether the vocabulary holds nothing: no views and no
// actions (whatever its ledger holds).
func (s *State) Empty() bool { return s == nil || len(s.views)+len(s.actions) == 0 }

// View returns the named view.
func (s *State) View(name string) (*View, bool) {
	if s == nil {
		return nil, false
	}
	v, ok := s.views[name]
	return v, ok
}

// Action returns the named action.
func (s *State) Action(name string) (*Action, bool) {
	if s == nil {
		return nil, false
	}
	a, ok := s.actions[name]
	return a, ok
}

// Views returns the views in name order.
func (s *State) Views() []*View {
	if s == nil {
		return nil
	}
	return sortedValues(s.views)
}

// Actions returns the actions in name order.
func (s *State) Actions() []*Action {
	if s == nil {
		return nil
	}
	return sortedValues(s.actions)
}

func sortedValues[T any](m map[string]*T) []*T {
	out := make([]*T, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}

// withViews returns a copy of s whose views map is its own (the actions
// map and the ledger, unchanged, are shared: items, maps and ledgers of
// a State never change).
func (s *State) withViews() *State {
	c := s.clone()
	c.views = make(map[string]*View, len(c.views)+1)
	if s != nil {
		maps.Copy(c.views, s.views)
	}
	return c
}

// withActions is withViews for the actions map.
func (s *State) withActions() *State {
	c := s.clone()
	c.actions = make(map[string]*Action, len(c.actions)+1)
	if s != nil {
		maps.Copy(c.actions, s.actions)
	}
	return c
}

// registered returns c with the tombstone of a name registered again
// cleared (c is a State of its caller's own, not yet published).
func (c *State) registered(name string, action bool) *State {
	if c.led == nil {
		return c
	}
	dropped := c.led.droppedViews
	if action {
		dropped = c.led.droppedActions
	}
	if _, ok := dropped[name]; !ok {
		return c
	}
	c.led = c.ledgerCopy()
	if action {
		c.led.droppedActions = untombstone(dropped, name)
	} else {
		c.led.droppedViews = untombstone(dropped, name)
	}
	return c
}

// DefineView registers a view, compiling expr; with replace an existing
// view of the name is revised (its registration kept, the revision
// counted), without it an existing name is ErrExists. The error of an
// expression that does not compile is a *CompileError.
func (s *State) DefineView(name, intent, expr string, replace bool, agent string, version uint64) (*State, error) {
	prog, refs, err := compileView(expr)
	if err != nil {
		return nil, err
	}
	v := &View{Name: name, Intent: intent, Expr: expr, Agent: agent, Registered: version, Revised: version, Refs: refs, prog: prog}
	if old, ok := s.View(name); ok {
		if !replace {
			return nil, fmt.Errorf("%w: view %s", ErrExists, name)
		}
		v.Agent, v.Registered, v.Revisions = old.Agent, old.Registered, old.Revisions+1
	}
	c := s.withViews()
	c.views[name] = v
	return c.registered(name, false), nil
}

// DefineAction registers an action, compiling its precondition with its
// parameters as variables; replace as for DefineView.
func (s *State) DefineAction(def ActionDef, replace bool, agent string, version uint64) (*State, error) {
	a := &Action{ActionDef: def, Agent: agent, Registered: version, Revised: version}
	if def.If != "" {
		prog, refs, err := compileIf(def.If, def.Params)
		if err != nil {
			return nil, err
		}
		a.ifProg, a.Refs = prog, refs
	}
	if old, ok := s.Action(def.Name); ok {
		if !replace {
			return nil, fmt.Errorf("%w: action %s", ErrExists, def.Name)
		}
		a.Agent, a.Registered, a.Revisions = old.Agent, old.Registered, old.Revisions+1
		a.Invocations, a.LastInvoked = old.Invocations, old.LastInvoked
	}
	c := s.withActions()
	c.actions[def.Name] = a
	c.contested = contestedOf(c.actions)
	c.contestedPrint = contestedPrint(c.contested)
	return c.registered(def.Name, true), nil
}

// DropView removes a view, remembering that the Commit making version
// dropped it (DroppedSince); ErrNoSuch if there is none of the name.
func (s *State) DropView(name string, version uint64) (*State, error) {
	if _, ok := s.View(name); !ok {
		return nil, fmt.Errorf("%w: view %s", ErrNoSuch, name)
	}
	c := s.withViews()
	delete(c.views, name)
	c.led = c.ledgerCopy()
	c.led.droppedViews = tombstone(c.led.droppedViews, name, version)
	return c, nil
}

// DropAction removes an action as DropView removes a view.
func (s *State) DropAction(name string, version uint64) (*State, error) {
	if _, ok := s.Action(name); !ok {
		return nil, fmt.Errorf("%w: action %s", ErrNoSuch, name)
	}
	c := s.withActions()
	delete(c.actions, name)
	c.contested = contestedOf(c.actions)
	c.contestedPrint = contestedPrint(c.contested)
	c.led = c.ledgerCopy()
	c.led.droppedActions = tombstone(c.led.droppedActions, name, version)
	return c, nil
}

// Invoked counts an invocation of the named action that made version.
func (s *State) Invoked(name string, version uint64) *State {
	old, ok := s.Action(name)
	if !ok {
		return s
	}
	a := *old
	a.Invocations++
	a.LastInvoked = version
	c := s.withActions()
	c.actions[name] = &a
	return c
}

var _ store.Ext = (*State)(nil)
