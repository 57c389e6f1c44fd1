package cabinet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/goldfish-gql/goldfish/store"
)

var (
	bucketRoot     = []byte("goldfish")
	bucketSessions = []byte("sessions")
	bucketLog      = []byte("log")
	keyFormat      = []byte("format")
	keyMeta        = []byte("meta")
	keySnap        = []byte("snap")
	keySnapVer     = []byte("snapver")
	formatVersion  = []byte("1")
)

// Options configure a bbolt cabinet.
type Options struct {
	// LockTimeout is how long Open waits for another process's lock on
	// the file before it returns ErrInUse (default 250ms).
	LockTimeout time.Duration
	// NoCheck skips bbolt's page consistency check at Open (the size check
	// and every per-record CRC still run).
	NoCheck bool
}

// Bolt is the embedded cabinet: one bbolt file holding many sessions, with
// a group-committing writer goroutine.
type Bolt struct {
	db   *bolt.DB
	path string

	mu       sync.Mutex
	cond     *sync.Cond
	queue    []*op
	closed   bool
	poisoned map[string]error
	stopped  chan struct{}
}

type opKind uint8

const (
	opAppend opKind = iota
	opFlush
	opDrop
)

type op struct {
	kind    opKind
	name    string
	version uint64
	data    []byte // entry or snapshot
	meta    []byte
	t       *Ticket
}

// Open opens (creating if needed) the cabinet file at path, checks it and
// starts its writer.
func Open(path string, opts *Options) (*Bolt, error) {
	if opts == nil {
		opts = &Options{}
	}
	timeout := opts.LockTimeout
	if timeout <= 0 {
		timeout = 250 * time.Millisecond
	}
	if err := preflight(path); err != nil {
		return nil, err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout:        timeout,
		NoFreelistSync: true,
		FreelistType:   bolt.FreelistMapType,
	})
	if err != nil {
		switch {
		case errors.Is(err, berrors.ErrTimeout):
			return nil, fmt.Errorf("%w: %s (close the other goldfish or gqlsh using it, or pick another file)", ErrInUse, path)
		case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum), errors.Is(err, berrors.ErrVersionMismatch):
			return nil, fmt.Errorf("%w: %s is not a readable cabinet file: %v", ErrDamaged, path, err)
		}
		return nil, fmt.Errorf("cabinet: open %s: %w", path, err)
	}
	b := &Bolt{db: db, path: path, poisoned: map[string]error{}, stopped: make(chan struct{})}
	b.cond = sync.NewCond(&b.mu)
	if err := b.check(!opts.NoCheck); err != nil {
		db.Close()
		return nil, err
	}
	go b.writer()
	return b, nil
}

