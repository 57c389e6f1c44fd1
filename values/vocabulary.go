package values

// Vocabulary is a session's registered views and actions at one version,
// each in name order.
type Vocabulary struct {
	Version uint64
	Views   []View
	Actions []Action
}

// View is a registered view with its value at the Vocabulary's version.
type View struct {
	Name, Intent string
	// Expr is the view's CEL expression.
	Expr string
	// Value is the value as Go data (nil, bool, int64, float64, string,
	// Date, time.Time, []any, map[string]any); Text the value as a
	// literal, cut to 200 bytes. Both are empty when the view is broken.
	Value any
	Text  string
	// Error says why the view is broken ("" when it is not): a missing
	// key, a type error, its cost, a cycle through view().
	Error string
	// Agent registered it; Registered is the version of its first
	// CREATE, Revised of its latest CREATE OR REPLACE, Revisions how many
	// of those there were.
	Agent               string
	Registered, Revised uint64
	Revisions           int
	// Salience is the view's salience now (raised by use, decayed by
	// each Recall that does not use it); LowSalience says it is under
	// the session's threshold.
	Salience    float64
	LowSalience bool
}

// Broken reports whether the view failed to evaluate.
func (v View) Broken() bool { return v.Error != "" }

// Action is a registered action with its counters.
type Action struct {
	Name, Intent string
	// Signature is the action as a call declares it: name(p TYPE = …).
	Signature string
	Params    []ActionParam
	// If is the precondition's CEL text ("" for none).
	If string
	// Agent, Registered, Revised and Revisions are as for View;
	// Invocations counts the CALLs that applied, LastInvoked is the
	// version the latest made (0: never invoked).
	Agent               string
	Registered, Revised uint64
	Revisions           int
	Invocations         int
	LastInvoked         uint64
	// Salience and LowSalience are as for View.
	Salience    float64
	LowSalience bool
	// FailedCalls counts the CALLs that could not apply (arguments
	// refused, precondition false or not evaluable, the body's error)
	// since the action's latest registration; LastFailure is the
	// latest's error as one line.
	FailedCalls uint64
	LastFailure string
}

// ActionParam is one parameter of an action.
type ActionParam struct {
	Name string
	// Type is STRING, INTEGER, FLOAT, BOOLEAN, DATE, DATETIME or LIST.
	Type string
	// Default is the value an argument left out takes (a Go value, as
	// Value.Go gives them); HasDefault tells a null default from none.
	Default    any
	HasDefault bool
}
