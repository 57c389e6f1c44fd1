package exec

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/cel-go/common/types/ref"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/tokens"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/vocab"
)

// Vocabulary returns the vocabulary of a snapshot (nil: none registered).
func Vocabulary(snap *store.Snapshot) *vocab.State {
	s, _ := snap.Ext().(*vocab.State)
	return s
}

// nextVersion is the version the Δ makes when it applies.
func (x *executor) nextVersion() uint64 { return x.tx.Base().Version() + 1 }

// define applies a registration or a drop to the Δ's vocabulary.
func (x *executor) define(d *planner.DefineStep, sr *values.StmtResult) error {
	state := Vocabulary(x.tx.Snapshot())
	kind := "view"
	if d.Action {
		kind = "action"
	}
	if !d.Drop && strings.HasPrefix(d.Name, "_") {
		return x.errAt(gqlstatus.InvalidName, d.Pos, "the name %s is reserved: names starting with _ are the system views'", d.Name).
			WithHint("name it without the leading _; view(\"_vocabulary_health\") and view(\"_contested\") are read, never registered")
	}
	var next *vocab.State
	var err error
	switch {
	case d.Drop && d.Action:
		next, err = state.DropAction(d.Name, x.nextVersion())
	case d.Drop:
		next, err = state.DropView(d.Name, x.nextVersion())
	case d.Action:
		next, err = state.DefineAction(d.Def, d.Replace, x.opts.Agent, x.nextVersion())
	default:
		next, err = state.DefineView(d.Name, d.Intent, d.Expr, d.Replace, x.opts.Agent, x.nextVersion())
	}
	var ce *vocab.CompileError
	switch {
	case errors.As(err, &ce):
		at := d.ExprPos
		what := "the view's expression"
		if d.Action {
			at, what = d.IfPos, "the action's precondition"
		}
		if ce.Line > 0 {
			at.Line += ce.Line - 1
			if ce.Line == 1 {
				at.Col += ce.Col - 1
			} else {
				at.Col = ce.Col
			}
		}
		return x.errAt(gqlstatus.Syntax, at, "%s %s does not compile: %s", kind, d.Name, ce.Msg).
			WithHint(fmt.Sprintf("fix %s (CEL over nodes(\"KIND\"), edges(\"TYPE\"), count(\"KIND\"), view(\"name\"), version)", what))
	case errors.Is(err, vocab.ErrExists):
		return x.errAt(gqlstatus.NameExists, d.Pos, "a %s named %s is registered already", kind, d.Name).
			WithHint(fmt.Sprintf("CREATE OR REPLACE %s %s revises it", upper(kind), d.Name))
	case errors.Is(err, vocab.ErrNoSuch):
		return x.errAt(gqlstatus.InvalidReference, d.Pos, "no %s named %s is registered in this session", kind, d.Name).
			WithHint("the session's views and actions show with every Recall (gqlsh :views, :actions)")
	case err != nil:
		return err
	}
	x.tx.SetExt(next)
	x.changed = true
	switch {
	case d.Drop:
		sr.Defined = "dropped " + kind + " " + d.Name
	case d.Replace && (d.Action && hasAction(state, d.Name) || !d.Action && hasView(state, d.Name)):
		sr.Defined = "revised " + kind + " " + d.Name
	default:
		sr.Defined = "registered " + kind + " " + d.Name
	}
	return nil
}

func hasView(s *vocab.State, name string) bool   { _, ok := s.View(name); return ok }
func hasAction(s *vocab.State, name string) bool { _, ok := s.Action(name); return ok }

func upper(kind string) string {
	if kind == "action" {
		return "ACTION"
	}
	return "VIEW"
}

// call runs a registered action: binds the arguments to its parameters
// (type-checked, defaults applied), evaluates its precondition, and runs
// its body's statements in the Δ, under the Δ's budgets.
func (x *executor) call(cs *planner.CallStep, sr *values.StmtResult) error {
	err := x.runCall(cs, sr)
	if err == nil || x.ctx.Err() != nil {
		return err
	}
	var ge *gqlstatus.Error
	if _, known := Vocabulary(x.tx.Snapshot()).Action(cs.Name); known && errors.As(err, &ge) {
		ge.Cause = &ActionFailure{Action: cs.Name, cause: ge.Cause}
	}
	return err
}

// ActionFailure is the cause under the error of a CALL that failed (its
// arguments, its precondition or its body): the session counts it for
// the action (the attention envelope shows failed CALLs at full).
type ActionFailure struct {
	Action string
	cause  error
}

func (f *ActionFailure) Error() string { return "CALL " + f.Action + " failed" }

// Unwrap returns the cause the error had before.
func (f *ActionFailure) Unwrap() error { return f.cause }

// FailedAction names the action whose CALL made err, if one did.
func FailedAction(err error) (string, bool) {
	var f *ActionFailure
	if errors.As(err, &f) {
		return f.Action, true
	}
	return "", false
}

