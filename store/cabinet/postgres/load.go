package postgres

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"

	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
)

// readOnly is the transaction every multi-statement read runs in: one
// snapshot of the tables, and no part in the serializable writers'
// conflict checks.
var readOnly = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}

// Sessions lists the persisted sessions' metadata, sorted by name. Every
// log, snapshot and chunk row must belong to a session of the table: a
// session whose row was lost is reported, not left out.
func (c *Cabinet) Sessions() ([]Meta, error) {
	if c.isClosed() {
		return nil, cabinet.ErrClosed
	}
	ctx := context.Background()
	var out []Meta
	err := c.read(ctx, func(tx pgx.Tx) error {
		out = out[:0]
		rows, err := tx.Query(ctx, c.q.sessions)
		if err != nil {
			return err
		}
		for rows.Next() {
			var (
				name                           string
				gen, version, metaVer, snapVer int64
				raw                            []byte
			)
			if err := rows.Scan(&name, &gen, &version, &raw, &metaVer, &snapVer); err != nil {
				return err
			}
			m, err := c.meta(name, raw, version, metaVer)
			if err != nil {
				rows.Close()
				return err
			}
			m.SnapVersion, m.MetaVersion = uint64(snapVer), uint64(metaVer)
			out = append(out, m)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		var orphan string
		switch err := tx.QueryRow(ctx, c.q.orphan).Scan(&orphan); {
		case err == nil:
			return fmt.Errorf("%w: session %q in %s has data but no row in the sessions table", cabinet.ErrDamaged, orphan, c.path)
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, c.wrap(err)
}

// Meta is cabinet.Meta (re-declared for the signatures of this package).
type Meta = cabinet.Meta

// meta decodes a session's metadata record and checks it against its
// row: the record is of version metaVer, the session at version.
func (c *Cabinet) meta(name string, raw []byte, version, metaVer int64) (Meta, error) {
	m, err := cabinet.DecodeMeta(raw)
	switch {
	case err != nil:
	case m.Name != name:
		err = fmt.Errorf("the record names session %q", m.Name)
	case metaVer < 0 || version < metaVer || m.Version != uint64(metaVer):
		err = fmt.Errorf("the record is of version %d, the row says %d of %d", m.Version, metaVer, version)
	}
	if err != nil {
		return Meta{}, fmt.Errorf("%w: session %q in %s: metadata: %v", cabinet.ErrDamaged, name, c.path, err)
	}
	m.Version = uint64(version)
	return m, nil
}

// Dropped reads the dropped counter (see cabinet.Cabinet): the sum, over
// every drop, of the dropped row's version plus meta_version plus one
// (its Meta.Weight plus one),
// added in the drop's transaction. A layout migrated from version 1 starts
// it at 0, right if no session was dropped before (else the catalogue's
// version may repeat once across the first reopen after the migration).
func (c *Cabinet) Dropped() (uint64, error) {
	if c.isClosed() {
		return 0, cabinet.ErrClosed
	}
	var d int64
	if err := c.pool.QueryRow(context.Background(), c.q.dropped).Scan(&d); err != nil {
		return 0, c.wrap(err)
	}
	return uint64(d), nil
}

// read runs fn in a read-only transaction, again when the server asks.
func (c *Cabinet) read(ctx context.Context, fn func(pgx.Tx) error) error {
	var err error
	for attempt := range 4 {
		err = pgx.BeginTxFunc(ctx, c.pool, readOnly, fn)
		if !retryable(err) || attempt == 3 || cabinet.Sleep(ctx, backoff(attempt)) != nil {
			break
		}
	}
	return err
}

// Load reads and checks one session (see cabinet.Cabinet). A session
// this host holds whose incarnation another host dropped is ErrGone.
func (c *Cabinet) Load(name string) (*cabinet.Image, error) {
	if c.isClosed() {
		return nil, cabinet.ErrClosed
	}
	ctx := context.Background()
	var (
		img *cabinet.Image
		gen int64
	)
	err := c.read(ctx, func(tx pgx.Tx) error {
		var err error
		img, gen, err = c.load(ctx, tx, name)
		return err
	})
	if err != nil {
		if errors.Is(err, cabinet.ErrNoSession) && c.gen(name) != 0 {
			return nil, fmt.Errorf("%w: %q in %s", ErrGone, name, c.path)
		}
		return nil, c.wrap(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if known := c.gens[name]; known != 0 && known != gen {
		return nil, fmt.Errorf("%w: %q in %s", ErrGone, name, c.path)
	}
	c.gens[name] = gen
	return img, nil
}

func (c *Cabinet) load(ctx context.Context, tx pgx.Tx, name string) (*cabinet.Image, int64, error) {
	damaged := func(format string, args ...any) error {
		return fmt.Errorf("%w: session %q in %s: %s", cabinet.ErrDamaged, name, c.path, fmt.Sprintf(format, args...))
	}
	b := &pgx.Batch{}
	b.Queue(c.q.loadSession, name)
	b.Queue(c.q.loadSnap, name)
	b.Queue(c.q.loadChunks, name)
	b.Queue(c.q.loadLog, name)
	b.Queue(c.q.loadAttn, name)
	b.Queue(c.q.historyHead, name)
	br := tx.SendBatch(ctx, b)
	defer br.Close()

	var (
		gen, version, metaVer int64
		raw                   []byte
	)
	hasRow := true
	if err := br.QueryRow().Scan(&gen, &version, &raw, &metaVer); errors.Is(err, pgx.ErrNoRows) {
		hasRow = false
	} else if err != nil {
		return nil, 0, err
	}
	var h snapHead
	hasSnap := true
	if err := br.QueryRow().Scan(&h.version, &h.chunks, &h.size); errors.Is(err, pgx.ErrNoRows) {
		hasSnap = false
	} else if err != nil {
		return nil, 0, err
	}
	var chunks [][]byte
	var numbers []int64
	rows, err := br.Query()
	if err != nil {
		return nil, 0, err
	}
	for rows.Next() {
		var n int64
		var data []byte
		if err := rows.Scan(&n, &data); err != nil {
			return nil, 0, err
		}
		numbers, chunks = append(numbers, n), append(chunks, data)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	type logRow struct {
		version int64
		entry   []byte
	}
	var log []logRow
	rows, err = br.Query()
	if err != nil {
		return nil, 0, err
	}
	for rows.Next() {
		var r logRow
		if err := rows.Scan(&r.version, &r.entry); err != nil {
			return nil, 0, err
		}
		log = append(log, r)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	var attn []byte
	if err := br.QueryRow().Scan(&attn); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, 0, err
	}
	hh, err := scanHistoryHead(br.QueryRow(), uint64(max(h.version, 0)))
	if err != nil {
		return nil, 0, err
	}

	if !hasRow {
		if hasSnap || len(chunks) > 0 || len(log) > 0 {
			return nil, 0, damaged("it has data but no row in the sessions table")
		}
		return nil, 0, cabinet.ErrNoSession
	}
	m, err := c.meta(name, raw, version, metaVer)
	if err != nil {
		return nil, 0, err
	}
	img := &cabinet.Image{Meta: m}
	if attn != nil {
		if img.Attention, err = cabinet.OpenAttention(attn); err != nil {
			return nil, 0, damaged("attention record: %v", err)
		}
	}
	switch {
	case hasSnap:
		g, err := joinSnapshot(h, numbers, chunks)
		if err != nil {
			return nil, 0, damaged("snapshot: %v", err)
		}
		img.Graph = g
	case len(chunks) > 0:
		return nil, 0, damaged("snapshot chunks without a snapshot row")
	default:
		img.Graph = store.New()
	}
	snapVer := uint64(max(h.version, 0))
	img.Meta.SnapVersion = snapVer
	if img.HistoryFrom, err = hh.from(); err != nil {
		return nil, 0, damaged("%v", err)
	}
	if uint64(version) < snapVer || version < 0 {
		return nil, 0, damaged("the sessions table says version %d, older than its snapshot (version %d)", version, snapVer)
	}
	prev := snapVer
	for _, r := range log {
		kv := uint64(r.version)
		if r.version <= 0 {
			return nil, 0, damaged("log version %d", r.version)
		}
		if kv <= snapVer {
			continue // trimmed with the snapshot in one transaction: a row left over is harmless
		}
		if kv != prev+1 {
			return nil, 0, damaged("log jumps from version %d to %d", prev, kv)
		}
		e, err := cabinet.DecodeEntry(r.entry)
		if err != nil {
			return nil, 0, damaged("log entry %d: %v", kv, err)
		}
		if e.Version != kv {
			return nil, 0, damaged("log entry under version %d says version %d", kv, e.Version)
		}
		img.Log = append(img.Log, e)
		img.LogBytes += int64(len(r.entry))
		if e.Time.After(img.Meta.LastCommit) {
			img.Meta.LastCommit = e.Time
		}
		prev = kv
	}
	if prev != uint64(version) {
		return nil, 0, damaged("log ends at version %d but the sessions table says %d", prev, version)
	}
	return img, gen, nil
}

// snapHead is a row of the snapshots table.
type snapHead struct{ version, chunks, size int64 }

// joinSnapshot checks a snapshot's chunks against its head, joins and
// decodes them.
func joinSnapshot(h snapHead, numbers []int64, chunks [][]byte) (*store.Graph, error) {
	if h.version <= 0 || h.chunks < 0 || h.size < 0 || h.chunks > h.size+1 {
		return nil, fmt.Errorf("the head claims version %d, %d bytes in %d chunks", h.version, h.size, h.chunks)
	}
	total := 0
	for _, c := range chunks {
		total += len(c)
	}
	if int64(len(chunks)) != h.chunks || int64(total) > h.size+4*h.chunks {
		return nil, fmt.Errorf("%d chunks of %d bytes, the head says %d of %d", len(chunks), total, h.chunks, h.size)
	}
	buf := make([]byte, 0, h.size)
	for i, raw := range chunks {
		if numbers[i] != int64(i) {
			return nil, fmt.Errorf("chunk %d is missing (found chunk %d)", i, numbers[i])
		}
		p, err := cabinet.OpenChunk(uint64(h.version), uint64(i), raw)
		if err != nil {
			return nil, fmt.Errorf("chunk %d: %v", i, err)
		}
		buf = append(buf, p...)
	}
	if int64(len(buf)) != h.size {
		return nil, fmt.Errorf("the chunks hold %d bytes, the head says %d", len(buf), h.size)
	}
	g, err := cabinet.DecodeSnapshot(buf)
	if err != nil {
		return nil, err
	}
	if v := g.Snapshot().Version(); v != uint64(h.version) {
		return nil, fmt.Errorf("snapshot version %d does not match its head (%d)", v, h.version)
	}
	return g, nil
}

// Update is cabinet.Update, what Since and Lock return.
type Update = cabinet.Update

// Since reads what other hosts committed to a session after version
// after: ErrGone if the incarnation this host knows was dropped,
// ErrNoSession if the session was never persisted (and this host knows
// none). One round trip when nothing is new.
func (c *Cabinet) Since(ctx context.Context, name string, after uint64) (*Update, error) {
	if c.isClosed() {
		return nil, cabinet.ErrClosed
	}
	b := &pgx.Batch{}
	b.Queue(c.q.head, name)
	b.Queue(c.q.since, name, int64(after))
	br := c.pool.SendBatch(ctx, b)
	defer br.Close()
	return c.readUpdate(br, name, after)
}

// readUpdate reads, from the next results of br, a session's head row
// (c.q.head) and its log after version after (c.q.since).
func (c *Cabinet) readUpdate(br pgx.BatchResults, name string, after uint64) (*Update, error) {
	damaged := func(format string, args ...any) error {
		return fmt.Errorf("%w: session %q in %s: %s", cabinet.ErrDamaged, name, c.path, fmt.Sprintf(format, args...))
	}
	var gen, version, snapVer int64
	err := br.QueryRow().Scan(&gen, &version, &snapVer)
	known := c.gen(name)
	switch {
	case errors.Is(err, pgx.ErrNoRows) && known != 0:
		return nil, fmt.Errorf("%w: %q in %s", ErrGone, name, c.path)
	case errors.Is(err, pgx.ErrNoRows):
		return nil, cabinet.ErrNoSession
	case err != nil:
		return nil, c.wrap(err)
	case known != 0 && gen != known:
		return nil, fmt.Errorf("%w: %q in %s", ErrGone, name, c.path)
	}
	u := &Update{Version: uint64(version), SnapVersion: uint64(snapVer)}
	rows, err := br.Query()
	if err != nil {
		return nil, c.wrap(err)
	}
	defer rows.Close()
	prev := after
	for rows.Next() {
		var v int64
		var raw []byte
		if err := rows.Scan(&v, &raw); err != nil {
			return nil, c.wrap(err)
		}
		if uint64(v) != prev+1 {
			u.Reload, u.Entries, u.LogBytes = true, nil, 0
			break
		}
		e, err := cabinet.DecodeEntry(raw)
		if err != nil {
			return nil, damaged("log entry %d: %v", v, err)
		}
		if e.Version != uint64(v) {
			return nil, damaged("log entry under version %d says version %d", v, e.Version)
		}
		u.Entries = append(u.Entries, e)
		u.LogBytes += int64(len(raw))
		prev = uint64(v)
	}
	if err := rows.Err(); err != nil {
		return nil, c.wrap(err)
	}
	switch {
	case u.Reload:
	case prev < u.Version && u.SnapVersion > after:
		u.Reload, u.Entries, u.LogBytes = true, nil, 0 // trimmed by a flush on another host
	case prev < u.Version:
		return nil, damaged("the log ends at version %d but the sessions table says %d", prev, u.Version)
	case u.Version < after && known != 0:
		return nil, damaged("the sessions table says version %d, this host holds %d", u.Version, after)
	}
	if known == 0 {
		c.setGen(name, gen)
	}
	return u, nil
}

// Head is cabinet.Head: a session's row.
type Head = cabinet.Head

// Heads reads the rows of the named sessions (every session when names
// is nil); a name without a row is left out.
func (c *Cabinet) Heads(ctx context.Context, names []string) ([]Head, error) {
	if c.isClosed() {
		return nil, cabinet.ErrClosed
	}
	var rows pgx.Rows
	var err error
	if names == nil {
		rows, err = c.pool.Query(ctx, c.q.heads)
	} else {
		rows, err = c.pool.Query(ctx, c.q.headsOf, names)
	}
	if err != nil {
		return nil, c.wrap(err)
	}
	defer rows.Close()
	var out []Head
	for rows.Next() {
		var h Head
		var version, metaVer int64
		var raw []byte
		if err := rows.Scan(&h.Name, &h.Gen, &version, &raw, &metaVer); err != nil {
			return nil, c.wrap(err)
		}
		if h.Meta, err = c.meta(h.Name, raw, version, metaVer); err != nil {
			return nil, err
		}
		h.Version, h.MetaVersion = h.Meta.Version, uint64(metaVer)
		h.Meta.MetaVersion = h.MetaVersion // the catalogue's weight (cabinet.Meta.Weight)
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, c.wrap(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
