package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"

	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/store/cabinet/cabinettest"
	"github.com/goldfish-gql/goldfish/store/cabinet/postgres"
	"github.com/goldfish-gql/goldfish/store/cabinet/postgres/pgtest"
)

// open opens a cabinet in a schema of the test's own.
func open(t *testing.T) (string, string, func() (*postgres.Cabinet, error)) {
	url := pgtest.URL(t)
	schema := pgtest.Schema(t, url)
	return url, schema, func() (*postgres.Cabinet, error) {
		return postgres.Open(context.Background(), url, &postgres.Options{Schema: schema, ChunkBytes: 64 << 10})
	}
}

// TestBackend runs the suite every backend runs on PostgreSQL.
func TestBackend(t *testing.T) {
	cabinettest.Run(t, func(t *testing.T) cabinettest.Opener {
		_, _, o := open(t)
		return func() (cabinet.Cabinet, error) { return o() }
	})
}

func mustCab(t *testing.T, o func() (*postgres.Cabinet, error)) *postgres.Cabinet {
	t.Helper()
	c, err := o()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func exec(t *testing.T, url, sql string, args ...any) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func entry(v uint64) cabinet.Entry {
	return cabinet.Entry{Version: v, Kind: cabinet.EntryDelta, Text: fmt.Sprintf("INSERT (:N {n: %d})", v), Time: time.Unix(0, int64(v)).UTC()}
}

// TestDamage: every row Load reads is checked, and a bad one is
// ErrDamaged naming the session, never a panic or a shorter session.
func TestDamage(t *testing.T) {
	g := store.New()
	for i := range 300 {
		tx := g.Begin()
		if _, err := tx.InsertNode(tx.NewID(), []string{"N"}, values.MakeProps(map[string]values.Value{"pad": values.String(strings.Repeat("p", 500+i))})); err != nil {
			t.Fatal(err)
		}
		tx.Commit()
	}
	for _, tc := range []struct {
		name, sql, want string
	}{
		{"entry bit", `UPDATE %s.log SET entry = set_byte(entry, 6, get_byte(entry, 6) # 1) WHERE version = 302`, "log entry 302"},
		{"entry gone", `DELETE FROM %s.log WHERE version = 302`, "log jumps from version 301 to 303"},
		{"log short", `UPDATE %s.sessions SET version = 304`, "log ends at version 303 but the sessions table says 304"},
		{"entry moved", `UPDATE %s.log SET version = 310 WHERE version = 303`, "log jumps"},
		{"meta", `UPDATE %s.sessions SET meta = set_byte(meta, 5, 0)`, "metadata"},
		{"meta version", `UPDATE %s.sessions SET meta_version = 2`, "metadata"},
		{"chunk bit", `UPDATE %s.chunks SET data = set_byte(data, 10, get_byte(data, 10) # 1) WHERE n = 1`, "chunk 1"},
		{"chunk gone", `DELETE FROM %s.chunks WHERE n = 1`, "snapshot"},
		{"chunk swapped", `UPDATE %s.chunks SET n = 100 - n WHERE n IN (0, 100)`, "snapshot"},
		{"size", `UPDATE %s.snapshots SET size = size - 1`, "snapshot"},
		{"snapshot row gone", `DELETE FROM %s.snapshots`, "without a snapshot row"},
		{"attention", `UPDATE %s.attention SET data = set_byte(data, 4, 0)`, "attention record"},
		{"row gone", `DELETE FROM %s.sessions`, "has data but no row"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, schema, o := open(t)
			c := mustCab(t, o)
			for v := uint64(1); v <= 303; v++ {
				c.Append("s", entry(v), cabinet.Meta{Name: "s", Version: v})
			}
			if err := c.Flush("s", g.Snapshot(), cabinet.MetaOf("s", g.Snapshot(), time.Time{}), g.Snapshot()); err != nil {
				t.Fatal(err)
			}
			if err := c.SaveAttention("s", []byte("read")).Wait(); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Load("s"); err != nil {
				t.Fatalf("before the damage: %v", err)
			}
			exec(t, url, fmt.Sprintf(tc.sql, schema))
			c2 := mustCab(t, o) // a host that knows nothing of the session
			_, err := c2.Load("s")
			if !errors.Is(err, cabinet.ErrDamaged) || !strings.Contains(err.Error(), `session "s"`) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load: %v, want ErrDamaged naming the session and %q", err, tc.want)
			}
		})
	}
	t.Run("newer layout", func(t *testing.T) {
		url, schema, o := open(t)
		mustCab(t, o)
		exec(t, url, fmt.Sprintf(`UPDATE %s.schema_version SET version = 99`, schema))
		if _, err := o(); !errors.Is(err, cabinet.ErrDamaged) || !strings.Contains(err.Error(), "layout version 99") {
			t.Fatalf("Open of a newer layout: %v", err)
		}
	})
	t.Run("orphan log", func(t *testing.T) {
		url, schema, o := open(t)
		c := mustCab(t, o)
		if err := c.Append("s", entry(1), cabinet.Meta{Name: "s", Version: 1}).Wait(); err != nil {
			t.Fatal(err)
		}
		exec(t, url, fmt.Sprintf(`DELETE FROM %s.sessions`, schema))
		if _, err := c.Sessions(); !errors.Is(err, cabinet.ErrDamaged) || !strings.Contains(err.Error(), `session "s"`) {
			t.Fatalf("Sessions with an orphan log: %v", err)
		}
	})
}

