package store

import (
	"fmt"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/goldfish-gql/goldfish/values"
)

// TestTypeLayout: the sizes and offsets the unsafe accessors assume hold
// on this platform (on 64-bit ones a slot record fills one cache line).
func TestTypeLayout(t *testing.T) {
	if err := checkTypeLayout(); err != nil {
		t.Fatal(err)
	}
}

// layoutGraph returns the snapshot of a small graph with nicks, locators
// shared and not, edges of several types and a self-loop, and the slot
// of a node with several adjacency entries.
func layoutGraph(t *testing.T) (*Snapshot, uint32) {
	t.Helper()
	g := New()
	tx := g.Begin()
	var ids []ID
	for i := range 6 {
		p := values.Props{{Key: LocKey, Val: values.String(fmt.Sprint("f", i%3))}, {Key: NickKey, Val: values.String(fmt.Sprint("n", i))}}
		n, err := tx.InsertNode(tx.NewID(), []string{"K"}, p)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, n.ID)
	}
	for i, typ := range []string{"a", "b", "a", "c", "b"} {
		if _, err := tx.InsertEdge(tx.NewID(), typ, ids[0], ids[i+1], nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.InsertEdge(tx.NewID(), "a", ids[0], ids[0], nil); err != nil {
		t.Fatal(err)
	}
	s := tx.Commit()
	if err := s.CheckLayout(); err != nil {
		t.Fatalf("intact graph: %v", err)
	}
	n, _ := s.Node(ids[0])
	return s, n.Slot()
}

// TestCheckLayoutFindsDamage: each kind of damage to the structures the
// store reads without checking makes CheckLayout fail.
func TestCheckLayoutFindsDamage(t *testing.T) {
	for name, damage := range map[string]func(st *state, hub *slotRec){
		"entries out of order": func(st *state, hub *slotRec) { hub.adj[0], hub.adj[1] = hub.adj[1], hub.adj[0] },
		"stale key byte":       func(st *state, hub *slotRec) { hub.adj[0].kh++ },
		"wrong type id":        func(st *state, hub *slotRec) { hub.adj[0].tid = uint16(len(st.types)) },
		"wrong far slot":       func(st *state, hub *slotRec) { hub.adj[0].far = hub.adj[len(hub.adj)-1].far },
		"far slot out of range": func(st *state, hub *slotRec) {
			hub.adj[0].far = st.nslots + 1
		},
		"degree off":       func(st *state, hub *slotRec) { hub.out++ },
		"entry dropped":    func(st *state, hub *slotRec) { hub.adj = hub.adj[:len(hub.adj)-1]; hub.out-- },
		"edge counter off": func(st *state, hub *slotRec) { st.liveEdges++ },
		"rendering length": func(st *state, hub *slotRec) { hub.textLen-- },
		"rendering cost":   func(st *state, hub *slotRec) { hub.cost++ },
		"another record": func(st *state, hub *slotRec) {
			for _, x := range hub.adj {
				if x.far != hub.n.slot {
					hub.n = st.rec(x.far).n
					return
				}
			}
		},
		"record text": func(st *state, hub *slotRec) {
			n := *hub.n
			n.textLen = 0
			hub.setNode(&n)
			st.nodes.ReplaceOrInsert(nodeItem{id: n.ID, n: &n})
		},
		"trie bitmap": func(st *state, hub *slotRec) { st.nicks.root.used ^= 1 << 31 },
		"trie size":   func(st *state, hub *slotRec) { st.locs.size++ },
		"nick missing": func(st *state, hub *slotRec) {
			n := hub.n
			nick, _ := nickOf(n.Props)
			st.nicks.del(st.dirsGen+1, xxhash.Sum64String(nick), func(m *Node) bool { return m.ID == n.ID })
		},
		"slot past the last": func(st *state, hub *slotRec) { st.nslots-- },
	} {
		t.Run(name, func(t *testing.T) {
			s, slot := layoutGraph(t)
			damage(&s.st, s.st.rec(slot))
			if err := s.CheckLayout(); err == nil {
				t.Fatal("CheckLayout found nothing wrong")
			} else {
				t.Log(err)
			}
		})
	}
}
