package goldfish_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/tokens"
)

// envelopeLines returns the lines a Recall's envelope added: those
// between the header and the notes and body.
func envelopeLines(text string) string {
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "// attention ") || strings.HasPrefix(l, "// view ") ||
			strings.HasPrefix(l, "// action ") || strings.HasPrefix(l, "//   ") ||
			(strings.HasPrefix(l, "// ") && strings.Contains(l, "left out at depth=lean")) {
			b.WriteString(l)
		}
	}
	return b.String()
}

// TestLeanEnvelopeBounded: at depth=lean the envelope stays within 300
// tokens (the estimate and the exact o200k count) however large the
// vocabulary, however long its names and values, however much changed:
// broken views, stale actions, overlapping intents, changes since the
// last read all at once. What it leaves out it counts.
func TestLeanEnvelopeBounded(t *testing.T) {
	ctx := context.Background()
	db, _ := goldfish.Open()
	defer db.Close()
	s, _ := db.Session(ctx, "big")
	long := strings.Repeat("x", 60)
	if _, err := s.Commit(ctx, `INSERT (:TSK {nick: "t1", status: "open", text: $t})`, map[string]any{"t": strings.Repeat("long value ", 40)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Recall(ctx, `MATCH (t:TSK)`, goldfish.RecallOptions{Agent: "ana"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetAttentionSettings(ctx, goldfish.AttentionSettings{StaleReads: 1, Decay: 0.99, SalienceThreshold: 0.01, GapRatio: 4, GapMin: 5}); err != nil {
		t.Fatal(err)
	}
	for i := range 120 {
		view := fmt.Sprintf(`CREATE VIEW v_%s_%03d INTENT 'view %d' AS 'nodes("TSK").map(t, t.text)'`, long, i, i)
		if i%3 == 0 {
			view = fmt.Sprintf(`CREATE VIEW v_%s_%03d AS 'nodes("TSK")[0].missing_%d'`, long, i, i)
		}
		if _, err := s.Commit(ctx, view, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Commit(ctx, fmt.Sprintf(`CREATE ACTION a_%s_%03d(nick STRING, a_long_parameter_name_%d STRING = '%s')
			INTENT 'close the finished task and keep the reason why' { MATCH (t:TSK {nick: $nick}) SET t.status = "done" }`, long, i, i, long), nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, agent := range []string{"ana", "bob"} {
		for _, only := range [][]string{nil, {"views"}, {"actions"}, {"attention"}, {"shape"}} {
			sh, err := s.Recall(ctx, `MATCH (t:TSK)`, goldfish.RecallOptions{Agent: agent, Only: only})
			if err != nil {
				t.Fatal(err)
			}
			env := envelopeLines(sh.Text)
			if agent == "bob" && only == nil {
				continue // bob's first read: depth=full once
			}
			est := tokens.Estimate(env)
			exact, err := tokens.Exact(env)
			if err != nil {
				t.Fatal(err)
			}
			if est > goldfishLeanTokens || exact > goldfishLeanTokens {
				t.Errorf("%s only=%v: the lean envelope is %d tokens (exact %d), over %d:\n%s", agent, only, est, exact, goldfishLeanTokens, env)
			}
			if only == nil && !strings.Contains(env, "left out at depth=lean") {
				t.Errorf("%s: nothing said of what was left out:\n%s", agent, env)
			}
		}
	}
}

const goldfishLeanTokens = 300

// TestEnvelopeDeterministic: two sessions given the same Commits, the
// same Recalls by the same agents with the same options and the same
// settings changes give the same bytes, Recall by Recall, and survive a
// restart alike.
func TestEnvelopeDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ctx := context.Background()
		dbs := [2]*goldfish.DB{}
		sessions := [2]*goldfish.Session{}
		for i := range dbs {
			dbs[i], _ = goldfish.Open()
			defer dbs[i].Close()
			sessions[i], _ = dbs[i].Session(ctx, "s")
		}
		steps := rapid.IntRange(1, 40).Draw(t, "steps")
		for range steps {
			op := envelopeOp(t)
			var outs [2]string
			for i, s := range sessions {
				outs[i] = op(ctx, s)
			}
			if outs[0] != outs[1] {
				t.Fatalf("the same step gave\n%s\nand\n%s", outs[0], outs[1])
			}
		}
	})
}

// envelopeOp draws one step of a session's life.
func envelopeOp(t *rapid.T) func(context.Context, *goldfish.Session) string {
	nick := fmt.Sprint("t", rapid.IntRange(0, 4).Draw(t, "nick"))
	agent := rapid.SampledFrom([]string{"", "ana", "bob", "carl"}).Draw(t, "agent")
	commit := func(text string, params map[string]any) func(context.Context, *goldfish.Session) string {
		return func(ctx context.Context, s *goldfish.Session) string {
			res, err := s.CommitWith(ctx, text, params, goldfish.CommitOptions{Agent: agent})
			if err != nil {
				return "error: " + err.Error()
			}
			return fmt.Sprint(res.Version)
		}
	}
	switch rapid.IntRange(0, 9).Draw(t, "op") {
	case 0:
		return commit(`INSERT (:TSK {nick: $n, status: "open"})`, map[string]any{"n": nick})
	case 1:
		return commit(`MATCH (t:TSK {nick: $n}) SET t.status = $s`, map[string]any{"n": nick, "s": rapid.SampledFrom([]string{"open", "done"}).Draw(t, "status")})
	case 2:
		name := rapid.SampledFrom([]string{"open", "all", "done"}).Draw(t, "view")
		return commit(fmt.Sprintf(`CREATE OR REPLACE VIEW %s INTENT 'tasks %s' AS 'size(nodes("TSK").filter(t, t.status == "%s"))'`, name, name, name), nil)
	case 3:
		name := rapid.SampledFrom([]string{"settle", "close", "reopen"}).Draw(t, "action")
		return commit(fmt.Sprintf(`CREATE OR REPLACE ACTION %s(nick STRING) INTENT '%s a task and keep why' { MATCH (t:TSK {nick: $nick}) SET t.status = "%s" }`, name, name, name), nil)
	case 4:
		name := rapid.SampledFrom([]string{"settle", "close", "reopen"}).Draw(t, "call")
		return commit(fmt.Sprintf(`CALL %s($n)`, name), map[string]any{"n": nick})
	case 5:
		what := rapid.SampledFrom([]string{"VIEW open", "VIEW all", "ACTION settle", "ACTION close"}).Draw(t, "drop")
		return commit("DROP "+what, nil)
	case 6:
		name := rapid.SampledFrom(goldfish.AttentionSettingNames).Draw(t, "setting")
		value := map[string]string{"stale_reads": "2", "decay": "0.5", "salience_threshold": "0.3", "gap_ratio": "2", "gap_min": "2"}[name]
		return func(ctx context.Context, s *goldfish.Session) string {
			cur, _ := s.AttentionSettings(ctx)
			next, err := goldfish.SetAttentionSetting(cur, name, value)
			if err == nil {
				err = s.SetAttentionSettings(ctx, next)
			}
			return fmt.Sprint(next, err)
		}
	default:
		o := goldfish.RecallOptions{Agent: agent, Depth: rapid.SampledFrom([]string{"", "lean", "full"}).Draw(t, "depth")}
		if rapid.Bool().Draw(t, "some") {
			o.Only = rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"shape", "views", "actions", "attention"}), 1, 3, rapid.ID[string]).Draw(t, "only")
		}
		return func(ctx context.Context, s *goldfish.Session) string {
			sh, err := s.Recall(ctx, `MATCH (t:TSK)`, o)
			if err != nil {
				return "error: " + err.Error()
			}
			j, _ := json.Marshal(sh.Attention)
			return sh.Text + string(j)
		}
	}
}
