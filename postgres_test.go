package goldfish_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/postgres"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet/postgres/pgtest"
)

// pgSchema gives a test a PostgreSQL server and a schema of its own.
func pgSchema(t testing.TB) (string, string) {
	t.Helper()
	url := pgtest.URL(t)
	return url, pgtest.Schema(t, url)
}

// openPG opens a host on the schema; the test closes it at its end.
func openPG(t testing.TB, url, schema string, o postgres.Options, opts ...goldfish.Option) *goldfish.DB {
	t.Helper()
	o.Schema = schema
	db, err := goldfish.Open(append([]goldfish.Option{postgres.Cabinet(url, o)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestPostgresRoundTrip: what one host commits (values of every kind,
// recycling, ingest ids, a purge) another process reads back, from the
// log and from a flushed snapshot alike.
func TestPostgresRoundTrip(t *testing.T) {
	url, schema := pgSchema(t)
	db := openPG(t, url, schema, postgres.Options{})
	s := mustSession(t, db, "work")
	workload(t, s)
	want := fingerprint(s)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openPG(t, url, schema, postgres.Options{})
	if got := fingerprint(mustSession(t, db, "work")); got != want {
		t.Fatalf("from the log:\n%s\nwant\n%s", got, want)
	}
	if err := db.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openPG(t, url, schema, postgres.Options{})
	if got := fingerprint(mustSession(t, db, "work")); got != want {
		t.Fatalf("from the snapshot:\n%s\nwant\n%s", got, want)
	}
	infos := db.SessionInfos()
	if len(infos) != 1 || infos[0].Name != "work" || infos[0].Version != mustSession(t, db, "work").Version() || !infos[0].Persisted {
		t.Fatalf("SessionInfos: %+v", infos)
	}
	if !strings.Contains(db.CabinetPath(), "schema "+schema) {
		t.Fatalf("CabinetPath %q", db.CabinetPath())
	}
}

// TestPostgresTwoHosts: two hosts on one database, 8 writers each, all on
// one session, each Commit inserting a numbered node and incrementing one
// counter (a MATCH that must bind against the latest state). Every
// acknowledged Commit is there exactly once, the versions acknowledged
// are 1…N with none twice, the counter is N (no lost update), and both
// hosts, and a third opened afterwards, hold the same session.
func TestPostgresTwoHosts(t *testing.T) {
	url, schema := pgSchema(t)
	ctx := context.Background()
	o := postgres.Options{PollInterval: 50 * time.Millisecond}
	a, b := openPG(t, url, schema, o), openPG(t, url, schema, o)
	mustCommit(t, mustSession(t, a, "shared"), `INSERT (:C {nick: "c", n: 0})`, nil)
	const writers, per = 8, 25
	type ack struct {
		host, w, n int
		version    uint64
	}
	var mu sync.Mutex
	var acks []ack
	conflicts := 0
	var wg sync.WaitGroup
	for h, db := range []*goldfish.DB{a, b} {
		s := mustSession(t, db, "shared")
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; n < per; {
					res, err := s.Commit(ctx, `MATCH (c:C {nick: "c"}) SET c.n = c.n + 1 INSERT (:STEP {h: $h, w: $w, n: $n})`,
						map[string]any{"h": h, "w": w, "n": n})
					var ge *goldfish.Error
					if errors.As(err, &ge) && ge.Code == goldfish.CodeSerializationFailure {
						mu.Lock()
						conflicts++
						mu.Unlock()
						continue // not acknowledged: nothing applied; commit it again
					}
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					acks = append(acks, ack{h, w, n, res.Version})
					mu.Unlock()
					n++
				}
			}()
		}
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	total := 2 * writers * per
	if len(acks) != total {
		t.Fatalf("%d acknowledged, want %d", len(acks), total)
	}
	sort.Slice(acks, func(i, j int) bool { return acks[i].version < acks[j].version })
	for i, k := range acks {
		if k.version != uint64(i+2) {
			t.Fatalf("acknowledged versions are not 2…%d: the %dth is %d", total+1, i+1, k.version)
		}
	}
	time.Sleep(o.PollInterval + 10*time.Millisecond) // each host knows the other's Commits within the interval
	check := func(db *goldfish.DB, who string) string {
		t.Helper()
		s := mustSession(t, db, "shared")
		if _, err := s.Recall(ctx, `MATCH (c:C)`, goldfish.RecallOptions{}); err != nil { // catches up
			t.Fatal(err)
		}
		snap := goldfish.SnapshotOf(s)
		if snap.Version() != uint64(total+1) {
			t.Fatalf("%s: version %d, want %d", who, snap.Version(), total+1)
		}
		seen := map[string]int{}
		snap.ScanLabel("STEP", func(n *store.Node) bool {
			h, _ := n.Props.Get("h")
			w, _ := n.Props.Get("w")
			k, _ := n.Props.Get("n")
			seen[fmt.Sprint(h.AsInt(), w.AsInt(), k.AsInt())]++
			return true
		})
		for _, k := range acks {
			if c := seen[fmt.Sprint(k.host, k.w, k.n)]; c != 1 {
				t.Fatalf("%s: Commit %v is there %d times", who, k, c)
			}
		}
		if len(seen) != total {
			t.Fatalf("%s: %d STEP nodes, want %d", who, len(seen), total)
		}
		c, _ := snap.NodeByNick("c")
		if n, _ := c.Props.Get("n"); n.AsInt() != int64(total) {
			t.Fatalf("%s: the counter is %d, want %d (an update was lost)", who, n.AsInt(), total)
		}
		return s.Dump()
	}
	da, db := check(a, "host A"), check(b, "host B")
	if da != db {
		t.Fatal("the hosts differ")
	}
	c := openPG(t, url, schema, o)
	if check(c, "a new host") != da {
		t.Fatal("a new host differs")
	}
	t.Logf("%d Commits by two hosts, %d versions consecutive; %d claims lost a race and were planned again, %d Commits failed with 40001 and were committed again",
		total, total, goldfish.HostConflicts(a)+goldfish.HostConflicts(b), conflicts)
}

// TestPostgresReplan: when another host takes the version between this
// host's catch-up and its claim, the Δ is applied on nothing, caught up
// and planned again: its MATCH binds the new state, so the increment of
// the other host is kept. After two lost races the host takes a turn
// (it locks the session's row) and wins; with fewer retries than that,
// losing every race fails with 40001 and applies nothing.
func TestPostgresReplan(t *testing.T) {
	url, schema := pgSchema(t)
	ctx := context.Background()
	o := postgres.Options{PollInterval: time.Hour, Poll: true}
	a, b := openPG(t, url, schema, o), openPG(t, url, schema, o)
	o.Retries = 1
	c := openPG(t, url, schema, o)
	sa := mustSession(t, a, "r")
	mustCommit(t, sa, `INSERT (:C {nick: "c", n: 0})`, nil)
	sb, sc := mustSession(t, b, "r"), mustSession(t, c, "r")
	const inc = `MATCH (c:C {nick: "c"}) SET c.n = c.n + 1`
	counter := func(s *goldfish.Session) string {
		c, _ := goldfish.SnapshotOf(s).NodeByNick("c")
		return c.Props.Literal()
	}
	// Before B's first claim, A commits: B loses, catches up, plans again.
	goldfish.SetBeforeClaim(b, func(_ string, attempt int) {
		if attempt == 0 {
			mustCommit(t, sa, inc, nil)
		}
	})
	// The races lost are at least those the hook made: a claim the
	// server could not serialize beside A's metadata write, queued after
	// its Commit, counts as one too (seen under -race on a loaded CI
	// machine). The versions and the counter say the Δ was planned again.
	res := mustCommit(t, sb, inc, nil)
	if res.Version != 3 || goldfish.HostConflicts(b) < 1 || counter(sb) != `{n: 2, nick: "c"}` {
		t.Fatalf("B's Commit made version %d after %d lost races; the counter is %s", res.Version, goldfish.HostConflicts(b), counter(sb))
	}
	// A before each of B's first two claims: B's third attempt is a turn.
	goldfish.SetBeforeClaim(b, func(_ string, attempt int) {
		if attempt < 2 {
			mustCommit(t, sa, inc, nil)
		}
	})
	before := goldfish.HostConflicts(b)
	res = mustCommit(t, sb, inc, nil)
	if res.Version != 6 || goldfish.HostConflicts(b) < before+2 || counter(sb) != `{n: 5, nick: "c"}` {
		t.Fatalf("B's Commit made version %d after %d lost races; the counter is %s", res.Version, goldfish.HostConflicts(b), counter(sb))
	}
	goldfish.SetBeforeClaim(b, nil)
	// C, with one retry, loses both its races: 40001, nothing applied.
	goldfish.SetBeforeClaim(c, func(string, int) { mustCommit(t, sa, inc, nil) })
	_, err := sc.Commit(ctx, inc, nil)
	var ge *goldfish.Error
	if !errors.As(err, &ge) || ge.Code != goldfish.CodeSerializationFailure {
		t.Fatalf("C losing every race: %v, want 40001", err)
	}
	goldfish.SetBeforeClaim(c, nil)
	res = mustCommit(t, sc, inc, nil)
	if res.Version != 9 || counter(sc) != `{n: 8, nick: "c"}` {
		t.Fatalf("after: version %d, counter %s", res.Version, counter(sc))
	}
}

// TestPostgresFreshRecall: a Recall on host B sees host A's Commit once
// the poll interval has passed since it was acknowledged, whether B
// listens or polls; a Commit on B always builds on it.
func TestPostgresFreshRecall(t *testing.T) {
	for _, poll := range []bool{false, true} {
		t.Run(fmt.Sprintf("poll=%v", poll), func(t *testing.T) {
			url, schema := pgSchema(t)
			ctx := context.Background()
			o := postgres.Options{PollInterval: 100 * time.Millisecond, Poll: poll}
			a, b := openPG(t, url, schema, o), openPG(t, url, schema, o)
			sa, sb := mustSession(t, a, "f"), mustSession(t, b, "f")
			for i := range 3 {
				res := mustCommit(t, sa, `INSERT (:NOTE {i: $i})`, map[string]any{"i": i})
				time.Sleep(o.PollInterval + 10*time.Millisecond)
				sh, err := sb.Recall(ctx, `MATCH (n:NOTE) LIMIT 4`, goldfish.RecallOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if sh.Version != res.Version || !strings.Contains(sh.Text, fmt.Sprintf("i: %d", i)) {
					t.Fatalf("B reads version %d, A acknowledged %d:\n%s", sh.Version, res.Version, sh.Text)
				}
			}
			// No wait: a Commit catches up first.
			mustCommit(t, sa, `INSERT (:NOTE {i: 10})`, nil)
			res := mustCommit(t, sb, `MATCH (n:NOTE {i: 10}) SET n.seen = true`, nil)
			if res.Version != 5 || res.Total.Bindings == 0 {
				t.Fatalf("B's Commit after A's: %+v", res)
			}
		})
	}
}

// TestPostgresRemoteDrop: a session dropped on one host is gone on the
// other, even when it was made again at the version the other holds: its
// holder gets ErrDropped from Recall and Commit, and asking again gives
// the new one, which shows nothing of the old.
func TestPostgresRemoteDrop(t *testing.T) {
	for _, poll := range []bool{false, true} {
		t.Run(fmt.Sprintf("poll=%v", poll), func(t *testing.T) { testRemoteDrop(t, poll) })
	}
}

func testRemoteDrop(t *testing.T, poll bool) {
	url, schema := pgSchema(t)
	ctx := context.Background()
	o := postgres.Options{PollInterval: 50 * time.Millisecond, Poll: poll}
	a, b := openPG(t, url, schema, o), openPG(t, url, schema, o)
	mustCommit(t, mustSession(t, a, "d"), `INSERT (:OLD)`, nil)
	sb := mustSession(t, b, "d")
	if sb.Version() != 1 {
		t.Fatalf("B hydrated version %d", sb.Version())
	}
	if err := a.Drop(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, mustSession(t, a, "d"), `INSERT (:NEW)`, nil) // made again, at the same version
	time.Sleep(o.PollInterval + 10*time.Millisecond)
	if _, err := sb.Recall(ctx, `MATCH (n)`, goldfish.RecallOptions{}); !errors.Is(err, goldfish.ErrDropped) {
		t.Fatalf("Recall on B after the drop on A: %v, want ErrDropped", err)
	}
	if _, err := sb.Commit(ctx, `INSERT (:LATE)`, nil); !errors.Is(err, goldfish.ErrDropped) {
		t.Fatalf("Commit on B after the drop on A: %v, want ErrDropped", err)
	}
	sb = mustSession(t, b, "d")
	if got := sb.Dump(); strings.Contains(got, "OLD") || !strings.Contains(got, "NEW") || sb.Version() != 1 {
		t.Fatalf("B after the drop:\n%s", got)
	}
	mustCommit(t, sb, `INSERT (:FROM_B)`, nil)
	time.Sleep(o.PollInterval + 10*time.Millisecond)
	sh, err := mustSession(t, a, "d").Recall(ctx, `MATCH (n:FROM_B)`, goldfish.RecallOptions{})
	if err != nil || sh.Version != 2 || !strings.Contains(sh.Text, "FROM_B") {
		t.Fatalf("A after B's Commit: %v\n%v", err, sh)
	}
}

// TestPostgresFlushElsewhere: a host whose entries another host's flush
// trimmed loads the session again from the snapshot and goes on.
func TestPostgresFlushElsewhere(t *testing.T) {
	url, schema := pgSchema(t)
	ctx := context.Background()
	// B polls once an hour: only its Commit path catches up.
	oa, ob := postgres.Options{PollInterval: 50 * time.Millisecond}, postgres.Options{PollInterval: time.Hour, Poll: true}
	a, b := openPG(t, url, schema, oa), openPG(t, url, schema, ob)
	sa := mustSession(t, a, "fl")
	mustCommit(t, sa, `INSERT (:N {i: 0})`, nil)
	sb := mustSession(t, b, "fl")
	for i := 1; i <= 5; i++ {
		mustCommit(t, sa, `INSERT (:N {i: $i})`, map[string]any{"i": i})
	}
	if n, err := sa.Purge(ctx); err != nil || n != 0 {
		t.Fatalf("purge: %d %v", n, err)
	}
	mustCommit(t, sa, `MATCH (n:N {i: 0}) DELETE n`, nil)
	if n, err := sa.Purge(ctx); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	if err := sa.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	res := mustCommit(t, sb, `MATCH (n:N {i: 5}) SET n.last = true`, nil)
	if res.Version != 9 || res.Total.Bindings != 1 {
		t.Fatalf("B's Commit: %+v", res)
	}
	time.Sleep(oa.PollInterval + 10*time.Millisecond)
	if fa, fb := fingerprintAfter(t, mustSession(t, a, "fl")), fingerprintAfter(t, sb); fa != fb {
		t.Fatalf("the hosts differ:\n%s\n%s", fa, fb)
	}
}

func fingerprintAfter(t *testing.T, s *goldfish.Session) string {
	t.Helper()
	if _, err := s.Recall(context.Background(), `MATCH ()`, goldfish.RecallOptions{}); err != nil {
		t.Fatal(err)
	}
	return fingerprint(s)
}

// TestPostgresCatalogFollows: sessions another host makes and drops
// appear in, and leave, this host's catalogue.
func TestPostgresCatalogFollows(t *testing.T) {
	url, schema := pgSchema(t)
	ctx := context.Background()
	o := postgres.Options{PollInterval: 50 * time.Millisecond}
	a, b := openPG(t, url, schema, o), openPG(t, url, schema, o)
	mustCommit(t, mustSession(t, a, "elsewhere"), `INSERT (:A), (:A)`, nil)
	until(t, func() bool {
		infos := b.SessionInfos()
		return len(infos) == 1 && infos[0].Name == "elsewhere" && infos[0].Version == 1 && infos[0].Nodes == 2
	})
	if err := a.Drop(ctx, "elsewhere"); err != nil {
		t.Fatal(err)
	}
	until(t, func() bool { return len(b.SessionInfos()) == 0 })
}

// until waits for cond, failing the test if it has not held after 20 s
// (a liveness check, not a timing one: the watcher gets there in about
// one interval).
func until(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the condition still does not hold after 20 s")
		}
	}
}

// TestPostgresOptionsRefused: WithCabinet and postgres.Cabinet exclude each
// other; a schema name outside its rules is refused.
func TestPostgresOptionsRefused(t *testing.T) {
	url, _ := pgSchema(t)
	if _, err := goldfish.Open(goldfish.WithCabinet(t.TempDir()+"/c.gf"), postgres.Cabinet(url, postgres.Options{})); err == nil {
		t.Fatal("WithCabinet and postgres.Cabinet together accepted")
	}
	_, err := goldfish.Open(postgres.Cabinet(url, postgres.Options{Schema: "No-Such"}))
	if err == nil || !strings.Contains(err.Error(), "schema name") {
		t.Fatalf("a bad schema name: %v", err)
	}
}

// TestPostgresDropUnheard: a host drops a session another host made a
// moment ago, before its own catalogue has heard of it (here: it polls,
// once an hour): the cabinet has it, so it is dropped, not refused as
// unknown (42002).
func TestPostgresDropUnheard(t *testing.T) {
	url, schema := pgSchema(t)
	ctx := context.Background()
	a := openPG(t, url, schema, postgres.Options{})
	b := openPG(t, url, schema, postgres.Options{Poll: true, PollInterval: time.Hour})
	mustCommit(t, mustSession(t, a, "fresh"), `INSERT (:N)`, nil)
	if err := b.Drop(ctx, "fresh"); err != nil {
		t.Fatalf("dropping a session another host made: %v", err)
	}
	if err := b.Drop(ctx, "never"); !isCode(err, goldfish.CodeInvalidReference) {
		t.Fatalf("dropping a session no host made: %v, want GQLSTATUS %s", err, goldfish.CodeInvalidReference)
	}
	s, err := goldfish.Open(postgres.Cabinet(url, postgres.Options{Schema: schema}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, n := range s.Sessions() {
		if n == "fresh" {
			t.Fatalf("the dropped session is still in the cabinet: %v", s.Sessions())
		}
	}
}

// TestPostgresDropRacesCatchUp: a Drop on one host while it catches up
// with another host's Commits to the same session. A catch-up holds the
// session's write lock and then takes the database's; Drop must not take
// them the other way round, or the two wait for each other for ever.
func TestPostgresDropRacesCatchUp(t *testing.T) {
	url, schema := pgSchema(t)
	ctx := context.Background()
	a := openPG(t, url, schema, postgres.Options{})
	// b polls, once an hour: it learns of a's Commits only when a read
	// catches up, which then has a long backlog to replay.
	b := openPG(t, url, schema, postgres.Options{Poll: true, PollInterval: time.Hour})
	for round := range 20 {
		name := fmt.Sprintf("race%d", round)
		ax := mustSession(t, a, name)
		mustCommit(t, ax, `INSERT (:N)`, nil)
		bx := mustSession(t, b, name)
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 50 {
					mustCommit(t, ax, fmt.Sprintf(`INSERT (:N {w: %d, i: %d, text: "a line long enough to take a moment to replay"})`, w, i), nil)
				}
			}()
		}
		wg.Wait()
		done := make(chan struct{})
		go func() {
			defer close(done)
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { // the Commit catches up with a's 200 first
				defer wg.Done()
				bx.Commit(ctx, `INSERT (:N)`, nil)
			}()
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(round%5) * time.Millisecond)
				b.Drop(ctx, name)
			}()
			wg.Wait()
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			// Not t.Fatal: the databases' cleanup would wait for the
			// stuck calls as well.
			buf := make([]byte, 1<<20)
			panic(fmt.Sprintf("round %d: a Drop racing a catch-up never returned:\n%s", round, buf[:runtime.Stack(buf, true)]))
		}
	}
}

// TestPostgresFirstHydrationCatalog: a host whose catalogue last heard
// of a session at version 1 hydrates it, for the first time, at the
// version another host has taken it to since: its catalogue shows that
// version at once, not the one it heard of.
func TestPostgresFirstHydrationCatalog(t *testing.T) {
	url, schema := pgSchema(t)
	ctx := context.Background()
	a := openPG(t, url, schema, postgres.Options{})
	ax := mustSession(t, a, "x")
	mustCommit(t, ax, `INSERT (:N)`, nil)
	b := openPG(t, url, schema, postgres.Options{Poll: true, PollInterval: time.Hour})
	mustCommit(t, ax, `INSERT (:N)`, nil)
	mustCommit(t, ax, `INSERT (:N)`, nil)
	bx := mustSession(t, b, "x")
	if sh, err := bx.Recall(ctx, `MATCH ()`, goldfish.RecallOptions{}); err != nil || sh.Version != 3 {
		t.Fatalf("b's first Recall: %v %v", err, sh)
	}
	for _, in := range b.SessionInfos() {
		if in.Name == "x" && (in.Version != 3 || in.Nodes != 3) {
			t.Fatalf("b's catalogue shows x at version %d with %d nodes after loading version 3", in.Version, in.Nodes)
		}
	}
}
