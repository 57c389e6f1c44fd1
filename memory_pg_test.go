package goldfish_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/postgres"
)

// TestPostgresMemoryBudget: on PostgreSQL, a session this host unloaded
// and another host moved on is hydrated again at the latest version; a
// Commit after that lands on it; the catalogue follows the other host's
// Commits while the session is unloaded and never goes back; and an
// unloaded session another host dropped gives its kept handle
// ErrDropped.
func TestPostgresMemoryBudget(t *testing.T) {
	url, schema := pgSchema(t)
	ctx := context.Background()
	o := postgres.Options{PollInterval: 50 * time.Millisecond}
	a := openPG(t, url, schema, o, goldfish.WithMemoryBudget(1))
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
	sh, err := x.Recall(ctx, `MATCH (t:TSK {nick: "t"})`, goldfish.RecallOptions{})
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
	if _, err := x.Recall(ctx, `MATCH ()`, goldfish.RecallOptions{}); !errors.Is(err, goldfish.ErrDropped) {
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
	if _, err := x.Recall(ctx, q, goldfish.RecallOptions{}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, y, `INSERT (:N)`, nil) // x unloaded again
	if err := b.Drop(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, mustSession(t, b, "x"), `INSERT (:TSK {nick: "t", n: "new"})`, nil)
	if sh, err := x.Recall(ctx, q, goldfish.RecallOptions{}); !errors.Is(err, goldfish.ErrDropped) {
		t.Fatalf("Recall of an unloaded session dropped and made again elsewhere: %v\n%v", err, sh)
	}
	sh, err = mustSession(t, a, "x").Recall(ctx, q, goldfish.RecallOptions{})
	if err != nil || sh.Version != 1 || !strings.Contains(sh.Text, `n: "new"`) {
		t.Fatalf("the session made again, read on a: %v\n%v", err, sh)
	}
}
