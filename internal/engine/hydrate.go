package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
)

// replayBudget lets replay apply every logged Δ whatever budget the
// database is opened with now: each was within budget when committed.
var replayBudget = values.Budget{Rows: math.MaxInt, Bytes: math.MaxInt}

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
	if s.db.hosts != nil && errors.Is(err, cabinet.ErrGone) {
		// Another host dropped the session this host held, perhaps while
		// it was unloaded: its holders get ErrDropped, as they would
		// from a catch-up (hosts.go). No Commit runs on a session
		// being hydrated, so s.wmu is not needed.
		s.goneRemote()
		return s.errDropped()
	}
	if err != nil {
		return hostsError(err, "opening session "+strconv.Quote(s.name))
	}
	g, err := s.restore(ctx, img)
	if err != nil {
		return err
	}
	if img.Attention != nil && !s.loaded {
		if err := decodeAttention(img.Attention, s); err != nil {
			return damaged(err, "session %q in %s: attention record: %v (restore the file from a backup)", s.name, cab.Path(), err)
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
// marks numbered mark (hosts.go): with many hosts, the load is what
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
	if err := s.decodeVocabulary(g); err != nil {
		return nil, err
	}
	// The versions the log replays are kept readable (past.go), from the
	// snapshot's on; the older ones the history rebuilds (history.go).
	s.past.reset()
	s.older.reset()
	s.historyFrom.Store(img.HistoryFrom)
	if g.Snapshot().Version() > 0 {
		s.past.add(g.Snapshot(), versionMade{Time: img.Meta.LastCommit})
	}
	for _, e := range img.Log {
		change, err := replay(ctx, s.db, g, e)
		if err == nil {
			s.past.made(e, g.Snapshot(), change)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, gqlstatus.Interrupted(ctx, "opening session "+strconv.Quote(s.name))
			}
			return nil, damaged(err, "session %q in %s: replaying version %d: %v (the log cannot be applied; restore the file from a backup)",
				s.name, cab.Path(), e.Version, err)
		}
	}
	if v := g.Snapshot().Version(); v != img.Meta.Version {
		return nil, fmt.Errorf("%w: session %q in %s: hydrated version %d, metadata says %d", cabinet.ErrDamaged, s.name, cab.Path(), v, img.Meta.Version)
	}
	return g, nil
}

// echoRule marks, in a logged Δ's mint byte, a Δ committed since an INSERT
// that restates a live element binds to it (an echo). A Δ logged before
// created such elements again, and its replay must too, or the state
// replayed would not be the state acknowledged: the rule is part of what
// a log entry means.
const echoRule = 0x80

// entryMint is the mint byte a Δ is logged with.
func entryMint(m Mint) uint8 { return uint8(m) | echoRule }

// logMint reads a logged Δ's mint byte: its id rule, and whether echoes
// bind in its replay.
func logMint(b uint8) (Mint, bool) { return Mint(b &^ echoRule), b&echoRule != 0 }

func replay(ctx context.Context, db *DB, g *store.Graph, e cabinet.Entry) (change *versionChange, err error) {
	want := g.Snapshot().Version() + 1
	if e.Version != want {
		return nil, fmt.Errorf("entry is version %d, expected %d", e.Version, want)
	}
	switch e.Kind {
	case cabinet.EntryPurge:
		n, v := purgeAll(g)
		if v != want {
			return nil, fmt.Errorf("purge made version %d", v)
		}
		return purgeChange(n), nil
	case cabinet.EntryDelta:
		plan, err := db.plan(e.Text)
		if gqlstatus.CodeOf(err, "") == gqlstatus.TextLimit {
			plan, err = compileLogged(e.Text)
		}
		if err != nil {
			return nil, err
		}
		mint, echoes := logMint(e.Mint)
		res, err := exec.Commit(ctx, g, plan, e.Params, exec.CommitOptions{Mint: mint, Budget: replayBudget, Replay: true,
			DuplicateEchoes: !echoes, Agent: e.Agent})
		if err != nil {
			return nil, err
		}
		if !res.Applied || res.Version != want {
			return nil, fmt.Errorf("replay made version %d (applied %v)", res.Version, res.Applied)
		}
		return changeOf(res), nil
	case cabinet.EntryAbsorb:
		return replayAbsorb(ctx, g, e, want)
	}
	return nil, fmt.Errorf("unknown entry kind %d", e.Kind)
}

// replayAbsorb applies a logged Absorb again: the same slice, the same
// policy, on the state it was absorbed into, so the same elements with
// the same ids. The bounds of the day it was absorbed held it; none
// applies now.
func replayAbsorb(ctx context.Context, g *store.Graph, e cabinet.Entry, want uint64) (*versionChange, error) {
	p := exec.AbsorbPolicy(e.Mint)
	if !p.Valid() {
		return nil, fmt.Errorf("absorb entry with unknown policy %d", e.Mint)
	}
	d, err := readSlice(e.Text, exec.SliceBounds{})
	if err != nil {
		return nil, err
	}
	res, err := exec.Absorb(ctx, g, d, exec.AbsorbOptions{Policy: p, Budget: values.Budget{Rows: math.MaxInt, Bytes: math.MaxInt}})
	if err != nil {
		return nil, err
	}
	if !res.Applied || res.Version != want {
		return nil, fmt.Errorf("replayed absorb made version %d (applied %v)", res.Version, res.Applied)
	}
	return changeOf(&res.CommitResult), nil
}

// damaged reports damage found while loading a session: its message is
// "goldfish: damaged: " and what format says, errors.Is reaches both
// ErrDamaged and the cause, and its GQLSTATUS is the damage's, whatever
// code the cause carries (a logged Δ that no longer plans is damage, not
// the syntax error it would be as a new Commit).
func damaged(cause error, format string, args ...any) error {
	err := fmt.Errorf("%w: %s", cabinet.ErrDamaged, fmt.Sprintf(format, args...))
	return &gqlstatus.Error{Code: gqlstatus.Damaged, Msg: err.Error(), Cause: errors.Join(err, cause)}
}
