package store

// Recycling: a deleted element stays retrievable until it is purged,
// and can be revived until then.

// RecycleNode recycles a live node: it disappears from every scan and
// index (its nick becomes free) but stays retrievable with RecycledNode
// until purged. Errors: ErrNotFound, ErrHasEdges if it has live edges
// (recycle them first for DETACH).
func (t *Tx) RecycleNode(id ID) error {
	it, err := t.liveNode(id)
	if err != nil {
		return err
	}
	if r := t.st.rec(it.n.slot); r != nil && r.out+r.in > 0 {
		return ErrHasEdges
	}
	t.delNodeIdx(it.n)
	t.displaced += sizeNode // the new record shares the old one's properties and text
	n := it.n.clone()
	n.Recycled = true
	it.n = &n
	t.st.nodes.ReplaceOrInsert(it)
	t.setRec(&n)
	t.st.liveNodes--
	t.st.recycled++
	return nil
}

// RecycleEdge recycles a live edge. Errors: ErrNotFound.
func (t *Tx) RecycleEdge(id ID) error {
	it, err := t.liveEdge(id)
	if err != nil {
		return err
	}
	t.unlinkEdge(it.e)
	t.displaced += sizeEdge
	e := it.e.clone()
	e.Recycled = true
	t.st.edges.ReplaceOrInsert(edgeItem{id: id, e: &e})
	t.st.liveEdges--
	t.st.recycled++
	return nil
}

// Revive makes a recycled node or edge live again with its old content
// (the caller may then SetProps). Reviving a live element is a no-op.
// Errors: ErrNotFound (no such element, or an edge end is not live),
// ErrNickClash (the node's nick has been taken meanwhile).
func (t *Tx) Revive(id ID) error {
	if t.done {
		return ErrTxDone
	}
	if it, ok := t.st.nodes.Get(nodeItem{id: id}); ok {
		if !it.n.Recycled {
			return nil
		}
		if !t.nickFree(it.n.Props, id) {
			return ErrNickClash
		}
		t.displaced += sizeNode
		n := it.n.clone()
		n.Recycled = false
		it.n = &n
		t.st.nodes.ReplaceOrInsert(it)
		t.setRec(&n)
		t.addNodeIdx(it.n)
		t.st.liveNodes++
		t.st.recycled--
		return nil
	}
	if it, ok := t.st.edges.Get(edgeItem{id: id}); ok {
		if !it.e.Recycled {
			return nil
		}
		if _, err := t.liveNode(it.e.From); err != nil {
			return err
		}
		if _, err := t.liveNode(it.e.To); err != nil {
			return err
		}
		t.displaced += sizeEdge
		e := it.e.clone()
		e.Recycled = false
		t.st.edges.ReplaceOrInsert(edgeItem{id: id, e: &e})
		t.linkEdge(&e)
		t.st.liveEdges++
		t.st.recycled--
		return nil
	}
	return ErrNotFound
}

// Purge removes a recycled node or edge for good (its id becomes free).
// Purge a node's recycled edges before the node: Purge does not look for
// them (that is a scan of every edge), and a recycled edge whose end is
// gone can be neither revived nor restored. Errors: ErrNotFound if id is
// not a recycled element.
func (t *Tx) Purge(id ID) error {
	if t.done {
		return ErrTxDone
	}
	if it, ok := t.st.nodes.Get(nodeItem{id: id}); ok && it.n.Recycled {
		t.st.nodes.Delete(it)
		t.displaced += it.n.recordBytes()
		if it.n.slot != 0 {
			r := t.recW(it.n.slot)
			if r.gen != t.gen {
				t.displaced += int64(cap(r.adj)) * sizeAdjEnt
			}
			r.n, r.adj = nil, nil
		}
		t.st.recycled--
		return nil
	}
	if it, ok := t.st.edges.Get(edgeItem{id: id}); ok && it.e.Recycled {
		t.st.edges.Delete(it)
		t.displaced += sizeEdge
		t.st.recycled--
		return nil
	}
	return ErrNotFound
}
