package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/goldfish-gql/goldfish/store/cabinet"
)

// Turn is cabinet.Turn. Here a turn is the session's row locked (SELECT
// … FOR UPDATE) in a transaction on a connection of the turn's own: the
// server queues lock waiters in order.
type Turn = cabinet.Turn

// Lock waits for the session's row and holds it, and returns what other
// hosts committed after version after (as Since); see cabinet.Shared.
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
	t := cabinet.NewTurn(
		func(ctx context.Context, e cabinet.Entry) error { return c.claimLocked(ctx, conn, name, e) },
		func() { endTurn(conn) })
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

// claimLocked is a turn's Claim: e written as the session's next version
// in the turn's transaction, which it commits; the errors are Claim's.
func (c *Cabinet) claimLocked(ctx context.Context, conn *pgxpool.Conn, name string, e cabinet.Entry) error {
	gen := c.gen(name)
	sql, args := c.q.advance, []any{name, int64(e.Version - 1), int64(e.Version), gen, []byte(nil), cabinet.EncodeEntry(e)}
	if c.notifies() {
		sql, args = c.q.advanceNotify, append(args, c.channel())
	}
	var got int64
	var ignored bool
	b := &pgx.Batch{}
	row := b.Queue(sql, args...)
	b.Queue("COMMIT")
	row.QueryRow(func(r pgx.Row) error { return r.Scan(&got, &ignored) })
	err := conn.SendBatch(ctx, b).Close()
	if err == nil {
		c.setGen(name, got)
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return c.whyNot(ctx, name, gen, e.Version)
	}
	return c.claimError(ctx, name, err)
}

// endTurn ends a turn: its transaction rolled back unless it committed,
// and its connection back to the pool.
func endTurn(conn *pgxpool.Conn) {
	if conn.Conn().PgConn().TxStatus() != 'I' {
		// The pool drops a connection left in a transaction, so a
		// failed rollback costs only the connection.
		_, _ = conn.Exec(context.Background(), "ROLLBACK")
	}
	conn.Release()
}
