package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/internal/catalog"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/vocab"
)

// The database's errors (the facade's Err… values); match with
// errors.Is.
var (
	// ErrInUse: another process has the cabinet file open.
	ErrInUse = cabinet.ErrInUse
	// ErrDamaged: the cabinet file, or a session in it, fails its checks.
	ErrDamaged = cabinet.ErrDamaged
	// ErrNotDurable: a Commit applied in memory but could not be written to
	// the cabinet; the session refuses further Commits.
	ErrNotDurable = cabinet.ErrPoisoned
	// ErrDropped: the session was dropped; ask the DB for it again.
	ErrDropped = values.ErrDropped
	// ErrCabinetUnavailable: the cabinet's server (PostgreSQL) could not
	// be reached; nothing was applied, and the call may be made again.
	ErrCabinetUnavailable = cabinet.ErrUnavailable
	// ErrClosed is returned by every call on a database, or on a session
	// of it, after Close.
	ErrClosed = errors.New("goldfish: the database is closed")
	// ErrReadOnly: a write to a database opened read-only.
	ErrReadOnly = cabinet.ErrReadOnly
)

// errReadOnly is the refusal of a write to a database opened read-only
// (25006): what, e.g. "Commit", is what was refused.
func (db *DB) errReadOnly(what string) error {
	return &gqlstatus.Error{Code: gqlstatus.ReadOnlyCabinet,
		Msg:  fmt.Sprintf("the cabinet %s is open read-only (gqlsh --read-only): %s refused, nothing applied", db.cab.Path(), what),
		Hint: "open it without --read-only to commit (in Go: without WithReadOnly)", Cause: fmt.Errorf("%w: %s", ErrReadOnly, db.cab.Path())}
}

