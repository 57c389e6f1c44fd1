package engine

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
)

// A session's history index answers History by nick without reading
// every version: one forward replay of the cabinet's history notes, for
// each version, the nodes its Δ changed (store.Graph.TrackTouched), and
// keeps the snapshot of every historyCheckpoint-th version. A node's
// history is then the versions that touched it, and each of them is
// rebuilt from the checkpoint before it (a fork of that snapshot, which
// shares what it does not change) by replaying fewer than
// historyCheckpoint entries.
//
// The index is built on the first History of a session that reads the
// cabinet (about 65 µs per version replayed: 1.3 s for 20,000 versions)
// and extended by later calls with the versions made since, a call at a
// time; a call cut short keeps what its replay did, so the next one goes
// on from there, and answers an error, never a history that looks
// complete. It lives while the session is resident: the memory budget
// counts it with the session and an unload drops it, as does a change of
// where the history starts (a rebase at a flush, a Purge).

// historyCheckpoint is how many versions apart the index keeps
// snapshots: a version is rebuilt by replaying at most this many log
// entries (2 ms at 65 µs each), and the checkpoints cost what the
// versions between them changed.
const historyCheckpoint = 64

// historyRestarts is how many times a read of the index begins again
// when a flush moved the history's start under it.
const historyRestarts = 8

// historyLogChunk bounds the log entries one read of the cabinet takes
// while the index is built.
const historyLogChunk = 4096

type historyIndex struct {
	mu writeLock // one build, extension or rebuild at a time
	// start is where the session's history started when the index was
	// begun: readableFrom, which a rebase or a Purge moves.
	start uint64
	// g is the replay, at its latest version; from is the version it
	// started at (the stored state at or before start).
	g    *store.Graph
	from uint64
	// ckpts[i] is the snapshot at version from + i*historyCheckpoint.
	ckpts []*store.Snapshot
	// touches lists, by node, the versions whose Δ changed the node or
	// one of its edges, ascending.
	touches map[store.ID][]uint64
	// nicks is the node that last held each nick.
	nicks map[string]store.ID
	// made[i] is who made version from+1+i, when and how.
	made  []versionMade
	nodes int // entries in touches' lists
	// displaced is what the replayed Commits displaced since ckpts[0]
	// (see estimate).
	displaced int64
	// est is the memory estimate (bytes).
	est atomic.Int64
}

// to is the version the index reaches.
func (x *historyIndex) to() uint64 { return x.g.Snapshot().Version() }

// historyIndexFor returns the session's index, extended to version
// newest, with its lock held: the caller unlocks x.mu.
func (s *Session) historyIndexFor(ctx context.Context, newest uint64) (*historyIndex, error) {
	for attempt := 0; ; attempt++ {
		start := s.readableFrom(newest)
		x := s.hidx.Load()
		if x == nil || x.start != start {
			nx := &historyIndex{mu: newWriteLock(), start: start}
			if !s.hidx.CompareAndSwap(x, nx) {
				continue
			}
			x = nx
		}
		if x.mu.LockContext(ctx) != nil {
			return nil, gqlstatus.Interrupted(ctx, fmt.Sprintf("reading the history of session %q", s.name))
		}
		err := x.extend(ctx, s, newest)
		if err == nil {
			s.accountIndex()
			return x, nil
		}
		x.mu.Unlock()
		if errors.Is(err, cabinet.ErrNotKept) && attempt < historyRestarts {
			// A flush moved the history's start meanwhile (a counted
			// history setting trims it at each): begin again.
			s.hidx.CompareAndSwap(x, nil)
			continue
		}
		s.accountIndex()
		if errors.Is(err, cabinet.ErrNotKept) {
			return nil, gqlstatus.Errorf(gqlstatus.VersionNotKept, "the history of session %q moved its start %d times while it was read (flushes under its history setting)", s.name, historyRestarts+1).
				WithHint("ask again; or keep more versions (:set history all)")
		}
		return nil, err
	}
}

// extend replays the history up to version newest. Called with x.mu held.
func (x *historyIndex) extend(ctx context.Context, s *Session, newest uint64) error {
	cab := s.db.cab
	if x.g == nil {
		// From the empty graph when the history holds every version:
		// version 1's change is then known too.
		at := x.start
		if at <= 1 {
			at = 0
		}
		img, err := cab.History(s.name, at, at)
		if err != nil {
			return s.historyReadError(err)
		}
		g := img.Graph
		if err := s.decodeVocabulary(g); err != nil {
			return err
		}
		g.TrackTouched()
		x.g, x.from = g, g.Snapshot().Version()
		x.ckpts, x.displaced = []*store.Snapshot{g.Snapshot()}, 0
		x.touches, x.nicks = map[store.ID][]uint64{}, map[string]store.ID{}
		x.nicksOf(g.Snapshot())
		if err := x.replay(ctx, s, img.Log); err != nil {
			return err
		}
	}
	for x.to() < newest {
		log, err := cab.Log(s.name, x.to(), min(newest, x.to()+historyLogChunk))
		if err != nil {
			return s.historyReadError(err)
		}
		if err := x.replay(ctx, s, log); err != nil {
			return err
		}
	}
	return nil
}

