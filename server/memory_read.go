package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// The drop-in's reads: read_graph, search_nodes and open_nodes, each a
// Recall of the memory session answered by memoryRecall.

// memoryRead is one read of the memory session: its token and
// budgets, which entities it asks for (shown as entities even when the
// Shape shows them by name alone), the comment lines its answer carries,
// and the one line of an empty answer.
type memoryRead struct {
	q      string
	params map[string]any
	opts   goldfish.RecallOptions
	whole  func(nick string) bool
	notes  func(sh *goldfish.Shape, g MemoryGraph, elided []string) []string
	empty  string
}

// memoryRecall is a read of the memory session, answered with its
// Shape's rows as text and in the original's output schema.
func (s *Server) memoryRecall(ctx context.Context, sc *Scope, r memoryRead) (*mcp.CallToolResult, MemoryGraph, error) {
	sess, agent, err := s.sessionAs(ctx, sc, s.opts.MemorySession, "read", "")
	if gqlstatus.CodeOf(err, "") == gqlstatus.InvalidReference {
		// No write has made the memory yet: it is empty, as the
		// original's file before its first write.
		return textResult(r.empty), MemoryGraph{Entities: []Entity{}, Relations: []Relation{}}, nil
	}
	if err != nil {
		return nil, MemoryGraph{}, err
	}
	o := r.opts
	o.Params, o.Agent = r.params, agent
	// The answer is the Shape alone: the memory tools have no vocabulary
	// to attend to (broken views would still be shown).
	o.Only = []string{"shape"}
	sh, err := sess.Recall(ctx, r.q, o)
	if err != nil {
		return nil, MemoryGraph{}, s.callError(ctx, err)
	}
	s.metrics.recalled(sh)
	if r.whole == nil {
		r.whole = func(string) bool { return false }
	}
	g, elided := memoryGraph(sh, r.whole)
	var notes []string
	if r.notes != nil && len(sh.Nodes()) > 0 {
		notes = r.notes(sh, g, elided)
	}
	return textResult(memoryAnswer(sh, notes, r.empty)), g, nil
}

// relationsLeft says, for each entity opened whose relations did not all
// fit the read's rows, how many are left and the read that shows the next
// ones: the recall tool, that entity alone, after the neighbours shown.
func relationsLeft(sh *goldfish.Shape) []string {
	nodes := sh.Nodes()
	shown := make([]map[int]bool, len(nodes))
	for _, e := range sh.Edges() {
		for _, end := range [][2]int{{e.From, e.To}, {e.To, e.From}} {
			if nodes[end[0]].Seed && !nodes[end[1]].Seed {
				if shown[end[0]] == nil {
					shown[end[0]] = map[int]bool{}
				}
				shown[end[0]][end[1]] = true
			}
		}
	}
	var notes []string
	for i, n := range nodes {
		nick, ok := n.Props.Get("nick")
		if !n.Seed || n.More == 0 || !ok || nick.Kind() != goldfish.KindString {
			continue
		}
		notes = append(notes, fmt.Sprintf("%s has %d more %s: recall {\"q\": \"MATCH (n {nick: %s})\", \"options\": {\"k\": 1, \"after\": %d}} shows the next ones",
			fmt.Sprintf("%q", nick.AsString()), n.More, plural(n.More, "relation", "relations"), gqlString(nick.AsString()), len(shown[i])))
	}
	return notes
}

// elidedNote says which entities had a long value left out as an
// $elidedN parameter, and how to read it.
func elidedNote(elided []string) string {
	return "long values left out as $elidedN: open_nodes " + quoteNames(elided) + " reads them whole"
}

// readGraph answers with the whole memory when it fits the token target
// (wholeMemory), else with the outline: the counts per type and a few
// entities of each, saying how to read the rest.
func (s *Server) readGraph(ctx context.Context, sc *Scope) (*mcp.CallToolResult, MemoryGraph, error) {
	if res, g, ok, err := s.wholeMemory(ctx, sc); err != nil || ok {
		return res, g, err
	}
	return s.memoryRecall(ctx, sc, memoryRead{q: "MATCH ()", empty: "the memory is empty",
		notes: func(sh *goldfish.Shape, g MemoryGraph, elided []string) []string {
			var notes []string
			nodes, edges := s.memorySize()
			if len(g.Entities) < nodes || len(g.Relations) < edges {
				notes = append(notes, outlineLine(sh.Outline), "a few of each type shown; search_nodes or open_nodes read the rest")
			}
			if len(elided) > 0 {
				notes = append(notes, elidedNote(elided))
			}
			return notes
		}})
}

// outlineLine is the outline's counts as entities and relations:
// "entities person=3 project=1; relations knows=2".
func outlineLine(o *goldfish.Outline) string {
	if o == nil {
		return ""
	}
	var b strings.Builder
	write := func(what string, counts []goldfish.NameCount) {
		b.WriteString(what)
		for _, c := range counts {
			name := c.Name
			if name == "" {
				name = "(none)"
			}
			fmt.Fprintf(&b, " %s=%d", name, c.Count)
		}
		if len(counts) == 0 {
			b.WriteString(" none")
		}
	}
	write("entities", o.Kinds)
	write("; relations", o.Types)
	return b.String()
}

