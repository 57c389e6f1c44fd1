package goldfish

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/store/cabinet/postgres"
	"github.com/goldfish-gql/goldfish/vocab"
)

// Cabinet errors; match with errors.Is.
var (
	// ErrInUse: another process has the cabinet file open.
	ErrInUse = cabinet.ErrInUse
	// ErrDamaged: the cabinet file, or a session in it, fails its checks.
	ErrDamaged = cabinet.ErrDamaged
	// ErrNotDurable: a Commit applied in memory but could not be written to
	// the cabinet; the session refuses further Commits.
	ErrNotDurable = cabinet.ErrPoisoned
	// ErrDropped: the session was dropped; ask the DB for it again.
	ErrDropped = errors.New("goldfish: session was dropped")
)

// WithCabinet persists the database in the bbolt cabinet file at path
// (created if missing). Without it, Open gives an in-memory database.
func WithCabinet(path string) Option { return func(c *config) { c.cabinetPath = path } }

// withCabinetBackend persists the database in an already opened cabinet
// (a test double around a real one); Close closes it.
func withCabinetBackend(cab cabinet.Cabinet) Option { return func(c *config) { c.cabinet = cab } }

// WithAutoFlush sets when a session is flushed automatically: once its log
// after the last snapshot holds entries Δs or bytes bytes (defaults 4096
// and 4 MiB). Zero or negative values turn that trigger off.
func WithAutoFlush(entries int, bytes int64) Option {
	return func(c *config) { c.flushEntries, c.flushBytes = entries, bytes }
}

// replayBudget lets replay apply every logged Δ whatever budget the
// database is opened with now: each was within budget when committed.
var replayBudget = exec.Budget{Rows: math.MaxInt, Bytes: math.MaxInt}

// openCabinet opens the configured cabinet and builds the catalogue from
// its sessions' metadata (no session is hydrated).
func (db *DB) openCabinet() error {
	switch {
	case db.cfg.cabinet != nil:
		db.cab = db.cfg.cabinet
	case db.cfg.postgresURL != "":
		if err := db.openPostgres(); err != nil {
			return err
		}
	case db.cfg.cabinetPath != "":
		b, err := cabinet.Open(db.cfg.cabinetPath, nil)
		if err != nil {
			return err
		}
		db.cab = b
	default:
		return nil
	}
	metas, err := db.cab.Sessions()
	if err != nil {
		db.cab.Close()
		return err
	}
	for _, m := range metas {
		db.known[m.Name] = true
	}
	db.catalogLoad(metas)
	if db.hosts != nil {
		db.hosts.start(metas)
	}
	return nil
}

// hydrateOnce hydrates the session unless it is: the first caller does
// the work, bounded by its ctx; a caller whose ctx ends first (while
// hydrating or waiting for another's hydration) gets ctx's error and
// leaves the session to be hydrated by the next caller, as does any
// other failure that is not damage (a cabinet that cannot be reached);
// damage is remembered and given to every later caller.
func (s *Session) hydrateOnce(ctx context.Context) error {
	if s.hmu.LockContext(ctx) != nil {
		return gqlstatus.Interrupted(ctx, "opening session "+strconv.Quote(s.name))
	}
	defer s.hmu.Unlock()
	switch {
	case s.hydrated.Load():
		return nil
	case s.herr != nil:
		return s.herr
	}
	if err := s.hydrate(ctx); err != nil {
		if ctx.Err() == nil && errors.Is(err, cabinet.ErrDamaged) {
			s.herr = err
		}
		return err
	}
	s.hydrated.Store(true)
	if m := s.db.mem; m != nil && !s.catalog {
		if s.loaded {
			m.rehydrations.Add(1)
		}
		m.admit(s)
	}
	s.loaded = true
	return nil
}

