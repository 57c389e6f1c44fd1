package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
)

type opKind uint8

const (
	opAppend opKind = iota
	opAttention
	opMeta
	opFlush
	opDrop
)

type op struct {
	kind    opKind
	name    string
	version uint64
	data    []byte // entry, snapshot or attention record
	meta    []byte
	// base is a flush's history base (cabinet.Cabinet.Flush): its
	// version and, unless it is the snapshot's, its snapshot record.
	base     *uint64
	baseData []byte
}

// alone is the Group's Alone: entries, attention records and metadata
// share one transaction with their neighbours; a flush or a drop runs in
// one of its own.
func alone(o *op) bool { return o.kind >= opFlush }

// Append queues an entry and the session's metadata; see cabinet.Cabinet.
// It fails, and poisons the session, if the entry does not follow the
// session's latest version (another host committed it: the root package
// commits through Claim instead, which fails without poisoning).
func (c *Cabinet) Append(name string, e cabinet.Entry, m Meta) *cabinet.Ticket {
	return c.group.Enqueue(name, &op{kind: opAppend, name: name, version: e.Version, data: cabinet.EncodeEntry(e), meta: cabinet.EncodeMeta(m)})
}

// SaveAttention queues data as the session's attention record. A failure
// fails its Ticket and does not poison the session: the record is not
// part of the log.
func (c *Cabinet) SaveAttention(name string, data []byte) *cabinet.Ticket {
	return c.group.Enqueue(name, &op{kind: opAttention, name: name, data: cabinet.SealAttention(data)})
}

// SetMeta queues m as the metadata of the session's version m.Version,
// unless the table holds a later one: the root package calls it after
// each Claim. A failure leaves the older metadata, which the next one
// replaces.
func (c *Cabinet) SetMeta(name string, m Meta) *cabinet.Ticket {
	return c.group.Enqueue(name, &op{kind: opMeta, name: name, version: m.Version, meta: cabinet.EncodeMeta(m)})
}

// Flush writes snap as the session's snapshot, in chunks, and, given a
// base, moves the start of its history there; see cabinet.Cabinet.
func (c *Cabinet) Flush(name string, snap *store.Snapshot, m Meta, base *store.Snapshot) error {
	o := &op{kind: opFlush, name: name, version: snap.Version(), data: cabinet.EncodeSnapshot(snap), meta: cabinet.EncodeMeta(m)}
	o.base, o.baseData = cabinet.FlushBase(snap, base)
	return c.group.Enqueue(name, o).Wait()
}

// Drop removes a session, whichever incarnation the table holds.
func (c *Cabinet) Drop(name string) error {
	err := c.group.EnqueueDrop(name, &op{kind: opDrop, name: name}).Wait()
	if err == nil {
		c.Forget(name)
	}
	return err
}

// failed is the Group's Failed: the error is worded for the caller, and
// the session poisoned when an entry was among the ops (memory is then
// ahead of the table); attention records and metadata are not the log.
func (c *Cabinet) failed(name string, ops []*op, err error) (error, bool) {
	err = c.wrap(err)
	for _, o := range ops {
		if o.kind == opAppend {
			return fmt.Errorf("%w: session %q in %s: %v", cabinet.ErrPoisoned, name, c.path, err), true
		}
	}
	return err, false
}

// attempt is the Group's Write: ops in one serializable transaction, run
// again while the server reports it could not serialize it.
func (c *Cabinet) attempt(ops []*op) error {
	ctx := context.Background()
	var err error
	for attempt := range 8 {
		var gens map[string]int64
		err = pgx.BeginTxFunc(ctx, c.pool, pgx.TxOptions{IsoLevel: pgx.Serializable}, func(tx pgx.Tx) error {
			var err error
			gens, err = c.apply(ctx, tx, ops)
			return err
		})
		if err == nil {
			c.mu.Lock()
			for name, g := range gens {
				if g == 0 {
					delete(c.gens, name)
				} else {
					c.gens[name] = g
				}
			}
			c.mu.Unlock()
			return nil
		}
		if !retryable(err) || cabinet.Sleep(ctx, backoff(attempt)) != nil {
			break
		}
	}
	return err
}

