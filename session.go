package goldfish

import (
	"context"

	"github.com/goldfish-gql/goldfish/internal/engine"
	"github.com/goldfish-gql/goldfish/values"
)

// Session is one named working memory.
type Session struct {
	e  *engine.Session
	db *DB
}

// Name returns the session's name.
func (s *Session) Name() string { return s.e.Name() }

// Version returns the session's current version: the number of Δs
// applied. It does not hydrate an unloaded session: it answers the
// version the session had when it was unloaded.
func (s *Session) Version() uint64 { return s.e.Version() }

// Info describes the session at its current version: its counts, kinds
// and last Commit, as the catalogue lists it.
func (s *Session) Info(ctx context.Context) (SessionInfo, error) {
	return s.e.Info(ctx)
}

// Footprint is where a session's memory goes, part by part
// (Session.Footprint).
type Footprint = values.Footprint

// Footprint says where the session's memory goes: its records, adjacency,
// indexes and history, each measured by a walk of its newest version
// (O(elements); for operators and benchmarks, not for every call).
func (s *Session) Footprint(ctx context.Context) (Footprint, error) {
	return s.e.Footprint(ctx)
}

// CommitOptions are the options of one Commit (CommitWith, IngestWith):
// the committing agent, and where to record the call's times. The zero
// value is what Commit and Ingest use.
type CommitOptions = values.CommitOptions

// Timing says where the time of one call went. Parse and Plan are zero
// when the plan cache answered; Execute and Emit are zero when the Shape
// cache did (Cached).
type Timing = values.Timing

// Commit applies text as one atomic Δ with the default id rule: every new
// element gets a fresh engine id. It names no agent (CommitWith does).
func (s *Session) Commit(ctx context.Context, text string, params map[string]any) (*CommitResult, error) {
	return s.commit(ctx, text, params, engine.MintDefault, CommitOptions{})
}

// CommitWith is Commit with options: the committing agent, timing.
func (s *Session) CommitWith(ctx context.Context, text string, params map[string]any, o CommitOptions) (*CommitResult, error) {
	return s.commit(ctx, text, params, engine.MintDefault, o)
}

// Ingest applies text as one atomic Δ with the ingest id rule: nodes with a
// loc property get an id from (kind, loc) and edges between nodes an id from
// (source, type, target), so re-ingesting updates instead of duplicating.
// It names no agent (IngestWith does).
func (s *Session) Ingest(ctx context.Context, text string, params map[string]any) (*CommitResult, error) {
	return s.commit(ctx, text, params, engine.MintIngest, CommitOptions{})
}

// IngestWith is Ingest with options, as CommitWith is Commit with them.
func (s *Session) IngestWith(ctx context.Context, text string, params map[string]any, o CommitOptions) (*CommitResult, error) {
	return s.commit(ctx, text, params, engine.MintIngest, o)
}

// CommitTimed is Commit that also reports where the time went.
func (s *Session) CommitTimed(ctx context.Context, text string, params map[string]any) (*CommitResult, Timing, error) {
	var t Timing
	res, err := s.commit(ctx, text, params, engine.MintDefault, CommitOptions{Timing: &t})
	return res, t, err
}

func (s *Session) commit(ctx context.Context, text string, params map[string]any, mint engine.Mint, o CommitOptions) (*CommitResult, error) {
	return s.e.Commit(ctx, text, params, mint, o)
}

// Flush writes a compact snapshot of the session to the cabinet and trims
// its log; hydrating then needs no replay. It also saves what the agents
// have read, if that changed. It is a no-op in memory, for the catalogue,
// on a database opened WithReadOnly (which writes nothing), and when
// nothing was committed or read since the last flush.
func (s *Session) Flush(ctx context.Context) error { return s.e.Flush(ctx) }

// Purge removes the session's recycled elements for good (docs/design.md#persistence-and-history: never
// done by a Recall). It is durable like a Commit and, when it removed
// anything, makes a new version. It returns the number removed.
func (s *Session) Purge(ctx context.Context) (int, error) { return s.e.Purge(ctx) }