// hydrate loads the session from the cabinet: its snapshot, then the log
// after it replayed through the planner and executor. Hydrating a session
// a memory budget unloaded keeps the agents' record it holds in memory,
// which is at least as new as the cabinet's.
func (s *Session) hydrate(ctx context.Context) error {
	cab := s.db.cab
	if cab == nil {
		s.setGraph(store.New())
		return nil
	}
	t0, mark := time.Now(), s.remote.marks.Load() // before the load: a mark meanwhile stays
	img, err := cab.Load(s.name)
	if errors.Is(err, cabinet.ErrNoSession) {
		s.setGraph(store.New())
		s.rehydrated(t0, mark)
		return nil
	}
	if s.db.hosts != nil && errors.Is(err, postgres.ErrGone) {
		// Another host dropped the session this host held, perhaps while
		// it was unloaded: its holders get ErrDropped, as they would
		// from a catch-up (postgres.go). No Commit runs on a session
		// being hydrated, so s.wmu is not needed.
		s.goneRemote()
		return s.errDropped()
	}
	if err != nil {
		return err
	}
	g, err := s.restore(ctx, img)
	if err != nil {
		return err
	}
	if img.Attention != nil && !s.loaded {
		if err := decodeAttention(img.Attention, s); err != nil {
			return fmt.Errorf("%w: session %q in %s: attention record: %v (restore the file from a backup)", cabinet.ErrDamaged, s.name, cab.Path(), err)
		}
	}
	s.setGraph(g)
	s.lastCommit = img.Meta.LastCommit
	s.snapVersion = img.Meta.SnapVersion
	s.logEntries = int64(len(img.Log))
	s.logBytes = img.LogBytes
	s.rehydrated(t0, mark)
	return nil
}

// rehydrated ends a hydration, first or after a memory budget unloaded
// the session, which read the cabinet at t0, when the session's stale
// marks numbered mark (postgres.go): with many hosts, the load is what
// this host knows of the others' Commits, and the catalogue, which may
// have followed older heads, shows it. Called with s.hmu held.
func (s *Session) rehydrated(t0 time.Time, mark uint64) {
	if h := s.db.hosts; h != nil {
		h.rehydrated(s, t0, mark)
		return
	}
	s.unloaded.Store(false)
}

// restore builds the graph a loaded image holds: its snapshot with its
// vocabulary decoded, then its log replayed, checked against its
// metadata's version.
func (s *Session) restore(ctx context.Context, img *cabinet.Image) (*store.Graph, error) {
	cab := s.db.cab
	g := img.Graph
	if raw, ok := g.Snapshot().Ext().(store.RawExt); ok {
		state, err := vocab.Decode(raw, s.db.actionDef)
		if err != nil {
			return nil, fmt.Errorf("%w: session %q in %s: the snapshot's vocabulary: %v (restore the file from a backup)",
				cabinet.ErrDamaged, s.name, cab.Path(), err)
		}
		g.SetExt(state)
	}
	for _, e := range img.Log {
		if err := replay(ctx, s.db, g, e); err != nil {
			if ctx.Err() != nil {
				return nil, gqlstatus.Interrupted(ctx, "opening session "+strconv.Quote(s.name))
			}
			return nil, fmt.Errorf("%w: session %q in %s: replaying version %d: %v (the log cannot be applied; restore the file from a backup)",
				cabinet.ErrDamaged, s.name, cab.Path(), e.Version, err)
		}
	}
	if v := g.Snapshot().Version(); v != img.Meta.Version {
		return nil, fmt.Errorf("%w: session %q in %s: hydrated version %d, metadata says %d", cabinet.ErrDamaged, s.name, cab.Path(), v, img.Meta.Version)
	}
	return g, nil
}

func replay(ctx context.Context, db *DB, g *store.Graph, e cabinet.Entry) error {
	want := g.Snapshot().Version() + 1
	if e.Version != want {
		return fmt.Errorf("entry is version %d, expected %d", e.Version, want)
	}
	switch e.Kind {
	case cabinet.EntryPurge:
		if _, v := purgeAll(g); v != want {
			return fmt.Errorf("purge made version %d", v)
		}
		return nil
	case cabinet.EntryDelta:
		plan, err := db.plan(e.Text)
		if err != nil {
			return err
		}
		res, err := exec.Commit(ctx, g, plan, e.Params, exec.CommitOptions{Mint: exec.Mint(e.Mint), Budget: replayBudget, Replay: true, Agent: e.Agent})
		if err != nil {
			return err
		}
		if !res.Applied || res.Version != want {
			return fmt.Errorf("replay made version %d (applied %v)", res.Version, res.Applied)
		}
		return nil
	case cabinet.EntryAbsorb:
		return replayAbsorb(ctx, g, e, want)
	}
	return fmt.Errorf("unknown entry kind %d", e.Kind)
}

