package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/values"
)

// The tests of catalog.go: the catalogue's version never goes back, across reopens too.

// catalogWatch reads the catalogue of one database after another and
// checks docs/design.md#persistence-and-history: its version never goes back, across reopens too, and a
// version always shows the same content.
type catalogWatch struct {
	t    *testing.T
	last uint64
	seen map[uint64]string // version → the catalogue's Recall text
}

func (w *catalogWatch) read(db *DB, when string) uint64 {
	w.t.Helper()
	cat := mustSession(w.t, db, values.CatalogName)
	sh, err := cat.recallShape(context.Background(), `MATCH (s:SESSION)`, values.RecallOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	v := cat.Version()
	if v < w.last {
		w.t.Fatalf("%s: the catalogue is at version %d, it was at %d", when, v, w.last)
	}
	if text, ok := w.seen[v]; ok && text != sh.Text {
		w.t.Fatalf("%s: catalogue version %d shows\n%s\nand earlier showed\n%s", when, v, sh.Text, text)
	}
	if w.seen == nil {
		w.seen = map[uint64]string{}
	}
	w.seen[v], w.last = sh.Text, v
	return v
}

// testCatalogVersion commits, drops, makes a session again and reopens,
// reading the catalogue after each step. exact: every change is durable
// and published before a Close, so a reopen starts at the version the
// catalogue had (a cabinet file).
func testCatalogVersion(t *testing.T, open func() *DB, exact bool) {
	w := &catalogWatch{t: t}
	db := open()
	reopen := func(when string) {
		t.Helper()
		before := w.read(db, when+", before closing")
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		db = open()
		if after := w.read(db, when+", reopened"); exact && after != before {
			t.Fatalf("%s: reopened at catalogue version %d, closed at %d", when, after, before)
		}
	}
	commit := func(name string, n int) {
		t.Helper()
		s := mustSession(t, db, name)
		for i := range n {
			mustCommit(t, s, `INSERT (:TSK {n: $n})`, map[string]any{"n": i})
		}
	}
	drop := func(name string) {
		t.Helper()
		if err := db.Drop(context.Background(), name); err != nil {
			t.Fatal(err)
		}
	}
	commit("a", 3)
	commit("b", 1)
	w.read(db, "after the commits")
	reopen("after the commits")
	drop("a")
	w.read(db, "after dropping a")
	reopen("after dropping a")
	commit("b", 1)
	commit("a", 1) // made again, at a lower version than before its drop
	w.read(db, "after making a again")
	reopen("after making a again")
	drop("a")
	drop("b")
	if v := w.read(db, "after dropping every session"); v == 0 {
		t.Fatal("the catalogue went back to version 0 with its last session")
	}
	reopen("after dropping every session")
	commit("c", 1)
	reopen("after a new session")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCatalogVersionAcrossReopen: on a cabinet file the catalogue's
// version is a function of the file (Σ session weights + the dropped
// counter), so a reopen continues it, never restarts it.
func TestCatalogVersionAcrossReopen(t *testing.T) {
	path := t.TempDir() + "/cab.db"
	testCatalogVersion(t, func() *DB {
		db, err := openTest(WithCabinet(path))
		if err != nil {
			t.Fatal(err)
		}
		return db
	}, true)
}

// TestPostgresCatalogVersionAcrossReopen: the same on PostgreSQL.
func TestPostgresCatalogVersionAcrossReopen(t *testing.T) {
	url, schema := pgSchema(t)
	testCatalogVersion(t, func() *DB {
		return openPG(t, url, schema, pgOptions{PollInterval: time.Minute})
	}, false)
}

// TestPostgresCatalogVersionOtherHost: a host whose catalogue follows
// another's Commits and drops, one of them dropping a session and making
// it again at a lower version between two of its reads, never sees the
// catalogue's version go back, nor after a reopen.
func TestPostgresCatalogVersionOtherHost(t *testing.T) {
	url, schema := pgSchema(t)
	o := pgOptions{PollInterval: 200 * time.Millisecond, Poll: true}
	a := openPG(t, url, schema, o)
	b := openPG(t, url, schema, o)
	w := &catalogWatch{t: t}
	wait := func() { time.Sleep(o.PollInterval + 100*time.Millisecond) }
	commit := func(name string, n int) {
		t.Helper()
		s := mustSession(t, a, name)
		for i := range n {
			mustCommit(t, s, `INSERT (:TSK {n: $n})`, map[string]any{"n": i})
		}
	}
	commit("x", 5)
	commit("y", 1)
	wait()
	v0 := w.read(b, "after the other host's commits")
	for round := range 3 {
		if err := a.Drop(context.Background(), "x"); err != nil {
			t.Fatal(err)
		}
		commit("x", 1) // lower than the version b saw
		wait()
		if v := w.read(b, fmt.Sprintf("round %d, after a drop and a new x elsewhere", round)); v <= v0 {
			t.Fatalf("round %d: catalogue version %d, want past %d", round, v, v0)
		}
		commit("x", 4)
		wait()
		v0 = w.read(b, fmt.Sprintf("round %d, after x grew again", round))
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b = openPG(t, url, schema, o)
	w.read(b, "b reopened")
}
