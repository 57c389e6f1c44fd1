package vocab

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

func fastGraph(n int) *store.Snapshot {
	tx := store.New().Begin()
	var prev store.ID
	for i := range n {
		node, _ := tx.InsertNode(tx.NewID(), []string{"TSK"}, values.MakeProps(map[string]values.Value{
			"nick": values.String(fmt.Sprintf("TSK_%d", i)), "weight": values.Int(int64(i % 97)),
			"title": values.String("élément of the session"),
		}))
		if i > 0 {
			tx.InsertEdge(tx.NewID(), "calls", prev, node.ID, nil)
		}
		prev = node.ID
	}
	return tx.Commit()
}

// TestUntrackedBound: where the registration check evaluates a view
// untracked, the bound it relied on is at least the cost the tracked
// evaluation counts, and the check says what a Recall says of the view.
func TestUntrackedBound(t *testing.T) {
	snap := fastGraph(300)
	exprs := []string{
		`size(nodes("TSK").filter(t, t.weight > 40))`,
		`nodes("TSK").filter(t, t.nick == "TSK_7").map(t, t.weight)`,
		`nodes("TSK").exists(t, t.nick != "x" && t.weight < 3) || count("TSK") > 2`,
		`nodes("TSK").all(t, t.weight >= 0)`,
		`nodes("TSK").map(t, t.weight * 2 + 1).filter(w, w % 3 == 0).size()`,
		`nodes("TSK").map(t, [t.weight, {"n": t.nick}])`,
		`edges("calls").filter(e, e.from == "TSK_1").size()`,
		`nodes("TSK").filter(t, t.nope == 1).size()`,
		`nodes("TSK").map(a, nodes("TSK").filter(b, b.weight == a.weight).size()).size()`,
		`nodes("TSK").exists_one(t, "TSK_3" in [t.nick, "y"])`,
		`nodes("TSK").filter(t, t.title.startsWith("é")).size()`,
		`nodes("TSK")[0].weight + 1 == 2`,
		`nodes("NONE").size() + version`,
	}
	var s *State
	for i, e := range exprs {
		s = define(t, s, fmt.Sprintf("v%d", i), e)
	}
	vals, err := Evaluate(context.Background(), snap, s)
	if err != nil {
		t.Fatal(err)
	}
	fast := 0
	for i, e := range exprs {
		name := fmt.Sprintf("v%d", i)
		v, _ := s.View(name)
		tp, ok := v.prog.(*trackedProgram)
		if !ok {
			t.Fatalf("%s: not tracked", e)
		}
		b := &costBounder{snap: snap, ast: tp.checked.NativeRep()}
		bound, ok := b.cost(b.ast.Expr())
		r := vals.Results[name]
		if ok {
			fast++
			if r.Cost > bound {
				t.Errorf("%s: costs %d, over its bound %d", e, r.Cost, bound)
			}
		}
		viewErr, ctxErr := CheckView(context.Background(), snap, s, name)
		if ctxErr != nil {
			t.Fatal(ctxErr)
		}
		if fmt.Sprint(viewErr) != fmt.Sprint(r.Err) {
			t.Errorf("%s: the check says %v, a Recall %v", e, viewErr, r.Err)
		}
	}
	if fast < len(exprs)-1 {
		t.Errorf("only %d of %d views bounded", fast, len(exprs))
	}
}

// TestUntrackedOverLimit: a view over its cost limit is bounded over it,
// evaluated tracked, and reported broken by the check.
func TestUntrackedOverLimit(t *testing.T) {
	snap := fastGraph(120)
	s := define(t, nil, "big", `nodes("TSK").map(a, nodes("TSK").map(b, nodes("TSK").filter(c, c.weight == a.weight + b.weight).size()))`)
	v, _ := s.View("big")
	if untrackedFor(v.prog, snap, nil) != v.prog {
		t.Fatal("a view over the limit was bounded under it")
	}
	viewErr, _ := CheckView(context.Background(), snap, s, "big")
	if !errors.Is(viewErr, ErrCostLimit) {
		t.Fatalf("check: %v, want over the cost limit", viewErr)
	}
}

// TestUntrackedPrecondition: an IF bounded by its parameters' defaults
// runs untracked; a comprehension variable hiding a parameter is not
// bounded by the parameter's size.
func TestUntrackedPrecondition(t *testing.T) {
	snap := fastGraph(50)
	nick := values.String("TSK_3")
	var s *State
	s, err := s.DefineAction(ActionDef{Name: "a", Params: []Param{{Name: "nick", Type: TypeString, Default: &nick}},
		If: `size(nodes("TSK").filter(t, t.nick == nick)) == 1`}, false, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	s, err = s.DefineAction(ActionDef{Name: "b", Params: []Param{{Name: "nick", Type: TypeString, Default: &nick}},
		If: `nodes("TSK").exists(nick, nick.nick == "TSK_3")`}, false, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	args := celArgs(map[string]values.Value{"nick": nick})
	a, _ := s.Action("a")
	if untrackedFor(a.ifProg, snap, paramSizes(args)) == a.ifProg {
		t.Error("a: not bounded")
	}
	b, _ := s.Action("b")
	if untrackedFor(b.ifProg, snap, paramSizes(args)) != b.ifProg {
		t.Error("b: bounded though a comprehension hides nick")
	}
	for _, act := range []*Action{a, b} {
		checked, err, ctxErr := act.CheckPrecondition(context.Background(), snap, s)
		if !checked || err != nil || ctxErr != nil {
			t.Errorf("%s: %v %v %v", act.Name, checked, err, ctxErr)
		}
		ok, err := act.Precondition(context.Background(), snap, s, map[string]values.Value{"nick": nick})
		if !ok || err != nil {
			t.Errorf("%s: %v %v", act.Name, ok, err)
		}
	}
}
