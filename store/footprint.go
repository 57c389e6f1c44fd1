package store

import "github.com/goldfish-gql/goldfish/values"

// Footprint walks the whole version (O(elements)) and says where its
// memory goes, each object counted at its allocated length. Parts shared
// with other versions are counted whole: a version's footprint is what
// keeping it alone would cost. (The history's parts are the engine's.)
func (s *Snapshot) Footprint() values.Footprint {
	f := values.Footprint{Elements: s.NodeCount() + s.EdgeCount() + s.RecycledCount()}
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
