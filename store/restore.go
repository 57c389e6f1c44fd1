package store

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/goldfish-gql/goldfish/values"
)

// Restore builds, in one pass, a graph whose published snapshot has the
// given version and next counter id and holds exactly nodes and edges,
// live and recycled (Node.Recycled, Edge.Recycled), with their ids,
// labels and properties: the bulk counterpart of replaying InsertNode,
// InsertEdge, RecycleNode and RecycleEdge, for hydrating a persisted
// snapshot.
//
// The records passed in are not retained or modified: Restore copies them
// (labels are deduplicated and props normalised as InsertNode does); their
// Props slices may be shared and, as always, must not be modified. Each
// index is built by sorting its entries and inserting them in order, the
// slot table and every node's canonical adjacency by sorting per node.
//
// Restore checks the invariants a graph built through Tx keeps and
// returns an error naming the first violation (wrapping ErrIDTaken,
// ErrNotFound or ErrNickClash where one applies): every id unique among
// nodes and edges; counter-range ids below nextID, which must itself be a
// counter id ≥ 1; every edge end an existing node, and live edges only
// between live nodes; STRING nicks unique among live nodes.
func Restore(version, nextID uint64, nodes []*Node, edges []*Edge) (*Graph, error) {
	if nextID == 0 || ID(nextID)&DeterministicBit != 0 {
		return nil, fmt.Errorf("store: restore: next id %d is not a counter id", nextID)
	}
	r := &restorer{
		g:      &Graph{strs: map[string]string{}, labelSets: map[string][]string{}},
		st:     state{nextID: nextID, text: &textHolder{}},
		nextID: nextID,
	}
	r.layoutNodes(nodes)
	if err := r.slotNodes(); err != nil {
		return nil, err
	}
	r.indexCounterIDs(len(nodes) + len(edges))
	r.layoutEdges(edges)
	if err := r.checkEdges(); err != nil {
		return nil, err
	}
	r.assignTypeIDs()
	r.buildAdjacency()
	if err := r.buildIndexes(); err != nil {
		return nil, err
	}
	r.st.types = r.g.typeNames
	r.g.pub.Store(&Snapshot{version: version, st: r.st})
	return r.g, nil
}

// restorer is Restore's work in progress: the graph and the state it
// fills, and the records laid out so far.
type restorer struct {
	g      *Graph
	st     state
	nextID uint64

	byID  []*Node     // node records, sorted by id; slot = position + 1
	dense []uint32    // counter id → slot, when the counter range is small (see indexCounterIDs)
	eByID []*Edge     // edge records, sorted by id
	ends  [][2]uint32 // eByID[i]'s from and to slots, for live edges

	typeCnt, propsCnt map[string]int    // live edges, and those with properties, per type
	tids              map[string]uint16 // small type id of each live edge type
}

// layoutNodes lays out the node records as a Tx lays them out, sorted by
// id. They are built concurrently (observable keys are pure functions of
// labels and props); labels are interned first, in input order.
func (r *restorer) layoutNodes(nodes []*Node) {
	labels := make([][]string, len(nodes))
	for i, src := range nodes {
		labels[i] = r.g.internLabels(src.Labels)
	}
	byID := make([]*Node, len(nodes))
	parallel(len(nodes), func(lo, hi int) {
		var buf []byte
		for i := lo; i < hi; i++ {
			src := nodes[i]
			byID[i], buf = layoutNode(buf, src.ID, labels[i], values.NormalizeProps(src.Props))
			byID[i].Recycled = src.Recycled
		}
	})
	if !slices.IsSortedFunc(byID, cmpNodeID) {
		slices.SortFunc(byID, cmpNodeID)
	}
	r.byID = byID
}

// slotNodes checks the node ids, gives the nodes their slots in id order,
// counts live and recycled ones and builds the slot table.
func (r *restorer) slotNodes() error {
	st := &r.st
	for i, n := range r.byID {
		if i > 0 && r.byID[i-1].ID == n.ID {
			return fmt.Errorf("store: restore: node id %d given twice: %w", n.ID, ErrIDTaken)
		}
		if err := checkCounterID(n.ID, r.nextID); err != nil {
			return err
		}
		n.slot = uint32(i + 1)
		if n.Recycled {
			st.recycled++
		} else {
			st.liveNodes++
		}
	}
	if uint64(len(r.byID)) >= 1<<32-1 {
		return fmt.Errorf("store: restore: %d nodes exceed the slot table", len(r.byID))
	}
	st.nslots = uint32(len(r.byID))
	st.dirs = buildSlotTable(r.byID)
	return nil
}

