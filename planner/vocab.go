package planner

import (
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/vocab"
)

// DefineStep registers or drops a view or an action (docs/design.md#the-vocabulary-and-attention): a statement
// of its own, applied by the executor to the session's vocabulary as part
// of its Δ.
type DefineStep struct {
	Pos ast.Pos
	// Drop is set for DROP VIEW and DROP ACTION; Action tells an action
	// from a view.
	Drop, Action bool
	Replace      bool
	Name         string
	Intent       string
	// Expr is a view's CEL text, ExprPos where it starts in the text.
	Expr    string
	ExprPos ast.Pos
	// Def is an action's definition (its body planned: Def.Body is a
	// *Plan whose parameters are the action's, by name).
	Def vocab.ActionDef
	// IfPos is where an action's precondition starts in the text.
	IfPos ast.Pos
}

func (*DefineStep) step() {}

// planDefine plans a registration or a drop.
func planDefine(st ast.Stmt, text string, index int) (*Statement, error) {
	out := &Statement{Index: index, Pos: st.Position(), Text: text}
	switch s := st.(type) {
	case *ast.DefineView:
		out.Define = &DefineStep{Pos: s.Pos, Replace: s.Replace, Name: s.Name, Intent: s.Intent, Expr: s.Expr, ExprPos: s.ExprPos}
	case *ast.DropVocab:
		out.Define = &DefineStep{Pos: s.Pos, Drop: true, Action: s.Action, Name: s.Name}
	case *ast.DefineAction:
		def, err := PlanAction(s)
		if err != nil {
			return nil, err
		}
		out.Define = &DefineStep{Pos: s.Pos, Action: true, Replace: s.Replace, Name: s.Name, Intent: s.Intent,
			Def: def, IfPos: s.IfPos}
	}
	return out, nil
}

// PlanAction plans a CREATE ACTION: its parameters (types known, defaults
// literals of their types), and its body as the statements of one Δ whose
// $parameters are the action's. The body is checked here, when the
// action is registered: an unknown variable, an undeclared parameter, a
// Recall, a transaction statement, a CALL or a registration inside it,
// or a form outside the subset is refused, at its position in the CREATE
// text.
func PlanAction(s *ast.DefineAction) (vocab.ActionDef, error) {
	text := s.Body.Text
	def := vocab.ActionDef{Name: s.Name, Intent: s.Intent, If: s.If, Source: s.Text}
	sc := &scope{text: text, slots: map[string]int{}, params: &paramTable{index: map[string]int{}}}
	declared := map[string]bool{}
	for _, p := range s.Params {
		if declared[p.Name] {
			return def, sc.errAt(gqlstatus.DuplicateAssignment, p.Pos, "parameter %s is declared twice", p.Name).
				WithHint("give each parameter its own name")
		}
		declared[p.Name] = true
		typ, ok := vocab.ParseType(p.Type)
		if !ok {
			return def, sc.errAt(gqlstatus.InvalidValueType, p.TypePos, "%s is not a parameter type", p.Type).
				WithHint("use STRING, INTEGER, FLOAT, BOOLEAN, DATE, DATETIME or LIST")
		}
		param := vocab.Param{Name: p.Name, Type: typ}
		if p.Default != nil {
			v, err := sc.value(p.Default)
			if err != nil {
				return def, err
			}
			if v.Const == nil {
				return def, sc.errAt(gqlstatus.InvalidValueType, p.Default.Position(), "the default of %s is not a literal", p.Name).
					WithHint("write a literal such as '', 0 or []")
			}
			d, ok := typ.Coerce(*v.Const)
			if !ok && !v.Const.IsNull() {
				return def, sc.errAt(gqlstatus.InvalidValueType, p.Default.Position(), "the default of %s is %s, not %s", p.Name, v.Const.Kind(), typ).
					WithHint("give a default of the parameter's type")
			}
			if v.Const.IsNull() {
				d = *v.Const
			}
			param.Default = &d
		}
		def.Params = append(def.Params, param)
	}
	if len(s.Body.Stmts) == 0 {
		return def, sc.errAt(gqlstatus.Syntax, s.Pos, "the body of action %s is empty", s.Name).
			WithHint("write the Δ it applies between the braces: { MATCH … SET … }")
	}
	for _, st := range s.Body.Stmts {
		var what string
		switch st.(type) {
		case *ast.StartTransaction, *ast.CommitTx, *ast.RollbackTx:
			what = "a transaction statement"
		case *ast.Call:
			what = "CALL"
		case *ast.DefineView, *ast.DefineAction, *ast.DropVocab:
			what = "a registration"
		}
		if what != "" {
			return def, sc.errAt(gqlstatus.Syntax, st.Position(), "%s is not allowed in the body of an action", what).
				WithHint("an action's body is the statements of one Δ: MATCH, INSERT, SET, REMOVE, DELETE")
		}
	}
	body, err := Build(s.Body)
	if err != nil {
		return def, err
	}
	for _, st := range body.Stmts {
		if st.Read {
			return def, sc.errAt(gqlstatus.WrongVerb, st.Pos, "a Recall inside the body of action %s", s.Name).
				WithHint("an action changes the session; read it with Recall, or add the change to make")
		}
	}
	for i, name := range body.Params {
		if !declared[name] {
			return def, sc.errAt(gqlstatus.InvalidReference, body.ParamPos[i], "$%s is not a parameter of action %s", name, s.Name).
				WithHint("declare it in the action's parameter list: " + s.Name + "(" + name + " STRING)")
		}
	}
	def.Body, def.Writes = body, bodyWrites(body)
	return def, nil
}
