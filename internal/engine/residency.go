package engine

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/internal/shapecache"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// A memory budget (docs/design.md#interfaces): a database on a cabinet holds many sessions
// in one process, and the ones nobody uses need not stay in memory. Under
// a budget, once the resident sessions' estimated memory is over it, the
// idle ones are unloaded, least recently used first, and hydrated again
// by their next use.
//
// The protocol, which no call in flight can race:
//
//   - Every call on a session holds it resident while it runs: it counts
//     itself in the session's uses, then, when the session is unloaded,
//     hydrates it again (hydrateOnce). Its use is stamped with the
//     database's memory clock, which orders the sessions for eviction.
//   - The unloader takes the session's hydration and write locks without
//     waiting, marks it unhydrated, and only then reads its uses: a call
//     that counted itself before sees the session hydrated and is seen
//     by the unloader, which gives up; one that counts itself after sees
//     it unhydrated and waits for the hydration lock, then hydrates.
//     (Both sides are sequentially consistent atomics: one of them always
//     sees the other.)
//   - Unloading releases the graph, the readable snapshot, the peaks and
//     the vocabulary's evaluation. It keeps the attention record (what
//     the agents have read, the Recall count, the salience marks and the
//     settings: small, bounded by MaxAgents, and never a version of the
//     graph, so keeping it makes an unload no write and loses no read)
//     and the *Session itself, so a caller's handle stays valid and the
//     catalogue complete.
//   - The session takes a new incarnation, so its Shape cache entries are
//     never served again: its next hydration reads whatever the cabinet
//     holds now (on PostgreSQL, another host may have dropped the session
//     and made it again at the same version meanwhile).

// MemoryStats returns the database's resident sessions and their
// estimated memory, and how many sessions the budget unloaded. Under a
// budget the estimate counts too what every session holds while it is
// unloaded (memory_fixed.go), which stays resident.
func (db *DB) MemoryStats() values.MemoryStats {
	m := db.mem
	if m == nil {
		// No budget: nothing is tracked, so the sessions are counted.
		var st values.MemoryStats
		db.mu.Lock()
		defer db.mu.Unlock()
		for _, s := range db.sessions {
			if snap := s.readable.Load(); snap != nil && s.hydrated.Load() {
				st.ResidentSessions++
				st.ResidentBytes += sessionBytes(snap)
			}
		}
		return st
	}
	m.mu.Lock()
	n := len(m.resident)
	m.mu.Unlock()
	m.countFixed()
	return values.MemoryStats{Budget: m.budget, ResidentSessions: n, ResidentBytes: m.bytes.Load() + m.fixed.Load(), ShapeCacheBytes: m.shapeBytes(),
		Unloads: m.unloads.Load(), Rehydrations: m.rehydrations.Load()}
}

// The estimate of a resident session's memory: what the store spends on
// a node (its slot record, labels, a nick and a few short properties,
// its entries in the indexes) and on an edge (its record and both
// adjacency entries), and on an empty session (12 KiB: its trees, slot
// table and records; 16 KiB before the store's trees dropped their free
// lists and its slot table its 2 KB leaves, TestMemoryEstimateWithinLiveHeap).
// Purged nodes keep their slots until the session is compacted, so slots
// are counted, not live nodes; recycled elements are still held.
const (
	sessionBaseBytes = 12 << 10
	nodeBytes        = 1100
	edgeBytes        = 220
)

// sessionBytes estimates the memory a session at snap holds.
func sessionBytes(snap *store.Snapshot) int64 {
	return sessionBaseBytes + nodeBytes*int64(snap.SlotCount()) + edgeBytes*int64(snap.EdgeCount()+snap.RecycledCount())
}

// unloadFlushEntries and unloadFlushBytes: a session whose log after its
// snapshot holds this many entries or bytes is flushed before it is
// unloaded. Hydrating replays each entry through the planner and the
// executor, which costs far more per element than decoding a snapshot;
// a session unloaded and used again often would pay for its log each
// time, while a short log costs less to replay than a flush to write.
const (
	unloadFlushEntries = 64
	unloadFlushBytes   = 64 << 10
)