// memorySize is the number of nodes and edges of the memory session,
// from the catalogue (which hydrates nothing).
func (s *Server) memorySize() (nodes, edges int) {
	for _, in := range s.db.SessionInfos() {
		if in.Name == s.opts.MemorySession {
			return in.Nodes, in.Edges
		}
	}
	return 0, 0
}

// searchNodes is a keyword Recall: the nodes one of whose string
// properties (the name, an observation) holds the query, case-insensitively,
// or whose kind does, as the original matches names, types and
// observations.
func (s *Server) searchNodes(ctx context.Context, sc *Scope, query string) (*mcp.CallToolResult, MemoryGraph, error) {
	if query == "" {
		return s.readGraph(ctx, sc) // every entity holds "", as the original's includes("") says
	}
	// Any other query, white space too, is a substring, as the original's.
	q := "MATCH (n) WHERE n CONTAINS $query"
	lower := strings.ToLower(query)
	for _, k := range s.memoryKinds() {
		if strings.Contains(strings.ToLower(k), lower) {
			q += " OR n:" + quoteName(k)
		}
	}
	return s.memoryRecall(ctx, sc, memoryRead{q: q, params: map[string]any{"query": query},
		opts:  goldfish.RecallOptions{L: searchSeeds, K: searchHops, M: searchRows, T: openTokens * searchSeeds, NoPeaks: true, Whole: true},
		empty: "no entity matches",
		notes: func(sh *goldfish.Shape, _ MemoryGraph, elided []string) []string {
			var notes []string
			if sh.Matched > sh.Seeds {
				more := ""
				if sh.MatchedAtLeast {
					more = "+"
				}
				notes = append(notes, fmt.Sprintf("best %d of %d%s matches; a longer query narrows them", sh.Seeds, sh.Matched, more))
			}
			if sh.Truncated {
				notes = append(notes, "some relations left out: open_nodes a name shows all of its own")
			}
			if len(elided) > 0 {
				notes = append(notes, elidedNote(elided))
			}
			return notes
		}})
}

// memoryKinds are the kinds of the memory session, from the catalogue
// (which hydrates nothing).
func (s *Server) memoryKinds() []string {
	var out []string
	for _, in := range s.db.SessionInfos() {
		if in.Name == s.opts.MemorySession {
			for _, k := range in.Kinds {
				out = append(out, k.Kind)
			}
		}
	}
	return out
}

// openNodes Recalls the named nicks and their relations. Every
// observation of an entity opened is shown: when the token target would
// leave a long one out, the read is made again with a target that keeps
// them all (M still bounds its rows).
func (s *Server) openNodes(ctx context.Context, sc *Scope, names []string) (*mcp.CallToolResult, MemoryGraph, error) {
	names = dedupe(names)
	if len(names) == 0 {
		// The original answers an empty graph.
		return textResult("no names given: nothing to open; search_nodes finds names"),
			MemoryGraph{Entities: []Entity{}, Relations: []Relation{}}, nil
	}
	if len(names) > maxOpenNames {
		return nil, MemoryGraph{}, gqlstatus.Errorf(gqlstatus.RecallBudget, "open_nodes names %d entities; one call opens at most %d", len(names), maxOpenNames).
			WithHint("open them in several calls")
	}
	list := make([]any, len(names))
	asked := map[string]bool{}
	for i, n := range names {
		list[i], asked[n] = n, true
	}
	r := memoryRead{q: "MATCH (n) WHERE n.nick IN $names", params: map[string]any{"names": list},
		opts: goldfish.RecallOptions{L: len(names), K: openHops, F: openFanOut, M: openRowsCeiling,
			T: openTokens * len(names), NoPeaks: true, Whole: true},
		whole: func(nick string) bool { return asked[nick] },
		empty: "no entity has these names; search_nodes finds names",
	}
	var elidedAny bool
	r.notes = func(sh *goldfish.Shape, g MemoryGraph, elided []string) []string {
		elidedAny = sh.Elided > 0
		var notes []string
		found := map[string]bool{}
		for _, e := range g.Entities {
			found[e.Name] = true
		}
		var missing []string
		for _, n := range names {
			if !found[n] {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			notes = append(notes, "not found: "+quoteNames(missing))
		}
		notes = append(notes, relationsLeft(sh)...)
		return notes
	}
	res, g, err := s.memoryRecall(ctx, sc, r)
	if err != nil || !elidedAny {
		return res, g, err
	}
	r.opts.T = wholeTarget
	return s.memoryRecall(ctx, sc, r)
}

// wholeTarget is a token target no Shape of open_nodes reaches: the
// frame (4 MiB) bounds its answer first.
const wholeTarget = 1 << 30
