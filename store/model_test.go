package store

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/goldfish-gql/goldfish/values"
)

// model is a naive reference implementation with maps, used to check the
// Graph. Its order is computed independently of the observable key
// encoding: (kind, values.Props.Compare, sorted extra labels, id).
type model struct {
	nodes  map[ID]*Node
	edges  map[ID]*Edge
	nextID ID
}

func newModel() *model {
	return &model{nodes: map[ID]*Node{}, edges: map[ID]*Edge{}, nextID: 1}
}

func (m *model) clone() *model {
	c := newModel()
	c.nextID = m.nextID
	for id, n := range m.nodes {
		cp := n.clone()
		c.nodes[id] = &cp
	}
	for id, e := range m.edges {
		cp := e.clone()
		c.edges[id] = &cp
	}
	return c
}

func modelLess(a, b *Node) bool {
	if a.Kind() != b.Kind() {
		return a.Kind() < b.Kind()
	}
	if c := a.Props.Compare(b.Props); c != 0 {
		return c < 0
	}
	ea, eb := extraSorted(a), extraSorted(b)
	if c := slices.Compare(ea, eb); c != 0 {
		return c < 0
	}
	return a.ID < b.ID
}

func extraSorted(n *Node) []string {
	if len(n.Labels) < 2 {
		return nil
	}
	e := append([]string(nil), n.Labels[1:]...)
	sort.Strings(e)
	return e
}

func (m *model) live(filter func(*Node) bool) []*Node {
	var out []*Node
	for _, n := range m.nodes {
		if !n.Recycled && (filter == nil || filter(n)) {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return modelLess(out[i], out[j]) })
	return out
}

func (m *model) liveEdges(id ID, d Dir) []*Edge {
	var out []*Edge
	for _, e := range m.edges {
		if e.Recycled {
			continue
		}
		if (d == Out && e.From == id) || (d == In && e.To == id) {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Type != out[j].Type {
			return out[i].Type < out[j].Type
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func dedupLabels(labels []string) []string {
	var out []string
	for _, l := range labels {
		if l != "" && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

func (m *model) nickOwner(p values.Props, self ID) bool {
	nick, ok := nickOf(p)
	if !ok {
		return false
	}
	for _, n := range m.nodes {
		if n.Recycled || n.ID == self {
			continue
		}
		if o, ok := nickOf(n.Props); ok && o == nick {
			return true
		}
	}
	return false
}

func (m *model) insertNode(id ID, labels []string, p values.Props) error {
	if m.nodes[id] != nil || m.edges[id] != nil {
		return ErrIDTaken
	}
	p = values.NormalizeProps(p)
	if m.nickOwner(p, id) {
		return ErrNickClash
	}
	m.nodes[id] = &Node{ID: id, Labels: dedupLabels(labels), Props: p}
	if id&DeterministicBit == 0 && id >= m.nextID {
		m.nextID = id + 1
	}
	return nil
}

func (m *model) liveNode(id ID) *Node {
	n := m.nodes[id]
	if n == nil || n.Recycled {
		return nil
	}
	return n
}

func (m *model) setProps(id ID, p values.Props) error {
	n := m.liveNode(id)
	if n == nil {
		return ErrNotFound
	}
	p = values.NormalizeProps(p)
	if m.nickOwner(p, id) {
		return ErrNickClash
	}
	n.Props = p
	return nil
}

func (m *model) setLabels(id ID, labels []string) error {
	n := m.liveNode(id)
	if n == nil {
		return ErrNotFound
	}
	labels = dedupLabels(labels)
	if k := n.Kind(); k != "" && slices.Contains(labels, k) {
		rest := slices.DeleteFunc(slices.Clone(labels), func(s string) bool { return s == k })
		labels = append([]string{k}, rest...)
	}
	n.Labels = labels
	return nil
}

func (m *model) insertEdge(id ID, typ string, from, to ID, p values.Props) error {
	if m.nodes[id] != nil || m.edges[id] != nil {
		return ErrIDTaken
	}
	if m.liveNode(from) == nil || m.liveNode(to) == nil {
		return ErrNotFound
	}
	m.edges[id] = &Edge{ID: id, Type: typ, From: from, To: to, Props: values.NormalizeProps(p)}
	if id&DeterministicBit == 0 && id >= m.nextID {
		m.nextID = id + 1
	}
	return nil
}

func (m *model) liveEdge(id ID) *Edge {
	e := m.edges[id]
	if e == nil || e.Recycled {
		return nil
	}
	return e
}

func (m *model) setEdgeProps(id ID, p values.Props) error {
	e := m.liveEdge(id)
	if e == nil {
		return ErrNotFound
	}
	e.Props = values.NormalizeProps(p)
	return nil
}

func (m *model) degree(id ID) int {
	return len(m.liveEdges(id, Out)) + len(m.liveEdges(id, In))
}

func (m *model) recycleNode(id ID) error {
	n := m.liveNode(id)
	if n == nil {
		return ErrNotFound
	}
	if m.degree(id) > 0 {
		return ErrHasEdges
	}
	n.Recycled = true
	return nil
}

func (m *model) recycleEdge(id ID) error {
	e := m.liveEdge(id)
	if e == nil {
		return ErrNotFound
	}
	e.Recycled = true
	return nil
}

func (m *model) revive(id ID) error {
	if n := m.nodes[id]; n != nil {
		if !n.Recycled {
			return nil
		}
		if m.nickOwner(n.Props, id) {
			return ErrNickClash
		}
		n.Recycled = false
		return nil
	}
	if e := m.edges[id]; e != nil {
		if !e.Recycled {
			return nil
		}
		if m.liveNode(e.From) == nil || m.liveNode(e.To) == nil {
			return ErrNotFound
		}
		e.Recycled = false
		return nil
	}
	return ErrNotFound
}

func (m *model) purge(id ID) error {
	if n := m.nodes[id]; n != nil && n.Recycled {
		delete(m.nodes, id)
		return nil
	}
	if e := m.edges[id]; e != nil && e.Recycled {
		delete(m.edges, id)
		return nil
	}
	return ErrNotFound
}

type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
	Fatal(args ...any)
}

func ids(ns []*Node) string {
	var b strings.Builder
	for _, n := range ns {
		fmt.Fprintf(&b, "%d ", n.ID)
	}
	return b.String()
}

func collect(scan func(func(*Node) bool)) []*Node {
	var out []*Node
	scan(func(n *Node) bool { out = append(out, n); return true })
	return out
}

func sameNode(a, b *Node) bool {
	return a.ID == b.ID && slices.Equal(a.Labels, b.Labels) && a.Props.Equal(b.Props) && a.Recycled == b.Recycled
}

func sameEdge(a, b *Edge) bool {
	return a.ID == b.ID && a.Type == b.Type && a.From == b.From && a.To == b.To && a.Props.Equal(b.Props) && a.Recycled == b.Recycled
}

func expectNodes(t fataler, what string, got, want []*Node) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d nodes [%s], want %d [%s]", what, len(got), ids(got), len(want), ids(want))
	}
	for i := range got {
		if !sameNode(got[i], want[i]) {
			t.Fatalf("%s: [%d] got %+v, want %+v (got %s, want %s)", what, i, got[i], want[i], ids(got), ids(want))
		}
	}
}
