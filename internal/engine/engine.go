package engine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/ristretto/v2"

	"github.com/goldfish-gql/goldfish/internal/catalog"
	"github.com/goldfish-gql/goldfish/internal/config"
	"github.com/goldfish-gql/goldfish/internal/shapecache"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
)

// Config is a database's configuration (package config).
type Config = config.Config

// DefaultPlanCacheBytes is the plan cache's size when a Config gives none.
const DefaultPlanCacheBytes = values.DefaultPlanCacheBytes

// DB is a database: a set of named sessions.
type DB struct {
	cfg      Config
	mu       sync.Mutex
	sessions map[string]*Session
	// known are the sessions the cabinet holds (hydrated or not).
	known map[string]bool
	// cab is the cabinet; nil in memory.
	cab cabinet.Cabinet
	// hosts shares the sessions with other hosts (hosts.go); nil
	// unless the cabinet is PostgreSQL.
	hosts *hosts
	// catalog is the catalogue session (catalog.go); catq its queued changes.
	catalog *Session
	catq    catalog.Queue
	// plans caches parsed and planned texts by their exact text.
	plans *ristretto.Cache[string, *planner.Plan]
	// shapes caches Recall results by (session, version, token, options).
	shapes *shapecache.Cache
	// mem is the memory budget and the sessions it keeps resident
	// (memory.go); nil without a budget or without a cabinet.
	mem *memory

	// closed is set by Close; calls counts the calls in flight, which
	// Close waits for before it closes the cabinet and the caches.
	// closing is cancelled by Close as it begins, which stops the reads
	// in flight (closing.go); stopReads cancels it.
	closed    atomic.Bool
	closing   context.Context
	stopReads context.CancelCauseFunc
	calls     atomic.Int64
	closeOnce sync.Once
	closeErr  error
}

// enter admits a call, or refuses it once Close has begun; every admitted
// call must exit. A call admitted before Close finishes before Close
// closes anything, so it never meets a closed cabinet or cache. A call
// that comes once Close has begun is refused before it counts itself, so
// the count Close waits on drains however many refused calls arrive; the
// second check catches a call that counted itself just as Close began.
func (db *DB) enter() error {
	if db.closed.Load() {
		return ErrClosed
	}
	db.calls.Add(1)
	if db.closed.Load() {
		db.calls.Add(-1)
		return ErrClosed
	}
	return nil
}

func (db *DB) exit() { db.calls.Add(-1) }

// Open opens a database on the cabinet cfg names, in memory when it
// names none. Sessions in the cabinet are hydrated on first use.
func Open(cfg Config) (*DB, error) {
	if cfg.ReadOnly && (cfg.CabinetPath == "" || cfg.Shared != nil || cfg.Cabinet != nil) {
		return nil, errors.New("goldfish: WithReadOnly opens a cabinet file: give it WithCabinet, and neither a shared cabinet (PostgreSQL) nor memory")
	}
	if cfg.PlanBytes <= 0 {
		cfg.PlanBytes = DefaultPlanCacheBytes
	}
	plans, err := newPlanCache(cfg.PlanBytes)
	if err != nil {
		return nil, err
	}
	var shapes *shapecache.Cache
	if cfg.MemoryBudget > 0 && (cfg.CabinetPath != "" || cfg.Cabinet != nil || cfg.Shared != nil) {
		// Under a memory budget the Shape cache counts against it: it
		// may take a quarter (at least 1 MiB, so that a small budget
		// still caches), the resident sessions the rest.
		cfg.ShapeBytes = min(cfg.ShapeBytes, max(cfg.MemoryBudget/4, 1<<20))
	}
	if cfg.ShapeBytes > 0 {
		shapes, err = shapecache.New(cfg.ShapeBytes)
		if err != nil {
			return nil, err
		}
	}
	db := &DB{cfg: cfg, sessions: map[string]*Session{}, known: map[string]bool{}, plans: plans, shapes: shapes}
	db.closing, db.stopReads = context.WithCancelCause(context.WithValue(context.Background(), closingKey{}, db))
	db.catalog = newCatalog(db)
	if err := db.openCabinet(); err != nil {
		db.closeCaches()
		return nil, err
	}
	if cfg.MemoryBudget > 0 && db.cab != nil {
		db.mem = newMemory(db, cfg.MemoryBudget, shapes)
	}
	return db, nil
}

// Close refuses new calls (they get ErrClosed), stops the reads in
// flight (a Recall, a Graph, and for any call the hydration of a session
// a memory budget unloaded: they answer an error that is ErrClosed),
// waits for the calls in flight to return (a Commit among them either
// returns durable or fails as it would have anyway), saves what the
// agents of each session have read since the last save, waits for queued
// cabinet writes, closes the cabinet file and releases the caches. Every
// acknowledged Commit is already durable, so Close does not flush (call
// Flush first for a compact file). Closing again returns what the first
// Close returned.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		db.closed.Store(true)
		db.stopReads(errClosing)
		for wait := 50 * time.Microsecond; db.calls.Load() != 0; wait = min(2*wait, time.Millisecond) {
			time.Sleep(wait)
		}
		if db.cab != nil {
			db.closeErr = errors.Join(db.saveAttention(), db.cab.Close())
		}
		db.closeCaches()
	})
	return db.closeErr
}

func (db *DB) closeCaches() {
	db.plans.Close()
	if db.shapes != nil {
		db.shapes.Close()
	}
}

// MaxSessionName is the longest session name accepted.
const MaxSessionName = values.MaxSessionName

// Session returns the named session, creating it empty on first use. A
// session held in the cabinet is hydrated on its first use (snapshot plus
// log, which ctx bounds), and again after a memory budget unloaded it
// (WithMemoryBudget); a damaged one gives an error naming it. The call
// counts as a use of the session. CatalogName gives the catalogue, which
// takes Recall but refuses Commit.
func (db *DB) Session(ctx context.Context, name string) (*Session, error) {
	if err := values.ValidSessionName(name); err != nil {
		return nil, err
	}
	if err := db.enter(); err != nil {
		return nil, err
	}
	defer db.exit()
	if name == CatalogName {
		return db.catalog, nil
	}
	db.mu.Lock()
	s, ok := db.sessions[name]
	if !ok {
		s = newSession(db, name)
		db.sessions[name] = s
	}
	db.mu.Unlock()
	if m := db.mem; m != nil {
		m.use(s)
		defer m.done(s) // before exit: Close waits for the sweep
	}
	if !s.hydrated.Load() {
		if err := s.hydrateOnce(ctx); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Sessions lists the session names in order: those in the cabinet and
// those written in memory, not the catalogue, and not a name opened and
// never written (a read of it, or a first Commit that failed).
func (db *DB) Sessions() []string {
	db.mu.Lock()
	defer db.mu.Unlock()
	all := make(map[string]bool, len(db.known)+len(db.sessions))
	for n := range db.known {
		all[n] = true
	}
	for n, s := range db.sessions {
		if s.written() {
			all[n] = true
		}
	}
	return sortedKeys(all)
}