// openCabinet opens the configured cabinet and builds the catalogue from
// its sessions' metadata (no session is hydrated).
func (db *DB) openCabinet() error {
	switch {
	case db.cfg.Cabinet != nil:
		db.cab = db.cfg.Cabinet
	case db.cfg.Shared != nil:
		if err := db.openShared(); err != nil {
			return err
		}
	case db.cfg.CabinetPath != "":
		b, err := cabinet.Open(db.cfg.CabinetPath, &cabinet.Options{ReadOnly: db.cfg.ReadOnly})
		if err != nil {
			return err
		}
		db.cab = b
	default:
		return nil
	}
	db.catq.Lazy = db.hosts != nil // entries first, counts after (durableHosts)
	// The dropped counter first: another host's drop between the two
	// reads then leaves the catalogue's version behind the durable
	// state, never ahead of it (catalog.Queue).
	dropped, err := db.cab.Dropped()
	if err != nil {
		db.cab.Close()
		return err
	}
	metas, err := db.cab.Sessions()
	if err != nil {
		db.cab.Close()
		return err
	}
	for _, m := range metas {
		db.known[m.Name] = true
	}
	db.catalogLoad(metas, dropped)
	if db.hosts != nil {
		db.hosts.start(metas)
	}
	return nil
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
	case s.db.cfg.ReadOnly:
		return s.db.errReadOnly("a change to session " + strconv.Quote(s.name))
	case s.dropped.Load():
		return s.errDropped()
	case s.poisoned != nil:
		return fmt.Errorf("session %q refuses Commits: %w; reopen the database to continue from the last durable version", s.name, s.poisoned)
	}
	return nil
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
	if err := values.ValidSessionName(name); err != nil {
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
	if db.cfg.ReadOnly {
		return db.errReadOnly("the drop of session " + strconv.Quote(name))
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
			// Under durableMu too: a Commit acknowledged before the drop
			// but published after it must not put the session back in
			// the catalogue (publish checks dropped under it).
			s.durableMu.Lock()
			s.dropped.Store(true)
			s.durableMu.Unlock()
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
		if n, ok := snap.Node(catalog.ID(name)); ok {
			info = catalog.InfoOf(n, info.Persisted)
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

// ReadOnly reports whether the cabinet file was opened read-only.
func (db *DB) ReadOnly() bool { return db.cfg.ReadOnly }

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

// Ping checks that the cabinet can be reached now: nil in memory and on
// a cabinet file that is open, the cabinet's error (08Q04) when its
// server is down.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.enter(); err != nil {
		return err
	}
	defer db.exit()
	if db.hosts == nil {
		return nil
	}
	if _, err := db.hosts.cab.Heads(ctx, []string{CatalogName}); err != nil {
		return hostsError(err, "reaching the cabinet")
	}
	return nil
}

// Existing returns the named session for a reader: the catalogue, or a
// session a write made (in the cabinet, with many hosts as the shared
// cabinet says now, or in memory) or that is open. An unknown name is
// refused with 42002 and the names a small edit away; nothing is made.
func (db *DB) Existing(ctx context.Context, name string) (*Session, error) {
	ok, err := db.found(ctx, name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, db.unknownSession(name)
	}
	return db.Session(ctx, name)
}

// Peek returns the session for a read of its state (settings,
// vocabulary, names, kinds, agents, a dump): the session itself when
// Existing finds it, else a stand-in with an empty session's state,
// which is not registered, not listed, and refuses Commits. A shell
// that reads a new session's settings before it sets one reads the
// defaults, and the read makes nothing.
func (db *DB) Peek(ctx context.Context, name string) (*Session, error) {
	ok, err := db.found(ctx, name)
	if err != nil {
		return nil, err
	}
	if !ok {
		s := newSession(db, name)
		s.blank = true
		s.setGraph(store.New())
		s.hydrated.Store(true)
		s.loaded = true
		s.poisoned = gqlstatus.Errorf(gqlstatus.InvalidReference, "there is no session %q: a read made a stand-in, which takes no write", name)
		return s, nil
	}
	return db.Session(ctx, name)
}

// found checks name and reports whether Existing finds it: the
// catalogue, or a session that exists.
func (db *DB) found(ctx context.Context, name string) (bool, error) {
	if err := values.ValidSessionName(name); err != nil {
		return false, err
	}
	if name == CatalogName {
		return true, nil
	}
	return db.exists(ctx, name)
}

// exists reports whether a write made the session (this process, or the
// cabinet, which another host may have written a moment ago), or it is
// open here.
func (db *DB) exists(ctx context.Context, name string) (bool, error) {
	if err := db.enter(); err != nil {
		return false, err
	}
	defer db.exit()
	db.mu.Lock()
	s, known := db.sessions[name], db.known[name]
	db.mu.Unlock()
	if known || s != nil {
		return true, nil // written, or open (made by a write's first try, or by Session)
	}
	if db.hosts == nil {
		return false, nil
	}
	heads, err := db.hosts.cab.Heads(ctx, []string{name})
	if err != nil {
		return false, hostsError(err, "looking up session "+strconv.Quote(name))
	}
	if len(heads) == 0 {
		return false, nil
	}
	db.hosts.onHeads([]string{name}, heads)
	return true, nil
}

// unknownSession refuses a read of a session no write made.
func (db *DB) unknownSession(name string) error {
	e := gqlstatus.Errorf(gqlstatus.InvalidReference, "there is no session %q: no write has made it", name)
	if near := exec.DidYouMean(name, db.Sessions()); len(near) > 0 {
		q := make([]string, len(near))
		for i, n := range near {
			q[i] = strconv.Quote(n)
		}
		e.Msg += "; did you mean " + strings.Join(q, " or ") + "?"
	}
	return e.WithHint("list the sessions (gqlsh :sessions, GET /v1/sessions); names are case-sensitive; a Commit makes a session")
}

// written reports whether a write made the session: it has a version.
// A session opened and never written, or whose first Commit failed, has
// none, and is not listed.
func (s *Session) written() bool {
	if s.dropped.Load() {
		return false
	}
	snap := s.readable.Load()
	return snap != nil && snap.Version() > 0 || s.unloadedVersion.Load() > 0
}
