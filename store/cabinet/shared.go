package cabinet

import (
	"context"
	"errors"
	"time"
)

// Shared is a Cabinet shared by many hosts: processes, on one machine or
// many, that serve the same sessions at once, each holding the sessions
// it uses in memory. What it adds to a Cabinet is what keeps those
// copies exact without a lock held across hosts:
//
//   - a compare-and-set commit: Claim writes a version only if no other
//     host took it, and a host that keeps losing takes a Turn (Lock) so
//     that it cannot starve;
//   - reading what the other hosts committed (Since, Heads), and
//     learning that they did (Watch, KnownAt);
//   - incarnations (Gen, Forget): a session dropped by another host,
//     perhaps made again under its name, is never taken for the one a
//     host holds;
//   - SetMeta, since a Claim writes the entry alone and the metadata
//     the catalogues read follows it.
//
// Append, on a Shared cabinet, fails and poisons the session when another
// host committed the version; hosts commit through Claim, which fails
// without poisoning.
type Shared interface {
	Cabinet

	// Claim writes e as the next version of the session, e.Version, and
	// returns once it is durable. It returns ErrVersionTaken (nothing
	// written) if the session is not at e.Version-1, or if the write
	// could not be serialized with another host's; ErrGone if the
	// incarnation this host knows was dropped; ErrUnavailable if the
	// request never reached the server, ErrUnknown if the connection was
	// lost on its way (it may have been written).
	Claim(ctx context.Context, name string, e Entry) error
	// Lock waits for a Turn at the session, and returns what other hosts
	// committed after version after (as Since). The turn ends with
	// Turn.Claim or Turn.Release. A session never persisted cannot be
	// locked: that is ErrNoSession, and no turn.
	Lock(ctx context.Context, name string, after uint64) (*Turn, *Update, error)
	// Since reads what other hosts committed to the session after
	// version after: ErrGone if the incarnation this host knows was
	// dropped, ErrNoSession if the session was never persisted (and this
	// host knows none).
	Since(ctx context.Context, name string, after uint64) (*Update, error)
	// Heads reads the heads of the named sessions (every session's when
	// names is nil), sorted by name; a name without a head is left out.
	Heads(ctx context.Context, names []string) ([]Head, error)
	// SetMeta queues m as the metadata of the session's version
	// m.Version, unless a later one is stored; called after each Claim.
	// A failure leaves the older metadata, which the next one replaces,
	// and does not poison the session.
	SetMeta(name string, m Meta) *Ticket
	// Watch follows the Commits of other hosts until Close. fn is called
	// from one goroutine with the heads of the sessions that may have
	// changed: asked holds the names a notification named (a name
	// without a head was dropped), or is nil after every head was read
	// (a session without a head is gone). With listen, and where the
	// backend can notify, Watch listens and confirms at least every half
	// interval that nothing is pending; otherwise it reads every head at
	// every interval. Watch may be called once.
	Watch(interval time.Duration, listen bool, fn func(asked []string, heads []Head))
	// KnownAt returns the time up to which every Commit of another host
	// is known to Watch's fn (the zero time without Watch, or before its
	// first read).
	KnownAt() time.Time
	// Gen returns the incarnation of the session this cabinet holds (as
	// of its last Load, Since or Claim), 0 when it holds none: a Head of
	// another Gen is a session dropped and made again.
	Gen(name string) int64
	// Forget drops what the cabinet knows of a session's incarnation
	// (once the host has let go of a session another host dropped), so
	// that the next Load takes the session as it finds it.
	Forget(name string)
}

// Errors of the many-host protocol (Shared); match with errors.Is.
var (
	// ErrVersionTaken: another host committed the version first (or the
	// server refused the transaction as not serializable with another);
	// nothing was written.
	ErrVersionTaken = errors.New("cabinet: another host committed to the session first")
	// ErrGone: the session this host holds was dropped by another host
	// (and perhaps created again: a new session of the same name).
	ErrGone = errors.New("cabinet: the session was dropped by another host")
	// ErrUnavailable: the server could not be reached, or went away
	// before it answered.
	ErrUnavailable = errors.New("cabinet: the PostgreSQL server is unavailable")
	// ErrUnknown: the connection was lost while a Commit was on its way;
	// it may or may not have been written.
	ErrUnknown = errors.New("cabinet: the PostgreSQL server did not confirm the write")
)

// Update is what Since (or Lock) found: the session's head and the
// entries after the version asked for.
type Update struct {
	// Version is the session's latest version, SnapVersion that of its
	// stored snapshot.
	Version, SnapVersion uint64
	// Entries are the log entries after the version asked for, in
	// order, up to Version or later (unless Reload).
	Entries  []Entry
	LogBytes int64
	// Reload: the entries right after the version asked for are no
	// longer in the log (a flush on another host trimmed them): Load
	// the session again.
	Reload bool
}

// Head is what a Shared cabinet holds of a session for the catalogue:
// its incarnation, its version, and its metadata, which is of version
// MetaVersion (Meta.Version is the session's version).
type Head struct {
	Name                 string
	Gen                  int64
	Version, MetaVersion uint64
	Meta                 Meta
}

// Turn is a host's turn at a session (Shared.Lock): while it lasts no
// other host commits to the session, and hosts waiting for a turn get it
// in order, so a host that keeps losing races to hosts committing back
// to back waits its turn instead of starving. The turn is held while
// the host plans its change: for as long as one Δ takes. A Turn is used
// by one goroutine.
type Turn struct {
	claim func(ctx context.Context, e Entry) error
	end   func()
	done  bool
}

// NewTurn returns a Turn for a backend: claim writes e as the session's
// next version within the turn (its errors are Shared.Claim's), end
// gives the turn up. The Turn calls end once, after claim or instead.
func NewTurn(claim func(ctx context.Context, e Entry) error, end func()) *Turn {
	return &Turn{claim: claim, end: end}
}

// Claim writes e as the session's next version and ends the turn; the
// errors are Shared.Claim's.
func (t *Turn) Claim(ctx context.Context, e Entry) error {
	if t.done {
		return errors.New("cabinet: the turn is over")
	}
	defer t.Release()
	return t.claim(ctx, e)
}

// Release ends the turn without writing (a no-op once it ended).
func (t *Turn) Release() {
	if t.done {
		return
	}
	t.done = true
	t.end()
}

// Sleep waits d, or until ctx is done (its error): the pause between the
// tries of a call another host or the network made fail.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