// purgeAll removes every recycled element of g for good in one version;
// it returns how many it removed and the version after (unchanged if none).
func purgeAll(g *store.Graph) (int, uint64) {
	n, v, _ := purgeBefore(g, nil)
	return n, v
}

// purgeBefore is purgeAll, calling before (when set) with the new
// version before it is published: an error from it purges nothing.
func purgeBefore(g *store.Graph, before func(version uint64) error) (int, uint64, error) {
	tx := g.Begin()
	defer tx.Rollback()
	var ids []store.ID
	ws := tx.Snapshot()
	ws.ScanAllEdges(func(e *store.Edge) bool {
		if e.Recycled {
			ids = append(ids, e.ID)
		}
		return true
	})
	ws.ScanAllNodes(func(n *store.Node) bool {
		if n.Recycled {
			ids = append(ids, n.ID)
		}
		return true
	})
	if len(ids) == 0 {
		return 0, tx.Base().Version(), nil
	}
	for _, id := range ids {
		if err := tx.Purge(id); err != nil {
			panic(fmt.Sprintf("goldfish: purging recycled element %d: %v", id, err)) // a store bug
		}
	}
	if before != nil {
		if err := before(tx.Base().Version() + 1); err != nil {
			return 0, tx.Base().Version(), err
		}
	}
	return len(ids), tx.Commit().Version(), nil
}

// errDropped is the error of a call on a session after it was dropped:
// nothing of the dropped session is served again, not even to a holder
// of its *Session.
func (s *Session) errDropped() error {
	return fmt.Errorf("%w: %q; ask the database for the session again to get a new, empty one", ErrDropped, s.name)
}

// refuseWrite says why s takes no Commit; nil if it does. Called with
// s.wmu held.
func (s *Session) refuseWrite() error {
	switch {
	case s.catalog:
		return gqlstatus.Errorf(gqlstatus.ReadOnlySession, "the %s session is kept by the engine and is not a Commit target; nothing applied", CatalogName).
			WithHint("read it with Recall, e.g. MATCH (s:SESSION) LIMIT 4; commit to a session of your own")
	case s.dropped.Load():
		return s.errDropped()
	case s.poisoned != nil:
		return fmt.Errorf("session %q refuses Commits: %w; reopen the database to continue from the last durable version", s.name, s.poisoned)
	}
	return nil
}

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
// did for the cabinet. Called with s.wmu held, right after the version
// was made; await then waits for it and publishes it to readers.
func (s *Session) durable(e cabinet.Entry) pendingWrite {
	if s.db.hosts != nil {
		return s.durableHosts(e) // written already, by the claim (postgres.go)
	}
	snap := s.graph.Snapshot()
	e.Version = snap.Version()
	e.Time = time.Now().UTC()
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
		if s.db.sessions[s.name] == s {
			s.db.known[s.name] = true
		}
		s.db.mu.Unlock()
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
	s.db.catalogPut(w.meta)
}

