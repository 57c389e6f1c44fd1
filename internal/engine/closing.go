package engine

import (
	"context"
	"errors"
	"time"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// Close does not wait for reads to finish on their own: a Recall that
// scans a large session may run for tens of milliseconds, and dozens of
// them in flight on a few cores kept Close waiting for a second. Every
// read admitted runs under its caller's context merged with the
// database's closing context, which Close cancels as it begins, so the
// reads stop at their next look at the context (package exec looks every
// few hundred units of work), as they would on the caller's
// cancellation. Writes are not merged: a Commit in flight finishes, and
// is durable, or fails as it would have anyway. Hydrating a session, for
// a read or a write, is merged: it has changed nothing yet.

// errClosing is the cause with which Close cancels the reads in flight.
var errClosing = errors.New("the database is closing")

// closingKey marks a context that already carries the database's
// closing (its value is the *DB), so that a read that hydrates does not
// merge twice.
type closingKey struct{}

func noRelease() {}

// reading gives a read the context it runs under: ctx, done too once
// Close begins; release it when the read returns. The common case of a
// caller without a cancellation of its own costs nothing: it runs under
// the closing context itself.
func (db *DB) reading(ctx context.Context) (context.Context, func()) {
	switch {
	case ctx == context.Background() || ctx == context.TODO():
		return db.closing, noRelease
	case ctx.Value(closingKey{}) == db:
		return ctx, noRelease
	case ctx.Done() == nil:
		return &closingCtx{Context: ctx, db: db}, noRelease
	}
	c, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(db.closing, func() { cancel(errClosing) })
	return context.WithValue(c, closingKey{}, db), func() { stop(); cancel(nil) }
}

// closingCtx is a caller's context that is never done (it carries
// values, say) made done by Close: the caller's values, the database's
// cancellation.
type closingCtx struct {
	context.Context
	db *DB
}

func (c *closingCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *closingCtx) Done() <-chan struct{}       { return c.db.closing.Done() }
func (c *closingCtx) Err() error                  { return c.db.closing.Err() }

func (c *closingCtx) Value(key any) any {
	if key == (closingKey{}) {
		return c.db
	}
	return c.Context.Value(key)
}

// closingHint is the hint of a call Close interrupted.
const closingHint = "nothing changed; make the call again once the database is open again"

// closedUnder gives the error of a read (or of a hydration) as its
// caller sees it: when Close stopped it, and not the caller's own
// context, an error that is ErrClosed and says so, with what the read
// was; any other error as it is.
func (db *DB) closedUnder(caller context.Context, err error, what string) error {
	if err == nil || db.closing.Err() == nil || caller.Err() != nil || !errors.Is(err, context.Canceled) {
		return err
	}
	if ge, ok := err.(*gqlstatus.Error); ok && ge.Hint == closingHint {
		return err // a hydration's, said already
	}
	return &gqlstatus.Error{Code: gqlstatus.Rollback, Msg: what + " stopped: the database was closed while it ran",
		Hint: closingHint, Cause: errors.Join(ErrClosed, err)}
}
