package planner

import (
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/values"
)

// planQuery plans a statement of clauses: each clause a step, in order,
// over one scope of variables. MATCH with nothing that writes is a Recall
// (planRecall).
func planQuery(q *ast.Query, text string, params *paramTable, index int) (*Statement, error) {
	if err := firstRefusal(q, text); err != nil {
		return nil, err
	}
	sc := &scope{text: text, slots: map[string]int{}, params: params}
	st := &Statement{Index: index, Pos: q.Pos, Text: q.Text}
	for _, c := range q.Clauses {
		switch x := c.(type) {
		case *ast.Match:
			if x.Optional {
				return nil, refuse(text, x.Pos, "OPTIONAL MATCH")
			}
			m := &MatchStep{Pos: x.Pos}
			for _, pp := range x.Patterns {
				path, err := sc.path(pp, false)
				if err != nil {
					return nil, err
				}
				m.Patterns = append(m.Patterns, path)
			}
			if x.Where != nil {
				prg, err := sc.compile(x.Where)
				if err != nil {
					return nil, err
				}
				m.Where = prg
			}
			st.Steps = append(st.Steps, m)
		case *ast.Limit:
			v, err := sc.value(x.Count)
			if err != nil {
				return nil, err
			}
			if v.Const != nil {
				if v.Const.Kind() != values.KindInt {
					return nil, sc.errAt(gqlstatus.InvalidValueType, x.Count.Position(), "LIMIT takes an integer, not %s", v.Const.Kind())
				}
				if v.Const.AsInt() < 0 {
					return nil, sc.errAt(gqlstatus.NegativeLimit, x.Count.Position(), "LIMIT is negative (%d)", v.Const.AsInt()).
						WithHint("write LIMIT 0 or more")
				}
			}
			st.Steps = append(st.Steps, &LimitStep{Pos: x.Pos, Count: v})
		case *ast.Insert:
			ins := &InsertStep{Pos: x.Pos}
			for _, pp := range x.Patterns {
				path, err := sc.path(pp, true)
				if err != nil {
					return nil, err
				}
				ins.Patterns = append(ins.Patterns, path)
			}
			st.Steps = append(st.Steps, ins)
		case *ast.Set:
			s := &SetStep{Pos: x.Pos}
			for _, it := range x.Items {
				item, err := sc.setItem(it)
				if err != nil {
					return nil, err
				}
				s.Items = append(s.Items, item)
			}
			st.Steps = append(st.Steps, s)
		case *ast.Remove:
			r := &RemoveStep{Pos: x.Pos}
			for _, it := range x.Items {
				item, err := sc.removeItem(it)
				if err != nil {
					return nil, err
				}
				r.Items = append(r.Items, item)
			}
			st.Steps = append(st.Steps, r)
		case *ast.Delete:
			d := &DeleteStep{Pos: x.Pos, Detach: x.Detach}
			for _, e := range x.Exprs {
				v, ok := e.(*ast.Var)
				if !ok {
					return nil, sc.errAt(gqlstatus.Syntax, e.Position(), "DELETE takes variables").
						WithHint("bind the element in MATCH and DELETE its variable")
				}
				slot, err := sc.bound(v.Name, v.Pos)
				if err != nil {
					return nil, err
				}
				d.Slots = append(d.Slots, slot)
				d.Poses = append(d.Poses, v.Pos)
			}
			st.Steps = append(st.Steps, d)
		}
	}
	st.Read = q.Reads()
	st.Vars = sc.names
	st.Kinds = sc.kinds
	if st.Read {
		rp, err := planRecall(q, st, sc)
		if err != nil {
			return nil, err
		}
		st.Recall = rp
	}
	if len(st.Steps) == 0 {
		return nil, sc.errAt(gqlstatus.Syntax, q.Pos, "empty statement")
	}
	if _, first := st.Steps[0].(*LimitStep); first {
		return nil, sc.errAt(gqlstatus.Syntax, q.Pos, "LIMIT needs a MATCH before it")
	}
	return st, nil
}

func (s *scope) bound(name string, pos ast.Pos) (int, error) {
	slot, ok := s.slots[name]
	if !ok {
		return 0, s.errAt(gqlstatus.InvalidReference, pos, "variable %s is not bound", name).
			WithHint("bind it in a MATCH or INSERT pattern first")
	}
	return slot, nil
}

