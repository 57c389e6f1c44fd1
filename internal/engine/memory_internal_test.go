package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
)

// openBudget opens a database on a new cabinet file under a memory
// budget; the test closes it at its end.
func openBudget(t testing.TB, path string, budget int64, opts ...Option) *DB {
	t.Helper()
	db, err := openTest(append([]Option{WithCabinet(path), WithMemoryBudget(budget)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// pastOfTwoCommits is what the version before the newest holds, as the
// ring measures it, in a session of the test's two Commits.
func pastOfTwoCommits(t testing.TB) int64 {
	t.Helper()
	db, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := session(t, db, "p")
	commit(t, s, `INSERT (:TSK {nick: "t_p", status: "open"})-[:touches]->(:MOD {loc: "p.go"})`)
	commit(t, s, `CREATE VIEW open INTENT 'open tasks' AS 'size(nodes("TSK").filter(t, t.status == "open"))'`)
	return s.past.bytes()
}

func session(t testing.TB, db *DB, name string) *Session {
	t.Helper()
	s, err := db.Session(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func commit(t testing.TB, s *Session, text string) *values.CommitResult {
	t.Helper()
	res, err := s.commitText(context.Background(), text, nil)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return res
}

func recallText(t testing.TB, s *Session, q string, o values.RecallOptions) string {
	t.Helper()
	sh, err := s.recallShape(context.Background(), q, o)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return fmt.Sprintf("v%d %s %d\n%s", sh.Version, sh.Cue, sh.Rows, sh.Text)
}

// resident reports whether s holds its graph.
func resident(s *Session) bool { return s.hydrated.Load() && s.readable.Load() != nil }

// TestMemoryBudgetUnloadsIdleSessions: past the budget the least recently
// used idle sessions are unloaded (graph and caches released), a kept
// *Session hydrates again on its next call and answers as before, the
// catalogue and the lists keep every session, and Version answers
// without hydrating.
func TestMemoryBudgetUnloadsIdleSessions(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.gf")
	// Room for two of the sessions, not three, beside what the three
	// hold unloaded (and the sixteenth of it a sweep leaves spare).
	db := openBudget(t, path, 2*(sessionBaseBytes+2*nodeBytes+edgeBytes)+2000+4096+ // and the Shapes' bytes
		2*pastOfTwoCommits(t)+ // the version each keeps before its newest
		3*(knownSessionBytes+sessionHandleBytes)*17/16)
	names := []string{"a", "b", "c"}
	var ss []*Session
	want := map[string]string{}
	for _, n := range names {
		s := session(t, db, n)
		commit(t, s, fmt.Sprintf(`INSERT (:TSK {nick: "t_%s", status: "open"})-[:touches]->(:MOD {loc: "%s.go"})`, n, n))
		commit(t, s, `CREATE VIEW open INTENT 'open tasks' AS 'size(nodes("TSK").filter(t, t.status == "open"))'`)
		want[n] = recallText(t, s, fmt.Sprintf(`MATCH (t:TSK {nick: "t_%s"})`, n), values.RecallOptions{})
		ss = append(ss, s)
	}
	a, b, c := ss[0], ss[1], ss[2]
	if resident(a) || !resident(b) || !resident(c) {
		t.Fatalf("after a, b, c: resident %v %v %v; want a unloaded, the two most recent kept", resident(a), resident(b), resident(c))
	}
	if a.graph != nil || a.vocab.cur.Load() != nil {
		t.Fatal("an unloaded session still holds its graph or its vocabulary")
	}
	st := db.MemoryStats()
	if st.ResidentSessions != 2 || st.ResidentBytes > st.Budget || st.Unloads != 1 {
		t.Fatalf("values.MemoryStats %+v; want 2 resident within the budget, 1 unload", st)
	}
	if v := a.Version(); v != 2 || resident(a) {
		t.Fatalf("Version of the unloaded session: %d (resident %v); want 2 without hydrating", v, resident(a))
	}
	if got := db.Sessions(); strings.Join(got, ",") != "a,b,c" {
		t.Fatalf("Sessions: %v", got)
	}
	if infos := db.SessionInfos(); len(infos) != 3 || infos[0].Version != 2 || infos[0].Nodes != 2 {
		t.Fatalf("SessionInfos: %+v", infos)
	}
	cat := session(t, db, CatalogName)
	if sh, err := cat.recallShape(ctx, `MATCH (s:SESSION) LIMIT 8`, values.RecallOptions{}); err != nil || sh.Seeds != 3 {
		t.Fatalf("catalogue: %v\n%v", err, sh)
	}
	// The kept handle hydrates again and answers the same bytes.
	if got := recallText(t, a, `MATCH (t:TSK {nick: "t_a"})`, values.RecallOptions{}); got != want["a"] {
		t.Fatalf("after hydrating again:\n%s\nwant\n%s", got, want["a"])
	}
	if !resident(a) || resident(b) {
		t.Fatalf("using a should have unloaded b, the least recently used: a %v b %v", resident(a), resident(b))
	}
	if st := db.MemoryStats(); st.Rehydrations != 1 || st.Unloads != 2 {
		t.Fatalf("values.MemoryStats %+v; want 1 rehydration, 2 unloads", st)
	}
	// Every kind of call hydrates an unloaded session.
	if v, err := b.Vocabulary(ctx); err != nil || len(v.Views) != 1 || v.Views[0].Text != "1" {
		t.Fatalf("values.Vocabulary of an unloaded session: %+v %v", v, err)
	}
	if !strings.HasPrefix(c.Dump(), "version 2\nnodes 2, edges 1") {
		t.Fatalf("Dump of an unloaded session:\n%s", c.Dump())
	}
	if res := commit(t, a, `MATCH (t:TSK {nick: "t_a"}) SET t.status = "done"`); res.Version != 3 {
		t.Fatalf("Commit after hydrating again made version %d, want 3", res.Version)
	}
	if n, err := a.Names(ctx); err != nil || len(n.Nicks) != 1 {
		t.Fatalf("Names: %+v %v", n, err)
	}
	// Close and reopen: everything is there.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db2 := openBudget(t, path, 1)
	for _, n := range names {
		s := session(t, db2, n)
		q := fmt.Sprintf(`MATCH (t:TSK {nick: "t_%s"})`, n)
		got := recallText(t, s, q, values.RecallOptions{})
		if n == "a" {
			if !strings.Contains(got, `status: "done"`) || !strings.HasPrefix(got, "v3 ") {
				t.Fatalf("a after reopening:\n%s", got)
			}
		} else if got != want[n] {
			t.Fatalf("%s after reopening:\n%s\nwant\n%s", n, got, want[n])
		}
	}
}

// TestMemoryBudgetInMemoryNeverUnloads: without a cabinet there is
// nothing to hydrate from, so the budget is not applied.
func TestMemoryBudgetInMemoryNeverUnloads(t *testing.T) {
	db, err := openTest(WithMemoryBudget(1))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ss []*Session
	for i := range 5 {
		s := session(t, db, fmt.Sprint("s", i))
		commit(t, s, `INSERT (:TSK {nick: "t"})`)
		ss = append(ss, s)
	}
	for _, s := range ss {
		if !resident(s) {
			t.Fatalf("an in-memory session %s was unloaded", s.name)
		}
	}
	if st := db.MemoryStats(); st.Budget != 0 || st.ResidentSessions != 5 || st.Unloads != 0 || st.ResidentBytes < 5*sessionBaseBytes {
		t.Fatalf("values.MemoryStats %+v", st)
	}
}

// TestMemoryBudgetShapeCache: a Shape cached before an unload is not
// served after the session is hydrated again (the session takes a new
// incarnation), and the Shape computed again is the same.
func TestMemoryBudgetShapeCache(t *testing.T) {
	ctx := context.Background()
	db := openBudget(t, filepath.Join(t.TempDir(), "c.gf"), 1)
	a, b := session(t, db, "a"), session(t, db, "b")
	commit(t, a, `INSERT (:TSK {nick: "t"})-[:r]->(:NOTE {text: "x"})`)
	q := `MATCH (t:TSK {nick: "t"})`
	first, _, err := a.recallTimed(ctx, q, values.RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	db.shapes.Wait()
	if _, tm, _ := a.recallTimed(ctx, q, values.RecallOptions{}); !tm.Cached {
		t.Fatal("the second Recall was not a cache hit")
	}
	inc := a.incarnation
	commit(t, b, `INSERT (:X)`) // unloads a
	if resident(a) {
		t.Fatal("a is still resident")
	}
	again, tm, err := a.recallTimed(ctx, q, values.RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tm.Cached || a.incarnation == inc {
		t.Fatalf("after hydrating again: cached %v, incarnation %d (was %d)", tm.Cached, a.incarnation, inc)
	}
	if again.Text != first.Text || again.Version != first.Version {
		t.Fatalf("the values.Shape after hydrating again:\n%s\nwant\n%s", again.Text, first.Text)
	}
}

// TestMemoryBudgetFlushesLongLog: a session whose log after its snapshot
// is long is flushed before it is unloaded, so hydrating it again replays
// nothing; a short log is left as it is.
func TestMemoryBudgetFlushesLongLog(t *testing.T) {
	db := openBudget(t, filepath.Join(t.TempDir(), "c.gf"), 1)
	long, short, other := session(t, db, "long"), session(t, db, "short"), session(t, db, "other")
	for i := range unloadFlushEntries {
		commit(t, long, fmt.Sprintf(`INSERT (:N {i: %d})`, i))
	}
	commit(t, short, `INSERT (:N {i: 0})`)
	commit(t, other, `INSERT (:N {i: 0})`)
	if resident(long) || resident(short) {
		t.Fatal("long and short should be unloaded")
	}
	img, err := db.cab.Load("long")
	if err != nil {
		t.Fatal(err)
	}
	if img.Meta.SnapVersion != unloadFlushEntries || len(img.Log) != 0 {
		t.Fatalf("long: snapshot at %d with %d entries after it; want flushed at %d", img.Meta.SnapVersion, len(img.Log), unloadFlushEntries)
	}
	if img, _ := db.cab.Load("short"); img.Meta.SnapVersion != 0 || len(img.Log) != 1 {
		t.Fatalf("short was flushed: snapshot at %d, %d entries", img.Meta.SnapVersion, len(img.Log))
	}
	if !strings.HasPrefix(long.Dump(), fmt.Sprintf("version %d\nnodes %d,", unloadFlushEntries, unloadFlushEntries)) {
		t.Fatalf("long after hydrating from its snapshot:\n%.100s", long.Dump())
	}
}

// TestMemoryBudgetDrop: a dropped session leaves the resident set at
// once, and a kept handle of a dropped, unloaded session gets ErrDropped
// and hydrates nothing.
func TestMemoryBudgetDrop(t *testing.T) {
	ctx := context.Background()
	db := openBudget(t, filepath.Join(t.TempDir(), "c.gf"), 1<<20)
	a, b := session(t, db, "a"), session(t, db, "b")
	commit(t, a, `INSERT (:N)`)
	commit(t, b, `INSERT (:N)`)
	if err := db.Drop(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if st := db.MemoryStats(); st.ResidentSessions != 1 || resident(a) {
		t.Fatalf("after Drop: %+v, a resident %v", st, resident(a))
	}
	if _, err := a.recallShape(ctx, `MATCH ()`, values.RecallOptions{}); !errors.Is(err, ErrDropped) {
		t.Fatalf("Recall of a dropped, unloaded session: %v", err)
	}
	if _, err := a.commitText(ctx, `INSERT (:N)`, nil); !errors.Is(err, ErrDropped) {
		t.Fatalf("Commit to a dropped, unloaded session: %v", err)
	}
	if resident(a) {
		t.Fatal("a dropped session was hydrated again")
	}
	if got := session(t, db, "a").Version(); got != 0 {
		t.Fatalf("the session made again under the name is at version %d", got)
	}
}

// TestMemoryBudgetKeepsAgents: what the agents read stays with an
// unloaded session: the envelope after hydrating again is the one the
// session would have shown, and Close saves the record of an unloaded
// session.
func TestMemoryBudgetKeepsAgents(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	run := func(budget int64) (string, []values.AgentInfo) {
		path := filepath.Join(dir, fmt.Sprint("c", budget, ".gf"))
		db := openBudget(t, path, budget)
		a, b := session(t, db, "a"), session(t, db, "b")
		commit(t, a, `CREATE VIEW open INTENT 'open tasks' AS 'size(nodes("TSK").filter(t, t.status == "open"))'`)
		commit(t, a, `INSERT (:TSK {nick: "t", status: "open"})`)
		var out strings.Builder
		o := values.RecallOptions{Agent: "ana"}
		out.WriteString(recallText(t, a, `MATCH (t:TSK)`, o))
		commit(t, b, `INSERT (:X)`)
		commit(t, a, `MATCH (t:TSK) SET t.status = "done"`)
		commit(t, b, `INSERT (:X)`)
		out.WriteString(recallText(t, a, `MATCH (t:TSK)`, o))
		commit(t, b, `INSERT (:X)`)
		out.WriteString(recallText(t, a, `MATCH (t:TSK)`, values.RecallOptions{Agent: "bo"}))
		commit(t, b, `INSERT (:X)`) // a unloaded (under the budget) with bo's read unsaved
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		db = openBudget(t, path, budget)
		agents, err := session(t, db, "a").Agents(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return out.String(), agents
	}
	want, wantAgents := run(0)
	got, gotAgents := run(1)
	if got != want {
		t.Fatalf("under a budget:\n%s\nwithout:\n%s", got, want)
	}
	if fmt.Sprint(gotAgents) != fmt.Sprint(wantAgents) || len(gotAgents) != 2 {
		t.Fatalf("agents after reopening: %v, want %v", gotAgents, wantAgents)
	}
}

// flakyCabinet fails the next Loads it is told to, as a cabinet that
// cannot be reached for a moment would.
type flakyCabinet struct {
	cabinet.Cabinet
	fail atomic.Int32
}

var errUnreachable = errors.New("the cabinet cannot be reached for a moment")

func (f *flakyCabinet) Load(name string) (*cabinet.Image, error) {
	if f.fail.Add(-1) >= 0 {
		return nil, errUnreachable
	}
	return f.Cabinet.Load(name)
}

// TestHydrateForgetsPassingErrors: a hydration that failed for a reason
// other than damage is tried again by the next call; before, the error
// was kept and given to every later call, so a session unloaded while
// its cabinet was briefly unreachable stayed unusable.
func TestHydrateForgetsPassingErrors(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.gf")
	db := openBudget(t, path, 0)
	commit(t, session(t, db, "s"), `INSERT (:N {i: 1})`)
	db.Close()
	bolt, err := cabinet.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	fc := &flakyCabinet{Cabinet: bolt}
	fc.fail.Store(1)
	db, err = openTest(withCabinetBackend(fc))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Session(ctx, "s"); !errors.Is(err, errUnreachable) {
		t.Fatalf("first hydration: %v, want the cabinet's error", err)
	}
	s, err := db.Session(ctx, "s")
	if err != nil {
		t.Fatalf("the hydration after a passing error: %v", err)
	}
	if s.Version() != 1 {
		t.Fatalf("version %d", s.Version())
	}
}

// TestMemoryBudgetConcurrent: many goroutines recall and commit on many
// sessions under a budget that holds two of them, so sessions are
// unloaded and hydrated again all the time beside the calls. Every
// Recall answers what the session answers at that version without a
// budget, and every acknowledged Commit is there afterwards. Run it with
// -race.
func TestMemoryBudgetConcurrent(t *testing.T) {
	ctx := context.Background()
	const sessions, commits, readers = 8, 12, 3
	q := `MATCH (t:TSK {nick: "t0"})`
	delta := func(i int) string {
		if i%3 == 2 {
			return fmt.Sprintf(`MATCH (t:TSK {nick: "t0"}) SET t.n = %d`, i)
		}
		return fmt.Sprintf(`MATCH (t:TSK {nick: "t0"}) INSERT (t)-[:has]->(:NOTE {i: %d})`, i)
	}
	// The answers without a budget, by version (every session has the
	// same history).
	ref, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	want := map[uint64]string{}
	wantDump := ""
	for k := range sessions {
		rs := session(t, ref, fmt.Sprint("s", k))
		commit(t, rs, `INSERT (:TSK {nick: "t0", n: 0})`)
		for i := range commits {
			commit(t, rs, delta(i))
			if k == 0 {
				sh, _ := rs.recallShape(ctx, q, values.RecallOptions{})
				want[sh.Version] = strings.ReplaceAll(sh.Text, "s0", "S")
			}
		}
		if k == 0 {
			wantDump = rs.Dump()
		}
	}
	path := filepath.Join(t.TempDir(), "c.gf")
	db := openBudget(t, path, 2*(sessionBaseBytes+4*nodeBytes))
	var ss []*Session
	for k := range sessions {
		s := session(t, db, fmt.Sprint("s", k))
		commit(t, s, `INSERT (:TSK {nick: "t0", n: 0})`)
		ss = append(ss, s)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for k, s := range ss {
		wg.Add(1)
		go func() { // one writer per session, so its versions are known
			defer wg.Done()
			for i := range commits {
				res, err := s.commitText(ctx, delta(i), nil)
				if err != nil || res.Version != uint64(i+2) {
					errs <- fmt.Errorf("s%d: Commit %d: version %v, %v", k, i, res, err)
					return
				}
			}
		}()
		for r := range readers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range commits {
					// Through the kept handle and through the database,
					// as a server does per request.
					h := s
					if r == 0 {
						var err error
						if h, err = db.Session(ctx, s.name); err != nil {
							errs <- err
							return
						}
					}
					sh, err := h.recallShape(ctx, q, values.RecallOptions{})
					if err != nil {
						errs <- err
						return
					}
					if sh.Version < 2 {
						continue
					}
					if got := strings.ReplaceAll(sh.Text, s.name, "S"); got != want[sh.Version] {
						errs <- fmt.Errorf("%s at version %d:\n%s\nwant\n%s", s.name, sh.Version, got, want[sh.Version])
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if st := db.MemoryStats(); st.Unloads == 0 || st.Rehydrations == 0 {
		t.Fatalf("nothing was unloaded: %+v", st)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openBudget(t, path, 0)
	for _, s := range ss {
		if got := session(t, db, s.name).Dump(); got != wantDump {
			t.Fatalf("%s after reopening:\n%s\nwant\n%s", s.name, got, wantDump)
		}
	}
}

// TestMemoryBudget10kSessions: ten thousand sessions on one cabinet under
// a budget that holds a few hundred. After every call the resident
// sessions fit the budget; the catalogue lists them all; sessions picked
// at random answer as they did before they were unloaded, and a Commit
// after hydrating again lands at the next version; reopening shows
// everything.
func TestMemoryBudget10kSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("ten thousand sessions")
	}
	ctx := context.Background()
	const n = 10_000
	path := filepath.Join(t.TempDir(), "c.gf")
	one := sessionBaseBytes + 3*nodeBytes + 2*edgeBytes   // a session's estimate once committed to twice
	fixed := n * (knownSessionBytes + sessionHandleBytes) // what the sessions hold unloaded
	budget := int64(300*one + fixed*17/16)
	db := openBudget(t, path, budget)
	name := func(i int) string { return fmt.Sprintf("s%05d", i) }
	text := `INSERT (:TSK {nick: "t", n: $n})-[:touches]->(:MOD {loc: $loc})`
	params := func(i int) map[string]any { return map[string]any{"n": i, "loc": fmt.Sprintf("pkg/m%d.go", i)} }
	check := func(when string) {
		t.Helper()
		if st := db.MemoryStats(); st.ResidentBytes > budget {
			t.Fatalf("%s: %d bytes resident in %d sessions, over the budget of %d", when, st.ResidentBytes, st.ResidentSessions, budget)
		}
	}
	// Made by many writers at once, as a server's clients would: the
	// cabinet groups their Commits into one fsync. One writer would wait
	// for ten thousand fsyncs.
	const writers = 100
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := w; i < n; i += writers {
				s, err := db.Session(ctx, name(i))
				if err == nil {
					_, err = s.ingestText(ctx, text, params(i))
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	check("after making them")
	if got := len(db.Sessions()); got != n {
		t.Fatalf("Sessions lists %d", got)
	}
	if got := len(db.SessionInfos()); got != n {
		t.Fatalf("SessionInfos lists %d", got)
	}
	if got := db.catalog.snapshot().LabelCount(SessionLabel); got != n {
		t.Fatalf("the catalogue holds %d SESSION nodes", got)
	}
	// What each session answers, from a database without a budget.
	ref, err := openTest()
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	q := `MATCH (t:TSK {nick: "t"})`
	want := func(i int, version uint64) string {
		rs := session(t, ref, name(i))
		if rs.Version() == 0 {
			if _, err := rs.ingestText(ctx, text, params(i)); err != nil {
				t.Fatal(err)
			}
		}
		if version == 2 && rs.Version() == 1 {
			commit(t, rs, `MATCH (t:TSK {nick: "t"}) SET t.again = true`)
		}
		return recallText(t, rs, q, values.RecallOptions{})
	}
	st := db.MemoryStats()
	// A sweep leaves a sixteenth of the budget spare, most of it the
	// sessions' fixed part: between sweeps from about 280 sessions
	// committed to twice to 420 committed to once fit.
	if st.ResidentSessions < 250 || st.ResidentSessions > 450 || st.Unloads < n-450 {
		t.Fatalf("values.MemoryStats %+v", st)
	}
	for k := range 300 {
		i := (k*7919 + 13) % n
		s := session(t, db, name(i))
		check("after Session")
		if got := recallText(t, s, q, values.RecallOptions{}); got != want(i, s.Version()) {
			t.Fatalf("%s:\n%s\nwant\n%s", name(i), got, want(i, s.Version()))
		}
		check("after Recall")
		if k%3 == 0 && s.Version() == 1 {
			if res := commit(t, s, `MATCH (t:TSK {nick: "t"}) SET t.again = true`); res.Version != 2 {
				t.Fatalf("%s: the Commit after hydrating again made version %d", name(i), res.Version)
			}
			check("after Commit")
		}
	}
	if st := db.MemoryStats(); st.Rehydrations < 200 {
		t.Fatalf("few sessions were hydrated again: %+v", st)
	}
	want2 := map[int]string{}
	for k := range 300 {
		i := (k*7919 + 13) % n
		want2[i] = recallText(t, session(t, db, name(i)), q, values.RecallOptions{})
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openBudget(t, path, budget)
	if got := len(db.Sessions()); got != n {
		t.Fatalf("after reopening Sessions lists %d", got)
	}
	for i, w := range want2 {
		if got := recallText(t, session(t, db, name(i)), q, values.RecallOptions{}); got != w {
			t.Fatalf("%s after reopening:\n%s\nwant\n%s", name(i), got, w)
		}
		check("after reopening")
	}
	for i := 0; i < n; i += 97 {
		s := session(t, db, name(i))
		if v := s.Version(); v != 1 && v != 2 {
			t.Fatalf("%s after reopening at version %d", name(i), v)
		}
	}
}

// TestShapeCacheKeepsNewestVersion: under steady Commits, the Shape cache
// holds the Shapes of each session's newest cached version only. Each
// older one can never be served to a Recall of the newest version, and
// holds the records of its version; before, every version's Shapes
// stayed until eviction and the cache filled with versions no one reads.
// An unload drops the session's Shapes at once.
func TestShapeCacheKeepsNewestVersion(t *testing.T) {
	ctx := context.Background()
	db := openBudget(t, filepath.Join(t.TempDir(), "c.gf"), 1<<30) // a budget that unloads nothing by itself
	a := session(t, db, "a")
	commit(t, a, `INSERT (:TSK {nick: "t"})-[:r]->(:NOTE {text: "x"})`)
	q := `MATCH (t:TSK {nick: "t"})`
	sh, _, err := a.recallTimed(ctx, q, values.RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	one := int64(len(sh.Text))
	for i := range 300 {
		commit(t, a, fmt.Sprintf(`INSERT (:OTHER {i: %d})`, i)) // the Shape stays the same
		if _, _, err := a.recallTimed(ctx, q, values.RecallOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	db.shapes.Wait()
	// One Shape's cost is its text and what it holds besides (a few
	// times the text); 300 versions' worth would be far more.
	if held := db.shapes.Bytes(); held > 20*one {
		t.Fatalf("the Shape cache holds %d bytes after 300 versions, want about one Shape (%d bytes)", held, one)
	}
	if _, tm, _ := a.recallTimed(ctx, q, values.RecallOptions{}); !tm.Cached {
		t.Fatal("the newest version's Shape is not cached")
	}
	if !db.mem.unload(a) {
		t.Fatal("the idle session was not unloaded")
	}
	db.shapes.Wait()
	if held := db.shapes.Bytes(); held != 0 {
		t.Fatalf("the Shape cache holds %d bytes after the session's unload, want 0", held)
	}
}
