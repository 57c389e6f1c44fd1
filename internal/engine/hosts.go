package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store/cabinet"
)

// Many hosts: with a shared cabinet (postgres.Cabinet) the sessions live in PostgreSQL
// and several processes, on one machine or many, serve them at once.
// Each host holds the sessions it uses in memory, as with a file, and
// keeps them exact:
//
//   - A Commit first reads what other hosts committed since this host's
//     version and replays it, then applies its Δ and claims the next
//     version in the table before publishing it. A claim another host
//     beat (the version is taken) writes nothing and applies nothing: the
//     host catches up again and plans the Δ again on the new state (a
//     MATCH binds against it), a bounded number of times with backoff,
//     then fails with 40001; from the third attempt on it waits its turn
//     at the session's row instead of racing. So no Commit overwrites or
//     loses another's, and no Δ applies twice.
//   - Other hosts' Commits reach this host by LISTEN/NOTIFY where the
//     server has it, else by polling every PollInterval; a Recall whose
//     knowledge of the session is older than that interval, or that a
//     notification made stale, catches up first.
//   - Versions are the log's, on every host: a Shape, plan or vocabulary
//     cached for version v of a session is the same on every host, and a
//     version that was never claimed was never readable.

// hosts is what a database on PostgreSQL keeps to share its sessions.
type hosts struct {
	db       *DB
	cab      cabinet.Shared
	interval time.Duration
	poll     bool
	retries  int
	// conflicts counts the claims another host beat (for tests).
	conflicts atomic.Int64
	// beforeClaim, when set (by tests), runs before each claim.
	beforeClaim func(session string, attempt int)
	// catVer is the version, and the version of the metadata, the
	// catalogue shows of each session not in use here (under db.mu).
	catVer map[string][2]uint64
}

// remoteState is what a session's host knows of the other hosts.
type remoteState struct {
	// marks counts the times a notification or a poll said another host
	// committed to the session after this host's version; caught is
	// the count a catch-up that began after them has read past. The
	// session is stale while they differ: until a catch-up is done, not
	// as soon as one begins.
	marks, caught atomic.Uint64
	// checked is when this host last read the session's head itself
	// (unix nanoseconds).
	checked atomic.Int64
	// catching: a catch-up of a notification runs in the background.
	catching atomic.Bool
	// version is the latest version this host knows the log holds: its
	// own claims and what it caught up with (so a notification of its
	// own Commit wakes nothing).
	version atomic.Uint64
}

func (r *remoteState) markStale()    { r.marks.Add(1) }
func (r *remoteState) isStale() bool { return r.marks.Load() != r.caught.Load() }

// sawVersion notes that the log holds version v.
func (r *remoteState) sawVersion(v uint64) {
	for cur := r.version.Load(); cur < v && !r.version.CompareAndSwap(cur, v); cur = r.version.Load() {
	}
}

