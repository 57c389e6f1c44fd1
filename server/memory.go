package server

import (
	"context"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The common knowledge-graph memory server's tools, with its names, input
// schemas and descriptions, on one session (docs/design.md#interfaces):
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
