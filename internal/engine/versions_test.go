package engine

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/goldfish-gql/goldfish/values"
)

// TestVersionsSayWhatChanged: each version of the list says what its Δ
// did, as the Commit's summary says it (a purge, how many it removed),
// and says the same once the session is reopened from its cabinet and
// the versions after its stored state are replayed.
func TestVersionsSayWhatChanged(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v.gfdb")
	db, err := openTest(WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	s, err := db.Session(ctx, "v")
	if err != nil {
		t.Fatal(err)
	}
	commit := func(agent, text string) {
		t.Helper()
		if _, err := s.commitWith(ctx, text, nil, values.CommitOptions{Agent: agent}); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
	}
	commit("ana", `INSERT (:TSK {nick: "TSK_a"})-[:touches]->(:MOD {loc: "a.go"})`)
	commit("", `MATCH (m:MOD {loc: "a.go"}) DETACH DELETE m`)
	if n, err := s.Purge(ctx); err != nil || n != 2 {
		t.Fatalf("purge: %d %v", n, err)
	}
	// The purge cut the history before it: the list starts there.
	commit("bo", `MATCH (t:TSK {nick: "TSK_a"}) SET t.status = "done", t.due = 3`)
	commit("ana", `CREATE VIEW open AS 'nodes("TSK").size()'`)
	want := []string{"registered view open", "2 properties set", "purged 2 recycled elements"}
	check := func(when string) {
		t.Helper()
		es, _, _, err := s.Versions(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != len(want) {
			t.Fatalf("%s: %d versions, want %d", when, len(es), len(want))
		}
		for i, e := range es {
			if e.Change != want[i] {
				t.Errorf("%s: version %d changed %q, want %q", when, e.Version, e.Change, want[i])
			}
		}
	}
	check("as committed")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = openTest(WithCabinet(path)); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if s, err = db.Session(ctx, "v"); err != nil {
		t.Fatal(err)
	}
	// The purge wrote the session's state (it cut the history there): a
	// reopened session starts from it, and what made it is not stored.
	want[2] = ""
	check("reopened")
}
