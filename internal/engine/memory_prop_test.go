package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/values"
)

// budgetDeltas and budgetTokens are what the property test's sessions
// are written and read with: tasks and notes made, changed, deleted and
// purged, and a view and an action (so the envelope and the vocabulary
// have something to say).
var (
	budgetDeltas = []string{
		`INSERT (:TSK {nick: $nick, status: "open", n: $i})`,
		`MATCH (t:TSK {nick: $nick}) SET t.status = "done", t.n = $i`,
		`MATCH (t:TSK {nick: $nick}) INSERT (t)-[:has]->(:NOTE {text: "note", i: $i})`,
		`MATCH (t:TSK {nick: $nick}) DETACH DELETE t`,
		`MATCH (n:NOTE) DETACH DELETE n`,
		`CREATE OR REPLACE VIEW open INTENT 'open tasks' AS 'size(nodes("TSK").filter(t, t.status == "open"))'`,
		`CREATE OR REPLACE ACTION settle(nick STRING) INTENT 'settle a task' { MATCH (t:TSK {nick: $nick}) SET t.status = "settled" }`,
		`CALL settle($nick)`,
	}
	budgetTokens = []string{
		`MATCH (t:TSK {nick: $nick})`,
		`MATCH (t:TSK)`,
		`MATCH ()`,
		`MATCH (n:NOTE) LIMIT 2`,
		`MATCH (x:NONE)`,
	}
)

// TestMemoryBudgetProperty: a random sequence of calls over a few
// sessions answers the same on a database under a memory budget (so
// small that sessions are unloaded after nearly every call) as on one
// without, reopening included.
func TestMemoryBudgetProperty(t *testing.T) {
	ctx := context.Background()
	rapid.Check(t, func(rt *rapid.T) {
		dir := t.TempDir()
		budget := rapid.SampledFrom([]int64{1, 2 * sessionBaseBytes, 3*sessionBaseBytes + 10*nodeBytes}).Draw(rt, "budget")
		names := []string{"a", "b", "c", "d"}[:rapid.IntRange(2, 4).Draw(rt, "sessions")]
		open := func(path string, b int64) *DB {
			db, err := openTest(WithCabinet(path), WithMemoryBudget(b), WithAutoFlush(8, 0))
			if err != nil {
				rt.Fatal(err)
			}
			return db
		}
		dbs := [2]*DB{open(filepath.Join(dir, "plain.gf"), 0), open(filepath.Join(dir, "budget.gf"), budget)}
		defer func() { dbs[0].Close(); dbs[1].Close() }()
		// Handles are kept across calls, as a caller keeps them; each
		// call picks the kept one or asks the database again.
		kept := [2]map[string]*Session{{}, {}}
		handle := func(i int, name string, again bool) (*Session, error) {
			if s := kept[i][name]; s != nil && !again {
				return s, nil
			}
			s, err := dbs[i].Session(ctx, name)
			if err == nil {
				kept[i][name] = s
			}
			return s, err
		}
		for step := range rapid.IntRange(1, 40).Draw(rt, "steps") {
			name := rapid.SampledFrom(names).Draw(rt, "session")
			again := rapid.Bool().Draw(rt, "again")
			op := rapid.IntRange(0, 9).Draw(rt, "op")
			nick := fmt.Sprint("t", rapid.IntRange(0, 3).Draw(rt, "nick"))
			delta := rapid.SampledFrom(budgetDeltas).Draw(rt, "delta")
			token := rapid.SampledFrom(budgetTokens).Draw(rt, "token")
			agent := rapid.SampledFrom([]string{"", "ana", "bo"}).Draw(rt, "agent")
			if op == 9 {
				for i := range dbs {
					if err := dbs[i].Close(); err != nil {
						rt.Fatal(err)
					}
				}
				dbs = [2]*DB{open(filepath.Join(dir, "plain.gf"), 0), open(filepath.Join(dir, "budget.gf"), budget)}
				kept = [2]map[string]*Session{{}, {}}
				continue
			}
			var out [2]string
			for i := range dbs {
				s, err := handle(i, name, again)
				if err != nil {
					out[i] = "Session: " + err.Error()
					continue
				}
				out[i] = budgetCall(ctx, s, op, delta, token, nick, agent, step)
			}
			if out[0] != out[1] {
				rt.Fatalf("step %d, op %d on %s: under a budget of %d:\n%s\nwithout:\n%s", step, op, name, budget, out[1], out[0])
			}
			// A background flush holds its session resident while it runs
			// (a sweep skips it) and sweeps when it ends: wait for it.
			quiesce(dbs[1])
			if st := dbs[1].MemoryStats(); st.ResidentBytes > budget && st.ResidentSessions > 1 {
				rt.Fatalf("after step %d: %+v", step, st)
			}
		}
		if got, want := infos(dbs[1]), infos(dbs[0]); got != want {
			rt.Fatalf("SessionInfos under the budget:\n%s\nwithout:\n%s", got, want)
		}
	})
}

// quiesce waits until no background flush of db's sessions runs.
func quiesce(db *DB) {
	db.mu.Lock()
	list := make([]*Session, 0, len(db.sessions))
	for _, s := range db.sessions {
		list = append(list, s)
	}
	db.mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for _, s := range list {
		for s.flushing.Load() && time.Now().Before(deadline) {
			time.Sleep(100 * time.Microsecond)
		}
	}
}

func infos(db *DB) string {
	var b strings.Builder
	for _, in := range db.SessionInfos() {
		fmt.Fprintf(&b, "%s v%d n%d e%d r%d %v %v\n", in.Name, in.Version, in.Nodes, in.Edges, in.Recycled, in.Kinds, in.Persisted)
	}
	return b.String()
}

// budgetCall makes one call of the property test and says what it
// answered.
func budgetCall(ctx context.Context, s *Session, op int, delta, token, nick, agent string, step int) string {
	params := map[string]any{"nick": nick, "i": step}
	switch op {
	case 0, 1, 2:
		res, err := s.commitWith(ctx, delta, params, values.CommitOptions{Agent: agent})
		if err != nil {
			return "Commit: " + err.Error()
		}
		return fmt.Sprintf("Commit: v%d applied %v %+v", res.Version, res.Applied, res.Total)
	case 3, 4, 5:
		o := values.RecallOptions{Agent: agent, Params: map[string]any{"nick": nick}}
		if op == 5 {
			o.Depth = "full"
		}
		r, err := s.Recall(ctx, token, o, nil)
		if err != nil {
			return "Recall: " + err.Error()
		}
		sh := r
		attn, _ := json.Marshal(r.Attention)
		return fmt.Sprintf("Recall: v%d %s seeds %d rows %d %s %s\n%s", sh.Version, sh.Cue, sh.Seeds, sh.Rows, sh.Status, attn, sh.Text)
	case 6:
		v, err := s.Vocabulary(ctx)
		if err != nil {
			return "Vocabulary: " + err.Error()
		}
		return fmt.Sprintf("Vocabulary: %+v", *v)
	case 7:
		a, err := s.Agents(ctx)
		return fmt.Sprintf("Version %d, Agents %v %v\n%s", s.Version(), a, err, s.Dump())
	default:
		n, err := s.Purge(ctx)
		if err != nil {
			return "Purge: " + err.Error()
		}
		return fmt.Sprintf("Purge %d, Flush %v", n, s.Flush(ctx))
	}
}