// openShared opens the shared cabinet an option chose (the PostgreSQL
// package's) and the following of the other hosts.
func (db *DB) openShared() error {
	o := db.cfg.Shared
	if db.cfg.CabinetPath != "" {
		return fmt.Errorf("goldfish: give WithCabinet or %s, not both", o.Option)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cab, err := o.Open(ctx)
	if err != nil {
		return hostsError(err, "opening the database")
	}
	h := &hosts{db: db, cab: cab, interval: o.PollInterval, poll: o.Poll, retries: o.Retries, catVer: map[string][2]uint64{}}
	if h.interval <= 0 {
		h.interval = time.Second
	}
	if h.retries <= 0 {
		h.retries = 10
	}
	db.cab, db.hosts = cab, h
	return nil
}

// unloaded notes that a memory budget unloaded s (memory.go): from now
// on the catalogue follows the heads for it, as for a session not in use
// here, from the version it had. Called with s.hmu held.
func (h *hosts) unloaded(s *Session) {
	v := s.unloadedVersion.Load()
	h.db.mu.Lock()
	defer h.db.mu.Unlock()
	s.unloaded.Store(true)
	if !s.dropped.Load() {
		h.catVer[s.name] = [2]uint64{v, v}
	}
}

// rehydrated ends the hydration of an unloaded session (see
// Session.rehydrated): the load is what this host knows of the session
// at t0, and the catalogue, which followed heads read before the load,
// shows the version loaded unless it shows a later one.
func (h *hosts) rehydrated(s *Session, t0 time.Time, mark uint64) {
	snap := s.graph.Snapshot()
	s.remote.sawVersion(snap.Version())
	s.remote.caught.Store(mark)
	s.remote.checked.Store(t0.UnixNano())
	db := h.db
	db.mu.Lock()
	defer db.mu.Unlock()
	s.unloaded.Store(false)
	if s.dropped.Load() {
		return // by another host, seen while it loaded (onHeads)
	}
	if v := h.catVer[s.name]; snap.Version() > v[0] {
		h.catVer[s.name] = [2]uint64{snap.Version(), snap.Version()}
		db.catalogPut(cabinet.MetaOf(s.name, snap, s.lastCommit))
	}
}

// start follows the other hosts, from the sessions Open listed.
func (h *hosts) start(metas []cabinet.Meta) {
	h.db.mu.Lock()
	for _, m := range metas {
		h.catVer[m.Name] = [2]uint64{m.Version, m.Version}
	}
	h.db.mu.Unlock()
	h.cab.Watch(h.interval, !h.poll, h.onHeads)
}

// onHeads takes what the watcher read: the heads of the sessions asked
// for (all of them when asked is nil; a session without a head is
// gone). A session in use here that another host moved on is marked
// stale, and caught up in the background when hydrated; the catalogue
// follows the others, and the sessions a memory budget unloaded from the
// version they had on (never back: the heads may have been read before
// their last Commit here). An unloaded session another host dropped is
// let go at once, as a catch-up would let it go.
func (h *hosts) onHeads(asked []string, heads []cabinet.Head) {
	db := h.db
	byName := make(map[string]*cabinet.Head, len(heads))
	for i := range heads {
		byName[heads[i].Name] = &heads[i]
	}
	db.mu.Lock()
	names := asked
	if names == nil {
		for n := range byName {
			names = append(names, n)
		}
		for n := range db.known {
			if byName[n] == nil {
				names = append(names, n)
			}
		}
	}
	var wake []*Session
	for _, name := range names {
		hd := byName[name]
		if s := db.sessions[name]; s != nil {
			cur := s.remote.version.Load()
			switch {
			case hd == nil && cur == 0 && s.hydrated.Load():
				// never committed anywhere: nothing to learn
			case hd == nil || !s.hydrated.Load() || hd.Version > cur || hd.Gen != h.cab.Gen(name):
				s.remote.markStale()
				if s.hydrated.Load() {
					wake = append(wake, s)
				}
			}
			if !s.unloaded.Load() {
				continue
			}
			if known := h.cab.Gen(name); known != 0 && (hd == nil || hd.Gen != known) {
				// Dropped (and perhaps made again) by another host.
				h.cab.Forget(name)
				s.dropped.Store(true)
				delete(db.sessions, name)
				delete(h.catVer, name)
			} else if v := h.catVer[name]; hd != nil && (hd.Version < v[0] || hd.Version == v[0] && hd.MetaVersion <= v[1]) {
				continue
			}
		}
		if hd == nil {
			delete(h.catVer, name)
			if db.known[name] {
				delete(db.known, name)
				db.catalogDelete(name)
			}
			continue
		}
		db.known[name] = true
		if v, ok := h.catVer[name]; !ok || v != [2]uint64{hd.Version, hd.MetaVersion} {
			h.catVer[name] = [2]uint64{hd.Version, hd.MetaVersion}
			db.catalogPut(hd.Meta)
		}
	}
	db.mu.Unlock()
	for _, s := range wake {
		s.catchUpSoon()
	}
}

// catchUpSoon catches a hydrated session up in the background, so the
// next Recall finds it current.
func (s *Session) catchUpSoon() {
	if !s.remote.catching.CompareAndSwap(false, true) {
		return
	}
	if s.db.enter() != nil {
		s.remote.catching.Store(false)
		return
	}
	go func() {
		defer s.db.exit()
		defer s.remote.catching.Store(false)
		if !s.pin() {
			return // unloaded meanwhile: its next hydration reads the latest
		}
		defer s.unpin()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = s.fresh(ctx) // a failure leaves the session stale: the next Recall tries again
	}()
}

// knownAt is the time up to which this host knows every Commit of the
// session.
func (s *Session) knownAt() time.Time {
	t := s.db.hosts.cab.KnownAt()
	if c := time.Unix(0, s.remote.checked.Load()); c.After(t) {
		return c
	}
	return t
}

// fresh catches the session up before a read, when a notification made
// it stale or its knowledge is older than the poll interval.
func (s *Session) fresh(ctx context.Context) error {
	h := s.db.hosts
	if h == nil || s.catalog || s.blank {
		return nil
	}
	current := func() bool { return !s.remote.isStale() && time.Since(s.knownAt()) <= h.interval }
	if current() {
		return nil
	}
	if s.wmu.LockContext(ctx) != nil {
		return gqlstatus.Interrupted(ctx, "reading what other hosts committed to session "+strconv.Quote(s.name))
	}
	defer s.wmu.Unlock()
	if s.dropped.Load() {
		return s.errDropped()
	}
	if current() { // caught up while this call waited
		return nil
	}
	return s.catchUp(ctx)
}

// catchUp reads what other hosts committed after this host's version
// and replays it (or loads the session again, when a flush elsewhere
// trimmed the entries it needs), then publishes it. Called with s.wmu
// held.
func (s *Session) catchUp(ctx context.Context) error {
	t0, mark := time.Now(), s.remote.marks.Load() // before the read: a mark meanwhile stays
	local := s.graph.Snapshot().Version()
	u, err := s.db.hosts.cab.Since(ctx, s.name, local)
	if errors.Is(err, cabinet.ErrNoSession) && local == 0 {
		s.remote.caught.Store(mark)
		s.remote.checked.Store(t0.UnixNano())
		return nil
	}
	return s.apply(ctx, u, err, local, t0, mark)
}

// apply replays what Since (or Lock) read, given its error; t0 is when
// the read began, mark the stale marks counted then.
func (s *Session) apply(ctx context.Context, u *cabinet.Update, err error, local uint64, t0 time.Time, mark uint64) error {
	h := s.db.hosts
	switch {
	case errors.Is(err, cabinet.ErrNoSession), errors.Is(err, cabinet.ErrGone):
		s.goneRemote()
		return s.errDropped()
	case err != nil:
		return hostsError(err, "reading what other hosts committed to session "+strconv.Quote(s.name))
	}
	if u.Reload {
		img, err := h.cab.Load(s.name)
		if errors.Is(err, cabinet.ErrGone) || errors.Is(err, cabinet.ErrNoSession) {
			s.goneRemote()
			return s.errDropped()
		}
		if err != nil {
			return hostsError(err, "loading session "+strconv.Quote(s.name)+" again")
		}
		g, err := s.restore(ctx, img)
		if err != nil {
			return err
		}
		s.graph = g
		s.lastCommit = img.Meta.LastCommit
		s.snapVersion = img.Meta.SnapVersion
		s.logEntries, s.logBytes = int64(len(img.Log)), img.LogBytes
	} else {
		for _, e := range u.Entries {
			before := exec.Vocabulary(s.graph.Snapshot())
			change, err := replay(ctx, s.db, s.graph, e)
			if err != nil {
				s.publishCaughtUp(local)
				if ctx.Err() != nil {
					return gqlstatus.Interrupted(ctx, "reading what other hosts committed to session "+strconv.Quote(s.name))
				}
				return damaged(err, "session %q in %s: replaying version %d, which another host committed: %v",
					s.name, h.cab.Path(), e.Version, err)
			}
			s.noteCommit(before, exec.Vocabulary(s.graph.Snapshot()), e.Version, e.Agent)
			s.past.made(e, s.graph.Snapshot(), change) // another host's version is readable here too
			s.lastCommit = e.Time
		}
		s.snapVersion = max(s.snapVersion, u.SnapVersion)
		s.logEntries = int64(s.graph.Snapshot().Version() - min(s.snapVersion, s.graph.Snapshot().Version()))
		s.logBytes += u.LogBytes
	}
	s.publishCaughtUp(local)
	s.remote.sawVersion(s.graph.Snapshot().Version())
	s.remote.caught.Store(mark)
	s.remote.checked.Store(t0.UnixNano())
	return nil
}

// publishCaughtUp makes what a catch-up replayed readable (it is durable:
// another host committed it).
func (s *Session) publishCaughtUp(local uint64) {
	snap := s.graph.Snapshot()
	if snap.Version() == local {
		return
	}
	s.publish(pendingWrite{snap: snap, meta: cabinet.MetaOf(s.name, snap, s.lastCommit)})
	s.db.mu.Lock()
	if s.db.sessions[s.name] == s {
		s.db.known[s.name] = true
	}
	s.db.mu.Unlock()
}

// goneRemote lets go of a session another host dropped: its holders get
// ErrDropped, and the database's next Session call of the name starts
// from what the table holds. Called with s.wmu held.
func (s *Session) goneRemote() {
	db := s.db
	db.hosts.cab.Forget(s.name)
	s.dropped.Store(true)
	db.mu.Lock()
	if db.sessions[s.name] == s {
		delete(db.sessions, s.name)
	}
	delete(db.known, s.name)
	db.mu.Unlock()
	db.catalogDelete(s.name)
	// The name may have been created again: the catalogue shows it then.
	if db.enter() == nil {
		go func() {
			defer db.exit()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if heads, err := db.hosts.cab.Heads(ctx, []string{s.name}); err == nil {
				db.hosts.onHeads([]string{s.name}, heads)
			}
		}()
	}
}

// turnAfter is the attempt from which a write that keeps losing races
// takes a turn: it waits for the session's row instead (see
// postgres.Turn), so hosts committing back to back cannot starve it.
const turnAfter = 2

// hostsWrite runs write until the version it makes is claimed: it
// catches up first (from attempt turnAfter on, inside a turn), and write
// applies the change, calling claim with the new version before
// publishing it. A claim another host beat applies nothing: after a
// backoff, the next attempt catches up and write plans the change again
// on the new state. Past the retries it fails with 40001.
func (s *Session) hostsWrite(ctx context.Context, what string, e *cabinet.Entry, write func(claim func(uint64) error) error) error {
	h := s.db.hosts
	for attempt := 0; ; attempt++ {
		t0 := time.Now()
		var turn *cabinet.Turn
		if attempt >= turnAfter {
			mark := s.remote.marks.Load()
			local := s.graph.Snapshot().Version()
			t, u, err := h.cab.Lock(ctx, s.name, local)
			if !errors.Is(err, cabinet.ErrNoSession) {
				if err := s.apply(ctx, u, err, local, t0, mark); err != nil {
					if t != nil {
						t.Release()
					}
					return err
				}
				turn = t
			}
		}
		if turn == nil {
			if err := s.catchUp(ctx); err != nil {
				return err
			}
		}
		var claimErr error
		claimed := false
		err := write(func(v uint64) error {
			if h.beforeClaim != nil {
				h.beforeClaim(s.name, attempt)
			}
			e.Version, e.Time = v, time.Now().UTC()
			if turn != nil {
				claimErr = turn.Claim(ctx, *e)
			} else {
				claimErr = h.cab.Claim(ctx, s.name, *e)
			}
			claimed = claimErr == nil
			return claimErr
		})
		if turn != nil {
			turn.Release() // a no-op once claimed
		}
		if claimErr == nil {
			if err == nil && claimed {
				s.remote.sawVersion(e.Version)
				s.remote.checked.Store(t0.UnixNano())
			}
			return err
		}
		if errors.Is(claimErr, cabinet.ErrVersionTaken) {
			h.conflicts.Add(1)
		}
		switch {
		case errors.Is(claimErr, cabinet.ErrVersionTaken) && attempt < h.retries:
			if attempt+1 < turnAfter && cabinet.Sleep(ctx, conflictBackoff(attempt)) != nil {
				return gqlstatus.Interrupted(ctx, what).WithHint("nothing applied: another host kept committing to the session first; allow it more time")
			}
		case errors.Is(claimErr, cabinet.ErrVersionTaken):
			ge := gqlstatus.Errorf(gqlstatus.SerializationFailure,
				"session %q: another host committed to it first, %d times in a row, each time this %s was planned again; nothing applied", s.name, attempt+1, what).
				WithHint("try again later; many hosts writing one session at once take turns")
			ge.Cause = claimErr
			return ge
		case errors.Is(claimErr, cabinet.ErrGone):
			s.goneRemote()
			return s.errDropped()
		default:
			return hostsError(claimErr, "committing to session "+strconv.Quote(s.name))
		}
	}
}

// durableHosts is durable for a claimed version: the entry is written
// already; the metadata (for the catalogues) and the attention record
// follow, queued, and neither holds the Commit back.
func (s *Session) durableHosts(e cabinet.Entry) pendingWrite {
	snap := s.graph.Snapshot()
	s.lastCommit = e.Time
	w := pendingWrite{snap: snap, meta: cabinet.MetaOf(s.name, snap, e.Time), ticket: cabinet.NewTicket()}
	w.ticket.Finish(nil)
	s.logEntries++
	s.logBytes += int64(len(e.Text)) + 32
	s.saveAttention()
	s.db.hosts.cab.SetMeta(s.name, w.meta)
	return w
}

// conflictBackoff is the pause before the attempt after a lost race:
// doubling from 2ms up to 100ms, with jitter so that hosts that collided
// do not collide again.
func conflictBackoff(attempt int) time.Duration {
	d := min(2*time.Millisecond<<min(attempt, 6), 100*time.Millisecond)
	return d/2 + time.Duration(time.Now().UnixNano()%int64(d/2+1))
}

// hostsError gives a failure of the server or the connection its
// GQLSTATUS: 08Q04 when the server could not be reached (nothing
// applied), 40003 when a Commit's connection was lost on its way.
func hostsError(err error, doing string) error {
	var ge *gqlstatus.Error
	switch {
	case errors.As(err, &ge):
		return err
	case errors.Is(err, cabinet.ErrUnknown):
		ge = gqlstatus.Errorf(gqlstatus.CompletionUnknown, "%s: the connection to the server was lost while the Commit was on its way: it may or may not have been written (%v)", doing, err).
			WithHint("Recall the session to see whether it applied before committing it again")
	case errors.Is(err, cabinet.ErrUnavailable):
		ge = gqlstatus.Errorf(gqlstatus.CabinetUnavailable, "%s: %v", doing, err).
			WithHint("check that the server is running and reachable, then try again (goldfish reconnects by itself)")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		ge = gqlstatus.Errorf(gqlstatus.Rollback, "%s: %v", doing, err)
	default:
		return err
	}
	ge.Cause = err
	return ge
}

// HostConflicts returns how many claims of db another host beat (tests
// of many hosts read it).
func (db *DB) HostConflicts() int64 { return db.hosts.conflicts.Load() }

// SetBeforeClaim makes db call fn before each claim of a version (tests
// of many hosts use it to make races happen).
func (db *DB) SetBeforeClaim(fn func(session string, attempt int)) { db.hosts.beforeClaim = fn }
