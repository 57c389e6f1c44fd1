package cabinet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/goldfish-gql/goldfish/store"
)

// Options configure a bbolt cabinet.
type Options struct {
	// LockTimeout is how long Open waits for another process's lock on
	// the file before it returns ErrInUse (default 250ms).
	LockTimeout time.Duration
	// ReadOnly opens the file for reading only, under a shared lock: any
	// number of read-only openers hold it at once, and none while a
	// writer does (nor a writer while any of them does): ErrInUse. It
	// writes nothing at all, not even at Open and Close: no new file, no
	// compaction, no migration of an older format (Open refuses it: open
	// the file once read-write to migrate it), no writer. Append,
	// SaveAttention, Flush and Drop fail with ErrReadOnly.
	ReadOnly bool
}

// Bolt is the embedded cabinet: one bbolt file holding many sessions,
// written through a Group, each group in one bbolt transaction.
type Bolt struct {
	mu    sync.Mutex // guards db, which a compaction at Close replaces
	db    *bolt.DB
	path  string // as given, for messages
	file  string // path with symbolic links resolved: what a compaction replaces
	chunk int    // snapshot bytes per chunk

	// readOnly: Options.ReadOnly; group is nil then, and closed says
	// whether Close has closed the file.
	readOnly bool
	closed   sync.Once
	group    *Group[*op]
}

type opKind uint8

const (
	opAppend opKind = iota
	opFlush
	opDrop
	opAttention
)

type op struct {
	kind    opKind
	name    string
	version uint64
	data    []byte // entry or snapshot
	meta    []byte
	// base is a flush's history base (Cabinet.Flush): its version and,
	// unless it is the snapshot's, its snapshot record.
	base     *uint64
	baseData []byte
}

// errLocked: openLocked gave up waiting for another process's lock.
var errLocked = errors.New("locked")

// Open opens (creating if needed) the cabinet file at path, checks it,
// migrates a file of format 1, compacts one that is mostly free space,
// and starts its writer. Read-only (Options.ReadOnly) it only opens and
// checks an existing cabinet.
func Open(path string, opts *Options) (*Bolt, error) {
	if opts == nil {
		opts = &Options{}
	}
	timeout := opts.LockTimeout
	if timeout <= 0 {
		timeout = 250 * time.Millisecond
	}
	inUse := func() error {
		return fmt.Errorf("%w: %s (close the other goldfish or gqlsh using it, or pick another file)", ErrInUse, path)
	}
	ro := opts.ReadOnly
	f, err := openLocked(path, timeout, ro)
	if errors.Is(err, errLocked) {
		return nil, inUse()
	}
	if ro && errors.Is(err, fs.ErrNotExist) {
		return nil, noCabinet(path)
	}
	if err != nil {
		return nil, openError(path, err)
	}
	file := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		file = real
	}
	if canCompact && !ro {
		// Left by a compaction that did not finish: we hold the lock, so
		// no other process is writing it.
		if err := os.Remove(file + compactSuffix); err != nil && !os.IsNotExist(err) {
			f.Close()
			return nil, fmt.Errorf("cabinet: %w", err)
		}
	}
	info, err := preflight(f, path)
	if err == nil && ro && info.size == 0 {
		err = fmt.Errorf("cabinet: %s is an empty file, not a cabinet yet: %s", path, readWriteOnce)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	db, err := openBolt(path, f, timeout, ro)
	if err != nil {
		switch {
		case errors.Is(err, berrors.ErrTimeout):
			return nil, inUse()
		case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum), errors.Is(err, berrors.ErrVersionMismatch):
			return nil, fmt.Errorf("%w: %s is not a readable cabinet file: %v", ErrDamaged, path, err)
		}
		return nil, openError(path, err)
	}
	b := &Bolt{db: db, path: path, file: file, readOnly: ro}
	if err := b.prepare(info); err != nil {
		b.db.Close()
		return nil, err
	}
	b.chunk = chunkBytes(b.db.Info().PageSize)
	if !ro {
		b.group = NewGroup(GroupHooks[*op]{Write: b.write, Failed: b.failed})
	}
	return b, nil
}

// readWriteOnce is the advice of a read-only open that would have to
// write the file first.
const readWriteOnce = "open it once without read-only (gqlsh without --read-only) to bring it up to date, then read-only again"

