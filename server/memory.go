package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// The common knowledge-graph memory server's tools, with its names, input
// schemas and descriptions, on one session (SPEC §10):
//
//   - an entity {name, entityType, observations} is a node of kind
//     entityType with nick = name and the list property observations;
//   - a relation {from, to, relationType} is an edge of type
//     relationType between the nodes whose nicks are from and to;
//   - read_graph answers with the outline (MATCH ()), search_nodes with a
//     keyword Recall, open_nodes with a Recall of the nicks named: every
//     answer is a Shape, bounded by M, never the whole graph.
//
// Writes are Commits, so they are atomic and durable; they are serialised
// per session by the server because each reads what it changes first (an
// entity's observations, whether a name is taken). An observation list
// is replaced only where it still holds what was read (WHERE
// n.observations = $old), so a Commit from elsewhere in between is never
// overwritten: the write is tried again on what is there now.

// Entity is an entity of the memory server.
type Entity struct {
	Name         string   `json:"name" jsonschema:"The name of the entity"`
	EntityType   string   `json:"entityType" jsonschema:"The type of the entity"`
	Observations []string `json:"observations" jsonschema:"An array of observation contents associated with the entity"`
}

// Relation is a relation of the memory server.
type Relation struct {
	From         string `json:"from" jsonschema:"The name of the entity where the relation starts"`
	To           string `json:"to" jsonschema:"The name of the entity where the relation ends"`
	RelationType string `json:"relationType" jsonschema:"The type of the relation"`
}

type createEntitiesArgs struct {
	Entities []Entity `json:"entities"`
}

type createRelationsArgs struct {
	Relations []Relation `json:"relations"`
}

type observationAdd struct {
	EntityName string   `json:"entityName" jsonschema:"The name of the entity to add the observations to"`
	Contents   []string `json:"contents" jsonschema:"An array of observation contents to add"`
}

type addObservationsArgs struct {
	Observations []observationAdd `json:"observations"`
}

type deleteEntitiesArgs struct {
	EntityNames []string `json:"entityNames" jsonschema:"An array of entity names to delete"`
}

type observationDeletion struct {
	EntityName   string   `json:"entityName" jsonschema:"The name of the entity containing the observations"`
	Observations []string `json:"observations" jsonschema:"An array of observations to delete"`
}

type deleteObservationsArgs struct {
	Deletions []observationDeletion `json:"deletions"`
}

type deleteRelationsArgs struct {
	Relations []Relation `json:"relations" jsonschema:"An array of relations to delete"`
}

type readGraphArgs struct{}

type searchNodesArgs struct {
	Query string `json:"query" jsonschema:"The search query to match against entity names, types, and observation content"`
}

type openNodesArgs struct {
	Names []string `json:"names" jsonschema:"An array of entity names to retrieve"`
}

// EntitiesJSON, RelationsJSON, ObservationsJSON and DeletedJSON are the
// structured answers of the writes, as the original's.
type EntitiesJSON struct {
	Entities []Entity `json:"entities"`
}

type RelationsJSON struct {
	Relations []Relation `json:"relations"`
}

type AddedObservations struct {
	EntityName        string   `json:"entityName"`
	AddedObservations []string `json:"addedObservations"`
}

type ObservationsJSON struct {
	Results []AddedObservations `json:"results"`
}

type DeletedJSON struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}

// memoryLocks serialises the drop-in's writes, one lock per session.
type memoryLocks struct{ m sync.Map }

