package engine

import (
	"context"
	"sync"
	"time"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
)

// The past versions a session keeps readable (RecallOptions.AtVersion).
// A store snapshot is immutable and shares every part it did not change
// with the versions around it (copy-on-write B-trees), so keeping the
// snapshots of the last versions costs what those Commits changed, not
// copies of the graph: the index paths, slot-table leaves, adjacency
// lists and records each Commit copied or dropped, which the store
// measures as it writes (store.Snapshot.Displaced) and the memory budget
// counts with the session. The past in memory is a cache of the
// cabinet's history, and a session's memory is its present: the ring
// keeps at most PastVersions versions, and drops its oldest while what
// they hold is more than a pastShare-th of the newest version's estimate
// (or than pastFloorBytes, for a small session). Under steady Commits a past
// as large as the present doubled what a busy server held, and the
// collector's work with it. Versions are kept from the Commits of this
// process, from the log entries a hydration replays and, with many
// hosts, from the other hosts' entries a catch-up replays; a version
// before them is rebuilt from the cabinet's history (history.go) or, in
// memory, not readable. A Recall of the newest version reads the
// session's graph and pays nothing for the ring.

// PastVersions is how many of its latest versions a session keeps
// readable in memory.
const PastVersions = values.PastVersions

// pastShare is the share of the newest version's memory estimate that
// the versions before it may hold: a twentieth. The estimate (residency.go)
// runs up to a fifth above what the newest version measures
// (Session.Footprint), so the past holds at most some 6% of the present:
// on the standard library's session, the last 130 or so of its 30,000
// Ingest Commits.
const pastShare = 20

// pastFloorBytes: a small session's past may cost this much, whatever
// its newest version's estimate: some 50 versions of one-element
// Commits.
const pastFloorBytes = 1 << 20

// pastRing holds the snapshots of consecutive versions, at most
// PastVersions of them, oldest first.
type pastRing struct {
	mu   sync.Mutex
	vers []pastVersion
}

type pastVersion struct {
	snap *store.Snapshot
	// held is the bytes the Commits up to this version displaced since
	// the ring started (a running sum of store.Snapshot.Displaced): the
	// versions from vers[i] to the one before vers[j] hold
	// vers[j].held − vers[i].held that vers[j] does not.
	held int64
	made versionMade
}

// versionMade is who made a version, when and how (the log entry's
// kind): what History shows beside the change.
type versionMade struct {
	Kind  cabinet.EntryKind
	Agent string
	Time  time.Time
	// Change is what the version's entry did (nil when the version was
	// not made here: a hydration's head). A pointer keeps the ring's
	// entries small: the ring's array is copied as it grows and moves.
	Change *versionChange
}

// add keeps snap, the snapshot of the version after the newest one kept;
// a snapshot that does not follow (versions another host made meanwhile,
// a hydration) starts the ring again from it. The oldest versions go
// while the ring holds more than PastVersions, or while what they cost
// (bytes, measured) is more than a pastShare-th of the new version's estimate and
// pastFloorBytes.
func (p *pastRing) add(snap *store.Snapshot, made versionMade) {
	v := snap.Version()
	pv := pastVersion{snap: snap, made: made}
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.vers); n > 0 {
		lo, hi := p.vers[0].snap.Version(), p.vers[n-1].snap.Version()
		switch {
		case v >= lo && v <= hi:
			return // kept already
		case v != hi+1:
			p.vers = nil
		default:
			pv.held = p.vers[n-1].held + snap.Displaced()
		}
	}
	p.vers = append(p.vers, pv)
	limit := max(sessionBytes(snap)/pastShare, pastFloorBytes)
	drop := 0
	for len(p.vers)-drop > PastVersions || len(p.vers)-drop > 1 && p.costFrom(drop) > limit {
		drop++
	}
	if drop > 0 {
		clear(p.vers[:drop]) // let the dropped snapshots go
		p.vers = p.vers[drop:]
		if cap(p.vers) > 2*len(p.vers)+16 {
			p.vers = append([]pastVersion(nil), p.vers...)
		}
	}
}

