package goldfish

import (
	"context"

	"github.com/goldfish-gql/goldfish/internal/engine"
	"github.com/goldfish-gql/goldfish/values"
)

// DB is a database: a set of named sessions.
type DB struct{ e *engine.DB }

// Open opens a database: on the cabinet file given WithCabinet, in memory
// otherwise. Sessions in the cabinet are hydrated on first use.
func Open(opts ...Option) (*DB, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	e, err := engine.Open(cfg)
	if err != nil {
		return nil, err
	}
	return &DB{e: e}, nil
}

// Close refuses new calls (they get ErrClosed), stops the reads in
// flight (a Recall, a Graph, and for any call the hydration of a session
// a memory budget unloaded: each answers an error that is ErrClosed,
// GQLSTATUS 40000, instead of being waited for), waits for the calls in
// flight to return (a Commit among them either returns durable or fails
// as it would have anyway), saves what the agents of each session have
// read since the last save, waits for queued cabinet writes, closes the
// cabinet file and releases the caches. Every acknowledged Commit is
// already durable, so Close does not flush (call Flush first for a
// compact file). Closing again returns what the first Close returned.
func (db *DB) Close() error { return db.e.Close() }

// Session returns the named session, creating it empty on first use. A
// session held in the cabinet is hydrated on its first use (snapshot plus
// log, which ctx bounds), and again after a memory budget unloaded it
// (WithMemoryBudget); a damaged one gives an error naming it. The call
// counts as a use of the session. CatalogName gives the catalogue, which
// takes Recall but refuses Commit.
func (db *DB) Session(ctx context.Context, name string) (*Session, error) {
	s, err := db.e.Session(ctx, name)
	if err != nil {
		return nil, err
	}
	return &Session{e: s, db: db}, nil
}

// Existing returns the named session for a reader: one a write made (in
// the cabinet, by any host, or in memory) or that is open (Session), or
// the catalogue. A read never
// creates a session: an unknown name is 42002, naming the sessions a small
// edit away. A server opens sessions for its readers with it, so that no
// Recall, version list or history of a name adds that name to what every
// client lists.
func (db *DB) Existing(ctx context.Context, name string) (*Session, error) {
	s, err := db.e.Existing(ctx, name)
	if err != nil {
		return nil, err
	}
	return &Session{e: s, db: db}, nil
}

// Peek returns the session for a read of its state (settings,
// vocabulary, names, kinds, agents, a dump): the session itself when a
// write made it or it is open, else a stand-in with an empty session's
// state, which is not registered, not listed and refuses Commits. A
// server answers such reads of a new name with it, so that a shell may
// read a new session's settings before it sets one, and the read makes
// nothing.
func (db *DB) Peek(ctx context.Context, name string) (*Session, error) {
	s, err := db.e.Peek(ctx, name)
	if err != nil {
		return nil, err
	}
	return &Session{e: s, db: db}, nil
}

// Sessions lists the session names in order: those a write made (in the
// cabinet and in memory), not the catalogue, and not a name only opened
// (Session) and never written.
func (db *DB) Sessions() []string { return db.e.Sessions() }

// Warm hydrates the sessions whose log in the cabinet holds Commits past
// their snapshot (after a stop without Flush: a kill, a crash; on
// PostgreSQL, what other hosts committed since the last snapshot), most
// recently committed first, so that their first use does not wait for
// the log's replay. Under a memory budget it stops once the resident
// sessions fill it. progress, when not nil, is called with how many it
// hydrated and how many it will, first (0, n), then after each. A
// session that fails to hydrate is left to its first use, which reports
// it, and its error is joined to Warm's; ctx or Close stops it.
func (db *DB) Warm(ctx context.Context, progress func(done, total int)) error {
	return db.e.Warm(ctx, progress)
}

// Flush flushes every session in use (see Session.Flush): those a memory
// budget unloaded are left as they are (each was flushed before it was
// unloaded if its log was long).
func (db *DB) Flush(ctx context.Context) error { return db.e.Flush(ctx) }

// Drop removes a session for good: from memory, from the cabinet and from
// the catalogue. Holders of the old *Session get ErrDropped on Commit. A
// database opened WithReadOnly refuses it (25006).
func (db *DB) Drop(ctx context.Context, name string) error { return db.e.Drop(ctx, name) }

// Backup writes a consistent copy of the cabinet file to path while the
// database stays in use (bbolt's hot backup). It fails in memory; it
// works on a database opened WithReadOnly, which it only reads.
func (db *DB) Backup(path string) error { return db.e.Backup(path) }

// Ping checks that the cabinet can be reached now: nil in memory and on a
// cabinet file, an error with GQLSTATUS 08Q04 (and ErrCabinetUnavailable)
// when a PostgreSQL server is down. A readiness probe calls it.
func (db *DB) Ping(ctx context.Context) error { return db.e.Ping(ctx) }

// CabinetPath returns the cabinet's path, or "" in memory.
func (db *DB) CabinetPath() string { return db.e.CabinetPath() }

// ReadOnly reports whether the database was opened WithReadOnly.
func (db *DB) ReadOnly() bool { return db.e.ReadOnly() }

// SessionInfo describes one session without hydrating it; KindCount is
// the number of live nodes of one of its kinds.
type (
	SessionInfo = values.SessionInfo
	KindCount   = values.KindCount
)

// SessionInfos lists the sessions (not the catalogue) with their version
// and counts, from the catalogue: no session is hydrated.
func (db *DB) SessionInfos() []SessionInfo {
	return db.e.SessionInfos()
}

// MemoryStats describe the sessions a database keeps in memory (see
// WithMemoryBudget).
type MemoryStats = values.MemoryStats

// MemoryStats returns the database's resident sessions and their
// estimated memory, and how many sessions the budget unloaded.
func (db *DB) MemoryStats() MemoryStats { return db.e.MemoryStats() }
