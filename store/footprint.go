package store

// Footprint is where a version's memory goes, part by part, in bytes at
// each object's allocated length (the allocator rounds each object up to
// its size class, some 10% more over a session). Parts shared with other
// versions are counted whole: a version's footprint is what keeping it
// alone would cost.
type Footprint struct {
	// NodeRecords: each node's record, its properties and its rendering
	// with its observable key, laid out together.
	NodeRecords int64
	// EdgeRecords: each edge's record and the rendering a Recall kept
	// for it.
	EdgeRecords int64
	// Adjacency: the slot table (a record per node: degree, rendering,
	// adjacency list) and the adjacency lists, an entry per edge end.
	Adjacency int64
	// IDIndexes: the B-trees from engine id to node and to edge.
	IDIndexes int64
	// OrderIndexes: the B-trees of nodes in observable order, by label
	// and by property, and of edges by type, with the counters.
	OrderIndexes int64
	// NickIndex: the hash tries from nick and from loc to node.
	NickIndex int64
	// KeywordIndex: the keyword (trigram) index, when a keyword seed has
	// built it, and the log of nodes changed since.
	KeywordIndex int64
}

// Total is the sum of the parts.
func (f Footprint) Total() int64 {
	return f.NodeRecords + f.EdgeRecords + f.Adjacency + f.IDIndexes + f.OrderIndexes + f.NickIndex + f.KeywordIndex
}

// Footprint walks the whole version (O(elements)) and says where its
// memory goes.
func (s *Snapshot) Footprint() Footprint {
	var f Footprint
	st := &s.st
	st.nodes.Ascend(func(it nodeItem) bool {
		f.NodeRecords += it.n.recordBytes()
		return true
	})
	st.edges.Ascend(func(it edgeItem) bool {
		f.EdgeRecords += sizeEdge
		if len(it.e.Props) > 0 {
			f.EdgeRecords += int64(cap(it.e.Props)) * sizeProp
		}
		if r := it.e.Rendering(); r != nil {
			f.EdgeRecords += sizeRendering + int64(cap(r.Text))
		}
		return true
	})
	f.Adjacency = int64(cap(st.dirs)) * sizePtr
	for _, d := range st.dirs {
		f.Adjacency += sizeSlotDir
		for _, l := range d.leaves {
			if l == nil {
				continue
			}
			f.Adjacency += sizeLeaf
			for i := range l.recs {
				f.Adjacency += int64(cap(l.recs[i].adj)) * sizeAdjEnt
			}
		}
	}
	f.IDIndexes = st.nodes.Bytes() + st.edges.Bytes()
	f.OrderIndexes = st.all.Bytes() + st.labels.Bytes() + st.props.Bytes() + st.byType.Bytes() +
		st.labelCnt.Bytes() + st.kindCnt.Bytes() + st.typeCnt.Bytes() + st.propsCnt.Bytes()
	f.NickIndex = st.nicks.bytes() + st.locs.bytes()
	st.locs.each(func(e locEntry) {
		if e.b != nil {
			f.NickIndex += e.b.bytes()
		}
	})
	f.KeywordIndex = int64(cap(st.changed)) * 4
	if idx := st.text.idx.Load(); idx != nil {
		for _, slots := range idx.post {
			f.KeywordIndex += int64(cap(slots))*4 + 4 + sizeSlice
		}
	}
	return f
}

// bytes is what t's nodes take.
func (t *hashTrie[T]) bytes() int64 {
	var walk func(n *trieNode[T]) int64
	walk = func(n *trieNode[T]) int64 {
		b := trieBytes(n)
		for _, k := range n.kids {
			if k.sub != nil {
				b += walk(k.sub)
			}
		}
		return b
	}
	if t.root == nil {
		return 0
	}
	return walk(t.root)
}

// each calls fn with every value of t.
func (t *hashTrie[T]) each(fn func(T)) {
	var walk func(n *trieNode[T])
	walk = func(n *trieNode[T]) {
		for _, k := range n.kids {
			if k.sub != nil {
				walk(k.sub)
			} else {
				fn(k.v)
			}
		}
	}
	if t.root != nil {
		walk(t.root)
	}
}
