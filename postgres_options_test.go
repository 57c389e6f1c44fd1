package goldfish_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/postgres"
)

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