func (l *memoryLocks) lock(session string) func() {
	mu, _ := l.m.LoadOrStore(session, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	return mu.(*sync.Mutex).Unlock
}

// The budgets of the drop-in's reads. open_nodes walks one hop, so every
// relation of a named entity is in its Shape (up to the fan-out F);
// search_nodes seeds the best matches in canonical order. Both answer
// with what the original answers, the entities asked for and their
// relations, so their token target trims the entities at the far end of
// a relation to their names.
const (
	openHops   = 1
	openFanOut = 32
	// openRows is M per name opened, so a few names' relations are not
	// cut by the one M of a Recall; openRowsCeiling is the default M
	// ceiling.
	openRows        = 50
	openRowsCeiling = 200
	// openTokens is the token target per entity asked for (named, or
	// matched by a search): past it, the entities a relation reaches are
	// shown by name and type alone (the original shows them by name
	// alone), while the ones asked for stay whole.
	openTokens   = 40
	searchSeeds  = 8
	searchHops   = 1
	searchRows   = 2 * searchSeeds
	maxOpenNames = 32 // the default L ceiling
	// chunk bounds the items of one Δ, so its parameters stay well under
	// the 256 a text may hold and its rows under R.
	chunk = 64
	// chunkBytes bounds one Δ's values: R counts both the parameters and
	// the properties they become, each as its literal.
	chunkBytes = 96 << 10
)

// addMemoryTools adds the memory server's tools, with the original's
// annotations: the reads say they change nothing (readOnlyHint, and
// destructiveHint false, which MCP's default would make true).
func (s *Server) addMemoryTools(srv *mcp.Server, shown map[string]shownTool) {
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}
	add := &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
	del := &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)}
	memoryTool[createEntitiesArgs](srv, shown, memoryWriter, &mcp.Tool{Name: "create_entities", Title: "Create Entities",
		Description: "Create new entities in the knowledge graph, each with a unique name, a type and observations (short facts about it). A name that is taken is left as it is and listed in the answer: add facts to it with add_observations.", Annotations: add},
		tool(s, "create_entities", func(ctx context.Context, sc *Scope, in createEntitiesArgs) (*mcp.CallToolResult, EntitiesJSON, error) {
			return s.createEntities(ctx, sc, in.Entities)
		}))
	memoryTool[createRelationsArgs](srv, shown, memoryWriter, &mcp.Tool{Name: "create_relations", Title: "Create Relations",
		Description: "Create relations between entities that exist, in active voice (alice works_on apollo). Create a missing entity first: a relation to it is not made, and the answer lists it. A relation made again is kept once.", Annotations: add},
		tool(s, "create_relations", func(ctx context.Context, sc *Scope, in createRelationsArgs) (*mcp.CallToolResult, RelationsJSON, error) {
			return s.createRelations(ctx, sc, in.Relations)
		}))
	memoryTool[addObservationsArgs](srv, shown, memoryWriter, &mcp.Tool{Name: "add_observations", Title: "Add Observations",
		Description: "Add observations (short facts) to existing entities, by name. A fact the entity has already is not added twice; a name that does not exist fails the whole call, and nothing is added.", Annotations: add},
		tool(s, "add_observations", func(ctx context.Context, sc *Scope, in addObservationsArgs) (*mcp.CallToolResult, ObservationsJSON, error) {
			return s.addObservations(ctx, sc, in.Observations)
		}))
	memoryTool[deleteEntitiesArgs](srv, shown, memoryWriter, &mcp.Tool{Name: "delete_entities", Title: "Delete Entities",
		Description: "Delete entities by name, with every relation that touches them. Names that do not exist are passed over.", Annotations: del},
		tool(s, "delete_entities", func(ctx context.Context, sc *Scope, in deleteEntitiesArgs) (*mcp.CallToolResult, DeletedJSON, error) {
			return s.deleteEntities(ctx, sc, in.EntityNames)
		}))
	memoryTool[deleteObservationsArgs](srv, shown, memoryWriter, &mcp.Tool{Name: "delete_observations", Title: "Delete Observations",
		Description: "Delete observations from entities, each given by its exact text. Names and facts that do not exist are passed over.", Annotations: del},
		tool(s, "delete_observations", func(ctx context.Context, sc *Scope, in deleteObservationsArgs) (*mcp.CallToolResult, DeletedJSON, error) {
			return s.deleteObservations(ctx, sc, in.Deletions)
		}))
	memoryTool[deleteRelationsArgs](srv, shown, memoryWriter, &mcp.Tool{Name: "delete_relations", Title: "Delete Relations",
		Description: "Delete relations, each given by its exact from, to and relationType.", Annotations: del},
		tool(s, "delete_relations", func(ctx context.Context, sc *Scope, in deleteRelationsArgs) (*mcp.CallToolResult, DeletedJSON, error) {
			return s.deleteRelations(ctx, sc, in.Relations)
		}))
	memoryTool[readGraphArgs](srv, shown, memoryReader, &mcp.Tool{Name: "read_graph", Title: "Read Graph",
		Description: "Read the knowledge graph: a small one whole; a larger one as an outline, the number of entities and relations of each type and a few entities of each type with their relations. search_nodes and open_nodes read the rest.", Annotations: ro},
		tool(s, "read_graph", func(ctx context.Context, sc *Scope, _ readGraphArgs) (*mcp.CallToolResult, MemoryGraph, error) {
			return s.readGraph(ctx, sc)
		}))
	memoryTool[searchNodesArgs](srv, shown, memoryReader, &mcp.Tool{Name: "search_nodes", Title: "Search Nodes",
		Description: "Find entities whose name, type or an observation contains the query (any case), with their relations. At most the 8 best matches are shown: when the answer says more matched, search a longer phrase. An entity at the other end of a relation is shown by name; open_nodes reads it whole.", Annotations: ro},
		tool(s, "search_nodes", func(ctx context.Context, sc *Scope, in searchNodesArgs) (*mcp.CallToolResult, MemoryGraph, error) {
			return s.searchNodes(ctx, sc, in.Query)
		}))
	memoryTool[openNodesArgs](srv, shown, memoryReader, &mcp.Tool{Name: "open_nodes", Title: "Open Nodes",
		Description: "Read entities by their exact names, each whole with every relation that touches it (the entity at the other end shown by name). At most 32 names a call; the answer lists the names not found.", Annotations: ro},
		tool(s, "open_nodes", func(ctx context.Context, sc *Scope, in openNodesArgs) (*mcp.CallToolResult, MemoryGraph, error) {
			return s.openNodes(ctx, sc, in.Names)
		}))
}

