package vocab

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

func testGraph(t *testing.T) *store.Snapshot {
	t.Helper()
	g := store.New()
	tx := g.Begin()
	p := func(kv ...any) values.Props {
		m := map[string]values.Value{}
		for i := 0; i < len(kv); i += 2 {
			switch v := kv[i+1].(type) {
			case string:
				m[kv[i].(string)] = values.String(v)
			case int:
				m[kv[i].(string)] = values.Int(int64(v))
			}
		}
		return values.MakeProps(m)
	}
	a, _ := tx.InsertNode(tx.NewID(), []string{"TSK"}, p("nick", "a", "status", "open"))
	b, _ := tx.InsertNode(tx.NewID(), []string{"TSK", "Urgent"}, p("nick", "b", "status", "done"))
	tx.InsertNode(tx.NewID(), []string{"NOTE", "TSK"}, p("text", "not a task: its kind is NOTE"))
	m, _ := tx.InsertNode(tx.NewID(), []string{"MOD"}, p("loc", "auth/login.go"))
	tx.InsertEdge(tx.NewID(), "touches", a.ID, m.ID, nil)
	tx.InsertEdge(tx.NewID(), "touches", b.ID, m.ID, p("w", 2))
	return tx.Commit()
}

func define(t *testing.T, s *State, name, expr string) *State {
	t.Helper()
	n, err := s.DefineView(name, "", expr, false, "ana", 1)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return n
}

func TestViews(t *testing.T) {
	snap := testGraph(t)
	var s *State
	views := map[string]string{
		"open":      `size(nodes("TSK").filter(t, t.status == "open"))`,
		"tasks":     `count("TSK")`,
		"labels":    `nodes("TSK").map(t, t.labels)`,
		"edges":     `edges("touches").map(e, [e.from, e.to, e.type])`,
		"twice":     `view("open") * 2`,
		"ver":       `version`,
		"missing":   `nodes("TSK").filter(t, t.nope == 1).size()`,
		"cycle_a":   `view("cycle_b") + 1`,
		"cycle_b":   `view("cycle_a") + 1`,
		"none":      `view("nothing")`,
		"typeerror": `nodes("TSK")[0].status + 1 == 2`,
	}
	for n, e := range views {
		s = define(t, s, n, e)
	}
	vals, err := Evaluate(context.Background(), snap, s)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"open": "1", "tasks": "2", "labels": `[["TSK"], ["TSK", "Urgent"]]`,
		"edges": `[["a", "auth/login.go", "touches"], ["b", "auth/login.go", "touches"]]`,
		"twice": "2", "ver": "1",
	}
	for n, w := range want {
		if r := vals.Results[n]; r.Err != nil || r.Text != w {
			t.Errorf("%s = %q (%v), want %q", n, r.Text, r.Err, w)
		}
	}
	for _, n := range []string{"missing", "cycle_a", "cycle_b", "none", "typeerror"} {
		if r := vals.Results[n]; r.Err == nil {
			t.Errorf("%s = %q, want broken", n, r.Text)
		}
	}
	if r := vals.Results["cycle_a"]; r.Err == nil || !strings.Contains(r.Err.Error(), "cycle") {
		t.Errorf("cycle_a: %v", r.Err)
	}
}

// TestCompileErrors: an expression that does not compile is a
// CompileError, a syntax error (42001), worded and placed as its first
// issue, holding every issue cel-go found.
func TestCompileErrors(t *testing.T) {
	for _, c := range []struct {
		expr   string
		issues int // 0: refused before cel-go reads it
	}{
		{`size(`, 1}, {`nodes(1)`, 1}, {`undefined_var + 1`, 1}, {`__goldfish_session__`, 0}, {`1 + "a"`, 1},
		{"nope +\n  also_not", 2},
	} {
		var ce *CompileError
		_, err := (*State)(nil).DefineView("v", "", c.expr, false, "", 1)
		if !errors.As(err, &ce) {
			t.Errorf("%s: %v, want a CompileError", c.expr, err)
			continue
		}
		if code := gqlstatus.CodeOf(err, ""); code != gqlstatus.Syntax {
			t.Errorf("%s: code %s, want %s", c.expr, code, gqlstatus.Syntax)
		}
		if len(ce.Issues) != c.issues {
			t.Errorf("%s: %d issues %+v, want %d", c.expr, len(ce.Issues), ce.Issues, c.issues)
			continue
		}
		if c.issues == 0 {
			continue
		}
		e, _ := env()
		_, iss := e.Compile(c.expr)
		first := iss.Errors()[0]
		if ce.Error() != first.Message || ce.Msg != first.Message || ce.Line != first.Location.Line() || ce.Col != first.Location.Column()+1 {
			t.Errorf("%s: %q at %d:%d, want cel-go's first issue %q at %d:%d", c.expr, ce.Msg, ce.Line, ce.Col,
				first.Message, first.Location.Line(), first.Location.Column()+1)
		}
		if is := ce.Issues[0]; is.Msg != ce.Msg || is.Line != ce.Line || is.Col != ce.Col {
			t.Errorf("%s: first issue %+v, not the error's own", c.expr, is)
		}
	}
}

func TestCodecRoundTrip(t *testing.T) {
	s := define(t, nil, "a", `count("TSK")`)
	s, _ = s.DefineView("a", "how many", `count("TSK") + 1`, true, "bob", 3)
	b := s.AppendExt(nil)
	d, err := Decode(b, func(string) (ActionDef, error) { return ActionDef{}, errors.New("no actions") })
	if err != nil {
		t.Fatal(err)
	}
	v, _ := d.View("a")
	if v.Intent != "how many" || v.Revisions != 1 || v.Agent != "ana" || v.Registered != 1 || v.Revised != 3 {
		t.Fatalf("%+v", v)
	}
	if string(d.AppendExt(nil)) != string(b) {
		t.Fatal("encoding changed")
	}
}
