package server

import (
	"fmt"
	"strings"

	"github.com/goldfish-gql/goldfish"
)

// The drop-in's reads answer with the rows of a Shape twice: as text, the
// Shape's INSERT with a comment line only when there is something to do
// about it (a model pays for every header token on every read), and as
// structured content in the original's output schema ({entities,
// relations}). Both are renderings of the Shape's rows (values.Shape):
// nothing reads the emitted text back.

// MemoryGraph is the structured answer of read_graph, search_nodes and
// open_nodes, as the original's: the entities a read shows whole and the
// relations between the entities it names.
type MemoryGraph struct {
	Entities  []Entity   `json:"entities"`
	Relations []Relation `json:"relations"`
}

// memoryGraph reads the entities and relations of a Shape's rows as the
// original answers them: the entities are the seeds (the matches of a
// search, the names opened, the entities of read_graph) with a nick and
// a kind, or what whole says was asked for; a neighbour shown for
// context is in the text, never an entity. The relations are the edges
// between two nodes with nicks of which one end is an entity, as the
// original returns every relation touching the entities it returns. An
// observation is a string of the list the text shows; elided reports
// the entities a long value of which the text writes as an $elidedN
// parameter.
func memoryGraph(sh *goldfish.Shape, whole func(nick string) bool) (g MemoryGraph, elided []string) {
	g = MemoryGraph{Entities: []Entity{}, Relations: []Relation{}}
	nodes := sh.Nodes()
	nicks := make([]string, len(nodes))
	hasNick := make([]bool, len(nodes)) // a nick may be "", as a name may
	isEntity := make([]bool, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		nick, ok := n.Props.Get("nick")
		if !ok || nick.Kind() != goldfish.KindString {
			continue
		}
		name := nick.AsString()
		nicks[i], hasNick[i] = name, true
		shown := n.Shown()
		if !n.Seed && !whole(name) {
			continue
		}
		isEntity[i] = true
		e := Entity{Name: name, EntityType: n.Kind(), Observations: []string{}}
		if len(n.Elided) > 0 {
			elided = append(elided, name)
		}
		if obs, ok := shown.Get("observations"); ok {
			for _, o := range obs.AsList() {
				if o.Kind() == goldfish.KindString {
					e.Observations = append(e.Observations, o.AsString())
				}
			}
		}
		g.Entities = append(g.Entities, e)
	}
	for _, e := range sh.Edges() {
		if from, to := nicks[e.From], nicks[e.To]; hasNick[e.From] && hasNick[e.To] && (isEntity[e.From] || isEntity[e.To]) {
			g.Relations = append(g.Relations, Relation{From: from, To: to, RelationType: e.Type})
		}
	}
	return g, elided
}

// memoryAnswer is the text of a drop-in read: the Shape's INSERT (the
// rows' GQL rendering), after a comment line a model can act on (what
// was left out and how to read it), or the one line of an empty answer.
func memoryAnswer(sh *goldfish.Shape, notes []string, empty string) string {
	if len(sh.Nodes()) == 0 {
		return empty
	}
	var b []byte
	for _, n := range notes {
		b = append(append(append(b, "// "...), n...), '\n')
	}
	b = sh.AppendInsert(b)
	return string(b[:len(b)-1]) // without the INSERT's last newline
}

// quoteNames writes names as a JSON list, the form open_nodes takes.
func quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
