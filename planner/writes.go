package planner

import (
	"github.com/goldfish-gql/goldfish/parser/ast"
	"github.com/goldfish-gql/goldfish/vocab"
)

// bodyWrites reads the write targets of an action's planned body (the
// rule is vocab's, contested.go): what each statement's SET, REMOVE,
// INSERT and DELETE write, the kinds of its variables taken from the
// patterns that bind them. PlanAction gives them to the ActionDef, so
// the vocabulary has them with the definition.
func bodyWrites(plan *Plan) []vocab.Target {
	out := []vocab.Target{}
	add := func(t vocab.Target) {
		for _, x := range out {
			if x == t {
				return
			}
		}
		out = append(out, t)
	}
	for _, st := range plan.Stmts {
		kinds := map[int]string{}
		edges := map[int]vocab.Target{} // an edge slot's (from-kind, type)
		kindOf := func(np *NodePlan) string {
			if len(np.Labels) > 0 {
				return np.Labels[0]
			}
			if np.Slot >= 0 {
				return kinds[np.Slot]
			}
			return ""
		}
		edgeOf := func(p *PathPlan, i int) vocab.Target {
			e, from := p.Edges[i], p.Nodes[i]
			if e.Dir == ast.DirIn {
				from = p.Nodes[i+1]
			}
			t := vocab.Target{Kind: kindOf(from)}
			if len(e.Types) == 1 {
				t.Edge = e.Types[0]
			} else {
				t.Edge = "*"
			}
			return t
		}
		// The kinds first: a variable's kind is its first label where a
		// pattern of the statement gives one.
		for _, step := range st.Steps {
			var pats []*PathPlan
			switch s := step.(type) {
			case *MatchStep:
				pats = s.Patterns
			case *InsertStep:
				pats = s.Patterns
			}
			for _, p := range pats {
				for _, np := range p.Nodes {
					if _, ok := kinds[np.Slot]; np.Slot >= 0 && len(np.Labels) > 0 && !ok {
						kinds[np.Slot] = np.Labels[0]
					}
				}
			}
			for _, p := range pats {
				for i, ep := range p.Edges {
					if _, ok := edges[ep.Slot]; ep.Slot >= 0 && !ok {
						edges[ep.Slot] = edgeOf(p, i)
					}
				}
			}
		}
		slotKind := func(slot int) string {
			if slot < len(st.Kinds) && st.Kinds[slot] == VarEdge {
				if e := edges[slot].Edge; e != "*" {
					return e
				}
				return ""
			}
			return kinds[slot]
		}
		for _, step := range st.Steps {
			switch s := step.(type) {
			case *InsertStep:
				for _, p := range s.Patterns {
					for _, np := range p.Nodes {
						if !np.Bound {
							add(vocab.Target{Kind: kindOf(np)})
						}
					}
					for i, ep := range p.Edges {
						if !ep.Bound {
							add(edgeOf(p, i))
						}
					}
				}
			case *SetStep:
				for _, it := range s.Items {
					switch {
					case it.Key != "":
						add(vocab.Target{Kind: slotKind(it.Slot), Key: it.Key})
					case it.IsAll:
						for _, pp := range it.All {
							add(vocab.Target{Kind: slotKind(it.Slot), Key: pp.Key})
						}
					}
				}
			case *RemoveStep:
				for _, it := range s.Items {
					if it.Key != "" {
						add(vocab.Target{Kind: slotKind(it.Slot), Key: it.Key})
					}
				}
			case *DeleteStep:
				for _, slot := range s.Slots {
					if slot < len(st.Kinds) && st.Kinds[slot] == VarEdge {
						add(edges[slot])
					} else {
						add(vocab.Target{Kind: kinds[slot]})
					}
				}
			}
		}
	}
	return out
}