// memory is a database's budget and its resident sessions.
type memory struct {
	db     *DB
	budget int64
	// bytes is the sum of the resident sessions' estimates (Session.est),
	// fixed what all the sessions hold resident or not (memory_fixed.go).
	bytes, fixed atomic.Int64
	// clock numbers the uses of sessions: a session's lastUse is the
	// clock at its latest use.
	clock                 atomic.Uint64
	unloads, rehydrations atomic.Uint64
	mu                    sync.Mutex // guards resident
	resident              map[*Session]struct{}
	// sweeping lets one sweep run at a time; buf is its list. sweepAgain
	// asks the sweep running for another pass: a call that found it
	// running accounted bytes it may not have seen.
	sweeping   sync.Mutex
	sweepAgain atomic.Bool
	buf        []*Session
	// shapes is the database's Shape cache, whose bytes count too.
	shapes *shapecache.Cache
}

func newMemory(db *DB, budget int64, shapes *shapecache.Cache) *memory {
	m := &memory{db: db, budget: budget, resident: map[*Session]struct{}{}, shapes: shapes}
	m.countFixed()
	return m
}

// shapeBytes is what the Shape cache holds now (0 without one).
func (m *memory) shapeBytes() int64 {
	if m.shapes == nil {
		return 0
	}
	return m.shapes.Bytes()
}

// begin admits a call on s (see DB.enter) and, under a memory budget,
// holds s resident until the call ends, hydrating it again when it was
// unloaded; Close stops the hydration (it has changed nothing yet),
// whatever the call. Every call begin admits must end.
func (s *Session) begin(ctx context.Context) error {
	if err := s.db.enter(); err != nil {
		return err
	}
	m := s.db.mem
	if m == nil || s.catalog || s.blank {
		return nil
	}
	m.use(s)
	if s.hydrated.Load() {
		return nil
	}
	var err error
	if s.dropped.Load() {
		err = s.errDropped() // nothing of a dropped session is loaded again
	} else {
		hctx, release := s.db.reading(ctx)
		err = s.hydrateOnce(hctx)
		release()
		if hctx != ctx { // else the read that merged says what Close stopped
			err = s.db.closedUnder(ctx, err, "opening session "+strconv.Quote(s.name))
		}
	}
	if err != nil {
		s.uses.Add(-1)
		s.db.exit()
	}
	return err
}

// end ends a call begin admitted: the session's estimate is brought up
// to date while the call still holds it, then, over the budget, idle
// sessions are unloaded.
func (s *Session) end() {
	if m := s.db.mem; m != nil && !s.catalog && !s.blank {
		m.done(s)
	}
	s.db.exit()
}

// use counts a call on s and stamps its use.
func (m *memory) use(s *Session) {
	s.uses.Add(1)
	s.lastUse.Store(m.clock.Add(1))
}

// done ends a use of s (see end).
func (m *memory) done(s *Session) {
	if s.hydrated.Load() && m.account(s) {
		m.countFixed() // a Commit moved the session: it may be new to the cabinet
	}
	s.uses.Add(-1)
	if m.over() {
		m.sweep(s)
	}
}

// account brings s's estimate up to date, and reports whether it moved;
// called while a use, or the hydration lock, keeps s resident.
func (m *memory) account(s *Session) bool {
	snap := s.readable.Load()
	if snap == nil {
		return false
	}
	if est := sessionBytes(snap) + s.past.bytes() + s.older.ownBytes() + s.indexBytes(); s.est.Load() != est {
		m.bytes.Add(est - s.est.Swap(est))
		return true
	}
	return false
}

// admit counts a session that has just been hydrated as resident.
// Called with s.hmu held.
func (m *memory) admit(s *Session) {
	m.mu.Lock()
	m.resident[s] = struct{}{}
	m.mu.Unlock()
	m.account(s)
	m.countFixed()
}

// pin holds s resident for work of the engine's own (a background flush
// or catch-up, DB.Flush): false, holding nothing, when s is not hydrated
// (such work has nothing to do on an unloaded session).
func (s *Session) pin() bool {
	if s.db.mem == nil || s.catalog {
		return s.hydrated.Load()
	}
	s.uses.Add(1)
	if s.hydrated.Load() {
		return true
	}
	s.uses.Add(-1)
	return false
}

// unpin lets go of what pin held. Over the budget, it sweeps: a session
// the work held resident while a call swept stays loaded otherwise until
// the next call ends, however long the database is idle.
func (s *Session) unpin() {
	if m := s.db.mem; m != nil && !s.catalog {
		if s.hydrated.Load() {
			m.account(s) // a flush may have changed what the session keeps
		}
		s.uses.Add(-1)
		if m.over() {
			m.sweep(nil)
		}
	}
}

