package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
	"github.com/goldfish-gql/goldfish/vocab"
)

// A session's history past what its ring of kept versions holds (past.go)
// is in the cabinet: a flush leaves the log entries it covers there
// (cabinet.Cabinet.Flush), so any version from the history's start on is
// rebuilt by replaying them onto the stored state before it (the
// snapshot, the history's base, or an empty graph). A rebuild replays up
// to PastVersions versions at once and keeps them, in s.older, so the
// Recalls at the versions around one cost one replay between them; the
// memory budget counts them with the session, and an unload drops them.
//
// The history setting bounds it: "none" trims the log at every flush, as
// before history was kept; a count moves the history's start forward at
// a flush, by writing the version that count before the snapshot as the
// history's base, once the history holds twice that count (and
// rebaseMin more), so that rebasing, which may replay the log, costs
// little per Commit. A Purge cuts the history at its version: what it
// removed for good is gone from every version before it too.

// HistoryKeep is the history setting (values.HistoryKeep).
type HistoryKeep = values.HistoryKeep

// The history setting's ends.
const (
	HistoryAll  = values.HistoryAll
	HistoryNone = values.HistoryNone
)

// rebaseMin: a counted history is rebased when it holds this many
// versions more than twice the count.
const rebaseMin = 64

// historyStart is the first version the session's history holds, given
// what the cabinet said at its hydration or last flush (0: all of them).
func (s *Session) historyStart() uint64 { return s.historyFrom.Load() }

// flushBase is the history base a flush of snap writes (nil: none, the
// history stays as it is): snap itself for history=none, an older
// version when a counted history is due for its rebase.
func (s *Session) flushBase(ctx context.Context, snap *store.Snapshot) *store.Snapshot {
	if cut := s.cutAt.Load(); cut > s.historyStart() && cut <= snap.Version() {
		if base, err := s.snapshotAt(ctx, cut); err == nil {
			return base // a Purge's cut, whatever the setting
		}
	}
	keep := s.attn.currentSettings().History
	switch {
	case keep == values.HistoryNone:
		return snap
	case keep == values.HistoryAll || snap.Version() <= uint64(keep):
		return nil
	}
	target, from := snap.Version()-uint64(keep), s.historyStart()
	if target <= from || target-from < uint64(keep)+rebaseMin {
		return nil
	}
	base, err := s.snapshotAt(ctx, target)
	if err != nil {
		return nil // the history stays longer; the next flush tries again
	}
	return base
}

// rebuild returns the snapshot of version v, older than every version the
// ring keeps, from the cabinet's history, keeping the versions its replay
// made in s.older. Refused with 22Q08 when the history does not reach v.
func (s *Session) rebuild(ctx context.Context, v uint64) (*store.Snapshot, error) {
	if s.rebuildMu.LockContext(ctx) != nil {
		return nil, gqlstatus.Interrupted(ctx, fmt.Sprintf("reading version %d of session %q", v, s.name))
	}
	defer s.rebuildMu.Unlock()
	if snap, ok := s.older.at(v); ok {
		return snap, nil // rebuilt meanwhile
	}
	newest := s.snapshot().Version()
	end := newest
	if lo, _, ok := s.past.span(); ok && lo > v {
		end = lo - 1
	}
	end = min(end, v+PastVersions-1)
	img, err := s.db.cab.History(s.name, v, end)
	if err != nil {
		if errors.Is(err, cabinet.ErrNotKept) {
			return nil, s.notKept(v, newest)
		}
		return nil, hostsError(err, fmt.Sprintf("reading version %d of session %q", v, s.name))
	}
	g := img.Graph
	if err := s.decodeVocabulary(g); err != nil {
		return nil, err
	}
	s.older.reset()
	keepFrom := end - min(end, PastVersions-1)
	var at *store.Snapshot
	if g.Snapshot().Version() == v {
		at = g.Snapshot()
	}
	if gv := g.Snapshot().Version(); gv >= keepFrom && gv > 0 {
		s.older.add(g.Snapshot(), versionMade{})
	}
	for _, e := range img.Log {
		change, err := replay(ctx, s.db, g, e)
		if err != nil {
			s.older.reset()
			if ctx.Err() != nil {
				return nil, gqlstatus.Interrupted(ctx, fmt.Sprintf("reading version %d of session %q", v, s.name))
			}
			return nil, damaged(err, "session %q in %s: replaying version %d of its history: %v (restore the file from a backup)",
				s.name, s.db.cab.Path(), e.Version, err)
		}
		snap := g.Snapshot()
		if snap.Version() == v {
			at = snap
		}
		if snap.Version() >= keepFrom {
			s.older.made(e, snap, change)
		}
	}
	if at == nil {
		return nil, fmt.Errorf("%w: session %q in %s: its history did not rebuild version %d", cabinet.ErrDamaged, s.name, s.db.cab.Path(), v)
	}
	if m := s.db.mem; m != nil {
		m.account(s)
	}
	return at, nil
}

// decodeVocabulary decodes the vocabulary a stored snapshot holds raw.
func (s *Session) decodeVocabulary(g *store.Graph) error {
	raw, ok := g.Snapshot().Ext().(store.RawExt)
	if !ok {
		return nil
	}
	state, err := vocab.Decode(raw, s.db.actionDef)
	if err != nil {
		return damaged(err, "session %q in %s: the snapshot's vocabulary: %v (restore the file from a backup)",
			s.name, s.db.cab.Path(), err)
	}
	g.SetExt(state)
	return nil
}

// readableFrom is the oldest version of the session readable, its newest
// being newest: the history's start with a cabinet, the oldest the ring
// keeps in memory, and no older than a counted history setting allows.
func (s *Session) readableFrom(newest uint64) uint64 {
	lo := newest
	if s.db.cab != nil && !s.catalog {
		lo = max(s.historyStart(), 1)
	} else if l, _, ok := s.past.span(); ok {
		lo = l
	}
	if keep := s.attn.currentSettings().History; keep != HistoryAll && keep != HistoryNone {
		lo = max(lo, newest-min(newest, uint64(keep)))
	}
	return min(lo, newest)
}

// notKept refuses a Recall at version v, which the session does not keep.
func (s *Session) notKept(v, newest uint64) error {
	lo := s.readableFrom(newest)
	hint := "recall at one of the versions kept"
	if keep := s.attn.currentSettings().History; keep != HistoryAll && keep != HistoryNone && v < newest-min(newest, uint64(keep)) {
		hint += "; the session's history setting keeps the " + keep.String() + " before the newest (:set history all keeps every version from now on)"
	} else if s.db.cab == nil {
		hint += "; a session in memory keeps its last 1000 versions, as long as they hold less than a twentieth of the memory of its newest version (or 1 MiB)"
	} else {
		hint += "; the session's history setting (now " + s.attn.currentSettings().History.String() +
			", :set history all) and its Purges (each cuts the history) decide which are"
	}
	return gqlstatus.Errorf(gqlstatus.VersionNotKept, "the session keeps versions %d to %d readable; version %d is not kept", lo, newest, v).
		WithHint(hint)
}
