package engine

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/vocab"
)

// An agent is a reader and writer of a session that names itself on each
// call (docs/design.md#the-vocabulary-and-attention): RecallOptions.Agent, CommitOptions.Agent. Per (session,
// agent) the engine keeps what the agent has read, beside the graph: a
// Recall never writes the graph and never makes a version, so the record
// lives in the Session, is updated under each agent's own lock, and is persisted as the session's attention record
// (attention.go).

// MaxAgentName is the longest agent name accepted.
const MaxAgentName = values.MaxAgentName

// MaxAgents is the most agents one session keeps: a Recall naming a new
// agent when the session keeps as many evicts the agent seen least
// recently, so a new agent always fits. It bounds the memory of the
// record and the bytes each Commit writes for it.
const MaxAgents = values.MaxAgents

// Agents lists the agents that have read the session, sorted by name.
func (s *Session) Agents(ctx context.Context) ([]values.AgentInfo, error) {
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
	out := make([]values.AgentInfo, len(recs))
	for i, r := range recs {
		seen := r.load()
		out[i] = values.AgentInfo{Name: r.name, LastRead: seen.Version, Reads: seen.Reads}
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
	// recent is its latest Recalls (vocab.Recent): kept beside seen, so
	// the envelope, which hands seen back, does not copy them.
	recent vocab.Recent
	// last is the session's Recall count at the agent's latest Recall:
	// the agent seen least recently is evicted first.
	last uint64
}

// load returns the record's contents.
func (r *agentRecord) load() vocab.Seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen
}

// loadRead fills a Recall's read of the envelope with the record: what
// the agent has seen and its latest Recalls, under one lock.
func (r *agentRecord) loadRead(dst *vocab.Read) {
	r.mu.Lock()
	defer r.mu.Unlock()
	dst.Seen, dst.Recent = r.seen, r.recent
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
// checking its name; when the table is full, the agent seen least
// recently is evicted to make room (the checks come before the Recall
// does any work).
func (t *agentTable) find(name string) (*agentRecord, error) {
	if r, ok := t.m.Load(name); ok {
		return r.(*agentRecord), nil
	}
	if err := values.ValidAgentName(name); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.n >= MaxAgents {
		t.evictLocked()
	}
	return nil, nil
}

// evictLocked forgets the agent seen least recently: the smallest
// Recall count at its latest Recall, then the oldest version read, then
// the first name. Called with t.mu held.
func (t *agentTable) evictLocked() {
	var victim *agentRecord
	var vl, vv uint64
	t.m.Range(func(_, v any) bool {
		r := v.(*agentRecord)
		r.mu.Lock()
		last, ver := r.last, r.seen.Version
		r.mu.Unlock()
		if victim == nil || last < vl || last == vl && (ver < vv || ver == vv && r.name < victim.name) {
			victim, vl, vv = r, last, ver
		}
		return true
	})
	if victim == nil {
		t.n = 0
		return
	}
	t.m.Delete(victim.name)
	t.n--
	t.dirty.Store(true)
}

// forget removes the agent's record; false when the session keeps none.
func (t *agentTable) forget(name string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.m.LoadAndDelete(name); !ok {
		return false
	}
	t.n--
	t.dirty.Store(true)
	return true
}

// ForgetAgent removes what the session keeps about the agent: its last
// read and its reads; its next Recall is a first read again. The change
// is saved with the session's attention record at once when the cabinet
// holds the session. An agent the session does not keep is 42002.
func (s *Session) ForgetAgent(ctx context.Context, name string) error {
	if err := s.begin(ctx); err != nil {
		return err
	}
	defer s.end()
	if s.dropped.Load() {
		return s.errDropped()
	}
	if err := values.ValidAgentName(name); err != nil {
		return err
	}
	if s.db.cfg.ReadOnly {
		return s.db.errReadOnly("forgetting an agent")
	}
	if s.wmu.LockContext(ctx) != nil {
		return gqlstatus.Interrupted(ctx, "forgetting an agent")
	}
	if !s.agents.forget(name) {
		s.wmu.Unlock()
		return gqlstatus.Errorf(gqlstatus.InvalidReference, "session %q keeps no agent %q", s.name, name).
			WithHint("list the agents the session keeps (gqlsh :agents); names are case-sensitive")
	}
	var t *cabinet.Ticket
	if s.poisoned == nil && s.graph.Snapshot().Version() > 0 {
		t = s.saveAttention()
	}
	s.wmu.Unlock()
	return waitAttention(s.name, t)
}

// note counts a Recall of r's agent (created if r is nil) that read
// version and saw what next says of the sections (next.Reads and
// next.Version are counted here, not taken), and returns the record.
func (t *agentTable) note(name string, r *agentRecord, version, tick uint64, next *vocab.Seen) *agentRecord {
	if r == nil {
		r = t.insert(name)
	}
	r.mu.Lock()
	r.seen.Reads++
	r.recent.Add(tick)
	r.last = max(r.last, tick)
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
		r.seen.ViewRead = max(r.seen.ViewRead, min(next.ViewRead, r.seen.Reads))
	}
	r.mu.Unlock()
	if !t.dirty.Load() {
		t.dirty.Store(true)
	}
	return r
}

// readViews notes that a known agent read views now (a Commit of its
// named them); an agent the session keeps no record of has none to note.
func (t *agentTable) readViews(name string) {
	v, ok := t.m.Load(name)
	if !ok {
		return
	}
	r := v.(*agentRecord)
	r.mu.Lock()
	changed := r.seen.ViewRead != r.seen.Reads
	r.seen.ViewRead = r.seen.Reads
	r.mu.Unlock()
	if changed {
		t.dirty.Store(true)
	}
}

// record returns the record of name, created if r is nil.
func (t *agentTable) record(name string, r *agentRecord) *agentRecord {
	if r == nil {
		return t.insert(name)
	}
	return r
}

// insert returns the record of name, creating it. A table may exceed
// MaxAgents by the new agents whose Recalls run at once: find makes room
// before the Recall, so a Recall that did its work is always counted.
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