// declare binds a variable to a slot, or checks an existing binding has the
// same kind. It reports whether the variable was bound before.
func (s *scope) declare(name string, kind VarKind, pos ast.Pos) (int, bool, error) {
	if name == "" {
		return -1, false, nil
	}
	if slot, ok := s.slots[name]; ok {
		if s.kinds[slot] != kind {
			what := map[VarKind]string{VarNode: "a node", VarEdge: "an edge"}
			return 0, false, s.errAt(gqlstatus.InvalidReference, pos,
				"variable %s is %s here but %s where it was bound", name, what[kind], what[s.kinds[slot]])
		}
		return slot, true, nil
	}
	slot := len(s.names)
	s.slots[name] = slot
	s.names = append(s.names, name)
	s.kinds = append(s.kinds, kind)
	return slot, false, nil
}

// value plans a value expression: constants fold, parameters stay slots,
// the rest compiles to CEL. A constant no property can hold is refused
// here, at its literal, so a Commit never writes it.
func (s *scope) value(e ast.Expr) (Value, error) {
	if v, ok, err := s.constValue(e, 0); err != nil || ok {
		if err != nil {
			return Value{}, err
		}
		if err := v.Check(); err != nil {
			return Value{}, s.errAt(values.ValueCode(err), e.Position(), "%v", err).
				WithHint("write a value a property can hold")
		}
		return Value{Pos: e.Position(), Const: &v, Param: -1}, nil
	}
	if p, ok := e.(*ast.Param); ok {
		return Value{Pos: p.Pos, Param: s.params.slot(p.Name, p.Pos)}, nil
	}
	prg, err := s.compile(e)
	if err != nil {
		return Value{}, err
	}
	return Value{Pos: e.Position(), Prog: prg, Param: -1}, nil
}

func (s *scope) setItem(it ast.SetItem) (SetItem, error) {
	switch x := it.(type) {
	case *ast.SetProp:
		slot, err := s.bound(x.Var, x.Pos)
		if err != nil {
			return SetItem{}, err
		}
		v, err := s.value(x.Value)
		if err != nil {
			return SetItem{}, err
		}
		return SetItem{Pos: x.Pos, Slot: slot, Key: x.Key, Val: v}, nil
	case *ast.SetAllProps:
		slot, err := s.bound(x.Var, x.Pos)
		if err != nil {
			return SetItem{}, err
		}
		var entries []*ast.PropEntry
		if x.Map != nil {
			entries = x.Map.Entries
		}
		all, err := s.props(entries)
		if err != nil {
			return SetItem{}, err
		}
		return SetItem{Pos: x.Pos, Slot: slot, All: all, IsAll: true, Merge: x.Merge}, nil
	case *ast.SetLabels:
		slot, err := s.bound(x.Var, x.Pos)
		if err != nil {
			return SetItem{}, err
		}
		if s.kinds[slot] != VarNode {
			return SetItem{}, s.errAt(gqlstatus.InvalidValueType, x.Pos, "%s is an edge; an edge has one type and no labels to set", x.Var)
		}
		return SetItem{Pos: x.Pos, Slot: slot, Labels: x.Labels}, nil
	}
	return SetItem{}, gqlstatus.At(gqlstatus.Syntax, it.Position(), s.text, "unsupported SET item")
}

func (s *scope) removeItem(it ast.RemoveItem) (RemoveItem, error) {
	switch x := it.(type) {
	case *ast.RemoveProp:
		slot, err := s.bound(x.Var, x.Pos)
		if err != nil {
			return RemoveItem{}, err
		}
		return RemoveItem{Pos: x.Pos, Slot: slot, Key: x.Key}, nil
	case *ast.RemoveLabels:
		slot, err := s.bound(x.Var, x.Pos)
		if err != nil {
			return RemoveItem{}, err
		}
		if s.kinds[slot] != VarNode {
			return RemoveItem{}, s.errAt(gqlstatus.InvalidValueType, x.Pos, "%s is an edge; an edge has no labels to remove", x.Var)
		}
		return RemoveItem{Pos: x.Pos, Slot: slot, Labels: x.Labels}, nil
	}
	return RemoveItem{}, gqlstatus.At(gqlstatus.Syntax, it.Position(), s.text, "unsupported REMOVE item")
}
