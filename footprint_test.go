package goldfish_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestFootprintSaysWhereMemoryGoes: a session's footprint counts its
// elements, puts bytes in every part its content uses, and counts the
// past versions its Commits left readable, which a Recall at one of them
// reads.
func TestFootprintSaysWhereMemoryGoes(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session(ctx, "f")
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Footprint(ctx)
	if err != nil || f.Elements != 0 || f.History != 0 || f.HistoryVersions != 0 {
		t.Fatalf("an empty session: %+v %v", f, err)
	}
	for i := range 20 {
		if _, err := s.Commit(ctx, fmt.Sprintf(`INSERT (:TSK {nick: "t%d", loc: "f%d.go"})-[:touches]->(:MOD {title: "m%d"})`, i, i, i), nil); err != nil {
			t.Fatal(err)
		}
	}
	f, err = s.Footprint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f.Elements != 60 {
		t.Errorf("Elements %d, want 60 (40 nodes, 20 edges)", f.Elements)
	}
	for name, b := range map[string]int64{"node records": f.NodeRecords, "edge records": f.EdgeRecords, "adjacency": f.Adjacency,
		"id indexes": f.IDIndexes, "order indexes": f.OrderIndexes, "nick index": f.NickIndex, "history": f.History} {
		if b <= 0 {
			t.Errorf("%s: %d bytes, want some: %+v", name, b, f)
		}
	}
	if f.HistoryVersions != 19 || f.Total() != f.Present()+f.History+f.Rebuilt {
		t.Errorf("history of %d versions (want the 19 before the newest), total %d: %+v", f.HistoryVersions, f.Total(), f)
	}
	if _, err := s.Recall(ctx, `MATCH (t:TSK {nick: "t0"})`, goldfish.RecallOptions{AtVersion: 2}); err != nil {
		t.Errorf("a version the footprint counts is not readable: %v", err)
	}
	if err := db.Drop(ctx, "f"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Footprint(ctx); err == nil {
		t.Error("the footprint of a dropped session answered")
	}
}

// TestFootprintWhileCommitting: a footprint walks a published version,
// whatever Commits do meanwhile (run with -race).
func TestFootprintWhileCommitting(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session(ctx, "f")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 200 {
			if _, err := s.Commit(ctx, fmt.Sprintf(`INSERT (:TSK {nick: "t%d"})-[:touches]->(:MOD {loc: "m%d.go"})`, i, i%7), nil); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	last := 0
	for range 50 {
		f, err := s.Footprint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if f.Elements < last || f.Present() <= 0 && f.Elements > 0 {
			t.Fatalf("footprint went back or is empty: %+v after %d elements", f, last)
		}
		last = f.Elements
	}
	wg.Wait()
}
