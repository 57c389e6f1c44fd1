package engine

import (
	"context"
	"sort"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// Kinds reads the kinds of the session's newest version (or only kind,
// when it is not ""), sorted by kind; a scan of the nodes of each kind
// and their edges.
func (s *Session) Kinds(ctx context.Context, kind string) ([]values.KindSchema, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end()
	if s.dropped.Load() {
		return nil, s.errDropped()
	}
	snap := s.snapshot()
	kinds := snap.Kinds()
	if kind != "" {
		kinds = []string{kind}
	}
	out := make([]values.KindSchema, 0, len(kinds))
	for _, k := range kinds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		keys, outT, inT := map[string]int{}, map[string]int{}, map[string]int{}
		ks := values.KindSchema{Kind: k}
		snap.ScanKind(k, func(n *store.Node) bool {
			ks.Nodes++
			for _, p := range n.Props {
				keys[p.Key]++
			}
			snap.Edges(n.ID, store.Out, func(e *store.Edge) bool { outT[e.Type]++; return true })
			snap.Edges(n.ID, store.In, func(e *store.Edge) bool { inT[e.Type]++; return true })
			return true
		})
		if ks.Nodes == 0 && kind == "" {
			continue
		}
		ks.Keys, ks.Out, ks.In = counted(keys), counted(outT), counted(inT)
		out = append(out, ks)
	}
	return out, nil
}

// counted lists m by count, most first, then by name.
func counted(m map[string]int) []values.NameCount {
	out := make([]values.NameCount, 0, len(m))
	for k, n := range m {
		out = append(out, values.NameCount{Name: k, Count: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Name < out[j].Name
	})
	return out
}