// noCabinet is the error of a read-only open of a path with no file:
// fs.ErrNotExist, worded for the cabinet.
type noCabinet string

func (p noCabinet) Error() string {
	return fmt.Sprintf("cabinet: no cabinet at %s: a read-only open creates none (open it once without read-only to create it)", string(p))
}

func (noCabinet) Is(target error) bool { return target == fs.ErrNotExist }

// errReadOnly is the error of a write to a read-only cabinet.
func (b *Bolt) errReadOnly() error {
	return fmt.Errorf("%w: %s", ErrReadOnly, b.path)
}

// openBolt opens the bbolt database at path on f, the file openLocked
// opened (and locked), so that bbolt reads the file that was checked.
func openBolt(path string, f *os.File, timeout time.Duration, readOnly bool) (*bolt.DB, error) {
	handed := false
	db, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout:  timeout,
		ReadOnly: readOnly,
		// No free-list page is written with each transaction; Open
		// rebuilds the list by walking the file, which preflight checked.
		NoFreelistSync: true,
		FreelistType:   bolt.FreelistMapType,
		OpenFile: func(name string, flag int, mode os.FileMode) (*os.File, error) {
			if !handed {
				handed = true
				return f, nil
			}
			return os.OpenFile(name, flag, mode)
		},
	})
	if !handed {
		f.Close()
	}
	return db, err
}

// prepare creates the buckets of a new file, migrates a format-1 file,
// checks a format-2 one, and compacts it if most of it is free space
// (info: what preflight found).
func (b *Bolt) prepare(info fileInfo) error {
	var format []byte
	empty := true
	err := b.db.View(func(tx *bolt.Tx) error {
		if root := tx.Bucket(bucketRoot); root != nil {
			format = bytes.Clone(root.Get(keyFormat))
		}
		return tx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil })
	})
	if err != nil {
		return fmt.Errorf("cabinet: %s: %w", b.path, err)
	}
	switch {
	case empty && b.readOnly:
		return fmt.Errorf("cabinet: %s holds no cabinet yet: %s", b.path, readWriteOnce)
	case bytes.Equal(format, format1) && b.readOnly:
		return fmt.Errorf("cabinet: %s has cabinet format 1, which this goldfish migrates by rewriting it: %s", b.path, readWriteOnce)
	case empty:
		return b.db.Update(func(tx *bolt.Tx) error {
			for _, name := range topBucketsFormat {
				if _, err := tx.CreateBucket(name); err != nil {
					return err
				}
			}
			return tx.Bucket(bucketRoot).Put(keyFormat, formatVersion)
		})
	case bytes.Equal(format, format1):
		migrate := func() error { return b.rewrite(true) }
		if !canCompact {
			migrate = func() error { return migrateInPlace(b.db, b.path) }
		}
		if err := migrate(); err != nil {
			if errors.Is(err, ErrDamaged) {
				return err
			}
			return fmt.Errorf("cabinet: migrating %s from format 1: %w", b.path, err)
		}
		return nil
	case !bytes.Equal(format, formatVersion):
		if format == nil {
			return fmt.Errorf("%w: %s is a bbolt file but not a cabinet (no format record)", ErrDamaged, b.path)
		}
		return fmt.Errorf("%w: %s has cabinet format %q, this goldfish reads %q", ErrDamaged, b.path, format, formatVersion)
	}
	var add [][]byte
	err = b.db.View(func(tx *bolt.Tx) error {
		for _, name := range topBucketsFormat {
			if tx.Bucket(name) == nil {
				if slices.ContainsFunc(laterBuckets, func(l []byte) bool { return bytes.Equal(l, name) }) {
					add = append(add, name) // written before the bucket was kept
					continue
				}
				return fmt.Errorf("%w: %s lacks its %q bucket", ErrDamaged, b.path, name)
			}
		}
		return nil
	})
	if err == nil && len(add) > 0 && b.readOnly {
		err = fmt.Errorf("cabinet: %s lacks the %q bucket this goldfish adds: %s", b.path, add[0], readWriteOnce)
	}
	for _, name := range add {
		if err != nil {
			break
		}
		err = b.db.Update(func(tx *bolt.Tx) error {
			_, err := tx.CreateBucket(name)
			return err
		})
		switch {
		case errors.Is(err, bolt.ErrIncompatibleValue):
			// The name is taken by a value where only buckets live.
			err = fmt.Errorf("%w: %s holds a value where its %q bucket belongs", ErrDamaged, b.path, name)
		case err != nil:
			err = fmt.Errorf("cabinet: %s: adding the %q bucket: %w", b.path, name, err)
		}
	}
	if err != nil {
		return err
	}
	if canCompact && !b.readOnly && wasteful(info.hwm-info.reachable, info.hwm, info.pageSize) {
		_ = b.rewrite(false) // the file stays as it is; a later Open or Close retries
	}
	return nil
}

