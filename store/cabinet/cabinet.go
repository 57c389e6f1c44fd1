package cabinet

import (
	"errors"
	"time"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/values"
)

// Cabinet is where sessions persist. Implementations are safe for
// concurrent use.
type Cabinet interface {
	// Sessions lists the persisted sessions' metadata, sorted by name.
	Sessions() ([]Meta, error)
	// Load reads a session: its graph restored from the snapshot (an
	// empty graph at version 0 without one) and the log entries after
	// it, in version order, checked. ErrNoSession if it was never
	// persisted; ErrDamaged (wrapped, naming the session) if it is
	// damaged.
	Load(name string) (*Image, error)
	// Append queues e for the session's log and m as its metadata. Entries
	// of one session must be appended in version order. Wait on the
	// Ticket for durability.
	Append(name string, e Entry, m Meta) *Ticket
	// Flush durably writes snap as the session's snapshot; it is ordered
	// after every entry appended before it. A snapshot older than the
	// stored one is ignored. The log entries it covers stay, as the
	// session's history (History), unless base says otherwise: nil keeps
	// the history as it is; a base at snap's version keeps none (the log
	// is trimmed up to snap); an older base (a version of the session)
	// becomes where the history starts, and the entries up to it go.
	Flush(name string, snap *store.Snapshot, m Meta, base *store.Snapshot) error
	// History reads what version v of a session is rebuilt from: the
	// latest stored state at or before v (its snapshot, its history's
	// base, or an empty graph at version 0) in Graph and the log entries
	// after it up to version to (v ≤ to ≤ the session's version) in Log,
	// checked; HistoryFrom says where the history starts. ErrNotKept
	// (wrapped, naming the versions kept) when v is before it.
	History(name string, v, to uint64) (*Image, error)
	// Log reads the session's log entries after version after up to
	// version to, in version order, checked, without the state they
	// apply to: a reader that holds that state already (a session's
	// history index) reads only what follows it. ErrNotKept (wrapped)
	// when the history no longer holds entry after+1.
	Log(name string, after, to uint64) ([]Entry, error)
	// SaveAttention queues data as the session's attention record (what
	// its readers have read: the root package's encoding, kept beside the
	// log, never a version of its own), ordered with the session's other
	// writes; Load returns the latest.
	SaveAttention(name string, data []byte) *Ticket
	// Drop durably removes a session (ordered after its appended entries)
	// and, in the same durable write, adds the session's weight plus one
	// to the cabinet's dropped counter (see Dropped).
	Drop(name string) error
	// Dropped reads the dropped counter D: the sum, over every drop the
	// cabinet made, of the dropped session's weight (Meta.Weight) plus
	// one; 0 for a file or schema written before it was kept. It only
	// grows. The catalogue's version is Σ Weight over Sessions plus D (docs/design.md#persistence-and-history: it never goes back across a reopen, and
	// a version names one content); read D before Sessions when other
	// hosts may drop meanwhile, so that the sum never runs ahead of the
	// durable state.
	Dropped() (uint64, error)
	// Path names the cabinet (for messages).
	Path() string
	// Close waits for queued writes and closes the file.
	Close() error
}

// Sentinel errors; match with errors.Is.
var (
	// ErrInUse: another process holds the cabinet file.
	ErrInUse = errors.New("cabinet: file is in use by another process")
	// ErrDamaged: the file or a session in it fails its checks.
	ErrDamaged = errors.New("cabinet: damaged")
	// ErrNoSession: the session was never persisted (or was dropped).
	ErrNoSession = errors.New("cabinet: no such session")
	// ErrPoisoned: an earlier write of this session failed; memory is
	// ahead of the file and no further entries are accepted.
	ErrPoisoned = errors.New("cabinet: an earlier write of this session failed")
	// ErrClosed: the cabinet is closed.
	ErrClosed = errors.New("cabinet: closed")
	// ErrReadOnly: a write to a cabinet opened read-only.
	ErrReadOnly = errors.New("cabinet: the file is open read-only")
)

