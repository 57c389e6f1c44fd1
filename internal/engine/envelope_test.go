package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/tokens"
	"github.com/goldfish-gql/goldfish/values"
	"pgregory.net/rapid"
)

// The tests of envelope.go: the attention envelope's bounds, sections and what it says to each agent.

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
	db, _ := openTest()
	defer db.Close()
	s, _ := db.Session(ctx, "big")
	long := strings.Repeat("x", 60)
	if _, err := s.commitText(ctx, `INSERT (:TSK {nick: "t1", status: "open", text: $t})`, map[string]any{"t": strings.Repeat("long value ", 40)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.recallShape(ctx, `MATCH (t:TSK)`, values.RecallOptions{Agent: "ana"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetAttentionSettings(ctx, values.AttentionSettings{StaleReads: 1, Decay: 0.99, SalienceThreshold: 0.01, GapRatio: 4, GapMin: 5, GapWindow: 200}); err != nil {
		t.Fatal(err)
	}
	for i := range 120 {
		view := fmt.Sprintf(`CREATE VIEW v_%s_%03d INTENT 'view %d' AS 'nodes("TSK").map(t, t.text)'`, long, i, i)
		if i%3 == 0 {
			view = fmt.Sprintf(`CREATE VIEW v_%s_%03d AS 'nodes("TSK")[0].missing_%d'`, long, i, i)
		}
		// ana registers them all: her yours section lists them.
		as := values.CommitOptions{Agent: "ana"}
		if _, err := s.commitWith(ctx, view, nil, as); err != nil {
			t.Fatal(err)
		}
		if _, err := s.commitWith(ctx, fmt.Sprintf(`CREATE ACTION a_%s_%03d(nick STRING, a_long_parameter_name_%d STRING = '%s')
			INTENT 'close the finished task and keep the reason why' { MATCH (t:TSK {nick: $nick}) SET t.status = "done" }`, long, i, i, long), nil, as); err != nil {
			t.Fatal(err)
		}
	}
	// Many gaps with long names, each written by bob just before his
	// CALLs (pre-action clusters), and failed CALLs.
	bob := values.CommitOptions{Agent: "bob"}
	for i := range 12 {
		for j := range 30 {
			if _, err := s.commitWith(ctx, fmt.Sprintf(`MATCH (t:TSK {nick: "t1"}) SET t.k_%s_%02d = %d`, long, j, i), nil, bob); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.commitWith(ctx, fmt.Sprintf(`CALL a_%s_001('t1')`, long), nil, bob); err != nil {
			t.Fatal(err)
		}
		if _, err := s.commitWith(ctx, fmt.Sprintf(`CALL a_%s_002(7)`, long), nil, bob); err == nil {
			t.Fatal("a CALL with a wrong argument applied")
		}
	}
	for _, agent := range []string{"ana", "bob"} {
		for _, only := range [][]string{nil, {"views"}, {"actions"}, {"attention"}, {"shape"}} {
			sh, err := s.recallShape(ctx, `MATCH (t:TSK)`, values.RecallOptions{Agent: agent, Only: only})
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
			// Every signal is there, shortened to fit (its count at least):
			// no long list crowds out those after it.
			if only == nil || only[0] == "attention" {
				for _, want := range []string{"// attention yours: never_invoked=", "// attention stale_actions: ",
					"// attention vocabulary_health: degenerating", "// attention help: vocabulary_review",
					"// attention vocabulary_gaps: ", "// attention intent_overlap: "} {
					if agent == "ana" && !strings.Contains(env, want) {
						t.Errorf("%s only=%v: no %q in\n%s", agent, only, want, env)
					}
				}
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
		dbs := [2]*DB{}
		sessions := [2]*Session{}
		for i := range dbs {
			dbs[i], _ = openTest()
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
func envelopeOp(t *rapid.T) func(context.Context, *Session) string {
	nick := fmt.Sprint("t", rapid.IntRange(0, 4).Draw(t, "nick"))
	agent := rapid.SampledFrom([]string{"", "ana", "bob", "carl"}).Draw(t, "agent")
	commit := func(text string, params map[string]any) func(context.Context, *Session) string {
		return func(ctx context.Context, s *Session) string {
			res, err := s.commitWith(ctx, text, params, values.CommitOptions{Agent: agent})
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
		name := rapid.SampledFrom(values.AttentionSettingNames).Draw(t, "setting")
		value := map[string]string{"stale_reads": "2", "decay": "0.5", "salience_threshold": "0.3", "gap_ratio": "2", "gap_min": "2", "gap_window": "50"}[name]
		return func(ctx context.Context, s *Session) string {
			cur, _ := s.AttentionSettings(ctx)
			next, err := SetSetting(cur, name, value)
			if err == nil {
				err = s.SetAttentionSettings(ctx, next)
			}
			return fmt.Sprint(next, err)
		}
	default:
		o := values.RecallOptions{Agent: agent, Depth: rapid.SampledFrom([]string{"", "lean", "full"}).Draw(t, "depth")}
		if rapid.Bool().Draw(t, "some") {
			o.Only = rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"shape", "views", "actions", "attention"}), 1, 3, rapid.ID[string]).Draw(t, "only")
		}
		return func(ctx context.Context, s *Session) string {
			sh, err := s.recallShape(ctx, `MATCH (t:TSK)`, o)
			if err != nil {
				return "error: " + err.Error()
			}
			j, _ := json.Marshal(sh.Attention)
			return sh.Text + string(j)
		}
	}
}

// TestSalienceNeverExecutes: salience, the Recalls that move it and the
// settings change what a Recall shows, never what a Commit does. The same
// Commits, one session read in between by many agents (views raised,
// settings changed), the other never read, give the same results and the
// same session.
func TestSalienceNeverExecutes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ctx := context.Background()
		db, _ := openTest()
		defer db.Close()
		quiet, _ := db.Session(ctx, "quiet")
		read, _ := db.Session(ctx, "read")
		for range rapid.IntRange(1, 30).Draw(t, "steps") {
			op := envelopeOp(t)
			if rapid.Bool().Draw(t, "commit") {
				a, b := op(ctx, quiet), op(ctx, read)
				if strings.HasPrefix(a, "//") { // a Recall: only the read session sees it
					continue
				}
				if a != b {
					t.Fatalf("the same step gave %q and %q", a, b)
				}
				continue
			}
			for range rapid.IntRange(0, 3).Draw(t, "reads") {
				o := values.RecallOptions{Agent: rapid.SampledFrom([]string{"", "ana", "bob"}).Draw(t, "reader"),
					Only: rapid.SampledFrom([][]string{nil, {"views"}, {"actions"}}).Draw(t, "readOnly")}
				if _, err := read.recallShape(ctx, `MATCH (t:TSK)`, o); err != nil {
					t.Fatal(err)
				}
			}
		}
		qd, rd := strings.SplitN(quiet.Dump(), "\n", 2), strings.SplitN(read.Dump(), "\n", 2)
		if qd[1] != rd[1] {
			t.Fatalf("sessions differ:\n%s\n---\n%s", quiet.Dump(), read.Dump())
		}
		qv, _ := quiet.Vocabulary(ctx)
		rv, _ := read.Vocabulary(ctx)
		for _, v := range [...]*values.Vocabulary{qv, rv} { // what is shown, not what executed
			for i := range v.Views {
				v.Views[i].Salience, v.Views[i].LowSalience = 0, false
			}
			for i := range v.Actions {
				v.Actions[i].Salience, v.Actions[i].LowSalience = 0, false
			}
		}
		qj, _ := json.Marshal(qv)
		rj, _ := json.Marshal(rv)
		if string(qj) != string(rj) {
			t.Fatalf("vocabularies differ:\n%s\n%s", qj, rj)
		}
	})
}

// TestEnvelopeConcurrent: agents reading (lean, full, only=views, which
// raises salience) while others register, invoke and drop, and the
// settings change, on a cabinet; then the session reopens with every
// agent's count of reads. Run with -race.
func TestEnvelopeConcurrent(t *testing.T) {
	ctx := context.Background()
	path := t.TempDir() + "/c.gf"
	db, err := openTest(WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := db.Session(ctx, "s")
	if _, err := s.commitText(ctx, `INSERT (:TSK {nick: "t0", status: "open"})`, nil); err != nil {
		t.Fatal(err)
	}
	const readers, reads = 6, 60
	var wg sync.WaitGroup
	errs := make(chan error, readers+2)
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range reads {
				o := values.RecallOptions{Agent: fmt.Sprint("agent", r)}
				switch i % 4 {
				case 1:
					o.Depth = "full"
				case 2:
					o.Only = []string{"views"}
				case 3:
					o.Only = []string{"shape", "attention"}
				}
				if _, err := s.recallShape(ctx, `MATCH (t:TSK)`, o); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range 30 {
			stmts := []string{
				fmt.Sprintf(`CREATE OR REPLACE VIEW v%d AS 'count("TSK")'`, i%5),
				fmt.Sprintf(`CREATE OR REPLACE ACTION a%d(nick STRING) INTENT 'close task %d' { MATCH (t:TSK {nick: $nick}) SET t.status = "done" }`, i%5, i),
				fmt.Sprintf(`CALL a%d('t0')`, i%5),
				fmt.Sprintf(`DROP VIEW v%d`, (i+2)%5),
			}
			for _, st := range stmts {
				if _, err := s.commitWith(ctx, st, nil, values.CommitOptions{Agent: "writer"}); err != nil && !isCode(err, gqlstatus.InvalidReference) {
					errs <- err
					return
				}
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := range 20 {
			set := values.DefaultAttentionSettings
			set.StaleReads = uint64(1 + i%4)
			set.Decay = 0.5 + float64(i%5)/10
			if err := s.SetAttentionSettings(ctx, set); err != nil {
				errs <- err
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	db, s = reopen(t, db, path, "s")
	agents, err := s.Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(agents) != readers {
		t.Fatalf("%d agents after reopening, want %d: %+v", len(agents), readers, agents)
	}
	for _, a := range agents {
		if a.Reads != reads {
			t.Errorf("agent %s: %d reads after reopening, want %d", a.Name, a.Reads, reads)
		}
	}
	sh, err := s.recallShape(ctx, `MATCH (t:TSK)`, values.RecallOptions{Agent: "agent0"})
	if err != nil {
		t.Fatal(err)
	}
	if sh.Attention != nil && sh.Attention.FirstRead {
		t.Fatalf("agent0 read as new after reopening:\n%s", sh.Text)
	}
}

// TestGapWindowAcrossFlush: the window the gaps are counted over is the
// version's, so a session flushed to a snapshot (its log compacted away),
// closed and opened again counts the same gaps and clusters, also once the
// window dropped its oldest Commits.
func TestGapWindowAcrossFlush(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gaps.gf")
	db, err := openTest(WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := db.Session(ctx, "main")
	bob := values.CommitOptions{Agent: "bob"}
	must := func(_ *values.CommitResult, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.commitText(ctx, `INSERT (:TSK {nick: "t", n: 0})`, nil))
	must(s.commitText(ctx, `CREATE ACTION bump(nick STRING) { MATCH (t:TSK {nick: $nick}) SET t.n = 1 }`, nil))
	// 1,200 Commits: the oldest (MOD.old) fall out of the window; bob's
	// notes before his CALLs stay in the last 200.
	for i := range 1000 {
		must(s.commitText(ctx, fmt.Sprintf(`INSERT (:MOD {old: %d})`, i), nil))
	}
	for i := range 100 {
		must(s.commitWith(ctx, fmt.Sprintf(`INSERT (:NOTE {text: "n%d"})`, i), nil, bob))
		must(s.commitWith(ctx, `CALL bump('t')`, nil, bob))
	}
	read := func(s *Session) string {
		sh, err := s.recallShape(ctx, `MATCH (t:TSK)`, values.RecallOptions{Agent: "ana", Depth: "full"})
		if err != nil {
			t.Fatal(err)
		}
		var gaps []string
		for _, g := range sh.Attention.VocabularyGaps {
			gaps = append(gaps, fmt.Sprintf("%+v", g))
		}
		return strings.Join(gaps, "\n")
	}
	before := read(s)
	want := "{Kind:NOTE Property:text Raw:100 InActions:0 BeforeCall:bump BeforeTimes:100 BeforeCalls:100}"
	if before != want {
		t.Fatalf("gaps before the flush:\n%s\nwant\n%s", before, want)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	db, s = reopen(t, db, path, "main")
	if after := read(s); after != before {
		t.Fatalf("gaps after a flush and a reopen:\n%s\nwere\n%s", after, before)
	}
	set, _ := s.AttentionSettings(ctx)
	set.GapWindow = 1000
	if err := s.SetAttentionSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	// Over the last 1,000: 800 of the old writes and bob's notes.
	if got := read(s); !strings.Contains(got, "Kind:MOD Property:old Raw:800 ") {
		t.Fatalf("gaps over 1,000 Commits:\n%s", got)
	}
}

// TestAttentionUnderFire: agents reading (lean, full, views alone) while
// others commit, CALL (some CALLs failing) and register, at once: no race,
// no error but the failed CALLs', and every failure counted.
func TestAttentionUnderFire(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest()
	defer db.Close()
	s, _ := db.Session(ctx, "fire")
	if _, err := s.commitText(ctx, `INSERT (:TSK {nick: "t", n: 0})`, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.commitWith(ctx, `CREATE ACTION bump(nick STRING) { MATCH (t:TSK {nick: $nick}) SET t.n = 1 }`, nil,
		values.CommitOptions{Agent: "a0"}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var failed atomic.Int64
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			agent := fmt.Sprint("a", g)
			for i := range 60 {
				o := values.CommitOptions{Agent: agent}
				var err error
				switch i % 4 {
				case 0:
					_, err = s.commitWith(ctx, fmt.Sprintf(`INSERT (:NOTE {text: "%s %d"})`, agent, i), nil, o)
				case 1:
					_, err = s.commitWith(ctx, `CALL bump('t')`, nil, o)
				case 2:
					if _, err = s.commitWith(ctx, `CALL bump(1)`, nil, o); err != nil {
						failed.Add(1)
						err = nil
					}
				case 3:
					_, err = s.commitWith(ctx, fmt.Sprintf(`CREATE OR REPLACE VIEW v%d AS 'count("NOTE")'`, g), nil, o)
				}
				if err != nil {
					t.Error(err)
					return
				}
				for _, ro := range []values.RecallOptions{{Agent: agent}, {Agent: agent, Depth: "full"}, {Agent: agent, Only: []string{"views"}}} {
					if _, err := s.recallShape(ctx, `MATCH (t:TSK)`, ro); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	v, err := s.Vocabulary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Actions) != 1 || v.Actions[0].FailedCalls != uint64(failed.Load()) || failed.Load() != 60 {
		t.Fatalf("failed CALLs %d counted, %d made", v.Actions[0].FailedCalls, failed.Load())
	}
}
