package store

import (
	"testing"

	"pgregory.net/rapid"
)

// TestCompactRapid: the compacted copy of a graph that grew and was
// purged answers every read as the original does, with one slot per node
// it still holds.
func TestCompactRapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := New()
		for x, n := 0, rapid.IntRange(1, 4).Draw(t, "ntx"); x < n; x++ {
			tx := g.Begin()
			randomOps(t, tx, rapid.IntRange(0, 30).Draw(t, "nops"), "")
			if rapid.Bool().Draw(t, "purge") {
				purgeAll(tx)
			}
			tx.Commit()
		}
		orig := g.Snapshot()
		c, err := orig.Compact()
		if err != nil {
			t.Fatal(err)
		}
		cs := c.Snapshot()
		if a, b := readsDump(cs), readsDump(orig); a != b {
			t.Fatalf("compacted reads differ\n--- compacted\n%s\n--- original\n%s", a, b)
		}
		held := 0
		orig.ScanAllNodes(func(*Node) bool { held++; return true })
		if cs.SlotCount() != held {
			t.Fatalf("compacted graph has %d slots for %d nodes", cs.SlotCount(), held)
		}
		checkSnapshot(t, cs, modelOf(orig))
	})
}