// sweep unloads idle sessions, least recently used first, until the
// resident ones fit the budget with a sixteenth of it to spare, so that
// the sweeps, which sort the resident sessions, are not one per
// hydration; self, the session of the call that sweeps, is kept. A
// sweep already running does the work for everyone.
func (m *memory) sweep(self *Session) {
	for {
		if !m.sweeping.TryLock() {
			// The sweep running goes again for this one: it may have
			// counted the bytes before this call's account.
			m.sweepAgain.Store(true)
			if m.sweeping.TryLock() { // it ended meanwhile: sweep here
				m.sweepOnce(self)
				m.sweeping.Unlock()
			}
			return
		}
		m.sweepAgain.Store(false)
		m.sweepOnce(self)
		m.sweeping.Unlock()
		if !m.sweepAgain.Load() || !m.over() {
			return
		}
	}
}

// sweepOnce is one pass of sweep, with m.sweeping held.
func (m *memory) sweepOnce(self *Session) {
	// The Shape cache's bytes count against the budget, as does what
	// every session holds unloaded: the resident sessions have what they
	// leave (WithMemoryBudget bounds the cache to a quarter).
	m.countFixed()
	low := m.budget - m.budget/16 - m.shapeBytes() - m.fixed.Load()
	m.mu.Lock()
	list := m.buf[:0]
	for s := range m.resident {
		list = append(list, s)
	}
	m.mu.Unlock()
	slices.SortFunc(list, func(a, b *Session) int {
		x, y := a.lastUse.Load(), b.lastUse.Load()
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	for _, s := range list {
		if m.bytes.Load() <= low {
			break
		}
		if s != self {
			m.unload(s)
		}
	}
	clear(list)
	m.buf = list[:0]
}

// unload releases an idle session's memory; false when it is not idle (a
// call holds it, it is being hydrated, a write holds its lock) or cannot
// be unloaded now (its Commits are refused after a failed write: what it
// holds in memory is ahead of the cabinet).
func (m *memory) unload(s *Session) bool {
	if s.uses.Load() != 0 {
		return false
	}
	if s.longLog() && s.pin() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_ = s.flush(ctx) // a failure leaves the log: the next hydration replays it
		cancel()
		s.unpin()
	}
	if !s.hmu.TryLock() {
		return false
	}
	defer s.hmu.Unlock()
	if !s.hydrated.Load() || !s.wmu.TryLock() {
		return false
	}
	if s.poisoned != nil {
		s.wmu.Unlock()
		return false
	}
	s.hydrated.Store(false)
	if s.uses.Load() != 0 {
		s.hydrated.Store(true) // a call came: it found s hydrated
		s.wmu.Unlock()
		return false
	}
	s.release()
	s.wmu.Unlock()
	if h := s.db.hosts; h != nil {
		h.unloaded(s) // takes db.mu, which is never taken after s.wmu here
	} else {
		s.unloaded.Store(true)
	}
	m.bytes.Add(-s.est.Swap(0))
	m.mu.Lock()
	delete(m.resident, s)
	m.mu.Unlock()
	m.unloads.Add(1)
	return true
}

// longLog reports whether s's log after its snapshot is long enough to
// flush before an unload.
func (s *Session) longLog() bool {
	if s.db.cab == nil || !s.wmu.TryLock() {
		return false
	}
	defer s.wmu.Unlock()
	return s.logEntries >= unloadFlushEntries || s.logBytes >= unloadFlushBytes
}

// release lets go of an idle session's graph and what is derived from
// it. Called by unload with s.hmu and s.wmu held and no call on s.
func (s *Session) release() {
	snap := s.readable.Load()
	s.unloadedVersion.Store(snap.Version())
	// The views' values as last evaluated: the next evaluation, after
	// the next hydration, starts from them as it would from the cached
	// one, so it finds the same changes.
	if cur := s.vocab.cur.Load(); cur != nil {
		s.attn.base = cur.seen
	}
	s.vocab.cur.Store(nil)
	s.peaks = exec.PeakCache{}
	s.graph = nil
	s.readable.Store(nil)
	s.past.reset()
	s.older.reset()
	s.hidx.Store(nil)
	if s.db.shapes != nil {
		s.db.shapes.Forget(s.incarnation) // never served again
	}
	s.incarnation = incarnations.Add(1)
}