// EntryKind says what a log entry replays.
type EntryKind uint8

const (
	// EntryDelta is a committed Δ: text, mint rule and parameters.
	EntryDelta EntryKind = 1
	// EntryPurge removes every recycled element for good.
	EntryPurge EntryKind = 2
	// EntryAbsorb is an absorbed slice: the slice's text in Text, its
	// policy in Mint. A kind of its own, not a Δ with another mint: a
	// release that does not know slices refuses the entry (ErrDamaged)
	// rather than replaying the slice's INSERT as a plain Δ, with fresh
	// ids.
	EntryAbsorb EntryKind = 3
)

// Entry is one log entry: the change that made Version.
type Entry struct {
	Version uint64
	Kind    EntryKind
	// Mint is a Δ's id rule, an absorb's policy (the root package's
	// values).
	Mint   uint8
	Text   string
	Params map[string]values.Value
	Time   time.Time
	// Agent names who committed it ("" when nobody said): the
	// registering agent of the vocabulary it creates.
	Agent string
}

// KindCount is the number of live nodes of one kind.
type KindCount struct {
	Kind  string
	Count int
}

// Meta is a session's metadata, written with every entry so the catalogue
// can be built without hydrating sessions.
type Meta struct {
	Name                   string
	Version                uint64
	Nodes, Edges, Recycled int
	Kinds                  []KindCount // sorted by kind
	LastCommit             time.Time
	SnapVersion            uint64 // version of the stored snapshot (read only)
	LogEntries, LogBytes   int64  // log after the snapshot (read only)
	// MetaVersion is the version the counts are of, where the cabinet
	// writes them apart from the log (PostgreSQL: set by Sessions and
	// the Shared heads, read only); 0 stands for Version (a cabinet
	// file, which writes them with every entry; MetaOf; Load).
	MetaVersion uint64
}

// Weight is what a session counts for in the catalogue's version
// (Cabinet.Dropped): its version plus the version its counts are of
// (twice Version on a cabinet file). Every durable change of what the
// catalogue shows of the session raises it: a new version, and on
// PostgreSQL the counts catching up with it (written after the entry).
// The same on every backend, so a catalogue version means the same
// wherever the sessions are kept.
func (m Meta) Weight() uint64 {
	mv := m.MetaVersion
	if mv == 0 {
		mv = m.Version
	}
	return m.Version + mv
}

// MetaOf computes the metadata of a snapshot.
func MetaOf(name string, snap *store.Snapshot, last time.Time) Meta {
	m := Meta{Name: name, Version: snap.Version(), Nodes: snap.NodeCount(), Edges: snap.EdgeCount(),
		Recycled: snap.RecycledCount(), LastCommit: last}
	for _, k := range snap.Kinds() {
		m.Kinds = append(m.Kinds, KindCount{Kind: k, Count: snap.KindCount(k)})
	}
	return m
}

// Image is a loaded session: its restored graph and the log to replay.
type Image struct {
	Graph    *store.Graph
	Log      []Entry
	Meta     Meta
	LogBytes int64
	// Attention is the session's attention record (nil if none was saved).
	Attention []byte
	// HistoryFrom is the version the session's history starts at
	// (Cabinet.History): every version from it on can be rebuilt.
	HistoryFrom uint64
}

// Ticket reports when a queued write is durable.
type Ticket struct {
	done chan struct{}
	err  error
}

func newTicket() *Ticket { return &Ticket{done: make(chan struct{})} }

func (t *Ticket) finish(err error) {
	t.err = err
	close(t.done)
}

// Wait blocks until the write is durable or has failed.
func (t *Ticket) Wait() error {
	<-t.done
	return t.err
}

// Failed returns a Ticket that has already failed with err.
func Failed(err error) *Ticket {
	t := newTicket()
	t.finish(err)
	return t
}
