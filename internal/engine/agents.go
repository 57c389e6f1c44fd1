package engine

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/vocab"
)

// An agent is a reader and writer of a session that names itself on each
// call (SPEC §9): RecallOptions.Agent, CommitOptions.Agent. Per (session,
// agent) the engine keeps what the agent has read, beside the graph: a
// Recall never writes the graph and never makes a version, so the record
// lives in the Session, is updated under each agent's own lock, and is persisted as the session's attention record
// (attention.go).

// MaxAgentName is the longest agent name accepted.
const MaxAgentName = 64

// MaxAgents is the most agents one session keeps: a Recall naming a new
// agent beyond it is refused (22Q06). It bounds the memory of the record
// and the bytes each Commit writes for it.
const MaxAgents = 1024

// ValidAgentName checks an agent name: 1 to 64 letters, digits, '_', '-'
// or '.', not starting with '-' or '.' (the rules of session names).
func ValidAgentName(name string) error {
	if name == "" || len(name) > MaxAgentName {
		return gqlstatus.Errorf(gqlstatus.InvalidName, "agent name must be 1 to %d characters, got %d", MaxAgentName, len(name)).
			WithHint("e.g. planner, ana.2 or build-bot")
	}
	for i := 0; i < len(name); i++ {
		r := name[i]
		ok := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') ||
			(i > 0 && (r == '-' || r == '.'))
		if !ok {
			return gqlstatus.Errorf(gqlstatus.InvalidName, "agent name %q may hold only letters, digits, '_', and (not first) '-' or '.'", name).
				WithHint("e.g. planner, ana.2 or build-bot")
		}
	}
	return nil
}

// AgentInfo is what a session keeps about one agent (the facade's
// AgentInfo).
type AgentInfo struct {
	Name     string
	LastRead uint64
	Reads    uint64
}

// Agents lists the agents that have read the session, sorted by name.
func (s *Session) Agents(ctx context.Context) ([]AgentInfo, error) {
	if err := s.db.enter(); err != nil {
		return nil, err
	}
	defer s.db.exit()
	if s.dropped.Load() {
		return nil, s.errDropped()
	}
	if err := ctx.Err(); err != nil {
		return nil, gqlstatus.Interrupted(ctx, "listing the agents")
	}
	recs := s.agents.list()
	out := make([]AgentInfo, len(recs))
	for i, r := range recs {
		seen := r.load()
		out[i] = AgentInfo{Name: r.name, LastRead: seen.Version, Reads: seen.Reads}
	}
	return out, nil
}

// agentRecord is one agent's record: what it has read. A Recall reads it
// before composing its envelope and merges what it saw after, each under
// the record's own lock, so only Recalls of one agent wait for each
// other.
type agentRecord struct {
	name string
	mu   sync.Mutex
	seen vocab.Seen
}

// load returns the record's contents.
func (r *agentRecord) load() vocab.Seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen
}

// agentTable is a session's agents. A known agent is found with a
// lock-free load and updated under its own lock, so concurrent Recalls of many
// agents do not wait for each other; only the first Recall of a new agent
// takes mu, for an insert.
type agentTable struct {
	m  sync.Map // name → *agentRecord
	mu sync.Mutex
	n  int // records in m, under mu
	// dirty says the records changed since the last save began: a Recall
	// sets it after its update, a save clears it before reading, so an
	// update a save misses leaves it set.
	dirty atomic.Bool
}

// find returns the record of a known agent, or nil for a new one after
// checking its name and that the table has room for it (the refusals come
// before the Recall does any work).
func (t *agentTable) find(name string) (*agentRecord, error) {
	if r, ok := t.m.Load(name); ok {
		return r.(*agentRecord), nil
	}
	if err := ValidAgentName(name); err != nil {
		return nil, err
	}
	t.mu.Lock()
	full := t.n >= MaxAgents
	t.mu.Unlock()
	if full {
		return nil, gqlstatus.Errorf(gqlstatus.InvalidOption, "the session already keeps %d agents, the most it keeps; agent %q is new", MaxAgents, name).
			WithHint("read as one of the session's agents (gqlsh :agents lists them), or use another session")
	}
	return nil, nil
}

// note counts a Recall of r's agent (created if r is nil) that read
// version and saw what next says of the sections (next.Reads and
// next.Version are counted here, not taken), and returns the record.
func (t *agentTable) note(name string, r *agentRecord, version uint64, next *vocab.Seen) *agentRecord {
	if r == nil {
		r = t.insert(name)
	}
	r.mu.Lock()
	r.seen.Reads++
	// Concurrent Recalls of one agent may finish out of order; the record
	// keeps the newest version read, which is the later one's since the
	// readable version only moves forward.
	if version >= r.seen.Version {
		r.seen.Version = version
		if next != nil {
			r.seen.Changed = next.Changed
		}
	}
	if next != nil {
		r.seen.Shape, r.seen.Views, r.seen.Actions, r.seen.Attention = next.Shape, next.Views, next.Actions, next.Attention
	}
	r.mu.Unlock()
	if !t.dirty.Load() {
		t.dirty.Store(true)
	}
	return r
}

// record returns the record of name, created if r is nil.
func (t *agentTable) record(name string, r *agentRecord) *agentRecord {
	if r == nil {
		return t.insert(name)
	}
	return r
}

// insert returns the record of name, creating it. A table may exceed
// MaxAgents by the new agents whose Recalls run at once: find checks the
// bound before the Recall, so a Recall that did its work is always
// counted.
func (t *agentTable) insert(name string) *agentRecord {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, loaded := t.m.LoadOrStore(name, &agentRecord{name: name})
	if !loaded {
		t.n++
	}
	return r.(*agentRecord)
}

// list returns the records sorted by name.
func (t *agentTable) list() []*agentRecord {
	var out []*agentRecord
	t.m.Range(func(_, v any) bool {
		out = append(out, v.(*agentRecord))
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