// apply writes ops in tx; it returns the gens the ops learnt (0: the
// session was dropped).
func (c *Cabinet) apply(ctx context.Context, tx pgx.Tx, ops []*op) (map[string]int64, error) {
	gens := map[string]int64{}
	gen := func(name string) int64 {
		if g, ok := gens[name]; ok {
			return g
		}
		return c.gen(name)
	}
	if ops[0].kind == opFlush {
		return gens, c.flush(ctx, tx, ops[0], gen(ops[0].name))
	}
	if ops[0].kind == opDrop {
		o := ops[0]
		b := &pgx.Batch{}
		for _, q := range c.q.drop {
			b.Queue(q, o.name)
		}
		if c.notifies() {
			b.Queue(c.q.notify, c.channel(), o.name)
		}
		gens[o.name] = 0
		return gens, tx.SendBatch(ctx, b).Close()
	}
	// One batch, one round trip; the entries' results are then checked
	// in order.
	b := &pgx.Batch{}
	lazy := c.lazy()
	for _, o := range ops {
		lazy = lazy && o.kind != opAppend
	}
	if lazy {
		// Metadata and attention records only: neither is part of the
		// log, and the next write repairs a lost one.
		b.Queue("SET LOCAL synchronous_commit TO off")
	}
	type check struct {
		o   *op
		res *pgx.QueuedQuery
	}
	var checks []check
	for _, o := range ops {
		switch o.kind {
		case opAttention:
			b.Queue(c.q.putAttn, o.name, o.data)
		case opMeta:
			b.Queue(c.q.setMeta, o.name, o.meta, int64(o.version), gen(o.name))
		case opAppend:
			g := gen(o.name)
			var q *pgx.QueuedQuery
			if o.version == 1 && g == 0 {
				g = newGen()
				q = b.Queue(c.q.create, o.name, g, o.meta, int64(1), o.data)
			} else {
				q = b.Queue(c.q.advance, o.name, int64(o.version-1), int64(o.version), g, o.meta, o.data)
			}
			checks = append(checks, check{o, q})
			gens[o.name] = g // provisional: the entries after it use it
		}
	}
	if c.notifies() {
		// New entries and new metadata (for the catalogues) wake the
		// other hosts.
		seen := map[string]bool{}
		for _, o := range ops {
			if (o.kind == opAppend || o.kind == opMeta) && !seen[o.name] {
				seen[o.name] = true
				b.Queue(c.q.notify, c.channel(), o.name)
			}
		}
	}
	results := make(map[*op]int64, len(checks))
	for _, ch := range checks {
		ch.res.QueryRow(func(row pgx.Row) error {
			var g int64
			var ignored bool
			err := row.Scan(&g, &ignored)
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("log entry %d of session %q does not follow the session's latest version (another host committed to it, or it was dropped)", ch.o.version, ch.o.name)
			}
			results[ch.o] = g
			return err
		})
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, err
	}
	for _, ch := range checks {
		gens[ch.o.name] = results[ch.o]
	}
	return gens, nil
}

// flush writes a snapshot and trims the log, unless the table holds a
// newer snapshot or the session is not at the snapshot's version yet.
func (c *Cabinet) flush(ctx context.Context, tx pgx.Tx, o *op, known int64) error {
	var gen, version, snapVer int64
	err := tx.QueryRow(ctx, c.q.head, o.name).Scan(&gen, &version, &snapVer)
	if errors.Is(err, pgx.ErrNoRows) {
		if known != 0 {
			return fmt.Errorf("%w: %q in %s", ErrGone, o.name, c.path)
		}
		return nil // never persisted: nothing to flush
	}
	if err != nil {
		return err
	}
	if known != 0 && gen != known {
		return fmt.Errorf("%w: %q in %s", ErrGone, o.name, c.path)
	}
	v := int64(o.version)
	if v < snapVer || v > version || v == snapVer && o.base == nil {
		return nil // a newer snapshot is there already, or the log lacks the versions it covers: keep them
	}
	b := &pgx.Batch{}
	if v > snapVer {
		b.Queue(c.q.delChunks, o.name)
		var n int64
		for off := 0; off < len(o.data); off += c.chunk {
			b.Queue(c.q.putChunk, o.name, n, cabinet.SealChunk(o.version, uint64(n), o.data[off:min(off+c.chunk, len(o.data))]))
			n++
		}
		b.Queue(c.q.putSnap, o.name, v, n, int64(len(o.data)))
	}
	if o.base != nil {
		if err := c.queueBase(ctx, tx, b, o); err != nil {
			return err
		}
	}
	if v == version {
		b.Queue(c.q.flushMeta, o.name, o.meta, v)
	}
	if b.Len() == 0 {
		return nil
	}
	return tx.SendBatch(ctx, b).Close()
}

