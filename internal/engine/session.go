package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/store"
)

// Session is one named working memory.
type Session struct {
	db   *DB
	name string
	// incarnation tells this Session apart from every other one the
	// process has made, a dropped and re-created session of the same name
	// included, and from itself before it was last unloaded: the Shape
	// cache keys by it, not by the name. Changed only by an unload, which
	// no call on the session runs beside (memory.go).
	incarnation uint64
	// graph is the session's state, ahead of what readers see by the
	// Commits whose log entries are not yet durable; only Commits (under
	// wmu) read it. Set once hydrated.
	graph *store.Graph
	// durableMu orders publishing: readable only ever moves forward.
	durableMu sync.Mutex
	// readable is the newest durable snapshot: what every read sees
	// (docs/design.md#persistence-and-history: no reader sees a version before it is durable, so a crash
	// never takes back what an agent has read).
	readable atomic.Pointer[store.Snapshot]
	// past keeps the snapshots of the latest versions (past.go); older
	// those of older versions rebuilt from the history, and historyFrom
	// is where the cabinet's history starts (history.go). rebuildMu
	// runs one rebuild at a time.
	past        pastRing
	older       pastRing
	historyFrom atomic.Uint64
	cutAt       atomic.Uint64 // the latest Purge's version, where the history is to start
	rebuildMu   writeLock
	// hidx is the history index (history_index.go), nil until a History
	// reads the cabinet.
	hidx atomic.Pointer[historyIndex]

	hmu      writeLock // one hydration at a time
	herr     error     // a hydration's lasting error (damage), under hmu
	hydrated atomic.Bool
	catalog  bool // the catalogue: Recall only
	// blank is the stand-in Peek gives for a session no write made: an
	// empty session's state, not registered, taking no write.
	blank    bool
	flushing atomic.Bool

	// wmu orders a Commit's publish with its log entry, and guards what
	// follows.
	wmu         writeLock
	dropped     atomic.Bool // set by Drop: every later call gets ErrDropped
	poisoned    error
	lastCommit  time.Time
	snapVersion uint64
	logEntries  int64
	logBytes    int64
	// peaks keeps the Peak_L fallback's ranking for the latest version.
	peaks exec.PeakCache
	// vocab keeps the vocabulary's evaluation for the latest version.
	vocab vocabCache
	// agents is what each agent has read (agents.go), attn what the
	// envelope keeps of the session (envelope.go): beside the graph,
	// never a version of it.
	agents agentTable
	attn   sessionAttention
	// pinned is the session's pinned kinds (SetPinnedKinds): sorted,
	// each once; nil or empty for none. Kept with the attention record
	// (attention.go), read lock-free by every Recall.
	pinned atomic.Pointer[[]string]
	// remote is what this host knows of other hosts' Commits
	// (hosts.go).
	remote remoteState

	// Under a memory budget (memory.go): uses counts the calls that hold
	// the session resident, lastUse is the memory clock at its latest
	// use, est its estimated bytes while resident. loaded is set by its
	// first hydration (under hmu): the agents' record is in memory from
	// then on, and a later hydration keeps it. unloaded is set while an
	// unload has released the session; unloadedVersion is its version
	// then.
	uses            atomic.Int32
	lastUse         atomic.Uint64
	est             atomic.Int64
	loaded          bool
	unloaded        atomic.Bool
	unloadedVersion atomic.Uint64
}

// incarnations numbers the Sessions of the process.
var incarnations atomic.Uint64

func newSession(db *DB, name string) *Session {
	return &Session{db: db, name: name, incarnation: incarnations.Add(1), wmu: newWriteLock(), hmu: newWriteLock(), rebuildMu: newWriteLock()}
}

// Name returns the session's name.
func (s *Session) Name() string { return s.name }

// Version returns the session's current version: the number of Δs
// applied. It does not hydrate an unloaded session: it answers the
// version the session had when it was unloaded.
func (s *Session) Version() uint64 {
	if snap := s.snapshot(); snap != nil {
		return snap.Version()
	}
	return s.unloadedVersion.Load()
}
