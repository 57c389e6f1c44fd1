package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
)

// The tests of agents.go: what each agent read, and who committed, across restarts.

func mustRecall(t testing.TB, s *Session, agent string) *values.Shape {
	t.Helper()
	sh, err := s.recallShape(context.Background(), `MATCH (t:TSK) LIMIT 2`, values.RecallOptions{Agent: agent})
	if err != nil {
		t.Fatalf("Recall as %q: %v", agent, err)
	}
	return sh
}

func mustAgents(t testing.TB, s *Session) []values.AgentInfo {
	t.Helper()
	list, err := s.Agents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func commitAs(t testing.TB, s *Session, agent, text string) *values.CommitResult {
	t.Helper()
	res, err := s.commitWith(context.Background(), text, nil, values.CommitOptions{Agent: agent})
	if err != nil {
		t.Fatalf("%s as %q: %v", text, agent, err)
	}
	return res
}

// TestAgentNames: an agent name outside the rules is refused (42Q03) by
// Recall, CommitWith and IngestWith before anything runs: nothing is
// applied and nobody is counted.
func TestAgentNames(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest()
	defer db.Close()
	s := mustSession(t, db, "s")
	for _, good := range []string{"a", "ana", "A_1", "ana.2", "build-bot", "_x", strings.Repeat("x", values.MaxAgentName)} {
		if err := values.ValidAgentName(good); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
	for _, bad := range []string{".x", "-x", "a/b", "a b", "é", "a\x00", "ana;", strings.Repeat("x", values.MaxAgentName+1)} {
		check := func(what string, err error) {
			t.Helper()
			var ge *gqlstatus.Error
			if !errors.As(err, &ge) || ge.Code != gqlstatus.InvalidName || !strings.Contains(ge.Msg, "agent name") {
				t.Errorf("%s as %q: %v, want 42Q03 naming the agent name", what, bad, err)
			}
		}
		_, err := s.recallShape(ctx, `MATCH (t:TSK)`, values.RecallOptions{Agent: bad})
		check("Recall", err)
		_, err = s.commitWith(ctx, `INSERT (:TSK)`, nil, values.CommitOptions{Agent: bad})
		check("CommitWith", err)
		_, err = s.ingestWith(ctx, `INSERT (:MOD {loc: "x"})`, nil, values.CommitOptions{Agent: bad})
		check("IngestWith", err)
		check("ValidAgentName", values.ValidAgentName(bad))
	}
	if v := s.Version(); v != 0 {
		t.Fatalf("version %d after refused Commits", v)
	}
	if got := mustAgents(t, s); len(got) != 0 {
		t.Fatalf("refused Recalls counted: %+v", got)
	}
}

// TestRecallWritesNothing: reading as agents moves no version, changes no
// element and no catalogue entry; only the agents' records change.
func TestRecallWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.gf")
	db := openCab(t, path)
	defer db.Close()
	s := mustSession(t, db, "s")
	mustCommit(t, s, `INSERT (:TSK {nick: "a"})-[:needs]->(:TSK {nick: "b"})`, nil)
	before, infos := s.Dump(), db.SessionInfos()
	for i := range 50 {
		sh := mustRecall(t, s, fmt.Sprintf("agent%d", i%5))
		if sh.Version != 1 {
			t.Fatalf("Recall %d read version %d", i, sh.Version)
		}
	}
	if s.Version() != 1 || s.Dump() != before || !reflect.DeepEqual(db.SessionInfos(), infos) {
		t.Fatalf("reading moved the session: version %d\n%s\n%+v", s.Version(), s.Dump(), db.SessionInfos())
	}
	for _, a := range mustAgents(t, s) {
		if a.LastRead != 1 || a.Reads != 10 {
			t.Fatalf("agent %+v", a)
		}
	}
}

// TestAgentsConcurrent: many agents reading and committing at once (run
// with -race): every Recall is counted once, under its agent, and each
// agent's last read is the version its own last Recall read.
func TestAgentsConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.gf")
	db := openCab(t, path)
	s := mustSession(t, db, "s")
	const agents, rounds = 12, 40
	last := make([]uint64, agents)
	var wg sync.WaitGroup
	for a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("agent%02d", a)
			for r := range rounds {
				sh, err := s.recallShape(context.Background(), `MATCH (t:TSK) LIMIT 2`, values.RecallOptions{Agent: name})
				if err != nil {
					t.Error(err)
					return
				}
				last[a] = sh.Version
				if r%8 == a%8 {
					if _, err := s.commitWith(context.Background(), `INSERT (:TSK {nick: $n})`, map[string]any{"n": fmt.Sprintf("%s_%d", name, r)},
						values.CommitOptions{Agent: name}); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	// A lister and a flusher run meanwhile.
	stop := make(chan struct{})
	var side sync.WaitGroup
	side.Add(1)
	go func() {
		defer side.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := s.Agents(context.Background()); err != nil {
				t.Error(err)
			}
			if err := s.Flush(context.Background()); err != nil {
				t.Error(err)
			}
		}
	}()
	wg.Wait()
	close(stop)
	side.Wait()
	check := func(list []values.AgentInfo) {
		t.Helper()
		if len(list) != agents {
			t.Fatalf("%d agents", len(list))
		}
		for a, info := range list {
			if want := (values.AgentInfo{Name: fmt.Sprintf("agent%02d", a), LastRead: last[a], Reads: rounds}); info != want {
				t.Fatalf("agent %+v, want %+v", info, want)
			}
		}
	}
	check(mustAgents(t, s))
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openCab(t, path)
	defer db.Close()
	check(mustAgents(t, mustSession(t, db, "s")))
}

// TestAgentsDamagedRecord: an attention record that passes its checksum
// but does not decode makes the session damaged (08Q01 through the
// cabinet's ErrDamaged), as any other record of it would.
func TestAgentsDamagedRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.gf")
	db := openCab(t, path)
	mustCommit(t, mustSession(t, db, "s"), `INSERT (:TSK)`, nil)
	db.Close()
	cab, err := cabinet.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := cab.SaveAttention("s", []byte{1, 1, 5, 1, 2, 'a'}).Wait(); err != nil {
		t.Fatal(err)
	}
	cab.Close()
	db = openCab(t, path)
	defer db.Close()
	if _, err := db.Session(context.Background(), "s"); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "attention record") {
		t.Fatalf("a record that does not decode: %v", err)
	}
}