// Claim writes e as the next version of the session, e.Version, in one
// transaction, and returns once the server has committed it. It returns
// ErrVersionTaken (nothing written) if the session is not at
// e.Version-1, or if the server could not serialize the transaction
// with another; ErrGone if the incarnation this host knows was dropped;
// ErrUnavailable if the request never reached the server, ErrUnknown if
// the connection was lost on its way (it may have been written).
func (c *Cabinet) Claim(ctx context.Context, name string, e cabinet.Entry) error {
	if c.isClosed() {
		return cabinet.ErrClosed
	}
	gen := c.gen(name)
	data := cabinet.EncodeEntry(e)
	var sql string
	var args []any
	switch {
	case e.Version == 1 && gen == 0:
		sql, args = c.q.create, []any{name, newGen(), cabinet.EncodeMeta(Meta{Name: name}), int64(0), data}
		if c.notifies() {
			sql, args = c.q.createNotify, append(args, c.channel())
		}
	case e.Version > 1:
		sql, args = c.q.advance, []any{name, int64(e.Version - 1), int64(e.Version), gen, []byte(nil), data}
		if c.notifies() {
			sql, args = c.q.advanceNotify, append(args, c.channel())
		}
	default:
		return fmt.Errorf("%w: version 1 of %q in %s is there already", ErrVersionTaken, name, c.path)
	}
	// One round trip: the transaction's BEGIN, its statement and its
	// COMMIT go to the server together. If the statement fails, the
	// server skips the COMMIT and the pool drops the connection, which
	// is left inside the failed transaction.
	var got int64
	var ignored bool
	b := &pgx.Batch{}
	b.Queue("BEGIN ISOLATION LEVEL SERIALIZABLE")
	row := b.Queue(sql, args...)
	b.Queue("COMMIT")
	row.QueryRow(func(r pgx.Row) error { return r.Scan(&got, &ignored) })
	err := c.pool.SendBatch(ctx, b).Close()
	switch {
	case err == nil:
		c.setGen(name, got)
		return nil
	case errors.Is(err, pgx.ErrNoRows):
		return c.whyNot(ctx, name, gen, e.Version)
	}
	return c.claimError(ctx, name, err)
}

// claimError words a claim the server did not confirm.
func (c *Cabinet) claimError(ctx context.Context, name string, err error) error {
	var ce *pgconn.ConnectError
	switch {
	case retryable(err):
		return fmt.Errorf("%w: %q in %s: %v", ErrVersionTaken, name, c.path, err)
	case pgconn.SafeToRetry(err), errors.As(err, &ce):
		// Nothing reached the server.
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: %s: %v", ErrUnavailable, c.path, err)
	case isServerError(err) && !unavailable(err):
		return c.wrap(err) // the server refused the statement: nothing was written
	}
	// The connection went away, or the server ended it, after the
	// request was sent: the transaction may have committed (a server
	// stopping at once can end a backend after its commit is durable
	// and before it answers).
	return fmt.Errorf("%w: %q in %s: %v", ErrUnknown, name, c.path, err)
}

// whyNot tells why a claim wrote nothing: the incarnation is gone, or
// the version is taken.
func (c *Cabinet) whyNot(ctx context.Context, name string, known int64, version uint64) error {
	var gen, at int64
	err := c.pool.QueryRow(ctx, c.q.whyNot, name).Scan(&gen, &at)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		if known == 0 && version == 1 {
			return fmt.Errorf("%w: %q in %s", ErrVersionTaken, name, c.path) // made and dropped meanwhile
		}
		return fmt.Errorf("%w: %q in %s", ErrGone, name, c.path)
	case err != nil:
		return c.wrap(err)
	case known != 0 && gen != known:
		return fmt.Errorf("%w: %q in %s", ErrGone, name, c.path)
	}
	return fmt.Errorf("%w: %q in %s is at version %d, this host wrote version %d", ErrVersionTaken, name, c.path, at, version)
}

func (c *Cabinet) lazy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lazyMeta
}

// notifies reports whether Commits notify other hosts.
func (c *Cabinet) notifies() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.notify
}

// channel is the LISTEN/NOTIFY channel of the cabinet's schema.
func (c *Cabinet) channel() string { return "goldfish_" + c.schema }
