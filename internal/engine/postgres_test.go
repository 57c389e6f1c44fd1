package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// The tests of the engine on PostgreSQL (hosts.go, residency.go and the write path): hosts that commit to one session, catch up, unload and reopen.

// TestPostgresTwoHosts: two hosts on one database, 8 writers each, all on
// one session, each Commit inserting a numbered node and incrementing one
// counter (a MATCH that must bind against the latest state). Every
// acknowledged Commit is there exactly once, the versions acknowledged
// are 1…N with none twice, the counter is N (no lost update), and both
// hosts, and a third opened afterwards, hold the same session.
func TestPostgresTwoHosts(t *testing.T) {
	url, schema := pgSchema(t)
	ctx := context.Background()
	o := pgOptions{PollInterval: 50 * time.Millisecond}
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
	for h, db := range []*DB{a, b} {
		s := mustSession(t, db, "shared")
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; n < per; {
					res, err := s.commitText(ctx, `MATCH (c:C {nick: "c"}) SET c.n = c.n + 1 INSERT (:STEP {h: $h, w: $w, n: $n})`,
						map[string]any{"h": h, "w": w, "n": n})
					var ge *gqlstatus.Error
					if errors.As(err, &ge) && ge.Code == gqlstatus.SerializationFailure {
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
	check := func(db *DB, who string) string {
		t.Helper()
		s := mustSession(t, db, "shared")
		if _, err := s.recallShape(ctx, `MATCH (c:C)`, values.RecallOptions{}); err != nil { // catches up
			t.Fatal(err)
		}
		snap := s.Snapshot()
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
		total, total, a.HostConflicts()+b.HostConflicts(), conflicts)
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
	o := pgOptions{PollInterval: time.Hour, Poll: true}
	a, b := openPG(t, url, schema, o), openPG(t, url, schema, o)
	o.Retries = 1
	c := openPG(t, url, schema, o)
	sa := mustSession(t, a, "r")
	mustCommit(t, sa, `INSERT (:C {nick: "c", n: 0})`, nil)
	sb, sc := mustSession(t, b, "r"), mustSession(t, c, "r")
	const inc = `MATCH (c:C {nick: "c"}) SET c.n = c.n + 1`
	counter := func(s *Session) string {
		c, _ := s.Snapshot().NodeByNick("c")
		return c.Props.Literal()
	}
	// Before B's first claim, A commits: B loses, catches up, plans again.
	b.SetBeforeClaim(func(_ string, attempt int) {
		if attempt == 0 {
			mustCommit(t, sa, inc, nil)
		}
	})
	// The races lost are at least those the hook made: a claim the
	// server could not serialize beside A's metadata write, queued after
	// its Commit, counts as one too (seen under -race on a loaded CI
	// machine). The versions and the counter say the Δ was planned again.
	res := mustCommit(t, sb, inc, nil)
	if res.Version != 3 || b.HostConflicts() < 1 || counter(sb) != `{n: 2, nick: "c"}` {
		t.Fatalf("B's Commit made version %d after %d lost races; the counter is %s", res.Version, b.HostConflicts(), counter(sb))
	}
	// A before each of B's first two claims: B's third attempt is a turn.
	b.SetBeforeClaim(func(_ string, attempt int) {
		if attempt < 2 {
			mustCommit(t, sa, inc, nil)
		}
	})
	before := b.HostConflicts()
	res = mustCommit(t, sb, inc, nil)
	if res.Version != 6 || b.HostConflicts() < before+2 || counter(sb) != `{n: 5, nick: "c"}` {
		t.Fatalf("B's Commit made version %d after %d lost races; the counter is %s", res.Version, b.HostConflicts(), counter(sb))
	}
	b.SetBeforeClaim(nil)
	// C, with one retry, loses both its races: 40001, nothing applied.
	c.SetBeforeClaim(func(string, int) { mustCommit(t, sa, inc, nil) })
	_, err := sc.commitText(ctx, inc, nil)
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) || ge.Code != gqlstatus.SerializationFailure {
		t.Fatalf("C losing every race: %v, want 40001", err)
	}
	c.SetBeforeClaim(nil)
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
			o := pgOptions{PollInterval: 100 * time.Millisecond, Poll: poll}
			a, b := openPG(t, url, schema, o), openPG(t, url, schema, o)
			sa, sb := mustSession(t, a, "f"), mustSession(t, b, "f")
			for i := range 3 {
				res := mustCommit(t, sa, `INSERT (:NOTE {i: $i})`, map[string]any{"i": i})
				time.Sleep(o.PollInterval + 10*time.Millisecond)
				sh, err := sb.recallShape(ctx, `MATCH (n:NOTE) LIMIT 4`, values.RecallOptions{})
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
	o := pgOptions{PollInterval: 50 * time.Millisecond, Poll: poll}
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
	if _, err := sb.recallShape(ctx, `MATCH (n)`, values.RecallOptions{}); !errors.Is(err, ErrDropped) {
		t.Fatalf("Recall on B after the drop on A: %v, want ErrDropped", err)
	}
	if _, err := sb.commitText(ctx, `INSERT (:LATE)`, nil); !errors.Is(err, ErrDropped) {
		t.Fatalf("Commit on B after the drop on A: %v, want ErrDropped", err)
	}
	sb = mustSession(t, b, "d")
	if got := sb.Dump(); strings.Contains(got, "OLD") || !strings.Contains(got, "NEW") || sb.Version() != 1 {
		t.Fatalf("B after the drop:\n%s", got)
	}
	mustCommit(t, sb, `INSERT (:FROM_B)`, nil)
	time.Sleep(o.PollInterval + 10*time.Millisecond)
	sh, err := mustSession(t, a, "d").recallShape(ctx, `MATCH (n:FROM_B)`, values.RecallOptions{})
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
	oa, ob := pgOptions{PollInterval: 50 * time.Millisecond}, pgOptions{PollInterval: time.Hour, Poll: true}
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

func fingerprintAfter(t *testing.T, s *Session) string {
	t.Helper()
	if _, err := s.recallShape(context.Background(), `MATCH ()`, values.RecallOptions{}); err != nil {
		t.Fatal(err)
	}
	return fingerprint(s)
}

// TestPostgresCatalogFollows: sessions another host makes and drops
// appear in, and leave, this host's catalogue.
func TestPostgresCatalogFollows(t *testing.T) {
	url, schema := pgSchema(t)
	ctx := context.Background()
	o := pgOptions{PollInterval: 50 * time.Millisecond}
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

// TestPostgresMemoryBudget: on PostgreSQL, a session this host unloaded
// and another host moved on is hydrated again at the latest version; a
// Commit after that lands on it; the catalogue follows the other host's
// Commits while the session is unloaded and never goes back; and an
// unloaded session another host dropped gives its kept handle
// ErrDropped.
func TestPostgresMemoryBudget(t *testing.T) {
	url, schema := pgSchema(t)
	ctx := context.Background()
	o := pgOptions{PollInterval: 50 * time.Millisecond}
	a := openPG(t, url, schema, o, WithMemoryBudget(1))
	b := openPG(t, url, schema, o)
	x, y := mustSession(t, a, "x"), mustSession(t, a, "y")
	mustCommit(t, x, `INSERT (:TSK {nick: "t", n: 1})`, nil)
	mustCommit(t, y, `INSERT (:N)`, nil) // x is unloaded now
	if st := a.MemoryStats(); st.ResidentSessions != 1 || st.Unloads == 0 {
		t.Fatalf("MemoryStats %+v", st)
	}
	// Host b moves x on while a holds it unloaded.
	bx := mustSession(t, b, "x")
	mustCommit(t, bx, `MATCH (t:TSK {nick: "t"}) SET t.n = 2`, nil)
	mustCommit(t, bx, `INSERT (:NOTE {text: "from b"})`, nil)
	until(t, func() bool {
		for _, in := range a.SessionInfos() {
			if in.Name == "x" {
				return in.Version == 3 && in.Nodes == 2
			}
		}
		return false
	})
	// Hydrated again, x reads b's Commits at once: the load is the latest.
	sh, err := x.recallShape(ctx, `MATCH (t:TSK {nick: "t"})`, values.RecallOptions{})
	if err != nil || sh.Version != 3 || !strings.Contains(sh.Text, "n: 2") {
		t.Fatalf("x hydrated again: %v\n%v", err, sh)
	}
	if res := mustCommit(t, x, `INSERT (:NOTE {text: "from a"})`, nil); res.Version != 4 {
		t.Fatalf("a's Commit after hydrating again made version %d, want 4", res.Version)
	}
	mustCommit(t, y, `INSERT (:N)`, nil) // x unloaded again, at version 4
	for range 5 {
		time.Sleep(o.PollInterval) // heads read before a's Commit must not take the catalogue back
		for _, in := range a.SessionInfos() {
			if in.Name == "x" && in.Version != 4 {
				t.Fatalf("a's catalogue shows x at version %d, after a committed version 4", in.Version)
			}
		}
	}
	until(t, func() bool { return fingerprintAfter(t, bx) == fingerprintAfter(t, x) })
	mustCommit(t, y, `INSERT (:N)`, nil) // x unloaded again
	// Dropped by b while a holds it unloaded.
	if err := b.Drop(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := x.recallShape(ctx, `MATCH ()`, values.RecallOptions{}); !errors.Is(err, ErrDropped) {
		t.Fatalf("Recall of an unloaded session another host dropped: %v", err)
	}
	until(t, func() bool {
		for _, n := range a.Sessions() {
			if n == "x" {
				return false
			}
		}
		return len(a.SessionInfos()) == 1
	})
	// The name made again starts empty on a.
	x = mustSession(t, a, "x")
	if v := x.Version(); v != 0 {
		t.Fatalf("x made again is at version %d", v)
	}
	// Dropped and made again by b at the same version, with other
	// contents, while a holds it unloaded with a Shape of it cached: a's
	// kept handle is of the old session, and the Shape is never served.
	mustCommit(t, x, `INSERT (:TSK {nick: "t", n: "old"})`, nil)
	q := `MATCH (t:TSK {nick: "t"})`
	if _, err := x.recallShape(ctx, q, values.RecallOptions{}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, y, `INSERT (:N)`, nil) // x unloaded again
	if err := b.Drop(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, mustSession(t, b, "x"), `INSERT (:TSK {nick: "t", n: "new"})`, nil)
	if sh, err := x.recallShape(ctx, q, values.RecallOptions{}); !errors.Is(err, ErrDropped) {
		t.Fatalf("Recall of an unloaded session dropped and made again elsewhere: %v\n%v", err, sh)
	}
	sh, err = mustSession(t, a, "x").recallShape(ctx, q, values.RecallOptions{})
	if err != nil || sh.Version != 1 || !strings.Contains(sh.Text, `n: "new"`) {
		t.Fatalf("the session made again, read on a: %v\n%v", err, sh)
	}
}
