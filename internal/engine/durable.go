package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
)

// setGraph makes g the session's state, all of it readable (hydrate: what
// the cabinet holds is durable).
func (s *Session) setGraph(g *store.Graph) {
	s.graph = g
	s.readable.Store(g.Snapshot())
}

// pendingWrite is a Commit (or purge) applied in memory whose log entry
// is on its way to the cabinet.
type pendingWrite struct {
	snap   *store.Snapshot // the version it made
	meta   cabinet.Meta
	ticket *cabinet.Ticket // nil in memory
}

// durable queues what the Commit (or purge) that made the current version
// did for the cabinet; change is what it did, for the list of versions.
// Called with s.wmu held, right after the version was made; await then
// waits for it and publishes it to readers.
func (s *Session) durable(e cabinet.Entry, change *versionChange) pendingWrite {
	if s.db.hosts != nil {
		s.past.made(e, s.graph.Snapshot(), change)
		return s.durableHosts(e) // written already, by the claim (hosts.go)
	}
	snap := s.graph.Snapshot()
	e.Version = snap.Version()
	e.Time = time.Now().UTC()
	s.past.made(e, snap, change)
	s.lastCommit = e.Time
	w := pendingWrite{snap: snap, meta: cabinet.MetaOf(s.name, snap, e.Time)}
	if s.db.cab != nil {
		s.logEntries++
		s.logBytes += int64(len(e.Text)) + 32
		// Queued first, the attention record is durable when the entry
		// is: what the agents had read never lags behind a Commit. A
		// failed save fails the entry's write too (the cabinet poisons
		// the session), so its error reaches this Commit.
		s.saveAttention()
		w.ticket = s.db.cab.Append(s.name, e, w.meta)
	}
	return w
}

// await waits until a queued write is durable, then publishes its version
// to readers and to the catalogue; a failure poisons the session, and
// readers stay on the last durable version.
func (s *Session) await(w pendingWrite) error {
	if w.ticket != nil {
		if err := w.ticket.Wait(); err != nil {
			s.wmu.Lock()
			if s.poisoned == nil {
				s.poisoned = err
			}
			s.wmu.Unlock()
			return fmt.Errorf("%w (the change is applied in memory but not on disk; this session refuses further Commits)", err)
		}
	}
	s.publish(w)
	if w.ticket != nil {
		s.db.mu.Lock()
		known := s.db.known[s.name]
		if s.db.sessions[s.name] == s {
			s.db.known[s.name] = true
		}
		s.db.mu.Unlock()
		if m := s.db.mem; m != nil && !known {
			m.countFixed() // a session new to the cabinet holds its name and catalogue node
		}
		s.maybeAutoFlush()
	}
	return nil
}

// publish makes a durable version readable, unless a later one already
// is: group commit wakes the waiters of one fsync in any order.
func (s *Session) publish(w pendingWrite) {
	s.durableMu.Lock()
	defer s.durableMu.Unlock()
	if cur := s.readable.Load(); cur != nil && cur.Version() >= w.snap.Version() {
		return
	}
	s.readable.Store(w.snap)
	if !s.dropped.Load() {
		s.db.catalogPut(w.meta)
	}
}

func (s *Session) maybeAutoFlush() {
	cfg := s.db.cfg
	s.wmu.Lock()
	due := (cfg.FlushEntries > 0 && s.logEntries >= int64(cfg.FlushEntries)) ||
		(cfg.FlushBytes > 0 && s.logBytes >= cfg.FlushBytes)
	s.wmu.Unlock()
	if due && s.flushing.CompareAndSwap(false, true) {
		if s.db.enter() != nil {
			s.flushing.Store(false)
			return
		}
		go func() {
			defer s.db.exit()
			defer s.flushing.Store(false)
			if !s.pin() {
				return // unloaded meanwhile: its log is durable, its next hydration replays it
			}
			defer s.unpin()
			_ = s.flush(context.Background()) // a failure leaves the log; the next trigger retries
		}()
	}
}

// Flush writes a compact snapshot of the session to the cabinet; hydrating
// then replays only the log after it, and the log it covers stays as the
// session's history, as the history setting says (history.go). It also
// saves what the agents have read, if that changed. It is a no-op in
// memory, for the catalogue, on a database opened read-only, and when
// nothing was committed or read since the last flush.
func (s *Session) Flush(ctx context.Context) error {
	if err := s.begin(ctx); err != nil {
		return err
	}
	defer s.end()
	return s.flush(ctx)
}

func (s *Session) flush(ctx context.Context) error { return s.flushCut(ctx, false) }

// flushCut is flush; cut flushes even when the snapshot is current, for
// a Purge's cut of the history (history.go).
func (s *Session) flushCut(ctx context.Context, cut bool) error {
	if s.db.cab == nil || s.catalog || s.db.cfg.ReadOnly {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.wmu.Lock()
	if s.dropped.Load() {
		s.wmu.Unlock()
		return s.errDropped()
	}
	if s.poisoned != nil {
		s.wmu.Unlock()
		return fmt.Errorf("session %q cannot be flushed: %w", s.name, s.poisoned)
	}
	snap := s.graph.Snapshot()
	var attn *cabinet.Ticket
	if snap.Version() > 0 {
		attn = s.saveAttention()
	}
	if snap.Version() == s.snapVersion && !cut {
		s.wmu.Unlock()
		return waitAttention(s.name, attn)
	}
	m := cabinet.MetaOf(s.name, snap, s.lastCommit)
	before := s.logEntries
	s.wmu.Unlock()
	base := s.flushBase(ctx, snap)
	// Encoding and writing run without the session lock: Commits go on;
	// the cabinet orders the flush after the entries it covers.
	if err := s.db.cab.Flush(s.name, snap, m, base); err != nil {
		return err
	}
	if base != nil && base.Version() > s.historyFrom.Load() {
		s.historyFrom.Store(min(base.Version(), snap.Version()))
		s.older.reset()
	}
	if err := waitAttention(s.name, attn); err != nil {
		return err
	}
	s.wmu.Lock()
	if snap.Version() > s.snapVersion {
		trimmed := int64(snap.Version() - s.snapVersion)
		s.snapVersion = snap.Version()
		s.logEntries = max(0, s.logEntries-trimmed)
		if before > 0 {
			s.logBytes = s.logBytes * s.logEntries / max(before, s.logEntries+1)
		}
	}
	s.wmu.Unlock()
	return nil
}
