package cabinet

import (
	"fmt"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

func appendN(t *testing.T, c Cabinet, name string, from, to uint64) {
	t.Helper()
	for v := from; v <= to; v++ {
		e := Entry{Version: v, Kind: EntryDelta, Text: fmt.Sprintf("INSERT (:N {n: %d})", v)}
		if err := c.Append(name, e, Meta{Name: name, Version: v, Nodes: int(v)}).Wait(); err != nil {
			t.Fatal(err)
		}
	}
}

func wantDropped(t *testing.T, c Cabinet, want uint64) {
	t.Helper()
	if d, err := c.Dropped(); err != nil || d != want {
		t.Fatalf("Dropped() = %d, %v; want %d", d, err, want)
	}
}

// TestDroppedCounter: a drop adds the session's weight plus one to the
// file's counter, in its own transaction, and the counter survives a
// reopen; a drop of a session never persisted adds nothing; a file
// written before the counter was kept reads 0.
func TestDroppedCounter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cab.db")
	c, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantDropped(t, c, 0)
	appendN(t, c, "a", 1, 3)
	appendN(t, c, "b", 1, 2)
	if err := c.Drop("a"); err != nil {
		t.Fatal(err)
	}
	wantDropped(t, c, 2*3+1)
	if err := c.Drop("never"); err != nil {
		t.Fatal(err)
	}
	wantDropped(t, c, 7)
	appendN(t, c, "a", 1, 1) // made again
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if c, err = Open(path, nil); err != nil {
		t.Fatal(err)
	}
	wantDropped(t, c, 7)
	if err := c.Drop("b"); err != nil {
		t.Fatal(err)
	}
	wantDropped(t, c, 7+2*2+1)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	// A file of before the counter: no key.
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketRoot).Delete(keyDropped) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if c, err = Open(path, nil); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	wantDropped(t, c, 0)
	if err := c.Drop("a"); err != nil {
		t.Fatal(err)
	}
	wantDropped(t, c, 2*1+1)
}