// memoryTool adds a memory tool: its calls are validated against the
// original's schema, and tools/list shows it with every object closed.
func memoryTool[In, Out any](srv *mcp.Server, shown map[string]shownTool, a access, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	sc := originalSchema[In]()
	t.OutputSchema = originalOutputSchema[Out]()
	addTool(srv, shown, a, t, sc, strictSchema(sc), h)
}

// originalOutputSchema is the output schema of T as the original states
// it: zod's objects, closed, every property required, draft-07.
func originalOutputSchema[T any]() *jsonschema.Schema {
	sc := strictSchema(originalSchema[T]())
	sc.Schema = "http://json-schema.org/draft-07/schema#"
	return sc
}

// originalSchema is the input schema of T as the original server states
// it (its schemas come from zod): arrays that are not nullable, objects
// that do not refuse other properties, draft-07.
func originalSchema[T any]() *jsonschema.Schema {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic("server: the schema of a memory tool: " + err.Error()) // the types are ours: a bug
	}
	var walk func(*jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil {
			return
		}
		if len(s.Types) == 2 && s.Types[0] == "null" {
			s.Type, s.Types = s.Types[1], nil
		}
		s.AdditionalProperties = nil
		if s.Type == "object" && s.Properties == nil {
			s.Properties = map[string]*jsonschema.Schema{}
		}
		for _, p := range s.Properties {
			walk(p)
		}
		walk(s.Items)
	}
	walk(sc)
	sc.Schema = "http://json-schema.org/draft-07/schema#"
	return sc
}

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
	if r.notes != nil && len(sh.Nodes) > 0 {
		notes = r.notes(sh, g, elided)
	}
	return textResult(memoryAnswer(sh, notes, r.empty)), g, nil
}

// elidedNote says which entities had a long value left out as an
// $elidedN parameter, and how to read it.
func elidedNote(elided []string) string {
	return "long values left out as $elidedN: open_nodes " + quoteNames(elided) + " reads them whole"
}

