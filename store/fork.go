package store

// Fork and the nodes a Tx touched: what a session's history index needs
// to rebuild any past version from a few kept ones cheaply.

// Fork returns a new graph whose published snapshot is s: its Txs build
// on s's state and share every part of it they do not change, as the
// next Tx of s's own graph would, so a fork costs what its Txs change,
// not a copy of the graph. s and its graph are not changed and stay
// usable. The interning tables start empty and the keyword index is
// the fork's own. Forks of one snapshot must not be made concurrently
// (cloning the trees marks them shared, as Begin does under the writer
// lock); a Tx's working view cannot be forked.
func (s *Snapshot) Fork() *Graph {
	if s.working {
		panic("store: Fork of a Tx's working view")
	}
	g := &Graph{strs: map[string]string{}, labelSets: map[string][]string{}}
	st := s.st.clone()
	// The change log serves the keyword index only, and the fork's index
	// is its own, built from one of its snapshots and counting changes
	// from there: the fork's log starts empty, not with a copy of s's
	// (a version rebuilt from a checkpoint would copy its whole history's).
	st.changed = nil
	st.text = &textHolder{}
	g.typeNames = append([]string(nil), st.types...)
	g.typeIDs = make(map[string]uint16, len(g.typeNames))
	for i, t := range g.typeNames {
		g.typeIDs[t] = uint16(i)
	}
	st.types = g.typeNames
	g.pub.Store(&Snapshot{version: s.version, st: st})
	return g
}

// Transient sets whether g's Txs write in place what the Tx before them
// made. Normally each Tx copies every tree node, slot table part and
// adjacency list it writes, because the snapshot published before it
// shares them and must not change; a replay that rebuilds one old
// version from a kept one makes dozens of versions nobody reads, and
// that copying is most of what it allocates. While transient is on, a
// Tx that follows one committed while it was on carries on in that
// Tx's copy-on-write contexts and generation, so what the Txs write
// between them is copied once.
//
// The price: a snapshot published while transient is on is valid only
// until the next Tx of g begins (a Fork of it is a read of it), and a Tx
// rolled back after writing in place leaves the published snapshot part
// written, so the caller gives up the graph on a failure. Turning
// transient off makes the next Tx copy as usual: the last snapshot
// published while it was on then stays as it is, as does every later
// one.
func (g *Graph) Transient(on bool) {
	g.mu.Lock()
	g.transient = on
	if !on {
		// What is published now stays: the last snapshot of this run
		// must not be written by the first Tx of a later one.
		g.carried = false
	}
	g.mu.Unlock()
}

// TrackTouched makes every later Tx of g note the nodes it changes:
// inserted, set, relabelled, recycled or revived, or whose edges it
// inserts, sets, recycles or revives (Touched). Call it before the first
// such Tx.
func (g *Graph) TrackTouched() {
	g.mu.Lock()
	g.track = true
	g.mu.Unlock()
}

// Touched returns the ids of the nodes the last committed Tx of g
// changed, in the order it changed them, an id once or more; nil unless
// TrackTouched was called. Read it before the next Tx begins.
func (g *Graph) Touched() []ID {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.touched
}

// touch notes that t changed node id.
func (t *Tx) touch(id ID) {
	if t.g.track {
		t.touched = append(t.touched, id)
	}
}

// Nick returns the node's nick: its STRING nick property, if it has one.
func (n *Node) Nick() (string, bool) { return nickOf(n.Props) }
