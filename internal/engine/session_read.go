package engine

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish/internal/catalog"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
)

// snapshot returns the newest durable snapshot; the catalogue applies its
// queued changes first.
func (s *Session) snapshot() *store.Snapshot {
	if s.catalog {
		s.db.catalogCurrent()
		return s.graph.Snapshot()
	}
	return s.readable.Load()
}

// Dump lists the whole session deterministically (the facade's Dump).
func (s *Session) Dump() string {
	if err := s.begin(context.Background()); err != nil {
		if snap := s.snapshot(); snap != nil {
			return dump(snap) // closed, say: what it holds is still exact
		}
		return "error: " + err.Error() + "\n"
	}
	defer s.end()
	return dump(s.snapshot())
}

// dump is Session.Dump over any snapshot.
func dump(snap *store.Snapshot) string {
	var nodes []string
	snap.ScanNodes(func(n *store.Node) bool {
		nodes = append(nodes, nodeLiteral(n))
		return true
	})
	var edges []string
	snap.ScanEdges(func(e *store.Edge) bool {
		from, _ := snap.Node(e.From)
		to, _ := snap.Node(e.To)
		edges = append(edges, endLiteral(from)+"-["+edgeBody(e)+"]->"+endLiteral(to))
		return true
	})
	sort.Strings(nodes)
	sort.Strings(edges)
	var b strings.Builder
	b.WriteString("version ")
	b.WriteString(strconv.FormatUint(snap.Version(), 10))
	b.WriteString("\nnodes ")
	b.WriteString(strconv.Itoa(len(nodes)))
	b.WriteString(", edges ")
	b.WriteString(strconv.Itoa(len(edges)))
	b.WriteString(", recycled ")
	b.WriteString(strconv.Itoa(snap.RecycledCount()))
	b.WriteByte('\n')
	for _, l := range nodes {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	for _, l := range edges {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

func endLiteral(n *store.Node) string {
	if n == nil {
		return "(?)" // an edge to a node that is not live: a store bug, shown not hidden
	}
	return nodeLiteral(n)
}

// nodeLiteral writes (:Kind:Extra {props}); extra labels sorted.
func nodeLiteral(n *store.Node) string {
	var b strings.Builder
	b.WriteByte('(')
	if len(n.Labels) > 0 {
		b.WriteByte(':')
		b.WriteString(values.KeyLiteral(n.Labels[0]))
		extra := append([]string(nil), n.Labels[1:]...)
		sort.Strings(extra)
		for _, l := range extra {
			b.WriteByte(':')
			b.WriteString(values.KeyLiteral(l))
		}
	}
	if len(n.Props) > 0 {
		if len(n.Labels) > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(n.Props.Literal())
	}
	b.WriteByte(')')
	return b.String()
}

func edgeBody(e *store.Edge) string {
	s := ":" + values.KeyLiteral(e.Type)
	if len(e.Props) > 0 {
		s += " " + e.Props.Literal()
	}
	return s
}

// MaxNameScan bounds the elements Names reads for keys and nicks.
const MaxNameScan = values.MaxNameScan

// Names returns the session's names at its current version.
func (s *Session) Names(ctx context.Context) (values.Names, error) {
	if err := s.begin(ctx); err != nil {
		return values.Names{}, err
	}
	defer s.end()
	if s.dropped.Load() {
		return values.Names{}, s.errDropped()
	}
	if err := ctx.Err(); err != nil {
		return values.Names{}, err
	}
	snap := s.snapshot()
	keys, nicks := map[string]bool{}, map[string]bool{}
	n := 0
	snap.ScanNodes(func(nd *store.Node) bool {
		for _, p := range nd.Props {
			keys[p.Key] = true
			if p.Key == store.NickKey && p.Val.Kind() == values.KindString {
				nicks[p.Val.AsString()] = true
			}
		}
		n++
		return n < MaxNameScan
	})
	n = 0
	snap.ScanEdges(func(e *store.Edge) bool {
		for _, p := range e.Props {
			keys[p.Key] = true
		}
		n++
		return n < MaxNameScan
	})
	return values.Names{Labels: snap.Labels(), EdgeTypes: snap.EdgeTypes(), Keys: sortedKeys(keys), Nicks: sortedKeys(nicks)}, nil
}

// BuildTextIndex builds the session's keyword index (the trigram index a
// bare (n) seeded by a word goes through) now, in the caller, instead of
// in the background when a keyword first needs it: after a bulk load,
// say, so the first keyword Recalls do not scan.
func (s *Session) BuildTextIndex(ctx context.Context) error {
	if err := s.begin(ctx); err != nil {
		return err
	}
	defer s.end()
	if err := ctx.Err(); err != nil {
		return err
	}
	s.snapshot().BuildTextIndex()
	return nil
}

// NodeByNick reads the live node whose nick is nick, at the version a
// Recall would read now, and returns that version; false when no live
// node has the nick. It is a lookup for a program that edits what it
// names (the server's memory tools read an entity before they change its
// observations), not a memory read: it counts no Recall and shows no
// attention envelope.
func (s *Session) NodeByNick(ctx context.Context, nick string) (values.NodeData, uint64, bool, error) {
	if err := s.begin(ctx); err != nil {
		return values.NodeData{}, 0, false, err
	}
	defer s.end()
	if s.dropped.Load() {
		return values.NodeData{}, 0, false, s.errDropped()
	}
	if err := ctx.Err(); err != nil {
		return values.NodeData{}, 0, false, err
	}
	snap := s.snapshot()
	n, ok := snap.NodeByNick(nick)
	if !ok {
		return values.NodeData{}, snap.Version(), false, nil
	}
	return values.NodeData{Labels: append([]string(nil), n.Labels...), Props: n.Props.Map()}, snap.Version(), true, nil
}

// Snapshot returns the newest durable snapshot: what a Recall reads now
// (tests and benchmarks of the module read the store through it).
func (s *Session) Snapshot() *store.Snapshot { return s.snapshot() }

// Info describes the session at its current version, as the catalogue
// lists it.
func (s *Session) Info(ctx context.Context) (SessionInfo, error) {
	if err := s.begin(ctx); err != nil {
		return SessionInfo{}, err
	}
	defer s.end()
	if s.dropped.Load() {
		return SessionInfo{}, s.errDropped()
	}
	snap := s.snapshot()
	s.wmu.Lock()
	last := s.lastCommit
	s.wmu.Unlock()
	s.db.mu.Lock()
	persisted := s.db.known[s.name]
	s.db.mu.Unlock()
	m := cabinet.MetaOf(s.name, snap, last)
	return catalog.InfoOf(&store.Node{Props: catalog.Props(m)}, persisted), nil
}

// Footprint says where the session's memory goes, part by part: a walk
// of its newest version (O(elements)), with what its history holds.
func (s *Session) Footprint(ctx context.Context) (values.Footprint, error) {
	if err := s.begin(ctx); err != nil {
		return values.Footprint{}, err
	}
	defer s.end()
	if s.dropped.Load() {
		return values.Footprint{}, s.errDropped()
	}
	f := s.snapshot().Footprint()
	f.History, f.Rebuilt = s.past.bytes(), s.older.ownBytes()+s.indexBytes()
	if lo, hi, kept := s.past.span(); kept {
		f.HistoryVersions = int(hi - lo)
	}
	return f, nil
}

// Graph reads every live node and edge of the session at the version a
// Recall would read now (the facade's Graph), nodes in observable order;
// it honours ctx, and Close, between elements.
func (s *Session) Graph(ctx context.Context) (values.Graph, error) {
	rctx, release := s.db.reading(ctx)
	g, err := s.graphOf(rctx)
	release()
	return g, s.db.closedUnder(ctx, err, "Graph")
}

func (s *Session) graphOf(ctx context.Context) (values.Graph, error) {
	if err := s.begin(ctx); err != nil {
		return values.Graph{}, err
	}
	defer s.end()
	if s.dropped.Load() {
		return values.Graph{}, s.errDropped()
	}
	snap := s.snapshot()
	var nodes []values.NodeData
	index := map[store.ID]int{}
	var err error
	snap.ScanNodes(func(n *store.Node) bool {
		if err = ctx.Err(); err != nil {
			return false
		}
		index[n.ID] = len(nodes)
		nodes = append(nodes, values.NodeData{Labels: append([]string(nil), n.Labels...), Props: n.Props.Map()})
		return true
	})
	var edges []values.EdgeData
	snap.ScanEdges(func(e *store.Edge) bool {
		if err = ctx.Err(); err != nil {
			return false
		}
		from, ok1 := index[e.From]
		to, ok2 := index[e.To]
		if ok1 && ok2 {
			edges = append(edges, values.EdgeData{Type: e.Type, From: from, To: to, Props: e.Props.Map()})
		}
		return true
	})
	if err != nil {
		return values.Graph{}, err
	}
	return values.Graph{Version: snap.Version(), Nodes: nodes, Edges: edges}, nil
}