// guard turns a memory fault while reading the mapped file (a damaged or
// truncated file) into an ErrDamaged error instead of a crash.
func guard(err *error, path, session string) {
	if r := recover(); r != nil {
		where := path
		if session != "" {
			where = fmt.Sprintf("session %q in %s", session, path)
		}
		*err = fmt.Errorf("%w: %s: reading the file failed: %v", ErrDamaged, where, r)
	}
}

func withFaults[T any](fn func() (T, error)) (T, error) {
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	return fn()
}

// handle returns the bbolt database for a reader (a compaction at Close
// replaces it).
func (b *Bolt) handle() *bolt.DB {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.db
}

// Path returns the file's path.
func (b *Bolt) Path() string { return b.path }

// Sessions lists the persisted sessions' metadata, sorted by name. Each
// index record must name its session, and every log and snapshot must
// belong to a session of the index: a session whose index record was lost
// is reported, not left out.
func (b *Bolt) Sessions() ([]Meta, error) {
	return withFaults(func() (out []Meta, err error) {
		defer guard(&err, b.path, "")
		err = b.handle().View(func(tx *bolt.Tx) error {
			idx, logs, snaps := tx.Bucket(bucketIndex), tx.Bucket(bucketLogs), tx.Bucket(bucketSnaps)
			if idx == nil || logs == nil || snaps == nil || tx.Bucket(bucketAttn) == nil {
				return fmt.Errorf("%w: %s lacks its index, logs, snaps or attention bucket", ErrDamaged, b.path)
			}
			err := idx.ForEach(func(k, v []byte) error {
				m, err := decodeMeta(v)
				if err == nil && m.Name != string(k) {
					err = fmt.Errorf("the record names session %q", m.Name)
				}
				if err != nil {
					return fmt.Errorf("%w: session %q in %s: index record: %v", ErrDamaged, k, b.path, err)
				}
				if h, ok, err := head(snaps, k); err != nil {
					return fmt.Errorf("%w: session %q in %s: snapshot head: %v", ErrDamaged, k, b.path, err)
				} else if ok {
					m.SnapVersion = h.version
				}
				out = append(out, m)
				return nil
			})
			if err != nil {
				return err
			}
			for _, data := range []*bolt.Bucket{logs, snaps, tx.Bucket(bucketBases)} {
				if data == nil {
					continue
				}
				err := data.ForEach(func(k, _ []byte) error {
					if idx.Get(k) == nil {
						return fmt.Errorf("%w: session %q in %s has data but no index record", ErrDamaged, k, b.path)
					}
					return nil
				})
				if err != nil {
					return err
				}
			}
			return nil
		})
		sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
		return out, err
	})
}

// head reads the snapshot head of a session; ok is false if it has no
// snapshot.
func head(snaps *bolt.Bucket, name []byte) (h snapHead, ok bool, err error) {
	if snaps.Get(name) != nil {
		return h, false, errors.New("the snapshot is not a bucket")
	}
	sb := snaps.Bucket(name)
	if sb == nil {
		return h, false, nil
	}
	raw := sb.Get(keyHead)
	if raw == nil {
		return h, false, errors.New("missing")
	}
	h, err = decodeHead(raw)
	return h, err == nil, err
}