// check verifies the file is as long as its meta page claims (a shorter,
// truncated file would fault when read through the mapping), runs bbolt's
// consistency check and creates or verifies the top buckets.
func (b *Bolt) check(full bool) (err error) {
	fi, err := os.Stat(b.path)
	if err != nil {
		return fmt.Errorf("cabinet: %w", err)
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer guard(&err, b.path, "")
	err = b.db.View(func(tx *bolt.Tx) error {
		if tx.Size() > fi.Size() {
			return fmt.Errorf("%w: %s is truncated: %d bytes, its pages need %d (restore it from a backup)",
				ErrDamaged, b.path, fi.Size(), tx.Size())
		}
		if full {
			for cerr := range tx.Check() {
				return fmt.Errorf("%w: %s fails its consistency check: %v", ErrDamaged, b.path, cerr)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return b.db.Update(func(tx *bolt.Tx) error {
		root, err := tx.CreateBucketIfNotExists(bucketRoot)
		if err != nil {
			return err
		}
		if f := root.Get(keyFormat); f == nil {
			if err := root.Put(keyFormat, formatVersion); err != nil {
				return err
			}
		} else if !bytes.Equal(f, formatVersion) {
			return fmt.Errorf("%w: %s has cabinet format %q, this goldfish reads %q", ErrDamaged, b.path, f, formatVersion)
		}
		_, err = tx.CreateBucketIfNotExists(bucketSessions)
		return err
	})
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

// Path returns the file's path.
func (b *Bolt) Path() string { return b.path }

// Sessions lists the persisted sessions' metadata, sorted by name.
func (b *Bolt) Sessions() ([]Meta, error) {
	return withFaults(func() (out []Meta, err error) {
		defer guard(&err, b.path, "")
		err = b.db.View(func(tx *bolt.Tx) error {
			ss := tx.Bucket(bucketSessions)
			return ss.ForEachBucket(func(k []byte) error {
				sb := ss.Bucket(k)
				m, err := decodeMeta(sb.Get(keyMeta))
				if err != nil {
					return fmt.Errorf("%w: session %q in %s: metadata: %v", ErrDamaged, k, b.path, err)
				}
				if v := sb.Get(keySnapVer); len(v) == 8 {
					m.SnapVersion = binary.BigEndian.Uint64(v)
				}
				out = append(out, m)
				return nil
			})
		})
		sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
		return out, err
	})
}

// Load reads and checks one session.
func (b *Bolt) Load(name string) (*Image, error) {
	return withFaults(func() (img *Image, err error) {
		defer guard(&err, b.path, name)
		damaged := func(format string, args ...any) error {
			return fmt.Errorf("%w: session %q in %s: %s", ErrDamaged, name, b.path, fmt.Sprintf(format, args...))
		}
		err = b.db.View(func(tx *bolt.Tx) error {
			sb := tx.Bucket(bucketSessions).Bucket([]byte(name))
			if sb == nil {
				return ErrNoSession
			}
			m, err := decodeMeta(sb.Get(keyMeta))
			if err != nil {
				return damaged("metadata: %v", err)
			}
			img = &Image{Meta: m}
			var snapVer uint64
			if raw := sb.Get(keySnap); raw != nil {
				g, err := DecodeSnapshot(raw)
				if err != nil {
					return damaged("snapshot: %v", err)
				}
				img.Graph = g
				snapVer = g.Snapshot().Version()
				if v := sb.Get(keySnapVer); len(v) != 8 || binary.BigEndian.Uint64(v) != snapVer {
					return damaged("snapshot version %d does not match its record", snapVer)
				}
			} else {
				img.Graph = store.New()
			}
			img.Meta.SnapVersion = snapVer
			prev := snapVer
			if lb := sb.Bucket(bucketLog); lb != nil {
				c := lb.Cursor()
				for k, v := c.First(); k != nil; k, v = c.Next() {
					if len(k) != 8 {
						return damaged("log key %x", k)
					}
					kv := binary.BigEndian.Uint64(k)
					if kv <= snapVer {
						continue // trimmed by a flush that had not yet run when this was written
					}
					if kv != prev+1 {
						return damaged("log jumps from version %d to %d", prev, kv)
					}
					e, err := DecodeEntry(v)
					if err != nil {
						return damaged("log entry %d: %v", kv, err)
					}
					if e.Version != kv {
						return damaged("log entry under key %d says version %d", kv, e.Version)
					}
					img.Log = append(img.Log, e)
					img.LogBytes += int64(len(v))
					prev = kv
				}
			}
			if prev != m.Version {
				return damaged("log ends at version %d but the metadata says %d", prev, m.Version)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		return img, nil
	})
}

// Append queues an entry; see Cabinet.
func (b *Bolt) Append(name string, e Entry, m Meta) *Ticket {
	return b.enqueue(&op{kind: opAppend, name: name, version: e.Version, data: EncodeEntry(e), meta: encodeMeta(m)})
}

// Flush writes snap as the session's snapshot and trims its log.
func (b *Bolt) Flush(name string, snap *store.Snapshot, m Meta) error {
	return b.enqueue(&op{kind: opFlush, name: name, version: snap.Version(), data: EncodeSnapshot(snap), meta: encodeMeta(m)}).Wait()
}

// Drop removes a session.
func (b *Bolt) Drop(name string) error {
	err := b.enqueue(&op{kind: opDrop, name: name}).Wait()
	if err == nil {
		b.mu.Lock()
		delete(b.poisoned, name)
		b.mu.Unlock()
	}
	return err
}

func (b *Bolt) enqueue(o *op) *Ticket {
	o.t = newTicket()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		o.t.finish(ErrClosed)
		return o.t
	}
	if err := b.poisoned[o.name]; err != nil && o.kind != opDrop {
		o.t.finish(err)
		return o.t
	}
	b.queue = append(b.queue, o)
	b.cond.Signal()
	return o.t
}

// writer drains the queue: every pending op in one bbolt transaction (one
// fsync), then wakes the waiters.
func (b *Bolt) writer() {
	defer close(b.stopped)
	for {
		b.mu.Lock()
		for len(b.queue) == 0 && !b.closed {
			b.cond.Wait()
		}
		batch := b.queue
		b.queue = nil
		closed := b.closed
		b.mu.Unlock()
		if len(batch) == 0 && closed {
			return
		}
		b.write(batch)
	}
}

func (b *Bolt) write(batch []*op) {
	// Ops of sessions poisoned meanwhile fail without being written.
	b.mu.Lock()
	live := batch[:0:0]
	for _, o := range batch {
		if err := b.poisoned[o.name]; err != nil && o.kind != opDrop {
			o.t.finish(err)
			continue
		}
		live = append(live, o)
	}
	b.mu.Unlock()
	if len(live) == 0 {
		return
	}
	err := b.db.Update(func(tx *bolt.Tx) error { return apply(tx, live) })
	if err == nil {
		for _, o := range live {
			o.t.finish(nil)
		}
		return
	}
	// Retry session by session so one session's failure does not poison
	// the others.
	order := []string{}
	by := map[string][]*op{}
	for _, o := range live {
		if _, ok := by[o.name]; !ok {
			order = append(order, o.name)
		}
		by[o.name] = append(by[o.name], o)
	}
	for _, name := range order {
		ops := by[name]
		err := b.db.Update(func(tx *bolt.Tx) error { return apply(tx, ops) })
		if err != nil {
			err = fmt.Errorf("%w: session %q in %s: %v", ErrPoisoned, name, b.path, err)
			b.mu.Lock()
			b.poisoned[name] = err
			b.mu.Unlock()
		}
		for _, o := range ops {
			o.t.finish(err)
		}
	}
}

func apply(tx *bolt.Tx, ops []*op) error {
	ss := tx.Bucket(bucketSessions)
	last := map[string]uint64{} // session → last version written in this tx
	for _, o := range ops {
		key := []byte(o.name)
		switch o.kind {
		case opDrop:
			if err := ss.DeleteBucket(key); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
				return err
			}
			delete(last, o.name)
			continue
		}
		sb, err := ss.CreateBucketIfNotExists(key)
		if err != nil {
			return err
		}
		prev, ok := last[o.name]
		if !ok {
			if raw := sb.Get(keyMeta); raw != nil {
				m, err := decodeMeta(raw)
				if err != nil {
					return fmt.Errorf("metadata: %v", err)
				}
				prev = m.Version
			}
		}
		switch o.kind {
		case opAppend:
			if o.version != prev+1 {
				return fmt.Errorf("log entry %d does not follow version %d", o.version, prev)
			}
			lb, err := sb.CreateBucketIfNotExists(bucketLog)
			if err != nil {
				return err
			}
			lb.FillPercent = 0.95 // keys only grow
			if err := lb.Put(binary.BigEndian.AppendUint64(nil, o.version), o.data); err != nil {
				return err
			}
			last[o.name] = o.version
		case opFlush:
			var stored uint64
			if v := sb.Get(keySnapVer); len(v) == 8 {
				stored = binary.BigEndian.Uint64(v)
			}
			if o.version <= stored || o.version > prev {
				continue // a newer snapshot is already there (or the log lost its entries: keep it)
			}
			if err := sb.Put(keySnap, o.data); err != nil {
				return err
			}
			if err := sb.Put(keySnapVer, binary.BigEndian.AppendUint64(nil, o.version)); err != nil {
				return err
			}
			if lb := sb.Bucket(bucketLog); lb != nil {
				c := lb.Cursor()
				for k, _ := c.First(); k != nil && binary.BigEndian.Uint64(k) <= o.version; k, _ = c.First() {
					if err := c.Delete(); err != nil {
						return err
					}
				}
			}
			if o.version < prev {
				continue // the log is ahead: its metadata stays
			}
		}
		if err := sb.Put(keyMeta, o.meta); err != nil {
			return err
		}
	}
	return nil
}

// Close waits for queued writes, stops the writer and closes the file.
func (b *Bolt) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	b.cond.Signal()
	b.mu.Unlock()
	<-b.stopped
	return b.db.Close()
}

// Backup writes a consistent copy of the cabinet to path while it stays in
// use (bbolt's hot backup: a read transaction copied page by page).
func (b *Bolt) Backup(path string) error {
	return b.db.View(func(tx *bolt.Tx) error { return tx.CopyFile(path, 0o600) })
}

var _ Cabinet = (*Bolt)(nil)