// made keeps snap, the version a log entry of kind made (a Commit here,
// a hydration's or a catch-up's replay), and change, what it did: a
// purge leaves no version before it readable, since what it removed for
// good is gone from the past too.
func (p *pastRing) made(e cabinet.Entry, snap *store.Snapshot, change *versionChange) {
	if e.Kind == cabinet.EntryPurge {
		p.reset()
	}
	p.add(snap, versionMade{Kind: e.Kind, Agent: e.Agent, Time: e.Time, Change: change})
}

// costFrom is what the versions from vers[i] to the one before the newest
// hold that the newest does not, as the store measured it.
// Called with p.mu held.
func (p *pastRing) costFrom(i int) int64 {
	n := len(p.vers)
	if i >= n-1 {
		return 0
	}
	return p.vers[n-1].held - p.vers[i].held
}

// bytes is what the versions kept besides the newest hold, measured.
func (p *pastRing) bytes() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.costFrom(0)
}

// ownBytes is the memory estimate of every version kept, the newest
// included: a ring of rebuilt versions (history.go), which share nothing
// with the session's graph.
func (p *pastRing) ownBytes() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.vers) == 0 {
		return 0
	}
	return sessionBytes(p.vers[len(p.vers)-1].snap) + p.costFrom(0)
}

// at returns the snapshot of version v, if it is kept.
func (p *pastRing) at(v uint64) (*store.Snapshot, bool) {
	pv, ok := p.version(v)
	return pv.snap, ok
}

// version returns what the ring keeps of version v.
func (p *pastRing) version(v uint64) (pastVersion, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.vers) == 0 {
		return pastVersion{}, false
	}
	lo := p.vers[0].snap.Version()
	if v < lo || v-lo >= uint64(len(p.vers)) {
		return pastVersion{}, false
	}
	return p.vers[v-lo], true
}

// oldest returns the oldest version kept (0: none).
func (p *pastRing) oldest() uint64 {
	lo, _, _ := p.span()
	return lo
}

// span returns the versions kept (ok false: none).
func (p *pastRing) span() (lo, hi uint64, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.vers) == 0 {
		return 0, 0, false
	}
	return p.vers[0].snap.Version(), p.vers[len(p.vers)-1].snap.Version(), true
}

// reset forgets every version (a memory budget unloading the session).
func (p *pastRing) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.vers = nil
}

// snapshotAt returns the readable snapshot of version v: the newest when
// v is 0 or the newest version, else a kept past one. A version not made
// yet, or not kept, is refused with 22Q08, naming the versions readable.
func (s *Session) snapshotAt(ctx context.Context, v uint64) (*store.Snapshot, error) {
	cur := s.snapshot()
	if v == 0 || cur == nil || v == cur.Version() {
		return cur, nil
	}
	newest := cur.Version()
	if s.catalog {
		// Its version counts every tenant's Commits: not said to a
		// reader who may see only some sessions.
		return nil, gqlstatus.Errorf(gqlstatus.VersionNotKept, "the catalogue keeps no past versions").
			WithHint("recall the catalogue without at_version")
	}
	if v > newest {
		return nil, gqlstatus.Errorf(gqlstatus.VersionNotKept, "the session has no version %d yet: its newest is %d", v, newest).
			WithHint("recall at a version from the session's history, or the newest (gqlsh :set at newest; at_version left out over HTTP and MCP)")
	}
	if v < s.readableFrom(newest) {
		// What the history keeps, whether the ring still holds the
		// version or not: a counted history reads as the count says,
		// whether a flush has trimmed the versions before it yet or not.
		return nil, s.notKept(v, newest)
	}
	if snap, ok := s.past.at(v); ok {
		return snap, nil
	}
	if snap, ok := s.older.at(v); ok {
		return snap, nil
	}
	if s.db.cab != nil {
		return s.rebuild(ctx, v)
	}
	return nil, s.notKept(v, newest)
}

// madeBy says who made version v of the session, when and how; a
// version not kept is refused as snapshotAt refuses it.
func (s *Session) madeBy(ctx context.Context, v uint64) (versionMade, error) {
	if pv, ok := s.past.version(v); ok {
		return pv.made, nil
	}
	if _, err := s.snapshotAt(ctx, v); err != nil {
		return versionMade{}, err
	}
	pv, _ := s.older.version(v)
	return pv.made, nil
}
