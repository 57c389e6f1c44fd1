package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
)

// A session's history here is what it is in a cabinet file (see the
// cabinet package's history.go): the log keeps the entries a flush
// covers, and a flush given a base writes it to the bases and
// base_chunks tables and deletes the entries up to it.

// queueBase queues, in a flush's batch, what its base asks: no history
// (a base at the snapshot's version: the log is trimmed up to it and any
// base goes), or a base after the stored one (written, and the entries
// up to it trimmed).
func (c *Cabinet) queueBase(ctx context.Context, tx pgx.Tx, b *pgx.Batch, o *op) error {
	bv := int64(*o.base)
	if *o.base >= o.version {
		b.Queue(c.q.delBaseChunks, o.name)
		b.Queue(c.q.delBase, o.name)
		b.Queue(c.q.trim, o.name, int64(o.version))
		return nil
	}
	var have int64
	if err := tx.QueryRow(ctx, c.q.baseVersion, o.name).Scan(&have); err != nil {
		return err
	}
	if have >= bv {
		return nil // the history starts there already
	}
	b.Queue(c.q.delBaseChunks, o.name)
	var n int64
	for off := 0; off < len(o.baseData); off += c.chunk {
		b.Queue(c.q.putBaseChunk, o.name, n, cabinet.SealChunk(*o.base, uint64(n), o.baseData[off:min(off+c.chunk, len(o.baseData))]))
		n++
	}
	b.Queue(c.q.putBase, o.name, bv, n, int64(len(o.baseData)))
	b.Queue(c.q.trim, o.name, bv)
	return nil
}

// historyHead is where a session's history starts and its base's head.
type historyHead struct {
	base    snapHead // version -1: no base
	hasOne  bool     // the log holds version 1
	snapVer uint64
}

// from is the version the history starts at: its base's, else 0 when
// the log holds version 1, else the snapshot's.
func (h historyHead) from() (uint64, error) {
	switch {
	case h.base.version >= 0:
		if uint64(h.base.version) > h.snapVer {
			return 0, fmt.Errorf("the history's base is version %d, after the snapshot (version %d)", h.base.version, h.snapVer)
		}
		return uint64(h.base.version), nil
	case h.hasOne:
		return 0, nil
	}
	return h.snapVer, nil
}

func scanHistoryHead(row pgx.Row, snapVer uint64) (historyHead, error) {
	h := historyHead{snapVer: snapVer}
	err := row.Scan(&h.base.version, &h.base.chunks, &h.base.size, &h.hasOne)
	return h, err
}

// History reads what version v of a session is rebuilt from; see
// cabinet.Cabinet.
func (c *Cabinet) History(name string, v, to uint64) (*cabinet.Image, error) {
	if c.isClosed() {
		return nil, cabinet.ErrClosed
	}
	ctx := context.Background()
	var img *cabinet.Image
	err := c.read(ctx, func(tx pgx.Tx) error {
		var err error
		img, err = c.history(ctx, tx, name, v, to)
		return err
	})
	if err != nil {
		return nil, c.wrap(err)
	}
	return img, nil
}

