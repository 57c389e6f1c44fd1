package snap

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/ingest/golang"
)

// content is what one session should hold after a snap: its nodes (a
// part's own, then its stubs) and its edges, each once.
type content struct {
	nodes []golang.Node
	edges []golang.Edge
}

// writer applies content to one session with the ingest id rule, as Δs of
// a few fixed texts with $parameters (one per kind, key set and chunk
// size), so the plan cache parses each text once, whatever the tree.
type writer struct {
	ctx             context.Context
	s               *goldfish.Session
	deltas, applied int
	deleted         int
}

// ladder is the chunk sizes, largest first: 128 edges are 384 rows of
// the default R budget of 500 (each end is bound as a row too).
var ladder = []int{128, 64, 32, 16, 8, 4, 2, 1}

var texts sync.Map // template key and size → statement text

func text(key string, n int, build func(n int) string) string {
	k := key + "/" + strconv.Itoa(n)
	if t, ok := texts.Load(k); ok {
		return t.(string)
	}
	t := build(n)
	texts.Store(k, t)
	return t
}

// apply ingests items [0, n) as chunks along the ladder; a chunk over the
// database's R budget is retried as two halves.
func (w *writer) apply(n int, delta func(lo, hi int) (string, map[string]any)) error {
	var run func(lo, hi int) error
	run = func(lo, hi int) error {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		text, params := delta(lo, hi)
		res, err := w.s.Ingest(w.ctx, text, params)
		var ge *goldfish.Error
		if err != nil && hi-lo > 1 && errors.As(err, &ge) && ge.Code == goldfish.CodeCommitBudget {
			mid := lo + (hi-lo)/2
			if err := run(lo, mid); err != nil {
				return err
			}
			return run(mid, hi)
		}
		if err != nil {
			return fmt.Errorf("session %s: %w", w.s.Name(), err)
		}
		w.deltas++
		if res.Applied {
			w.applied++
		}
		return nil
	}
	lo := 0
	for _, size := range ladder {
		for n-lo >= size {
			if err := run(lo, lo+size); err != nil {
				return err
			}
			lo += size
		}
	}
	return nil
}

// write ingests c: every node first, grouped by kind and keys, so an
// edge's ends exist (with all their properties) before the edge.
func (w *writer) write(c content) error {
	type group struct {
		key  string
		kind string
		keys []string
		ns   []golang.Node
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, n := range c.nodes {
		keys := make([]string, len(n.Props))
		for i, p := range n.Props {
			keys[i] = p.Key
		}
		key := n.Kind + "{" + strings.Join(keys, ",") + "}"
		g := byKey[key]
		if g == nil {
			g = &group{key: key, kind: n.Kind, keys: keys}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.ns = append(g.ns, n)
	}
	for _, g := range groups {
		build := nodeText(g.kind, g.keys)
		err := w.apply(len(g.ns), func(lo, hi int) (string, map[string]any) {
			params := make(map[string]any, (hi-lo)*(1+len(g.keys)))
			for i, n := range g.ns[lo:hi] {
				params[pname('l', i)] = n.Loc
				for j, p := range n.Props {
					params[pname('p', j*256+i)] = p.Val
				}
			}
			return text(g.key, hi-lo, build), params
		})
		if err != nil {
			return err
		}
	}
	type egroup struct {
		key, from, typ, to string
		es                 []golang.Edge
	}
	var egroups []*egroup
	byEKey := map[string]*egroup{}
	for _, e := range c.edges {
		key := e.From.Kind + "-" + e.Type + "-" + e.To.Kind
		g := byEKey[key]
		if g == nil {
			g = &egroup{key: key, from: e.From.Kind, typ: e.Type, to: e.To.Kind}
			byEKey[key] = g
			egroups = append(egroups, g)
		}
		g.es = append(g.es, e)
	}
	for _, g := range egroups {
		build := edgeText(g.from, g.typ, g.to)
		err := w.apply(len(g.es), func(lo, hi int) (string, map[string]any) {
			params := make(map[string]any, 2*(hi-lo))
			for i, e := range g.es[lo:hi] {
				params[pname('f', i)] = e.From.Loc
				params[pname('t', i)] = e.To.Loc
			}
			return text(g.key, hi-lo, build), params
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// pnames caches parameter names: l3, f3, t3, and p<key>_<i> as
// p<256·key+i>.
var pnames sync.Map

func pname(c byte, i int) string {
	k := int(c)<<20 | i
	if s, ok := pnames.Load(k); ok {
		return s.(string)
	}
	s := string(c) + strconv.Itoa(i)
	if c == 'p' {
		s = "p" + strconv.Itoa(i/256) + "_" + strconv.Itoa(i%256)
	}
	pnames.Store(k, s)
	return s
}

func nodeText(kind string, keys []string) func(n int) string {
	return golang.InsertOf(func(i int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "(:%s {loc: $%s", kind, pname('l', i))
		for j, k := range keys {
			fmt.Fprintf(&b, ", %s: $%s", k, pname('p', j*256+i))
		}
		b.WriteString("})")
		return b.String()
	})
}

func edgeText(from, typ, to string) func(n int) string {
	return golang.InsertOf(func(i int) string {
		return fmt.Sprintf("(:%s {loc: $%s})-[:%s]->(:%s {loc: $%s})", from, pname('f', i), typ, to, pname('t', i))
	})
}
