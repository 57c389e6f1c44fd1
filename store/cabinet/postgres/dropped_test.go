package postgres_test

import (
	"fmt"
	"testing"

	"github.com/goldfish-gql/goldfish/store/cabinet"
)

func appendN(t *testing.T, c cabinet.Cabinet, name string, from, to uint64) {
	t.Helper()
	for v := from; v <= to; v++ {
		e := cabinet.Entry{Version: v, Kind: cabinet.EntryDelta, Text: fmt.Sprintf("INSERT (:N {n: %d})", v)}
		if err := c.Append(name, e, cabinet.Meta{Name: name, Version: v, Nodes: int(v)}).Wait(); err != nil {
			t.Fatal(err)
		}
	}
}

func wantDropped(t *testing.T, c cabinet.Cabinet, want uint64) {
	t.Helper()
	if d, err := c.Dropped(); err != nil || d != want {
		t.Fatalf("Dropped() = %d, %v; want %d", d, err, want)
	}
}

// TestDroppedCounter: a drop adds the row's weight (version plus
// meta_version) plus one to the schema's counter in the drop's
// transaction; the counter survives a reopen; a schema of layout 1
// (before the counter) is migrated and reads 0.
func TestDroppedCounter(t *testing.T) {
	url, schema, o := open(t)
	c := mustCab(t, o)
	wantDropped(t, c, 0)
	appendN(t, c, "a", 1, 3)
	appendN(t, c, "b", 1, 2)
	ms, err := c.Sessions()
	if err != nil || len(ms) != 2 || ms[0].MetaVersion != 3 || ms[0].Weight() != 6 {
		t.Fatalf("Sessions() = %+v, %v; want a at version 3 with counts of 3", ms, err)
	}
	if err := c.Drop("a"); err != nil {
		t.Fatal(err)
	}
	wantDropped(t, c, 3+3+1)
	if err := c.Drop("never"); err != nil {
		t.Fatal(err)
	}
	wantDropped(t, c, 7)
	c.Close()
	c = mustCab(t, o)
	wantDropped(t, c, 7)
	if err := c.Drop("b"); err != nil {
		t.Fatal(err)
	}
	wantDropped(t, c, 7+2+2+1)
	c.Close()

	// A schema of layout 1.
	exec(t, url, fmt.Sprintf(`DROP TABLE %s.dropped`, schema))
	exec(t, url, fmt.Sprintf(`UPDATE %s.schema_version SET version = 1`, schema))
	c = mustCab(t, o)
	wantDropped(t, c, 0)
	appendN(t, c, "a", 1, 1)
	if err := c.Drop("a"); err != nil {
		t.Fatal(err)
	}
	wantDropped(t, c, 1+1+1)
}
