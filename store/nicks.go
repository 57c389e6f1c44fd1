package store

import (
	"fmt"

	"github.com/cespare/xxhash/v2"

	"github.com/goldfish-gql/goldfish/values"
)

// The nick index: from a session-unique nick to the live node holding it.

// NickKey is the property holding a node's session-unique nick (indexed
// when its value is a STRING).
const NickKey = "nick"

// nodeByNick looks nick up in the nick index.
func (st *state) nodeByNick(nick string) (*Node, bool) {
	return st.nicks.get(xxhash.Sum64String(nick), func(n *Node) bool {
		v, _ := nickOf(n.Props)
		return v == nick
	})
}

// putNick indexes n under nick (replacing n's earlier record), writing as
// generation gen.
func (st *state) putNick(gen uint64, nick string, n *Node) {
	st.nicks.put(gen, xxhash.Sum64String(nick), n, func(m *Node) bool { return m.ID == n.ID })
}

// delNick removes n from the index under nick.
func (st *state) delNick(gen uint64, nick string, n *Node) {
	st.nicks.del(gen, xxhash.Sum64String(nick), func(m *Node) bool { return m.ID == n.ID })
}

func nickOf(p values.Props) (string, bool) {
	v, ok := p.Get(NickKey)
	if !ok || v.Kind() != values.KindString {
		return "", false
	}
	return v.AsString(), true
}

// nickFree reports whether nick is unused by live nodes other than self.
func (t *Tx) nickFree(p values.Props, self ID) bool {
	nick, ok := nickOf(p)
	if !ok {
		return true
	}
	n, ok := t.st.nodeByNick(nick)
	return !ok || n.ID == self
}

// buildNicks builds the nick index; two live nodes with one STRING nick
// are an error.
func buildNicks(live []*Node) (hashTrie[*Node], error) {
	var st state
	for _, n := range live {
		nick, ok := nickOf(n.Props)
		if !ok {
			continue
		}
		if m, clash := st.nodeByNick(nick); clash {
			a, b := min(m.ID, n.ID), max(m.ID, n.ID)
			return hashTrie[*Node]{}, fmt.Errorf("store: restore: nick %q held by live nodes %d and %d: %w", nick, a, b, ErrNickClash)
		}
		st.putNick(0, nick, n)
	}
	return st.nicks, nil
}
