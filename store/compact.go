package store

// SlotCount returns the number of node slots the graph has handed out:
// every node ever inserted, purged ones included (slots are not reused,
// so a graph that shrank keeps their records until it is compacted).
func (s *Snapshot) SlotCount() int { return int(s.st.nslots) }

// Compact returns a new graph holding exactly the elements of s, live and
// recycled, with their ids, at s's version and next id, laid out as
// Restore lays out a hydrated graph: dense slots, and only the interned
// strings still in use. A graph that shrank (a purge of most of its
// elements) keeps the slot records, slot directories and interned strings
// of everything it ever held; its compacted copy gives that memory back.
// The copy is observably the same graph; s is not changed.
func (s *Snapshot) Compact() (*Graph, error) {
	nodes := make([]*Node, 0, s.NodeCount()+s.RecycledCount())
	s.ScanAllNodes(func(n *Node) bool { nodes = append(nodes, n); return true })
	var edges []*Edge
	s.ScanAllEdges(func(e *Edge) bool { edges = append(edges, e); return true })
	if s.version == 0 {
		return NewAt(0), nil
	}
	g, err := Restore(s.version, s.st.nextID, nodes, edges)
	if err == nil && s.st.ext != nil {
		g.SetExt(s.st.ext)
	}
	return g, err
}