// TestAgentsCatalogue: the catalogue takes Recalls as agents and keeps
// them in memory (it is never saved).
func TestAgentsCatalogue(t *testing.T) {
	db, _ := openTest()
	defer db.Close()
	c := mustSession(t, db, values.CatalogName)
	if _, err := c.recallShape(context.Background(), `MATCH (s:SESSION) LIMIT 2`, values.RecallOptions{Agent: "ana"}); err != nil {
		t.Fatal(err)
	}
	if got := mustAgents(t, c); len(got) != 1 || got[0].Name != "ana" || got[0].Reads != 1 {
		t.Fatalf("catalogue agents %+v", got)
	}
}

// TestAgentsBound: a session keeps at most MaxAgents agents, and a new
// agent always fits: the agent seen least recently is evicted for it,
// after a reopen too. ForgetAgent removes one.
func TestAgentsBound(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.gf")
	db, err := openTest(WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	s := mustSession(t, db, "s")
	if _, err := s.commitText(ctx, `INSERT (:TSK {nick: "t"})`, nil); err != nil {
		t.Fatal(err)
	}
	for i := range values.MaxAgents {
		mustRecall(t, s, fmt.Sprintf("a%d", i))
	}
	mustRecall(t, s, "a0") // a0 is now the most recent, a1 the least
	if _, err := s.recallShape(ctx, `MATCH (t:TSK)`, values.RecallOptions{Agent: "one_more"}); err != nil {
		t.Fatalf("a new agent beyond the bound: %v", err)
	}
	names := map[string]bool{}
	for _, a := range mustAgents(t, s) {
		names[a.Name] = true
	}
	if len(names) != values.MaxAgents || !names["one_more"] || !names["a0"] || names["a1"] {
		t.Fatalf("%d agents; one_more %v, a0 %v, a1 (evicted) %v", len(names), names["one_more"], names["a0"], names["a1"])
	}
	if err := s.ForgetAgent(ctx, "a0"); err != nil {
		t.Fatal(err)
	}
	var ge *gqlstatus.Error
	if err := s.ForgetAgent(ctx, "a0"); !errors.As(err, &ge) || ge.Code != gqlstatus.InvalidReference {
		t.Fatalf("forgetting an agent twice: %v", err)
	}
	// After a reopen the order of eviction is kept: a2 goes next.
	db, s = reopen(t, db, path, "s")
	if n := len(mustAgents(t, s)); n != values.MaxAgents-1 {
		t.Fatalf("%d agents after the reopen, want %d", n, values.MaxAgents-1)
	}
	mustRecall(t, s, "two_more")
	mustRecall(t, s, "three_more")
	names = map[string]bool{}
	for _, a := range mustAgents(t, s) {
		names[a.Name] = true
	}
	if len(names) != values.MaxAgents || names["a2"] || !names["a3"] || !names["one_more"] {
		t.Fatalf("after the reopen: %d agents; a2 (evicted) %v, a3 %v, one_more %v", len(names), names["a2"], names["a3"], names["one_more"])
	}
}