// Load reads and checks one session.
func (b *Bolt) Load(name string) (*Image, error) {
	return withFaults(func() (img *Image, err error) {
		defer guard(&err, b.path, name)
		damaged := func(format string, args ...any) error {
			return fmt.Errorf("%w: session %q in %s: %s", ErrDamaged, name, b.path, fmt.Sprintf(format, args...))
		}
		key := []byte(name)
		err = b.handle().View(func(tx *bolt.Tx) error {
			idx, logs, snaps := tx.Bucket(bucketIndex), tx.Bucket(bucketLogs), tx.Bucket(bucketSnaps)
			if idx == nil || logs == nil || snaps == nil || tx.Bucket(bucketAttn) == nil {
				return fmt.Errorf("%w: %s lacks its index, logs, snaps or attention bucket", ErrDamaged, b.path)
			}
			raw := idx.Get(key)
			if raw == nil {
				if logs.Get(key) != nil || logs.Bucket(key) != nil || snaps.Get(key) != nil || snaps.Bucket(key) != nil {
					return damaged("it has data but no index record")
				}
				return ErrNoSession
			}
			m, err := decodeMeta(raw)
			if err == nil && m.Name != name {
				err = fmt.Errorf("the record names session %q", m.Name)
			}
			if err != nil {
				return damaged("index record: %v", err)
			}
			img = &Image{Meta: m}
			if raw := tx.Bucket(bucketAttn).Get(key); raw != nil {
				if img.Attention, err = openAttention(raw); err != nil {
					return damaged("attention record: %v", err)
				}
			}
			h, ok, err := head(snaps, key)
			if err != nil {
				return damaged("snapshot head: %v", err)
			}
			if ok {
				g, err := readSnapshot(snaps.Bucket(key), h, tx.Size())
				if err != nil {
					return damaged("snapshot: %v", err)
				}
				img.Graph = g
			} else {
				img.Graph = store.New()
			}
			snapVer := h.version
			img.Meta.SnapVersion = snapVer
			if m.Version < snapVer {
				return damaged("the index says version %d, older than its snapshot (version %d)", m.Version, snapVer)
			}
			if logs.Get(key) != nil {
				return damaged("the log is not a bucket")
			}
			lb := logs.Bucket(key)
			if lb == nil && m.Version > snapVer {
				return damaged("the index says version %d but there is no log after the snapshot (version %d)", m.Version, snapVer)
			}
			prev := snapVer
			if lb != nil {
				// The entries up to the snapshot are its history
				// (history.go); hydrating reads only those after it.
				if img.Log, img.LogBytes, err = readLog(lb, snapVer, math.MaxUint64); err != nil {
					return damaged("%v", err)
				}
				if img.HistoryFrom, err = historyFrom(tx, key, lb, snapVer); err != nil {
					return damaged("%v", err)
				}
				prev += uint64(len(img.Log))
			} else {
				img.HistoryFrom = snapVer
			}
			if prev != m.Version {
				return damaged("log ends at version %d but the index says %d", prev, m.Version)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		return img, nil
	})
}

// readSnapshot joins and checks a snapshot's chunks and decodes it; limit
// (the file's size) bounds what a head may claim.
func readSnapshot(sb *bolt.Bucket, h snapHead, limit int64) (*store.Graph, error) {
	if h.size > uint64(limit) || h.chunks > h.size+1 {
		return nil, fmt.Errorf("the head claims %d bytes in %d chunks", h.size, h.chunks)
	}
	buf := make([]byte, 0, h.size)
	var n uint64
	c := sb.Cursor()
	for k, v := c.First(); k != nil && !bytes.Equal(k, keyHead); k, v = c.Next() {
		if len(k) != 8 || binary.BigEndian.Uint64(k) != n || v == nil {
			return nil, fmt.Errorf("chunk %d is missing (found key %x)", n, k)
		}
		p, err := openChunk(h.version, n, v)
		if err != nil {
			return nil, fmt.Errorf("chunk %d: %v", n, err)
		}
		if uint64(len(buf)+len(p)) > h.size {
			return nil, fmt.Errorf("chunks hold more than the %d bytes of the head", h.size)
		}
		buf = append(buf, p...)
		n++
	}
	if n != h.chunks || uint64(len(buf)) != h.size {
		return nil, fmt.Errorf("%d chunks of %d bytes, the head says %d of %d", n, len(buf), h.chunks, h.size)
	}
	g, err := DecodeSnapshot(buf)
	if err != nil {
		return nil, err
	}
	if v := g.Snapshot().Version(); v != h.version {
		return nil, fmt.Errorf("snapshot version %d does not match its head (%d)", v, h.version)
	}
	return g, nil
}

// Append queues an entry; see Cabinet.
func (b *Bolt) Append(name string, e Entry, m Meta) *Ticket {
	if b.readOnly {
		return Failed(b.errReadOnly())
	}
	return b.group.Enqueue(name, &op{kind: opAppend, name: name, version: e.Version, data: EncodeEntry(e), meta: encodeMeta(m)})
}

// Flush writes snap as the session's snapshot and, given a base, moves
// the start of its history there; see Cabinet.
func (b *Bolt) Flush(name string, snap *store.Snapshot, m Meta, base *store.Snapshot) error {
	if b.readOnly {
		return b.errReadOnly()
	}
	o := &op{kind: opFlush, name: name, version: snap.Version(), data: EncodeSnapshot(snap), meta: encodeMeta(m)}
	o.base, o.baseData = FlushBase(snap, base)
	return b.group.Enqueue(name, o).Wait()
}

// SaveAttention queues data as the session's attention record.
func (b *Bolt) SaveAttention(name string, data []byte) *Ticket {
	if b.readOnly {
		return Failed(b.errReadOnly())
	}
	return b.group.Enqueue(name, &op{kind: opAttention, name: name, data: sealAttention(data)})
}

// Drop removes a session.
func (b *Bolt) Drop(name string) error {
	if b.readOnly {
		return b.errReadOnly()
	}
	err := b.group.EnqueueDrop(name, &op{kind: opDrop, name: name}).Wait()
	if err == nil {
		b.group.Clear(name)
	}
	return err
}

// write is the Group's Write: one bbolt transaction, which bbolt fsyncs
// before it returns.
func (b *Bolt) write(ops []*op) error {
	return b.db.Update(func(tx *bolt.Tx) error { return b.apply(tx, ops) })
}

// failed is the Group's Failed: any failed write poisons the session.
func (b *Bolt) failed(name string, _ []*op, err error) (error, bool) {
	return fmt.Errorf("%w: session %q in %s: %v", ErrPoisoned, name, b.path, err), true
}

func (b *Bolt) apply(tx *bolt.Tx, ops []*op) error {
	idx, logs, snaps, attn := tx.Bucket(bucketIndex), tx.Bucket(bucketLogs), tx.Bucket(bucketSnaps), tx.Bucket(bucketAttn)
	last := map[string]uint64{} // session → last version written in this tx
	for _, o := range ops {
		key := []byte(o.name)
		if o.kind == opAttention {
			if err := attn.Put(key, o.data); err != nil {
				return err
			}
			continue
		}
		if o.kind == opDrop {
			if raw := idx.Get(key); raw != nil {
				// The drop and the counter move in one transaction: the
				// catalogue's version (Σ weights + dropped) never goes
				// back, whenever the file is reopened.
				m, err := decodeMeta(raw)
				if err != nil {
					return fmt.Errorf("index record: %v", err)
				}
				if err := addDropped(tx, m.Weight()+1); err != nil {
					return err
				}
			}
			if err := idx.Delete(key); err != nil {
				return err
			}
			if err := attn.Delete(key); err != nil {
				return err
			}
			for _, data := range []*bolt.Bucket{logs, snaps, tx.Bucket(bucketBases)} {
				if err := data.DeleteBucket(key); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
					return err
				}
			}
			delete(last, o.name)
			continue
		}
		prev, ok := last[o.name]
		if !ok {
			if raw := idx.Get(key); raw != nil {
				m, err := decodeMeta(raw)
				if err != nil {
					return fmt.Errorf("index record: %v", err)
				}
				prev = m.Version
			}
		}
		switch o.kind {
		case opAppend:
			if o.version != prev+1 {
				return fmt.Errorf("log entry %d does not follow version %d", o.version, prev)
			}
			lb, err := logs.CreateBucketIfNotExists(key)
			if err != nil {
				return err
			}
			lb.FillPercent = 0.95 // keys only grow
			if err := lb.Put(versionKey(o.version), o.data); err != nil {
				return err
			}
			last[o.name] = o.version
		case opFlush:
			h, _, err := head(snaps, key)
			if err != nil {
				return fmt.Errorf("snapshot head: %v", err)
			}
			if o.version < h.version || o.version > prev || o.version == h.version && o.base == nil {
				continue // a newer snapshot is already there (or the log lost its entries: keep it)
			}
			if o.version > h.version {
				if err := b.putSnapshot(snaps, key, o.version, o.data); err != nil {
					return err
				}
			}
			if o.base != nil {
				if err := b.putBase(tx, key, *o.base, o.baseData, o.version); err != nil {
					return err
				}
			}
			if o.version < prev {
				continue // the log is ahead: its index record stays
			}
		}
		if err := idx.Put(key, o.meta); err != nil {
			return err
		}
	}
	return nil
}

// addDropped adds n to the file's dropped counter.
func addDropped(tx *bolt.Tx, n uint64) error {
	root := tx.Bucket(bucketRoot)
	d, err := readDropped(root)
	if err != nil {
		return err
	}
	return root.Put(keyDropped, binary.BigEndian.AppendUint64(nil, d+n))
}

// readDropped reads the dropped counter (0 without the key: see
// keyDropped).
func readDropped(root *bolt.Bucket) (uint64, error) {
	raw := root.Get(keyDropped)
	switch {
	case raw == nil:
		return 0, nil
	case len(raw) != 8:
		return 0, fmt.Errorf("the dropped counter has %d bytes, not 8", len(raw))
	}
	return binary.BigEndian.Uint64(raw), nil
}

// Dropped reads the dropped counter; see Cabinet.
func (b *Bolt) Dropped() (uint64, error) {
	return withFaults(func() (d uint64, err error) {
		defer guard(&err, b.path, "")
		err = b.handle().View(func(tx *bolt.Tx) error {
			root := tx.Bucket(bucketRoot)
			if root == nil {
				return fmt.Errorf("%w: %s lacks its %q bucket", ErrDamaged, b.path, bucketRoot)
			}
			var err error
			if d, err = readDropped(root); err != nil {
				return fmt.Errorf("%w: %s: %v", ErrDamaged, b.path, err)
			}
			return nil
		})
		return d, err
	})
}

// putSnapshot replaces a session's snapshot by data (a snapshot record of
// the given version), cut into chunks.
func (b *Bolt) putSnapshot(snaps *bolt.Bucket, key []byte, version uint64, data []byte) error {
	if err := snaps.DeleteBucket(key); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
		return err
	}
	sb, err := snaps.CreateBucket(key)
	if err != nil {
		return err
	}
	sb.FillPercent = 1 // written in key order, never changed
	return putChunks(sb, version, data, b.chunk)
}

// putChunks writes data as chunks of size bytes and their head into sb.
func putChunks(sb *bolt.Bucket, version uint64, data []byte, size int) error {
	var n uint64
	for off := 0; off < len(data); off += size {
		if err := sb.Put(versionKey(n), sealChunk(version, n, data[off:min(off+size, len(data))])); err != nil {
			return err
		}
		n++
	}
	return sb.Put(keyHead, encodeHead(snapHead{version: version, chunks: n, size: uint64(len(data))}))
}

// Close waits for queued writes, stops the writer, compacts the file if
// most of it is free space, and closes it; read-only, it only closes it.
func (b *Bolt) Close() error {
	if b.readOnly {
		var err error
		b.closed.Do(func() { err = b.db.Close() })
		return err
	}
	if !b.group.Close() {
		return nil
	}
	if canCompact && b.wasteful() {
		_ = b.rewrite(false) // the file stays as it is; the next Open retries
	}
	return b.db.Close()
}

// Backup writes a consistent copy of the cabinet to path while it stays in
// use (bbolt's hot backup: a read transaction copied page by page).
func (b *Bolt) Backup(path string) error {
	return b.handle().View(func(tx *bolt.Tx) error { return tx.CopyFile(path, 0o600) })
}

var _ Cabinet = (*Bolt)(nil)

// openError names the file a failed open was for, once: an error of the
// os package already holds the path.
func openError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("cabinet: %w", err)
	}
	return fmt.Errorf("cabinet: open %s: %w", path, err)
}
