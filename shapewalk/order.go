package shapewalk

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// Hierarchy reports whether an edge type is hierarchical.
type Hierarchy func(edgeType string) bool

// DefaultHierarchy reports whether t is "contains", case-insensitively.
func DefaultHierarchy(t string) bool { return strings.EqualFold(t, "contains") }

// wlDegreeCap: a node with more incident live edges than this contributes
// a (out, in) degree summary instead of the sum over its edges to a WL
// round (see package doc).
const wlDegreeCap = 64

// ---- observable key (identical to store's encoding) -----------------------

const (
	propsKeyMax    = 72
	propsKeyPrefix = 64
)

func appendKeyString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 0 {
			b = append(b, 0, 0xFF)
		} else {
			b = append(b, c)
		}
	}
	return append(b, 0, 0x01)
}

func appendPropsKey(b []byte, p values.Props) []byte {
	for _, kv := range p {
		b = appendKeyString(b, kv.Key)
		b = kv.Val.AppendKey(b)
	}
	return append(b, 0, 0)
}

// appendObsKey appends n's observable key (the one store keeps:
// store.Node.ObservableKey, no re-encoding).
func appendObsKey(b []byte, n *store.Node) []byte { return append(b, n.ObservableKey()...) }

// encodeObsKey re-encodes n's observable key from its labels and
// properties (tests check it is byte-identical to store's).
func encodeObsKey(b []byte, n *store.Node) []byte {
	b = appendKeyString(b, n.Kind())
	start := len(b)
	b = appendPropsKey(b, n.Props)
	if len(b)-start > propsKeyMax {
		h := xxhash.Sum64(b[start:])
		b = binary.BigEndian.AppendUint64(b[:start+propsKeyPrefix], h)
	}
	if len(n.Labels) > 1 {
		var arr [8]string
		extra := append(arr[:0], n.Labels[1:]...)
		slices.Sort(extra)
		for _, l := range extra {
			b = appendKeyString(b, l)
		}
	}
	return b
}

// ---- hashing -------------------------------------------------------------

func xxhashStr(s string) uint64 { return xxhash.Sum64String(s) }

func mix(h uint64) uint64 { // splitmix64 finaliser
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

func combine(a, b uint64) uint64 { return mix(a*0x9e3779b97f4a7c15 + b + 0x632be59bd9b4e019) }

// wl computes Weisfeiler-Lehman signatures with per-call memoisation.
type wl struct {
	snap *store.Snapshot
	buf  []byte
	h1   map[store.ID]uint64
	h2   map[store.ID]uint64
}

func (w *wl) reset(snap *store.Snapshot) {
	w.snap = snap
	if len(w.h1) > 256 {
		w.h1, w.h2 = nil, nil
	} else {
		clear(w.h1)
		clear(w.h2)
	}
}

func (w *wl) h0(n *store.Node) uint64 { return xxhash.Sum64String(n.ObservableKey()) }

func (w *wl) edgeTerm(e *store.Edge, d store.Dir, far uint64) uint64 {
	w.buf = appendPropsKey(w.buf[:0], e.Props)
	h := combine(xxhash.Sum64String(e.Type), uint64(d))
	h = combine(h, xxhash.Sum64(w.buf))
	return mix(combine(h, far))
}

// agg returns the multiset hash of n's incident edges using round r-1
// signatures of the far ends (r = 1 or 2).
func (w *wl) agg(n *store.Node, r int) uint64 {
	a := w.snap.Adjacency(n)
	out, in := a.Degree(store.Out), a.Degree(store.In)
	if out+in > wlDegreeCap {
		return combine(combine(0xdeadbeefcafe, uint64(out)), uint64(in))
	}
	var sum uint64
	for i := 0; i < a.Len(); i++ {
		e, far, d := a.At(i)
		var fh uint64
		if r == 1 {
			fh = w.h0(far)
		} else {
			fh = w.sig1(far)
		}
		sum += w.edgeTerm(e, d, fh)
	}
	return sum
}

func (w *wl) sig1(n *store.Node) uint64 {
	return memo(&w.h1, n, func() uint64 { return combine(w.h0(n), w.agg(n, 1)) })
}

func (w *wl) sig2(n *store.Node) uint64 {
	return memo(&w.h2, n, func() uint64 { return combine(w.sig1(n), w.agg(n, 2)) })
}

// memo returns m's value for n, computing and keeping it on first use.
func memo(m *map[store.ID]uint64, n *store.Node, compute func() uint64) uint64 {
	if v, ok := (*m)[n.ID]; ok {
		return v
	}
	h := compute()
	if *m == nil {
		*m = map[store.ID]uint64{}
	}
	(*m)[n.ID] = h
	return h
}

// Signature returns n's two-round Weisfeiler-Lehman signature over live
// edges (see the package doc).
func Signature(snap *store.Snapshot, n *store.Node) uint64 {
	w := wl{snap: snap}
	return w.sig2(n)
}

// Compare orders two nodes canonically: observable key, then Signature,
// then (only for WL-indistinguishable nodes) engine id.
func Compare(snap *store.Snapshot, a, b *store.Node) int {
	if a == b || a.ID == b.ID {
		return 0
	}
	if c := strings.Compare(a.ObservableKey(), b.ObservableKey()); c != 0 {
		return c
	}
	w := wl{snap: snap}
	if c := cmp.Compare(w.sig2(a), w.sig2(b)); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

type sortEnt struct {
	n   *store.Node
	key []byte
	sig uint64
}

// Sort sorts nodes in canonical order (stable), computing signatures only
// for groups of nodes with identical observables.
func Sort(snap *store.Snapshot, nodes []*store.Node) {
	if len(nodes) < 2 {
		return
	}
	ents := make([]sortEnt, len(nodes))
	var arena []byte
	offs := make([]int, len(nodes)+1)
	for i, n := range nodes {
		arena = appendObsKey(arena, n)
		offs[i+1] = len(arena)
	}
	for i, n := range nodes {
		ents[i] = sortEnt{n: n, key: arena[offs[i]:offs[i+1]:offs[i+1]]}
	}
	sortEnts(snap, ents, nil, nil)
	for i := range ents {
		nodes[i] = ents[i].n
	}
}

// sortEnts sorts by key, then signature within tie groups, then rank (if
// not nil: a query-context tie-break, e.g. seeds first), then id.
func sortEnts(snap *store.Snapshot, ents []sortEnt, w *wl, rank func(*store.Node) int) {
	slices.SortStableFunc(ents, func(a, b sortEnt) int { return bytes.Compare(a.key, b.key) })
	for i := 0; i < len(ents); {
		j := i + 1
		for j < len(ents) && bytes.Equal(ents[j].key, ents[i].key) {
			j++
		}
		if j-i > 1 {
			if w == nil {
				w = &wl{snap: snap}
			}
			g := ents[i:j]
			for k := range g {
				g[k].sig = w.sig2(g[k].n)
			}
			slices.SortStableFunc(g, func(a, b sortEnt) int {
				if c := cmp.Compare(a.sig, b.sig); c != 0 {
					return c
				}
				if rank != nil {
					if c := cmp.Compare(rank(a.n), rank(b.n)); c != 0 {
						return c
					}
				}
				return cmp.Compare(a.n.ID, b.n.ID)
			})
		}
		i = j
	}
}

// cmpPropsLit compares two property sets by their canonical literal text,
// using (and growing) the two scratch buffers.
func cmpPropsLit(a, b values.Props, ba, bb *[]byte) int {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	*ba = a.AppendLiteral((*ba)[:0])
	*bb = b.AppendLiteral((*bb)[:0])
	return bytes.Compare(*ba, *bb)
}
