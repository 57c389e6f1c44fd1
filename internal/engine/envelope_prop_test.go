package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/values"
	"pgregory.net/rapid"
)

// The property tests of envelope.go: an agent's first read within its target.

// TestFirstReadWithinTarget: for random vocabularies of up to 200 views
// and actions, of intents short and long and alike or not, an agent's
// first Recall (depth=full) is within the token target (t, or its
// default), or within the rows and the 300 tokens a lean envelope may
// add when the rows alone leave less. Before the bound, 80 actions made
// a first read of 6,946 tokens and 130 of 10,623. Then, with some
// actions called, the agent's next (lean) read never leaves out a view
// or action of higher salience than one it lists (it listed a shorter
// item of lower salience after one that did not fit).
func TestFirstReadWithinTarget(t *testing.T) {
	ctx := context.Background()
	rapid.Check(t, func(rt *rapid.T) {
		db, err := openTest()
		if err != nil {
			rt.Fatal(err)
		}
		defer db.Close()
		s, err := db.Session(ctx, "s")
		if err != nil {
			rt.Fatal(err)
		}
		if _, err := s.commitText(ctx, `INSERT (:TSK {nick: "t1", status: "open"}), (:TSK {nick: "t2", status: "done"})`, nil); err != nil {
			rt.Fatal(err)
		}
		views := rapid.IntRange(0, 100).Draw(rt, "views")
		actions := rapid.IntRange(0, 200-views).Draw(rt, "actions")
		words := rapid.IntRange(1, 40).Draw(rt, "intent words")
		alike := rapid.Bool().Draw(rt, "alike intents")
		intent := func(i int) string {
			var b strings.Builder
			for w := range words {
				if alike {
					fmt.Fprintf(&b, "word%d ", w)
				} else {
					fmt.Fprintf(&b, "w%dx%d ", i, w)
				}
			}
			return b.String()
		}
		var stmts []string
		for i := range views {
			stmts = append(stmts, fmt.Sprintf(`CREATE VIEW v%d INTENT '%s' AS 'size(nodes("TSK")) + %d'`, i, intent(i), i))
		}
		for i := range actions {
			stmts = append(stmts, fmt.Sprintf(`CREATE ACTION a%d(nick STRING, note STRING = '') INTENT '%s' { MATCH (t:TSK {nick: $nick}) SET t.n%d = $note }`, i, intent(i), i))
		}
		for i := 0; i < len(stmts); i += 50 {
			if _, err := s.commitText(ctx, strings.Join(stmts[i:min(i+50, len(stmts))], ";\n"), nil); err != nil {
				rt.Fatal(err)
			}
		}
		target := rapid.SampledFrom([]int{0, 600, 1000, 2500, 4000}).Draw(rt, "t")
		q := `MATCH (t:TSK {nick: "t1"})`
		rows, err := s.recallShape(ctx, q, values.RecallOptions{T: target, Only: []string{"shape"}})
		if err != nil {
			rt.Fatal(err)
		}
		sh, err := s.recallShape(ctx, q, values.RecallOptions{T: target, Agent: "ana"})
		if err != nil {
			rt.Fatal(err)
		}
		want := target
		if want == 0 {
			want = 4000
		}
		want = max(want, rows.Tokens+300) // a lean envelope's 300 tokens
		if sh.Tokens > want+want/50 {     // the estimate's error
			rt.Fatalf("%d views and %d actions: the first read is %d tokens, over %d (t=%d, rows %d):\n%s", views, actions, sh.Tokens, want, target, rows.Tokens, sh.Text)
		}
		if sh.Attention == nil || !sh.Attention.FirstRead {
			rt.Fatalf("not a first read: %+v", sh.Attention)
		}

		// Some actions called, some views read: saliences apart.
		for range rapid.IntRange(0, 10).Draw(rt, "calls") {
			if actions == 0 {
				break
			}
			a := rapid.IntRange(0, actions-1).Draw(rt, "called")
			if _, err := s.commitText(ctx, fmt.Sprintf(`CALL a%d("t1", "x")`, a), nil); err != nil {
				rt.Fatal(err)
			}
		}
		// The next read is lean: it never leaves out a view or action of
		// higher salience than one it lists.
		lean, err := s.recallShape(ctx, q, values.RecallOptions{T: target, Agent: "ana"})
		if err != nil {
			rt.Fatal(err)
		}
		voc, err := s.Vocabulary(ctx)
		if err != nil {
			rt.Fatal(err)
		}
		salience := map[string]float64{}
		for _, v := range voc.Views {
			if !v.Broken() {
				salience["view "+v.Name] = v.Salience
			}
		}
		for _, a := range voc.Actions {
			salience["action "+a.Name] = a.Salience
		}
		shown := map[string]bool{}
		for _, line := range strings.Split(lean.Text, "\n") {
			for _, kind := range []string{"view ", "action "} {
				if rest, ok := strings.CutPrefix(line, "// "+kind); ok {
					name, _, _ := strings.Cut(rest, " ")
					name, _, _ = strings.Cut(name, "(")
					shown[kind+name] = true
				}
			}
		}
		lowest := 2.0
		for name := range shown {
			lowest = min(lowest, salience[name])
		}
		for name, sal := range salience {
			if !shown[name] && sal > lowest+1e-9 {
				rt.Fatalf("the lean read left out %s (salience %.3f) and listed one of %.3f:\n%s", name, sal, lowest, lean.Text)
			}
		}
	})
}