func (c *Cabinet) history(ctx context.Context, tx pgx.Tx, name string, v, to uint64) (*cabinet.Image, error) {
	damaged := func(format string, args ...any) error {
		return fmt.Errorf("%w: session %q in %s: %s", cabinet.ErrDamaged, name, c.path, fmt.Sprintf(format, args...))
	}
	var (
		gen, version, metaVer int64
		raw                   []byte
	)
	if err := tx.QueryRow(ctx, c.q.loadSession, name).Scan(&gen, &version, &raw, &metaVer); errors.Is(err, pgx.ErrNoRows) {
		return nil, cabinet.ErrNoSession
	} else if err != nil {
		return nil, err
	}
	if known := c.gen(name); known != 0 && known != gen {
		return nil, fmt.Errorf("%w: %q in %s", ErrGone, name, c.path)
	}
	m, err := c.meta(name, raw, version, metaVer)
	if err != nil {
		return nil, err
	}
	if v > to || to > m.Version {
		return nil, fmt.Errorf("cabinet: session %q has versions up to %d; asked for %d to %d", name, m.Version, v, to)
	}
	var sh snapHead
	hasSnap := true
	if err := tx.QueryRow(ctx, c.q.loadSnap, name).Scan(&sh.version, &sh.chunks, &sh.size); errors.Is(err, pgx.ErrNoRows) {
		hasSnap = false
	} else if err != nil {
		return nil, err
	}
	snapVer := uint64(max(sh.version, 0))
	hh, err := scanHistoryHead(tx.QueryRow(ctx, c.q.historyHead, name), snapVer)
	if err != nil {
		return nil, err
	}
	img := &cabinet.Image{Meta: m}
	img.Meta.SnapVersion = snapVer
	if img.HistoryFrom, err = hh.from(); err != nil {
		return nil, damaged("%v", err)
	}
	if v < img.HistoryFrom {
		return nil, fmt.Errorf("%w: session %q keeps versions %d to %d", cabinet.ErrNotKept, name, max(img.HistoryFrom, 1), m.Version)
	}
	switch {
	case hasSnap && snapVer <= v:
		img.Graph, err = c.readChunks(ctx, tx, c.q.loadChunks, name, sh)
	case hh.base.version >= 0 && uint64(hh.base.version) <= v:
		img.Graph, err = c.readChunks(ctx, tx, c.q.loadBaseChunks, name, hh.base)
	default:
		img.Graph = store.New()
	}
	if err != nil {
		return nil, damaged("snapshot: %v", err)
	}
	prev := img.Graph.Snapshot().Version()
	rows, err := tx.Query(ctx, c.q.logRange, name, int64(prev), int64(to))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var kv int64
		var entry []byte
		if err := rows.Scan(&kv, &entry); err != nil {
			return nil, err
		}
		if uint64(kv) != prev+1 {
			return nil, damaged("log jumps from version %d to %d", prev, kv)
		}
		e, err := cabinet.DecodeEntry(entry)
		if err != nil {
			return nil, damaged("log entry %d: %v", kv, err)
		}
		if e.Version != uint64(kv) {
			return nil, damaged("log entry under version %d says version %d", kv, e.Version)
		}
		img.Log = append(img.Log, e)
		img.LogBytes += int64(len(entry))
		prev = uint64(kv)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if prev != to {
		return nil, damaged("the log ends at version %d, before version %d", prev, to)
	}
	return img, nil
}

// Log reads the log entries after version after up to version to; see
// cabinet.Cabinet.
func (c *Cabinet) Log(name string, after, to uint64) ([]cabinet.Entry, error) {
	if c.isClosed() {
		return nil, cabinet.ErrClosed
	}
	if after >= to {
		return nil, nil
	}
	ctx := context.Background()
	var log []cabinet.Entry
	err := c.read(ctx, func(tx pgx.Tx) error {
		log = nil
		rows, err := tx.Query(ctx, c.q.logRange, name, int64(after), int64(to))
		if err != nil {
			return err
		}
		defer rows.Close()
		prev := after
		for rows.Next() {
			var kv int64
			var entry []byte
			if err := rows.Scan(&kv, &entry); err != nil {
				return err
			}
			if uint64(kv) != prev+1 {
				if prev == after {
					return fmt.Errorf("%w: session %q keeps no log entry %d", cabinet.ErrNotKept, name, after+1)
				}
				return fmt.Errorf("%w: session %q in %s: log jumps from version %d to %d", cabinet.ErrDamaged, name, c.path, prev, kv)
			}
			e, err := cabinet.DecodeEntry(entry)
			if err != nil || e.Version != uint64(kv) {
				return fmt.Errorf("%w: session %q in %s: log entry %d: %v", cabinet.ErrDamaged, name, c.path, kv, err)
			}
			log = append(log, e)
			prev = uint64(kv)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if prev == after {
			return fmt.Errorf("%w: session %q keeps no log entry %d", cabinet.ErrNotKept, name, after+1)
		}
		if prev != to {
			return fmt.Errorf("%w: session %q in %s: the log ends at version %d, before version %d", cabinet.ErrDamaged, name, c.path, prev, to)
		}
		return nil
	})
	if err != nil {
		return nil, c.wrap(err)
	}
	return log, nil
}

// readChunks reads and joins the chunks of a stored snapshot whose head
// is h.
func (c *Cabinet) readChunks(ctx context.Context, tx pgx.Tx, query, name string, h snapHead) (*store.Graph, error) {
	rows, err := tx.Query(ctx, query, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var chunks [][]byte
	var numbers []int64
	for rows.Next() {
		var n int64
		var data []byte
		if err := rows.Scan(&n, &data); err != nil {
			return nil, err
		}
		numbers, chunks = append(numbers, n), append(chunks, data)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return joinSnapshot(h, numbers, chunks)
}