// indexCounterIDs builds the dense table findNode reads counter ids from,
// when the counter range is small enough for the elements restored
// (total of them).
func (r *restorer) indexCounterIDs(total int) {
	if r.nextID > 4*uint64(total)+1024 {
		return
	}
	r.dense = make([]uint32, r.nextID)
	for _, n := range r.byID {
		if n.ID&DeterministicBit == 0 {
			r.dense[n.ID] = n.slot
		}
	}
}

// findNode returns the node record with id, or nil: counter ids from the
// dense table when there is one, others by binary search.
func (r *restorer) findNode(id ID) *Node {
	if r.dense != nil && id&DeterministicBit == 0 {
		if uint64(id) >= uint64(len(r.dense)) || r.dense[id] == 0 {
			return nil
		}
		return r.byID[r.dense[id]-1]
	}
	i, ok := slices.BinarySearchFunc(r.byID, id, func(n *Node, id ID) int { return cmp.Compare(n.ID, id) })
	if !ok {
		return nil
	}
	return r.byID[i]
}

// layoutEdges copies the edge records into one slab, sorted by id.
func (r *restorer) layoutEdges(edges []*Edge) {
	eslab := make([]Edge, len(edges))
	eByID := make([]*Edge, len(edges))
	for i, src := range edges {
		e := &eslab[i]
		*e = Edge{ID: src.ID, Type: r.g.internStr(src.Type), From: src.From, To: src.To, Props: values.NormalizeProps(src.Props), Recycled: src.Recycled}
		eByID[i] = e
	}
	if !slices.IsSortedFunc(eByID, cmpEdgeID) {
		slices.SortFunc(eByID, cmpEdgeID)
	}
	r.eByID = eByID
}

// checkEdges checks the edge ids and ends, and counts live edges per type
// and the live degree of each node.
func (r *restorer) checkEdges() error {
	st := &r.st
	r.ends = make([][2]uint32, len(r.eByID))
	r.typeCnt, r.propsCnt = map[string]int{}, map[string]int{}
	for i, e := range r.eByID {
		if i > 0 && r.eByID[i-1].ID == e.ID {
			return fmt.Errorf("store: restore: edge id %d given twice: %w", e.ID, ErrIDTaken)
		}
		if r.findNode(e.ID) != nil {
			return fmt.Errorf("store: restore: id %d is both a node and an edge: %w", e.ID, ErrIDTaken)
		}
		if err := checkCounterID(e.ID, r.nextID); err != nil {
			return err
		}
		from, to := r.findNode(e.From), r.findNode(e.To)
		if from == nil || to == nil {
			missing := e.From
			if from != nil {
				missing = e.To
			}
			return fmt.Errorf("store: restore: edge %d: end node %d does not exist: %w", e.ID, missing, ErrNotFound)
		}
		if e.Recycled {
			st.recycled++
			continue
		}
		if from.Recycled || to.Recycled {
			rec := from.ID
			if !from.Recycled {
				rec = to.ID
			}
			return fmt.Errorf("store: restore: live edge %d: end node %d is recycled: %w", e.ID, rec, ErrNotFound)
		}
		st.liveEdges++
		r.typeCnt[e.Type]++
		if len(e.Props) > 0 {
			r.propsCnt[e.Type]++
		}
		r.ends[i] = [2]uint32{from.slot, to.slot}
		st.rec(from.slot).out++
		st.rec(to.slot).in++
	}
	return nil
}

// assignTypeIDs gives the live edge types their small ids, in edge-id
// order, before the index builds that read them run concurrently.
func (r *restorer) assignTypeIDs() {
	r.tids = map[string]uint16{}
	for _, e := range r.eByID {
		if _, ok := r.tids[e.Type]; !ok && !e.Recycled {
			r.tids[e.Type] = r.g.typeID(e.Type)
		}
	}
}