// TestHosts: two cabinets on one schema, as two hosts: a version one
// took is ErrVersionTaken for the other, which reads it with Since and
// goes on; a drop by one is ErrGone for the other; Watch hears of the
// other's Commits.
func TestHosts(t *testing.T) {
	ctx := context.Background()
	_, _, o := open(t)
	a, b := mustCab(t, o), mustCab(t, o)
	var mu sync.Mutex
	heard := map[string]uint64{}
	b.Watch(20*time.Millisecond, true, func(_ []string, heads []postgres.Head) {
		mu.Lock()
		for _, h := range heads {
			heard[h.Name] = h.Version
		}
		mu.Unlock()
	})
	if err := a.Claim(ctx, "s", entry(1)); err != nil {
		t.Fatal(err)
	}
	if err := b.Claim(ctx, "s", entry(1)); !errors.Is(err, postgres.ErrVersionTaken) {
		t.Fatalf("B claiming a taken version 1: %v", err)
	}
	u, err := b.Since(ctx, "s", 0)
	if err != nil || u.Version != 1 || len(u.Entries) != 1 || u.Entries[0].Text != entry(1).Text || u.Reload {
		t.Fatalf("B's Since: %+v, %v", u, err)
	}
	if err := b.Claim(ctx, "s", entry(2)); err != nil {
		t.Fatal(err)
	}
	if err := a.Claim(ctx, "s", entry(2)); !errors.Is(err, postgres.ErrVersionTaken) {
		t.Fatalf("A claiming a taken version 2: %v", err)
	}
	if u, err := a.Since(ctx, "s", 1); err != nil || len(u.Entries) != 1 || u.Entries[0].Version != 2 {
		t.Fatalf("A's Since: %+v, %v", u, err)
	}
	until(t, func() bool { mu.Lock(); defer mu.Unlock(); return heard["s"] == 2 })
	if time.Since(b.KnownAt()) > time.Minute {
		t.Fatalf("KnownAt %v", b.KnownAt())
	}
	// A flush on A trims what B would need: B is told to load again.
	g := store.New()
	for range 2 {
		tx := g.Begin()
		tx.InsertNode(tx.NewID(), []string{"N"}, nil)
		tx.Commit()
	}
	if err := a.Flush("s", g.Snapshot(), cabinet.MetaOf("s", g.Snapshot(), time.Time{}), g.Snapshot()); err != nil {
		t.Fatal(err)
	}
	if u, err := b.Since(ctx, "s", 1); err != nil || !u.Reload {
		t.Fatalf("B's Since after A's flush: %+v, %v", u, err)
	}
	if err := a.Drop("s"); err != nil {
		t.Fatal(err)
	}
	if err := a.Claim(ctx, "s", entry(1)); err != nil { // made again
		t.Fatal(err)
	}
	if err := b.Claim(ctx, "s", entry(3)); !errors.Is(err, postgres.ErrGone) {
		t.Fatalf("B claiming after the drop: %v", err)
	}
	if _, err := b.Since(ctx, "s", 2); !errors.Is(err, postgres.ErrGone) {
		t.Fatalf("B's Since after the drop: %v", err)
	}
	if _, err := b.Load("s"); !errors.Is(err, postgres.ErrGone) {
		t.Fatalf("B's Load after the drop: %v", err)
	}
	b.Forget("s")
	if img, err := b.Load("s"); err != nil || img.Meta.Version != 1 {
		t.Fatalf("B's Load once it let go: %+v, %v", img, err)
	}
}

