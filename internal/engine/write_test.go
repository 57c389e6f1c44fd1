package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/values"
)

// The tests of write.go's Purge.

// TestPurgeGivesMemoryBack: a session emptied by DETACH DELETE and Purge
// holds about what an empty one does, not the memory of its largest
// size.
func TestPurgeGivesMemoryBack(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 60k-node session")
	}
	ctx := context.Background()
	db, err := openTest(WithCommitBudget(values.Budget{Rows: 1 << 20, Bytes: 1 << 30}), WithShapeCacheBytes(0))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, _ := db.Session(context.Background(), "s")
	var parts []string
	for i := range 1000 {
		// $b tells the batches' M nodes apart: an M equal to an earlier
		// batch's would be an echo, and bind instead (docs/design.md#commit).
		parts = append(parts, fmt.Sprintf("(:N%d {nick: $n%d, v: %d})-[:r]->(:M {v: %d, b: $b})", i%5, i, i, i))
	}
	text := "INSERT " + strings.Join(parts, ", ")
	base := liveHeap()
	for b := range 30 {
		params := map[string]any{"b": b}
		for i := range 1000 {
			params[fmt.Sprintf("n%d", i)] = fmt.Sprintf("n%d_%d", b, i)
		}
		if _, err := s.commitText(ctx, text, params); err != nil {
			t.Fatal(err)
		}
	}
	full := liveHeap()
	if _, err := s.commitText(ctx, "MATCH (n) LIMIT 1000000 DETACH DELETE n", nil); err != nil {
		t.Fatal(err)
	}
	n, err := s.Purge(ctx)
	if err != nil || n != 90000 {
		t.Fatalf("purged %d, %v; want 90000 elements", n, err)
	}
	after := liveHeap()
	t.Logf("heap: %d KB empty, %d KB with 60k nodes, %d KB after the purge", base>>10, full>>10, after>>10)
	if after > base+(full-base)/10 {
		t.Errorf("after purging everything the heap is %d KB, want near the empty session's %d KB (full: %d KB)", after>>10, base>>10, full>>10)
	}
	if sh, err := s.recallShape(ctx, "MATCH ()", values.RecallOptions{}); err != nil || sh.Rows != 0 {
		t.Fatalf("the emptied session's outline: %v rows, %v", sh, err)
	}
	// The compacted session goes on as before.
	if _, err := s.commitText(ctx, `INSERT (:TSK {nick: "t"})-[:r]->(:NOTE {text: "after"})`, nil); err != nil {
		t.Fatal(err)
	}
	if sh, err := s.recallShape(ctx, `MATCH (t:TSK {nick: "t"})`, values.RecallOptions{}); err != nil || sh.Rows != 3 {
		t.Fatalf("Recall after the purge: %+v, %v", sh, err)
	}
}