// buildAdjacency fills every node's adjacency: one backing array, a
// full-capacity window per node (a Tx copies a list before its first
// write to it), sorted canonically.
func (r *restorer) buildAdjacency() {
	st := &r.st
	ents := make([]adjEnt, 2*st.liveEdges)
	off := 0
	for _, n := range r.byID {
		rec := st.rec(n.slot)
		d := int(rec.out + rec.in)
		rec.adj = ents[off : off : off+d]
		off += d
	}
	for i, e := range r.eByID {
		if e.Recycled {
			continue
		}
		fs, ts := r.ends[i][0], r.ends[i][1]
		tid := r.g.typeID(e.Type)
		fr, tr := st.rec(fs), st.rec(ts)
		fr.adj = append(fr.adj, adjEnt{e: e, far: ts, tid: tid, dir: Out, kh: keyByte(tr.n.okey())})
		tr.adj = append(tr.adj, adjEnt{e: e, far: fs, tid: tid, dir: In, kh: keyByte(fr.n.okey())})
	}
	for _, n := range r.byID {
		if rec := st.rec(n.slot); len(rec.adj) > 1 {
			slices.SortFunc(rec.adj, st.cmpEnt)
		}
	}
}

// buildIndexes builds every index: sorted, then built in order
// (bulkTree), the independent ones concurrently. Live nodes in observable
// order feed the node indexes.
func (r *restorer) buildIndexes() error {
	st := &r.st
	var wg sync.WaitGroup
	run := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	var nickErr error
	live := make([]*Node, 0, st.liveNodes)
	for _, n := range r.byID {
		if !n.Recycled {
			live = append(live, n)
		}
	}
	sortParallel(live, cmpNode)
	run(func() { st.props = buildProps(live) })
	run(r.buildIDTrees)
	run(func() {
		st.all = bulkTree(live, nodeLess)
		st.nicks, nickErr = buildNicks(live)
	})
	run(func() { st.locs = buildLocs(live) })
	st.labels, st.labelCnt, st.kindCnt = buildLabels(live)
	wg.Wait()
	return nickErr
}

// buildIDTrees builds the trees by id (nodes, edges, live edges by type)
// and the edge type counters.
func (r *restorer) buildIDTrees() {
	st := &r.st
	items := make([]nodeItem, len(r.byID))
	for i, n := range r.byID {
		items[i] = nodeItem{id: n.ID, n: n}
	}
	st.nodes = bulkTree(items, lessNodeItem)
	eitems := make([]edgeItem, len(r.eByID))
	for i, e := range r.eByID {
		eitems[i] = edgeItem{id: e.ID, e: e}
	}
	st.edges = bulkTree(eitems, lessEdgeItem)
	st.typeCnt = countTree(r.typeCnt)
	st.propsCnt = countTree(r.propsCnt)
	byType := make([]typeItem, 0, st.liveEdges)
	for _, e := range r.eByID {
		if !e.Recycled {
			byType = append(byType, typeItem{tid: r.tids[e.Type], id: e.ID})
		}
	}
	slices.SortFunc(byType, func(a, b typeItem) int {
		if c := cmp.Compare(a.tid, b.tid); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	st.byType = bulkTree(byType, lessTypeItem)
}

// buildSlotTable returns a slot table holding nodes, whose slots are
// their positions plus one.
func buildSlotTable(nodes []*Node) []*slotDir {
	var dirs []*slotDir
	for _, n := range nodes {
		di := int(n.slot >> (leafShift + dirShift))
		for di >= len(dirs) {
			dirs = append(dirs, &slotDir{})
		}
		li := (n.slot >> leafShift) & dirMask
		if dirs[di].leaves[li] == nil {
			dirs[di].leaves[li] = &slotLeaf{}
		}
		dirs[di].leaves[li].recs[n.slot&leafMask].setNode(n)
	}
	return dirs
}

func cmpNodeID(a, b *Node) int { return cmp.Compare(a.ID, b.ID) }

func cmpEdgeID(a, b *Edge) int { return cmp.Compare(a.ID, b.ID) }

func checkCounterID(id ID, nextID uint64) error {
	if id&DeterministicBit == 0 && uint64(id) >= nextID {
		return fmt.Errorf("store: restore: id %d is not below the next id %d", id, nextID)
	}
	return nil
}