// readGraph answers with the outline: the counts per type and a few
// entities of each, which is all of a small memory.
func (s *Server) readGraph(ctx context.Context, sc *Scope) (*mcp.CallToolResult, MemoryGraph, error) {
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
	if strings.TrimSpace(query) == "" {
		return s.readGraph(ctx, sc)
	}
	q := "MATCH (n) WHERE n CONTAINS $query"
	lower := strings.ToLower(query)
	for _, k := range s.memoryKinds() {
		if strings.Contains(strings.ToLower(k), lower) {
			q += " OR n:" + quoteName(k)
		}
	}
	return s.memoryRecall(ctx, sc, memoryRead{q: q, params: map[string]any{"query": query},
		opts:  goldfish.RecallOptions{L: searchSeeds, K: searchHops, M: searchRows, T: openTokens * searchSeeds, NoPeaks: true},
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
		return nil, MemoryGraph{}, gqlstatus.Errorf(gqlstatus.InvalidOption, "open_nodes names no entity").
			WithHint("pass the names to open; search_nodes finds them")
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
		opts: goldfish.RecallOptions{L: len(names), K: openHops, F: openFanOut, M: min(openRowsCeiling, openRows*len(names)),
			T: openTokens * len(names), NoPeaks: true},
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
		if sh.Truncated {
			notes = append(notes, "some relations left out: open fewer names at a time for all of them")
		}
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

// memorySession opens the memory session for a write.
func (s *Server) memoryWrite(ctx context.Context, sc *Scope) (*memorySession, func(), error) {
	sess, agent, err := s.sessionAs(ctx, sc, s.opts.MemorySession, "write", "")
	if err != nil {
		return nil, nil, err
	}
	return &memorySession{sess, agent}, s.memory.lock(s.opts.MemorySession), nil
}

// memorySession is the memory session a tool writes, and the agent the
// token writes as (a token bound to one agent writes as it).
type memorySession struct {
	*goldfish.Session
	agent string
}

// delta builds Δs of statements with their parameters, a chunk at a time.
type delta struct {
	stmts  []string
	params map[string]any
	items  []int // the item each statement is for
	bytes  int
}

func (d *delta) add(item int, stmt string, bytes int, params ...any) {
	if d.params == nil {
		d.params = map[string]any{}
	}
	n := len(d.stmts)
	for i := 0; i+1 < len(params); i += 2 {
		d.params[fmt.Sprintf("%s%d", params[i], n)] = params[i+1]
	}
	d.stmts = append(d.stmts, strings.ReplaceAll(stmt, "#", fmt.Sprint(n)))
	d.items = append(d.items, item)
	d.bytes += bytes
}

func (d *delta) full() bool { return len(d.stmts) >= chunk || d.bytes >= chunkBytes }

// commitDelta sends the Δ (if it has statements) and resets it. The
// drop-in's writes use the ingest rule: an edge gets its id from (from,
// type, to), so a relation made again is found rather than doubled, and
// the tools' own writes do not count as raw Commits in the attention
// envelope's vocabulary gaps (the tools are the vocabulary here). Its
// nodes carry no loc, so they get fresh ids as under the default rule.
func (s *Server) commitDelta(ctx context.Context, sess *memorySession, d *delta) (*goldfish.CommitResult, []int, error) {
	if len(d.stmts) == 0 {
		return nil, nil, nil
	}
	text, params, items := strings.Join(d.stmts, ";\n"), d.params, d.items
	*d = delta{}
	res, err := sess.IngestWith(ctx, text, params, goldfish.CommitOptions{Agent: sess.agent})
	if err != nil {
		return nil, nil, s.callError(ctx, err)
	}
	if res.Applied {
	}
	s.metrics.committed(res)
	return res, items, nil
}

func (s *Server) createEntities(ctx context.Context, sc *Scope, entities []Entity) (*mcp.CallToolResult, EntitiesJSON, error) {
	sess, unlock, err := s.memoryWrite(ctx, sc)
	if err != nil {
		return nil, EntitiesJSON{}, err
	}
	defer unlock()
	out := EntitiesJSON{Entities: []Entity{}}
	var existed []string
	seen := map[string]bool{}
	var d delta
	version := sess.Version()
	flush := func() error {
		res, items, err := s.commitDelta(ctx, sess, &d)
		if err != nil {
			return err
		}
		if res != nil {
			version = res.Version
			for _, i := range items {
				out.Entities = append(out.Entities, entities[i])
			}
		}
		return nil
	}
	for i, e := range entities {
		if e.EntityType == "" {
			return nil, out, gqlstatus.Errorf(gqlstatus.InvalidValueType, "entity %q has an empty entityType", e.Name).
				WithHint("give every entity a type: it is the node's kind")
		}
		if seen[e.Name] {
			existed = append(existed, e.Name)
			continue
		}
		seen[e.Name] = true
		_, _, ok, err := sess.NodeByNick(ctx, e.Name)
		if err != nil {
			return nil, out, s.callError(ctx, err)
		}
		if ok {
			existed = append(existed, e.Name)
			continue
		}
		obs := e.Observations
		if obs == nil {
			obs = []string{}
		}
		d.add(i, "INSERT (:"+quoteName(e.EntityType)+" {nick: $n#, observations: $o#})", 2*size(e.Name, obs), "n", e.Name, "o", obs)
		if d.full() {
			if err := flush(); err != nil {
				return nil, out, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, out, err
	}
	var notes []string
	if len(existed) > 0 {
		notes = append(notes, "already there, left as they are: "+quoteNames(existed))
	}
	return writeAnswer(out.Entities, version, notes), out, nil
}

func (s *Server) createRelations(ctx context.Context, sc *Scope, relations []Relation) (*mcp.CallToolResult, RelationsJSON, error) {
	sess, unlock, err := s.memoryWrite(ctx, sc)
	if err != nil {
		return nil, RelationsJSON{}, err
	}
	defer unlock()
	out := RelationsJSON{Relations: []Relation{}}
	var missing []string
	var d delta
	version := sess.Version()
	seen := map[Relation]bool{}
	flush := func() error {
		// The ingest rule gives an edge its id from (from, type, to), so a
		// relation that is there already is found, not made twice.
		res, items, err := s.commitDelta(ctx, sess, &d)
		if err != nil || res == nil {
			return err
		}
		version = res.Version
		for j, st := range res.Stmts {
			r := relations[items[j]]
			switch {
			case st.EdgesCreated > 0:
				out.Relations = append(out.Relations, r)
			case st.Bindings == 0:
				missing = append(missing, r.From+" -"+r.RelationType+"-> "+r.To)
			}
		}
		return nil
	}
	for i, r := range relations {
		if r.RelationType == "" {
			return nil, out, gqlstatus.Errorf(gqlstatus.InvalidValueType, "the relation from %q to %q has an empty relationType", r.From, r.To).
				WithHint("give every relation a type: it is the edge's type")
		}
		if seen[r] {
			continue
		}
		seen[r] = true
		d.add(i, "MATCH (a {nick: $f#}), (b {nick: $t#}) INSERT (a)-[:"+quoteName(r.RelationType)+"]->(b)", 0, "f", r.From, "t", r.To)
		if d.full() {
			if err := flush(); err != nil {
				return nil, out, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, out, err
	}
	var notes []string
	if len(missing) > 0 {
		notes = append(notes, "not made, an entity is missing (create it first): "+strings.Join(missing, ", "))
	}
	return writeAnswer(out.Relations, version, notes), out, nil
}

// errRetry says an observation list changed between its read and its
// write: the whole call is made again on what is there now.
var errRetry = errors.New("an observation list changed while it was written")

// editObservations reads each entity's observations, lets edit change
// them, and writes back the lists that changed, each only if it still
// holds what was read. missing says what to do about an entity that is
// not there: fail the call (add) or skip it (delete).
func (s *Server) editObservations(ctx context.Context, sc *Scope, names []string, failMissing bool,
	edit func(i int, cur []string) []string) (uint64, error) {
	sess, unlock, err := s.memoryWrite(ctx, sc)
	if err != nil {
		return 0, err
	}
	defer unlock()
	for attempt := 0; ; attempt++ {
		v, err := s.editOnce(ctx, sess, names, failMissing, edit)
		if !errors.Is(err, errRetry) || attempt == 8 {
			return v, err
		}
	}
}

func (s *Server) editOnce(ctx context.Context, sess *memorySession, names []string, failMissing bool,
	edit func(i int, cur []string) []string) (uint64, error) {
	type entry struct {
		old  any // the property as read: nil when missing
		list []string
	}
	lists := map[string]*entry{}
	var order []string
	for i, name := range names {
		e, ok := lists[name]
		if !ok {
			n, _, found, err := sess.NodeByNick(ctx, name)
			if err != nil {
				return 0, s.callError(ctx, err)
			}
			if !found {
				if failMissing {
					return 0, gqlstatus.Errorf(gqlstatus.InvalidReference, "Entity with name %s not found", name).
						WithHint("nothing was added; create the entity first (create_entities)")
				}
				continue
			}
			old := n.Props["observations"]
			cur, err := stringList(name, old)
			if err != nil {
				return 0, err
			}
			e = &entry{old: old, list: cur}
			lists[name] = e
			order = append(order, name)
		}
		e.list = edit(i, e.list)
	}
	var d delta
	version := sess.Version()
	flush := func() error {
		res, _, err := s.commitDelta(ctx, sess, &d)
		if err != nil || res == nil {
			return err
		}
		version = res.Version
		for _, st := range res.Stmts {
			if st.Bindings == 0 {
				return errRetry
			}
		}
		return nil
	}
	for _, name := range order {
		e := lists[name]
		if old, _ := stringList(name, e.old); e.old != nil && slices.Equal(old, e.list) {
			continue
		}
		newList := make([]any, len(e.list))
		for i, o := range e.list {
			newList[i] = o
		}
		if e.old == nil {
			d.add(0, "MATCH (n {nick: $e#}) WHERE n.observations IS NULL SET n.observations = $v#", 2*size(name, e.list), "e", name, "v", newList)
		} else {
			d.add(0, "MATCH (n {nick: $e#}) WHERE n.observations = $w# SET n.observations = $v#", 3*size(name, e.list), "e", name, "w", e.old, "v", newList)
		}
		if d.full() {
			if err := flush(); err != nil {
				return version, err
			}
		}
	}
	return version, flush()
}

// stringList reads an observations property: a list of strings, or
// nothing.
func stringList(entity string, v any) ([]string, error) {
	if v == nil {
		return []string{}, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, gqlstatus.Errorf(gqlstatus.InvalidValueType, "the observations of %s are not a list", entity).
			WithHint("set them to a list of strings with commit")
	}
	out := make([]string, 0, len(l))
	for _, x := range l {
		str, ok := x.(string)
		if !ok {
			return nil, gqlstatus.Errorf(gqlstatus.InvalidValueType, "the observations of %s hold a %T, not only strings", entity, x).
				WithHint("set them to a list of strings with commit")
		}
		out = append(out, str)
	}
	return out, nil
}

func (s *Server) addObservations(ctx context.Context, sc *Scope, adds []observationAdd) (*mcp.CallToolResult, ObservationsJSON, error) {
	names := make([]string, len(adds))
	for i, a := range adds {
		names[i] = a.EntityName
	}
	var results []AddedObservations
	version, err := s.editObservations(ctx, sc, names, true, func(i int, cur []string) []string {
		if i == 0 {
			results = make([]AddedObservations, len(adds))
		}
		added := []string{}
		for _, c := range adds[i].Contents {
			if !slices.Contains(cur, c) {
				cur = append(cur, c)
				added = append(added, c)
			}
		}
		results[i] = AddedObservations{EntityName: adds[i].EntityName, AddedObservations: added}
		return cur
	})
	if err != nil {
		return nil, ObservationsJSON{}, err
	}
	out := ObservationsJSON{Results: results}
	if out.Results == nil {
		out.Results = []AddedObservations{}
	}
	return writeAnswer(out.Results, version, nil), out, nil
}

func (s *Server) deleteObservations(ctx context.Context, sc *Scope, dels []observationDeletion) (*mcp.CallToolResult, DeletedJSON, error) {
	names := make([]string, len(dels))
	for i, d := range dels {
		names[i] = d.EntityName
	}
	version, err := s.editObservations(ctx, sc, names, false, func(i int, cur []string) []string {
		return slices.DeleteFunc(cur, func(o string) bool { return slices.Contains(dels[i].Observations, o) })
	})
	if err != nil {
		return nil, DeletedJSON{}, err
	}
	msg := "Observations deleted successfully"
	return textResult(fmt.Sprintf("%s\n// version %d", msg, version)), DeletedJSON{Success: true, Message: msg}, nil
}

func (s *Server) deleteEntities(ctx context.Context, sc *Scope, names []string) (*mcp.CallToolResult, DeletedJSON, error) {
	sess, unlock, err := s.memoryWrite(ctx, sc)
	if err != nil {
		return nil, DeletedJSON{}, err
	}
	defer unlock()
	var d delta
	version := sess.Version()
	deleted := 0
	flush := func() error {
		res, _, err := s.commitDelta(ctx, sess, &d)
		if err == nil && res != nil {
			version, deleted = res.Version, deleted+res.Total.NodesRecycled
		}
		return err
	}
	for i, n := range dedupe(names) {
		d.add(i, "MATCH (n {nick: $n#}) DETACH DELETE n", 0, "n", n)
		if d.full() {
			if err := flush(); err != nil {
				return nil, DeletedJSON{}, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, DeletedJSON{}, err
	}
	msg := "Entities deleted successfully"
	return textResult(fmt.Sprintf("%s\n// version %d, %d found", msg, version, deleted)), DeletedJSON{Success: true, Message: msg}, nil
}

func (s *Server) deleteRelations(ctx context.Context, sc *Scope, relations []Relation) (*mcp.CallToolResult, DeletedJSON, error) {
	sess, unlock, err := s.memoryWrite(ctx, sc)
	if err != nil {
		return nil, DeletedJSON{}, err
	}
	defer unlock()
	var d delta
	version := sess.Version()
	deleted := 0
	flush := func() error {
		res, _, err := s.commitDelta(ctx, sess, &d)
		if err == nil && res != nil {
			version, deleted = res.Version, deleted+res.Total.EdgesRecycled
		}
		return err
	}
	seen := map[Relation]bool{}
	for i, r := range relations {
		if seen[r] || r.RelationType == "" {
			continue
		}
		seen[r] = true
		d.add(i, "MATCH (a {nick: $f#})-[r:"+quoteName(r.RelationType)+"]->(b {nick: $t#}) DELETE r", 0, "f", r.From, "t", r.To)
		if d.full() {
			if err := flush(); err != nil {
				return nil, DeletedJSON{}, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, DeletedJSON{}, err
	}
	msg := "Relations deleted successfully"
	return textResult(fmt.Sprintf("%s\n// version %d, %d found", msg, version, deleted)), DeletedJSON{Success: true, Message: msg}, nil
}

// writeAnswer is the text of a write that answers with what it made, as
// the original's: the list as JSON, then the session version it made and
// what it left alone, as comment lines.
func writeAnswer(made any, version uint64, notes []string) *mcp.CallToolResult {
	b, _ := json.Marshal(made)
	text := string(b) + fmt.Sprintf("\n// version %d", version)
	for _, n := range notes {
		text += "\n// " + n
	}
	return textResult(text)
}

// quoteName writes a label or edge type as a GQL identifier: bare when
// it is one, else in backquotes (a backquote doubled), so any entityType
// or relationType the original takes is a kind or type here.
func quoteName(name string) string {
	bare := name != ""
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			bare = false
			break
		}
	}
	if bare && !reserved[strings.ToUpper(name)] {
		return name
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// reserved are words a bare label may not be; quoting them is always
// right, so the list need only hold the ones a type is likely to be.
var reserved = map[string]bool{"MATCH": true, "INSERT": true, "SET": true, "REMOVE": true, "DELETE": true,
	"DETACH": true, "WHERE": true, "AND": true, "OR": true, "NOT": true, "IN": true, "IS": true, "NULL": true,
	"TRUE": true, "FALSE": true, "LIMIT": true, "RETURN": true, "CALL": true, "CREATE": true, "DROP": true,
	"VIEW": true, "ACTION": true, "START": true, "COMMIT": true, "ROLLBACK": true, "TRANSACTION": true,
	"CONTAINS": true, "STARTS": true, "ENDS": true, "WITH": true, "AS": true, "OPTIONAL": true, "ORDER": true,
	"BY": true, "DATE": true, "DATETIME": true, "NEXT": true, "USE": true, "CASE": true, "EXISTS": true}

func size(name string, obs []string) int {
	n := len(name) + 16
	for _, o := range obs {
		n += len(o) + 4
	}
	return n
}

func dedupe(list []string) []string {
	seen := map[string]bool{}
	out := list[:0:0]
	for _, x := range list {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sessionsText is what a model reads of the sessions tool: one line a
// session.
func sessionsText(list SessionsJSON) string {
	if len(list.Sessions) == 0 {
		return "no sessions yet: a commit to a new name makes one"
	}
	var b strings.Builder
	for i, in := range list.Sessions {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s v=%d nodes=%d edges=%d", in.Name, in.Version, in.Nodes, in.Edges)
	}
	return b.String()
}