func (s *Session) maybeAutoFlush() {
	cfg := s.db.cfg
	s.wmu.Lock()
	due := (cfg.flushEntries > 0 && s.logEntries >= int64(cfg.flushEntries)) ||
		(cfg.flushBytes > 0 && s.logBytes >= cfg.flushBytes)
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

// Flush writes a compact snapshot of the session to the cabinet and trims
// its log; hydrating then needs no replay. It also saves what the agents
// have read, if that changed. It is a no-op in memory, for the catalogue,
// and when nothing was committed or read since the last flush.
func (s *Session) Flush(ctx context.Context) error {
	if err := s.begin(ctx); err != nil {
		return err
	}
	defer s.end()
	return s.flush(ctx)
}

func (s *Session) flush(ctx context.Context) error {
	if s.db.cab == nil || s.catalog {
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
	if snap.Version() == s.snapVersion {
		s.wmu.Unlock()
		return waitAttention(s.name, attn)
	}
	m := cabinet.MetaOf(s.name, snap, s.lastCommit)
	before := s.logEntries
	s.wmu.Unlock()
	// Encoding and writing run without the session lock: Commits go on;
	// the cabinet orders the flush after the entries it covers.
	if err := s.db.cab.Flush(s.name, snap, m); err != nil {
		return err
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

// Purge removes the session's recycled elements for good (SPEC §7: never
// done by a Recall). It is durable like a Commit and, when it removed
// anything, makes a new version. It returns the number removed.
func (s *Session) Purge(ctx context.Context) (int, error) {
	if err := s.begin(ctx); err != nil {
		return 0, err
	}
	defer s.end()
	if s.wmu.LockContext(ctx) != nil {
		return 0, gqlstatus.Interrupted(ctx, "Purge").WithHint("nothing was purged; allow the call more time")
	}
	if err := s.refuseWrite(); err != nil {
		s.wmu.Unlock()
		return 0, err
	}
	e := cabinet.Entry{Kind: cabinet.EntryPurge}
	var n int
	if s.db.hosts != nil {
		var err error
		if n, err = s.purgeHosts(ctx, &e); err != nil { // claims the version (postgres.go)
			s.wmu.Unlock()
			return 0, err
		}
	} else {
		n, _ = purgeAll(s.graph)
	}
	if n == 0 {
		s.wmu.Unlock()
		return 0, nil
	}
	s.compactIfShrunk()
	w := s.durable(e)
	s.wmu.Unlock()
	return n, s.await(w)
}

// compactIfShrunk replaces the session's graph by a compact copy when
// most of the node slots it handed out belong to purged nodes: the store
// keeps a purged node's slot record, and interned strings, until then,
// so an emptied session would otherwise keep the memory of its largest
// size. Called with s.wmu held, before the purge's version is published
// (readers hold the old graph's snapshots, which stay valid).
func (s *Session) compactIfShrunk() {
	snap := s.graph.Snapshot()
	// A purge leaves no recycled element: the live nodes are all it holds.
	if snap.SlotCount() <= 2*snap.NodeCount()+1024 {
		return
	}
	g, err := snap.Compact()
	if err != nil {
		panic(fmt.Sprintf("goldfish: compacting session %q: %v", s.name, err)) // the graph broke its own invariants: a store bug
	}
	s.graph = g
}

// Flush flushes every session in use (see Session.Flush): those a memory
// budget unloaded are left as they are (each was flushed before it was
// unloaded if its log was long).
func (db *DB) Flush(ctx context.Context) error {
	if err := db.enter(); err != nil {
		return err
	}
	defer db.exit()
	db.mu.Lock()
	list := make([]*Session, 0, len(db.sessions))
	for _, s := range db.sessions {
		list = append(list, s)
	}
	db.mu.Unlock()
	var errs []error
	for _, s := range list {
		if !s.pin() {
			continue // being hydrated, failed to be, or unloaded
		}
		if err := s.flush(ctx); err != nil && !errors.Is(err, ErrDropped) {
			errs = append(errs, err)
		}
		s.unpin()
	}
	return errors.Join(errs...)
}

// Drop removes a session for good: from memory, from the cabinet and from
// the catalogue. Holders of the old *Session get ErrDropped on Commit.
func (db *DB) Drop(ctx context.Context, name string) error {
	if err := ValidSessionName(name); err != nil {
		return err
	}
	if name == CatalogName {
		return gqlstatus.Errorf(gqlstatus.ReadOnlySession, "the %s session is kept by the engine and cannot be dropped", CatalogName)
	}
	if err := db.enter(); err != nil {
		return err
	}
	defer db.exit()
	if err := ctx.Err(); err != nil {
		return err
	}
	var release *Session
	defer func() {
		if release != nil {
			db.mem.unload(release) // after db.mu: nothing of it is served again
		}
	}()
	// With many hosts, a session another host made a moment ago may not
	// have reached this host's catalogue yet: the cabinet says whether it
	// is there (read before db.mu, which a query must not hold).
	elsewhere := false
	if db.hosts != nil {
		db.mu.Lock()
		_, local := db.sessions[name]
		local = local || db.known[name]
		db.mu.Unlock()
		if !local {
			metas, err := db.cab.Sessions()
			if err != nil {
				return hostsError(err, "dropping session "+name)
			}
			for _, m := range metas {
				elsewhere = elsewhere || m.Name == name
			}
		}
	}
	db.mu.Lock()
	s := db.sessions[name]
	if s == nil && !db.known[name] && !elsewhere {
		db.mu.Unlock()
		return gqlstatus.Errorf(gqlstatus.InvalidReference, "there is no session %q to drop", name).
			WithHint("list the sessions (gqlsh :sessions); names are case-sensitive")
	}
	for {
		if s != nil {
			// A write in flight finishes first. Not under db.mu: a
			// catch-up of other hosts' Commits holds s.wmu and then
			// takes db.mu. A caller that gets s from Session meanwhile
			// finds it dropped, as if it had come just before the drop.
			db.mu.Unlock()
			s.wmu.Lock()
			s.dropped.Store(true)
			s.wmu.Unlock()
			db.mu.Lock()
		}
		// A Session call made the name again meanwhile: that one goes
		// too, as it would had it come before the drop.
		if now := db.sessions[name]; now != s && now != nil {
			s = now
			continue
		}
		break
	}
	defer db.mu.Unlock()
	if s != nil {
		if db.sessions[name] == s {
			delete(db.sessions, name)
		}
		if db.mem != nil {
			release = s
		}
	}
	delete(db.known, name)
	if db.cab != nil {
		if err := db.cab.Drop(name); err != nil {
			return err
		}
	}
	db.catalogDelete(name)
	return nil
}

// KindCount is the number of live nodes of one kind.
type KindCount struct {
	Kind  string
	Count int
}

// SessionInfo describes one session without hydrating it.
type SessionInfo struct {
	Name       string
	Version    uint64
	Nodes      int
	Edges      int
	Recycled   int
	Kinds      []KindCount // live nodes per kind, sorted by kind
	LastCommit time.Time   // zero if never committed (or in memory before any commit)
	Persisted  bool        // the cabinet holds it
}

// SessionInfos lists the sessions (not the catalogue) with their version
// and counts, from the catalogue: no session is hydrated.
func (db *DB) SessionInfos() []SessionInfo {
	names := db.Sessions()
	snap := db.catalog.snapshot()
	db.mu.Lock()
	defer db.mu.Unlock()
	out := make([]SessionInfo, 0, len(names))
	for _, name := range names {
		info := SessionInfo{Name: name, Persisted: db.known[name]}
		if n, ok := snap.Node(catalogID(name)); ok {
			info = infoOf(n, info.Persisted)
		}
		out = append(out, info)
	}
	return out
}

// Backup writes a consistent copy of the cabinet file to path while the
// database stays in use (bbolt's hot backup). It fails in memory.
func (db *DB) Backup(path string) error {
	if err := db.enter(); err != nil {
		return err
	}
	defer db.exit()
	b, ok := db.cab.(interface{ Backup(string) error })
	if !ok {
		return fmt.Errorf("goldfish: this database has no cabinet file to back up")
	}
	return b.Backup(path)
}

// CabinetPath returns the cabinet's path, or "" in memory.
func (db *DB) CabinetPath() string {
	if db.cab == nil {
		return ""
	}
	return db.cab.Path()
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// actionDef plans a CREATE ACTION statement read back from a snapshot's
// vocabulary into its definition.
func (db *DB) actionDef(source string) (vocab.ActionDef, error) {
	plan, err := db.plan(source)
	if err != nil {
		return vocab.ActionDef{}, err
	}
	if len(plan.Stmts) != 1 || plan.Stmts[0].Define == nil || !plan.Stmts[0].Define.Action || plan.Stmts[0].Define.Drop {
		return vocab.ActionDef{}, fmt.Errorf("not one CREATE ACTION statement")
	}
	return plan.Stmts[0].Define.Def, nil
}
