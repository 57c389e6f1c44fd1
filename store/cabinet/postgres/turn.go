package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/goldfish-gql/goldfish/store/cabinet"
)

// Turn is a host's turn at a session: the session's row locked (SELECT …
// FOR UPDATE), so no other host commits to it until the turn ends. A
// host that keeps losing races to hosts committing back to back takes a
// turn: the server queues lock waiters in order, so it waits its turn
// instead of starving. The lock is held while the host plans its Δ, for
// as long as one Δ takes.
type Turn struct {
	c    *Cabinet
	conn *pgxpool.Conn
	name string
	done bool
}

// Lock waits for the session's row and holds it, and returns what other
// hosts committed after version after (as Since). The turn ends with
// Claim or Release. A session without a row (never persisted) cannot be
// locked: that is ErrNoSession, and no turn.
//
// The turn runs at READ COMMITTED: a serializable transaction that waited
// for the row would be refused as soon as it got it, since another host
// changed the row after the transaction began.
func (c *Cabinet) Lock(ctx context.Context, name string, after uint64) (*Turn, *Update, error) {
	if c.isClosed() {
		return nil, nil, cabinet.ErrClosed
	}
	conn, err := c.pool.Acquire(ctx)
	if err != nil {
		return nil, nil, c.wrap(err)
	}
	t := &Turn{c: c, conn: conn, name: name}
	b := &pgx.Batch{}
	b.Queue("BEGIN ISOLATION LEVEL READ COMMITTED")
	b.Queue(c.q.lockRow, name)
	b.Queue(c.q.head, name)
	b.Queue(c.q.since, name, int64(after))
	br := conn.SendBatch(ctx, b)
	locked := true
	var u *Update
	if _, err = br.Exec(); err == nil {
		var gen, version int64
		if err = br.QueryRow().Scan(&gen, &version); errors.Is(err, pgx.ErrNoRows) {
			locked, err = false, nil
		}
		if err == nil && locked {
			u, err = c.readUpdate(br, name, after)
		}
	}
	if cerr := br.Close(); err == nil && cerr != nil {
		err = c.wrap(cerr)
	}
	if err == nil && !locked {
		err = cabinet.ErrNoSession
	}
	if err != nil {
		t.Release()
		return nil, nil, err
	}
	return t, u, nil
}

// Claim writes e as the session's next version and ends the turn; the
// errors are Cabinet.Claim's.
func (t *Turn) Claim(ctx context.Context, e cabinet.Entry) error {
	if t.done {
		return errors.New("cabinet: the turn is over")
	}
	c := t.c
	defer t.Release()
	gen := c.gen(t.name)
	sql, args := c.q.advance, []any{t.name, int64(e.Version - 1), int64(e.Version), gen, []byte(nil), cabinet.EncodeEntry(e)}
	if c.notifies() {
		sql, args = c.q.advanceNotify, append(args, c.channel())
	}
	var got int64
	var ignored bool
	b := &pgx.Batch{}
	row := b.Queue(sql, args...)
	b.Queue("COMMIT")
	row.QueryRow(func(r pgx.Row) error { return r.Scan(&got, &ignored) })
	err := t.conn.SendBatch(ctx, b).Close()
	if err == nil {
		c.setGen(t.name, got)
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return c.whyNot(ctx, t.name, gen, e.Version)
	}
	return c.claimError(ctx, t.name, err)
}

// Release ends the turn without writing.
func (t *Turn) Release() {
	if t.done {
		return
	}
	t.done = true
	if t.conn.Conn().PgConn().TxStatus() != 'I' {
		// The pool drops a connection left in a transaction, so a
		// failed rollback costs only the connection.
		_, _ = t.conn.Exec(context.Background(), "ROLLBACK")
	}
	t.conn.Release()
}