// TestTurn: a host's turn (through cabinet.Shared) holds off other hosts'
// claims until it ends, its Claim commits within it, a turn ends once,
// and Release gives the connection back.
func TestTurn(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _, o := open(t)
	var a, b cabinet.Shared = mustCab(t, o), mustCab(t, o)
	if turn, _, err := b.Lock(ctx, "s", 0); !errors.Is(err, cabinet.ErrNoSession) || turn != nil {
		t.Fatalf("Lock of a session never persisted: %v, %v", turn, err)
	}
	if err := a.Claim(ctx, "s", entry(1)); err != nil {
		t.Fatal(err)
	}
	turn, u, err := b.Lock(ctx, "s", 0)
	if err != nil || u.Version != 1 || len(u.Entries) != 1 || u.Entries[0].Version != 1 {
		t.Fatalf("Lock: %+v, %v", u, err)
	}
	beaten := make(chan error, 1)
	go func() { beaten <- a.Claim(ctx, "s", entry(2)) }()
	select {
	case err := <-beaten:
		t.Fatalf("another host's claim went through during the turn: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	if err := turn.Claim(ctx, entry(2)); err != nil {
		t.Fatalf("the turn's Claim: %v", err)
	}
	if err := <-beaten; !errors.Is(err, cabinet.ErrVersionTaken) {
		t.Fatalf("the claim that waited for the turn: %v, want ErrVersionTaken", err)
	}
	if err := turn.Claim(ctx, entry(3)); err == nil {
		t.Fatal("a second Claim of one turn went through")
	}
	turn.Release() // a no-op once claimed
	if u, err := a.Since(ctx, "s", 1); err != nil || len(u.Entries) != 1 || u.Entries[0].Version != 2 {
		t.Fatalf("A's Since after the turn: %+v, %v", u, err)
	}
	// More turns, released, than the pool has connections.
	for i := range 20 {
		turn, _, err := b.Lock(ctx, "s", 2)
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		turn.Release()
	}
	if err := a.Claim(ctx, "s", entry(3)); err != nil {
		t.Fatalf("a claim after released turns: %v", err)
	}
}

// TestConcurrentOpen: hosts starting together on a new schema race to
// create it; all of them open.
func TestConcurrentOpen(t *testing.T) {
	_, _, o := open(t)
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := o()
			if err == nil {
				err = c.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestUnavailable: a server that cannot be reached is ErrUnavailable,
// naming it without a password.
func TestUnavailable(t *testing.T) {
	_, err := postgres.Open(context.Background(), "postgres://who:secret@127.0.0.1:1/db?connect_timeout=5", nil)
	if !errors.Is(err, postgres.ErrUnavailable) || strings.Contains(err.Error(), "secret") {
		t.Fatalf("Open of an unreachable server: %v", err)
	}
}

func until(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the condition still does not hold after 20 s")
		}
	}
}
