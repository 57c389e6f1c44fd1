package engine

import (
	"fmt"

	"github.com/goldfish-gql/goldfish/store"
)

// purgeAll removes every recycled element of g for good in one version;
// it returns how many it removed and the version after (unchanged if none).
func purgeAll(g *store.Graph) (int, uint64) {
	n, v, _ := purgeBefore(g, nil)
	return n, v
}

// purgeBefore is purgeAll, calling before (when set) with the new
// version before it is published: an error from it purges nothing.
func purgeBefore(g *store.Graph, before func(version uint64) error) (int, uint64, error) {
	tx := g.Begin()
	defer tx.Rollback()
	var ids []store.ID
	ws := tx.Snapshot()
	ws.ScanAllEdges(func(e *store.Edge) bool {
		if e.Recycled {
			ids = append(ids, e.ID)
		}
		return true
	})
	ws.ScanAllNodes(func(n *store.Node) bool {
		if n.Recycled {
			ids = append(ids, n.ID)
		}
		return true
	})
	if len(ids) == 0 {
		return 0, tx.Base().Version(), nil
	}
	for _, id := range ids {
		if err := tx.Purge(id); err != nil {
			panic(fmt.Sprintf("goldfish: purging recycled element %d: %v", id, err)) // a store bug
		}
	}
	if before != nil {
		if err := before(tx.Base().Version() + 1); err != nil {
			return 0, tx.Base().Version(), err
		}
	}
	return len(ids), tx.Commit().Version(), nil
}

// compactIfShrunk replaces the session's graph by a compact copy when
// most of the node slots it handed out belong to purged nodes: the store
// keeps a purged node's slot record, and interned strings, until then,
// so an emptied session would otherwise keep the memory of its largest
// size. Called with s.wmu held, before the purge's version is published
// (readers hold the old graph's snapshots, which stay valid).
func (s *Session) compactIfShrunk() {
	snap := s.graph.Snapshot()
	// A purge leaves no recycled element: the live nodes are all it holds.
	if snap.SlotCount() <= 2*snap.NodeCount()+1024 {
		return
	}
	g, err := snap.Compact()
	if err != nil {
		panic(fmt.Sprintf("goldfish: compacting session %q: %v", s.name, err)) // the graph broke its own invariants: a store bug
	}
	s.graph = g
}
