package goldfish_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/postgres"
)

// roFile is a cabinet file's bytes and time, which a read-only database
// must leave as they were.
type roFile struct {
	data  []byte
	mtime time.Time
	names string
}

func roFileOf(t *testing.T, path string) roFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(filepath.Dir(path))
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return roFile{data, fi.ModTime(), strings.Join(names, "/")}
}

// readOnlyCabinet writes a cabinet with a session "work" an agent has
// read, with settings and pinned kinds, closes it, and makes the file
// 0444 in a 0555 directory until the test ends.
func readOnlyCabinet(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "c.gf")
	db := openAt(t, path)
	s := mustSession(t, db, "work")
	mustCommit(t, s, `INSERT (:TSK {nick: "a", n: 1}), (:TSK {nick: "b", n: 2})`, nil)
	mustCommit(t, s, `MATCH (a:TSK {nick: "a"}) DELETE a`, nil)
	if _, err := s.Recall(ctx, `MATCH (t:TSK) LIMIT 4`, goldfish.RecallOptions{Agent: "reader"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPinnedKinds(ctx, []string{"TSK"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755); os.Chmod(path, 0o644) })
	time.Sleep(10 * time.Millisecond) // a write would move the file's time
	return path
}

func openAt(t *testing.T, path string, opts ...goldfish.Option) *goldfish.DB {
	t.Helper()
	db, err := goldfish.Open(append([]goldfish.Option{goldfish.WithCabinet(path)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// TestReadOnlyDatabases: two databases opened WithReadOnly on one file
// at once read what it holds, Recall with an agent (twice: what it read
// is kept in memory, never saved), refuse every write with 25006, its
// message and ErrReadOnly, back the file up, and leave the file as it
// was, under a memory budget too; a session the file does not hold is
// empty. A read-write Open
// meanwhile gets ErrInUse.
func TestReadOnlyDatabases(t *testing.T) {
	ctx := context.Background()
	path := readOnlyCabinet(t)
	before := roFileOf(t, path)
	backups := t.TempDir()
	var dbs []*goldfish.DB
	// The second under a memory budget that unloads every session after
	// each call (an unload flushes a long log: not read-only).
	for _, budget := range []int64{0, 1} {
		dbs = append(dbs, openAt(t, path, goldfish.WithReadOnly(), goldfish.WithMemoryBudget(budget)))
	}
	if _, err := goldfish.Open(goldfish.WithCabinet(path)); !errors.Is(err, goldfish.ErrInUse) {
		t.Fatalf("read-write Open beside read-only ones: %v", err)
	}
	for i, db := range dbs {
		s := mustSession(t, db, "work")
		for range 2 {
			sh, err := s.Recall(ctx, `MATCH (t:TSK) LIMIT 4`, goldfish.RecallOptions{Agent: "reader"})
			if err != nil {
				t.Fatalf("db %d: Recall with an agent: %v", i, err)
			}
			if !strings.Contains(sh.Text, `"b"`) || strings.Contains(sh.Text, `nick: "a"`) {
				t.Fatalf("db %d: Recall reads\n%s", i, sh.Text)
			}
		}
		if s.Version() != 2 {
			t.Fatalf("db %d: version %d", i, s.Version())
		}
		if p, err := s.PinnedKinds(ctx); err != nil || len(p) != 1 {
			t.Fatalf("db %d: pinned %v, %v", i, p, err)
		}
		fresh := mustSession(t, db, "fresh")
		if sh, err := fresh.Recall(ctx, `MATCH (t:TSK) LIMIT 4`, goldfish.RecallOptions{}); err != nil || sh.Rows != 0 || fresh.Version() != 0 {
			t.Fatalf("db %d: a session the file does not hold: %v, %v", i, sh, err)
		}
		slice, err := s.ExportSlice(ctx, `MATCH (t:TSK)`, goldfish.SliceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			what string
			do   func() error
		}{
			{"Commit", func() error { _, err := s.Commit(ctx, `INSERT (:TSK {n: 3})`, nil); return err }},
			{"Commit of a new session", func() error { _, err := fresh.Commit(ctx, `INSERT (:TSK {n: 3})`, nil); return err }},
			{"Absorb", func() error { _, err := fresh.Absorb(ctx, slice.Text, goldfish.AbsorbKeep); return err }},
			{"Purge", func() error { _, err := s.Purge(ctx); return err }},
			{"Drop", func() error { return db.Drop(ctx, "work") }},
			{"SetAttentionSettings", func() error {
				set, err := s.AttentionSettings(ctx)
				if err != nil {
					return err
				}
				return s.SetAttentionSettings(ctx, set)
			}},
			{"SetPinnedKinds", func() error { return s.SetPinnedKinds(ctx, nil) }},
			{"ForgetAgent", func() error { return s.ForgetAgent(ctx, "reader") }},
		} {
			err := c.do()
			var ge *goldfish.Error
			if !errors.As(err, &ge) || ge.Code != goldfish.CodeReadOnlyCabinet || !errors.Is(err, goldfish.ErrReadOnly) ||
				!strings.Contains(ge.Msg, "is open read-only (gqlsh --read-only)") || !strings.Contains(ge.Msg, path) ||
				!strings.Contains(ge.Hint, "without --read-only") {
				t.Errorf("db %d: %s: %v; want 25006 naming the file", i, c.what, err)
			}
		}
		if s.Version() != 2 || fresh.Version() != 0 {
			t.Fatalf("db %d: a refused write applied: versions %d, %d", i, s.Version(), fresh.Version())
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatalf("db %d: Session.Flush: %v", i, err)
		}
		if err := db.Flush(ctx); err != nil {
			t.Fatalf("db %d: DB.Flush: %v", i, err)
		}
		if err := db.Backup(filepath.Join(backups, "b.gf")); err != nil {
			t.Fatalf("db %d: Backup: %v", i, err)
		}
		os.Remove(filepath.Join(backups, "b.gf"))
	}
	for _, db := range dbs {
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if after := roFileOf(t, path); !bytes.Equal(after.data, before.data) || !after.mtime.Equal(before.mtime) || after.names != before.names {
		t.Fatalf("read-only databases changed the file or its directory (%d bytes at %v, %s; were %d at %v, %s)",
			len(after.data), after.mtime, after.names, len(before.data), before.mtime, before.names)
	}
	// What the agent read was not saved: a read-write open finds the
	// record the writer left (one Recall).
	os.Chmod(filepath.Dir(path), 0o755)
	os.Chmod(path, 0o644)
	db := openAt(t, path)
	defer db.Close()
	agents, err := mustSession(t, db, "work").Agents(ctx)
	if err != nil || len(agents) != 1 {
		t.Fatalf("agents %v, %v", agents, err)
	}
}

// TestReadOnlyOpenErrors: a read-only Open beside a read-write database
// gets ErrInUse; of a path with no file, an error saying so, and no file
// made; WithReadOnly without a cabinet file fails.
func TestReadOnlyOpenErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.gf")
	w := openAt(t, path)
	if _, err := goldfish.Open(goldfish.WithCabinet(path), goldfish.WithReadOnly()); !errors.Is(err, goldfish.ErrInUse) {
		t.Fatalf("read-only Open beside a writer: %v", err)
	}
	w.Close()
	missing := filepath.Join(dir, "none.gf")
	if _, err := goldfish.Open(goldfish.WithCabinet(missing), goldfish.WithReadOnly()); err == nil || !strings.Contains(err.Error(), "no cabinet at "+missing) {
		t.Fatalf("read-only Open of no file: %v", err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Fatalf("a read-only Open made %s", missing)
	}
	for _, opts := range [][]goldfish.Option{{goldfish.WithReadOnly()}, {goldfish.WithReadOnly(), postgres.Cabinet("postgres://nowhere", postgres.Options{})}} {
		if db, err := goldfish.Open(opts...); err == nil || !strings.Contains(err.Error(), "WithReadOnly") {
			if db != nil {
				db.Close()
			}
			t.Fatalf("WithReadOnly without a cabinet file: %v", err)
		}
	}
}