// runCall is call's work.
func (x *executor) runCall(cs *planner.CallStep, sr *values.StmtResult) error {
	state := Vocabulary(x.tx.Snapshot())
	a, ok := state.Action(cs.Name)
	if !ok {
		return x.errAt(gqlstatus.InvalidReference, cs.Pos, "no action named %s is registered in this session", cs.Name).
			WithHint("register it with CREATE ACTION, or write the Δ as INSERT/SET/REMOVE/DELETE")
	}
	args, err := x.bindArgs(cs, a)
	if err != nil {
		return err
	}
	ok, err = a.Precondition(x.ctx, x.tx.Snapshot(), state, args)
	switch {
	case err != nil && x.ctx.Err() != nil:
		return x.interruptedBy(err)
	case err != nil:
		code := gqlstatus.DataException
		if errors.Is(err, vocab.ErrCostLimit) {
			code = gqlstatus.CostBudget
		}
		return x.errAt(code, cs.Pos, "the precondition of action %s cannot be evaluated: %v; nothing applied", a.Name, err).
			WithHint("IF '" + a.If + "'; revise the action with CREATE OR REPLACE ACTION")
	case !ok:
		return x.errAt(gqlstatus.PreconditionFalse, cs.Pos, "the precondition of action %s is false: IF '%s'; nothing applied", a.Name, a.If).
			WithHint("call it when the precondition holds, with other arguments, or read the session first")
	}
	body, ok := a.Body.(*planner.Plan)
	if !ok {
		return fmt.Errorf("action %s has no planned body", a.Name)
	}
	params := make([]ref.Val, len(body.Params))
	for i, name := range body.Params {
		params[i] = planner.ToCEL(args[name])
	}
	sub := *x
	sub.plan, sub.params, sub.inBody, sub.changed = body, params, true, false
	for _, st := range body.Stmts {
		bsr, err := sub.statement(st)
		if err != nil {
			x.meter, x.touched, x.bytes = sub.meter, sub.touched, sub.bytes
			return x.inAction(err, a, cs.Pos)
		}
		sr.Counts.Add(bsr.Counts)
		sr.Notices = append(sr.Notices, bsr.Notices...)
	}
	// What the body settled and whose status it set are the Δ's, checked
	// at its end like its own statements'.
	x.meter, x.touched, x.bytes = sub.meter, sub.touched, sub.bytes
	x.settled, x.statuses = sub.settled, sub.statuses
	changed := sub.changed
	x.changed = x.changed || changed
	sr.Action = a.Name
	if changed {
		x.ledger.Called(a.Name)
		x.tx.SetExt(Vocabulary(x.tx.Snapshot()).Invoked(a.Name, x.nextVersion()))
	}
	return nil
}

// inAction ties an error raised in an action's body to the CALL: the
// message names the action and where in its definition the error is.
func (x *executor) inAction(err error, a *vocab.Action, call gqlstatus.Pos) error {
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) {
		return err
	}
	out := *ge
	where := ""
	if ge.Pos.Valid() {
		where = fmt.Sprintf(" (at %s of its CREATE ACTION)", ge.Pos)
	}
	out.Msg = fmt.Sprintf("action %s: %s%s", a.Name, ge.Msg, where)
	out.Stmt = 0
	out.Locate(call, x.plan.Text)
	return &out
}

// bindArgs binds a CALL's arguments to the action's parameters by
// position, then by name, checks their types and applies defaults.
func (x *executor) bindArgs(cs *planner.CallStep, a *vocab.Action) (map[string]values.Value, error) {
	out := make(map[string]values.Value, len(a.Params))
	index := map[string]int{}
	for i, p := range a.Params {
		index[p.Name] = i
	}
	named := false
	for i, arg := range cs.Args {
		var p vocab.Param
		if name := cs.Names[i]; name != "" {
			named = true
			j, ok := index[name]
			if !ok {
				return nil, x.errAt(gqlstatus.InvalidReference, arg.Pos, "action %s has no parameter %s", a.Name, name).
					WithHint("its signature: " + a.Signature())
			}
			p = a.Params[j]
		} else {
			if named {
				return nil, x.errAt(gqlstatus.Syntax, arg.Pos, "a positional argument after a named one").
					WithHint("give the positional arguments first: " + a.Signature())
			}
			if i >= len(a.Params) {
				return nil, x.errAt(gqlstatus.InvalidReference, arg.Pos, "action %s takes %d arguments, not %d", a.Name, len(a.Params), len(cs.Args)).
					WithHint("its signature: " + a.Signature())
			}
			p = a.Params[i]
		}
		if _, dup := out[p.Name]; dup {
			return nil, x.errAt(gqlstatus.DuplicateAssignment, arg.Pos, "parameter %s of action %s is given twice", p.Name, a.Name)
		}
		v, err := x.eval(arg, &planner.Row{Params: x.params})
		if err != nil {
			return nil, err
		}
		cv, ok := p.Type.Coerce(v)
		if !ok {
			return nil, x.errAt(gqlstatus.InvalidValueType, arg.Pos, "argument %s of action %s is %s, not %s", p.Name, a.Name, v.Kind(), p.Type).
				WithHint("its signature: " + a.Signature())
		}
		out[p.Name] = cv
	}
	for _, p := range a.Params {
		if _, ok := out[p.Name]; ok {
			continue
		}
		if p.Default == nil {
			return nil, x.errAt(gqlstatus.InvalidReference, cs.Pos, "action %s needs its argument %s", a.Name, p.Name).
				WithHint("its signature: " + a.Signature())
		}
		out[p.Name] = *p.Default
	}
	return out, nil
}

// VocabularyBlock renders a session's vocabulary as the comment lines a
// Recall shows right after its header, so the whole text still parses
// (and re-commits): each view with its value, or broken with its error,
// then each action's signature, in name order. cost is the block's token
// estimate in tokens.Milli units (lines of text, so estimates add up).
func VocabularyBlock(state *vocab.State, vals *vocab.Values) (block []byte, cost int64) {
	for _, v := range state.Views() {
		block = append(block, "// view "...)
		block = appendCommentText(block, v.Name)
		r := vals.Results[v.Name]
		if r.Err != nil {
			block = append(block, ": broken: "...)
			block = appendCommentText(block, r.Err.Error())
		} else {
			block = append(block, " = "...)
			block = appendCommentText(block, r.Text)
		}
		block = append(block, '\n')
	}
	for _, a := range state.Actions() {
		block = append(block, "// action "...)
		block = appendCommentText(block, a.Signature())
		block = append(block, '\n')
	}
	return block, tokens.Milli(block)
}