// nicksOf notes the nicks of every live node of snap (the state the
// replay starts from, whose nodes no Δ may touch again).
func (x *historyIndex) nicksOf(snap *store.Snapshot) {
	snap.ScanNodes(func(n *store.Node) bool {
		if nick, ok := n.Nick(); ok {
			x.nicks[nick] = n.ID
		}
		return true
	})
}

// replay applies log entries to the index's graph, noting what each
// touched. Called with x.mu held.
func (x *historyIndex) replay(ctx context.Context, s *Session, log []cabinet.Entry) error {
	for _, e := range log {
		if ctx.Err() != nil {
			return gqlstatus.Interrupted(ctx, fmt.Sprintf("reading the history of session %q (at version %d)", s.name, x.to()))
		}
		before := x.g.Snapshot()
		if _, err := replay(ctx, s.db, x.g, e); err != nil {
			if ctx.Err() != nil {
				return gqlstatus.Interrupted(ctx, fmt.Sprintf("reading the history of session %q (at version %d)", s.name, x.to()))
			}
			// The graph may be half a Δ on: the index starts over.
			s.hidx.CompareAndSwap(x, nil)
			return damaged(err, "session %q in %s: replaying version %d of its history: %v (restore the file from a backup)",
				s.name, s.db.cab.Path(), e.Version, err)
		}
		after := x.g.Snapshot()
		x.displaced += after.Displaced()
		v := after.Version()
		touched := x.g.Touched()
		for _, id := range touched {
			if vs := x.touches[id]; len(vs) == 0 || vs[len(vs)-1] != v {
				x.touches[id] = append(vs, v)
				x.nodes++
			}
		}
		// The nicks the touched nodes held before, then after: a nick
		// that moved between two nodes in one Δ is the later holder's.
		for _, snap := range [2]*store.Snapshot{before, after} {
			for _, id := range touched {
				if n, ok := snap.Node(id); ok && !n.Recycled {
					if nick, ok := n.Nick(); ok {
						x.nicks[nick] = id
					}
				}
			}
		}
		x.made = append(x.made, versionMade{Kind: e.Kind, Agent: e.Agent, Time: e.Time})
		if (v-x.from)%historyCheckpoint == 0 {
			x.ckpts = append(x.ckpts, after)
		}
	}
	x.estimate()
	return nil
}

// madeAt is who made version v, from the index (v > x.from).
func (x *historyIndex) madeAt(v uint64) versionMade {
	if v <= x.from || v-x.from > uint64(len(x.made)) {
		return versionMade{}
	}
	return x.made[v-x.from-1]
}

// pair rebuilds versions v-1 and v (x.from < v ≤ x.to()) from the
// checkpoint at or before v-1. Called with x.mu held (forks of one
// snapshot are not made concurrently).
//
// Only v-1 and v are kept: the versions between the checkpoint and v-1
// are replayed transient (store.Graph.Transient), each Δ writing in
// place what the ones before it copied, and v-1 is the last of them;
// v's Δ copies as usual, so v-1 stays as it was published. A replay
// that fails drops the graph, whose published state may then be part
// written.
func (x *historyIndex) pair(ctx context.Context, s *Session, v uint64) (before, after *store.Snapshot, err error) {
	ck := x.ckpts[(v-1-x.from)/historyCheckpoint]
	if ck.Version() == v-1 {
		before = ck
	}
	g := ck.Fork()
	log, err := s.db.cab.Log(s.name, ck.Version(), v)
	if err != nil {
		return nil, nil, s.historyReadError(err)
	}
	for _, e := range log {
		g.Transient(e.Version < v)
		if _, err := replay(ctx, s.db, g, e); err != nil {
			if ctx.Err() != nil {
				return nil, nil, gqlstatus.Interrupted(ctx, fmt.Sprintf("reading version %d of session %q", v, s.name))
			}
			return nil, nil, damaged(err, "session %q in %s: replaying version %d of its history: %v (restore the file from a backup)",
				s.name, s.db.cab.Path(), e.Version, err)
		}
		if g.Snapshot().Version() == v-1 {
			before = g.Snapshot()
		}
	}
	return before, g.Snapshot(), nil
}

// estimate brings the index's memory estimate up to date: the replay's
// graph (a copy of the session, as a rebuilt version is), what its
// checkpoints keep of the versions between them, and the lists. What the
// checkpoints keep is at most what the replayed Commits displaced since
// the first (store.Snapshot.Displaced, measured): the parts of the
// versions between two checkpoints that the later one no longer reaches
// are counted though no checkpoint holds them, so the figure is high,
// never low.
func (x *historyIndex) estimate() {
	x.est.Store(sessionBytes(x.g.Snapshot()) + x.displaced +
		int64(x.nodes)*8 + int64(len(x.touches)+len(x.nicks))*64 + int64(len(x.made))*48)
}

// indexBytes is the memory estimate of the session's history index.
func (s *Session) indexBytes() int64 {
	if x := s.hidx.Load(); x != nil {
		return x.est.Load()
	}
	return 0
}

// accountIndex brings the memory budget's count of s up to date after
// its index grew.
func (s *Session) accountIndex() {
	if m := s.db.mem; m != nil {
		m.account(s)
	}
}

// historyReadError words a cabinet's refusal to read a session's history.
func (s *Session) historyReadError(err error) error {
	if errors.Is(err, cabinet.ErrNotKept) {
		return err
	}
	return hostsError(err, fmt.Sprintf("reading the history of session %q", s.name))
}