// Dump lists the whole session deterministically, for tests, conformance
// files and debugging; it is not a Recall (it ignores every budget) and
// shows no engine id. The listing is:
//
//	version 3
//	nodes 2, edges 1, recycled 0
//	(:MOD {loc: "auth/login.go"})
//	(:TSK:Settled {nick: "TSK_login", status: "done"})
//	(:TSK:Settled {nick: "TSK_login", status: "done"})-[:touches]->(:MOD {loc: "auth/login.go"})
//
// Nodes are written as (:Kind:Extra {props}) with the kind first, extra
// labels sorted and properties in canonical order; edges as their two
// ends and their type and properties. Both lists are sorted as text, so
// the listing depends on observables only, never on engine ids or
// insertion order.
//
// Dump hydrates an unloaded session (WithMemoryBudget); when that fails,
// or the database is closed and the session unloaded, the listing is one
// line: "error: " and why.
func (s *Session) Dump() string { return s.e.Dump() }

// Names are the names a session holds (Session.Names).
type Names = values.Names

// MaxNameScan bounds the elements Names reads for keys and nicks.
const MaxNameScan = values.MaxNameScan

// Names returns the session's names at its current version.
func (s *Session) Names(ctx context.Context) (Names, error) {
	return s.e.Names(ctx)
}

// BuildTextIndex builds the session's keyword index (the trigram index a
// bare (n) seeded by a word goes through) now, in the caller, instead of
// in the background when a keyword first needs it: after a bulk load,
// say, so the first keyword Recalls do not scan.
func (s *Session) BuildTextIndex(ctx context.Context) error { return s.e.BuildTextIndex(ctx) }

// NodeData is a node as NodeByNick and Graph read it: its labels, the
// kind first, and its properties as Go values. It is the caller's to
// change.
type NodeData = values.NodeData

// NodeByNick reads the live node whose nick is nick, at the version a
// Recall would read now, and returns that version; false when no live
// node has the nick. It is a lookup for a program that edits what it
// names (the server's memory tools read an entity before they change its
// observations), not a memory read: it counts no Recall and shows no
// attention envelope.
func (s *Session) NodeByNick(ctx context.Context, nick string) (NodeData, uint64, bool, error) {
	return s.e.NodeByNick(ctx, nick)
}

// AgentInfo is what a session keeps about one agent.
type AgentInfo = values.AgentInfo

// Agents lists the agents that have read the session, sorted by name.
func (s *Session) Agents(ctx context.Context) ([]AgentInfo, error) {
	return s.e.Agents(ctx)
}

// ForgetAgent removes what the session keeps about an agent (its last
// read and its count of reads), so its next Recall is a first read; the
// change is durable at once when the cabinet holds the session. An agent
// the session does not keep is refused with 42002. A session keeps at
// most MaxAgents agents: past that, a new agent's first Recall evicts the
// agent seen least recently.
func (s *Session) ForgetAgent(ctx context.Context, name string) error {
	return s.e.ForgetAgent(ctx, name)
}

// Prepare parses and plans text (always, bypassing the plan cache, so the
// times are real; the plan is cached for the call that follows) and says
// whether it is a Recall. The shell's :timing uses it.
func (s *Session) Prepare(text string) (isRecall bool, t Timing, err error) {
	return s.e.Prepare(text)
}

// IsRecall reports whether text is a Recall (one MATCH of node patterns
// with optional WHERE and LIMIT) rather than a Δ. Text that does not parse
// is not a Recall; Commit reports its error.
func (s *Session) IsRecall(text string) bool { return s.e.IsRecall(text) }

// Graph is the whole of a session at one version, as Graph reads it;
// EdgeData is one of its edges.
type (
	Graph    = values.Graph
	EdgeData = values.EdgeData
)

// Graph reads every live node and edge of the session at the version a
// Recall would read now, ignoring every budget: it is for a program that
// copies a session out whole (gqlsh export-memory), not a memory read,
// and it holds the whole session in memory. What it returns is the
// caller's to change.
func (s *Session) Graph(ctx context.Context) (Graph, error) { return s.e.Graph(ctx) }
