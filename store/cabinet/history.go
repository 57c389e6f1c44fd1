package cabinet

import (
	"encoding/binary"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/goldfish-gql/goldfish/store"
)

// A session's history is its log kept past the snapshot: a Flush writes
// the snapshot and leaves the entries it covers in the log, so every
// version from the history's base on can be rebuilt, by replaying the
// entries after the base (version 0, an empty graph, unless a Flush
// moved it) or after the snapshot, whichever is the later state at or
// before the version. A Flush given a base moves the history's start:
// the base is written (in the "bases" bucket, laid out as a snapshot)
// and the entries up to it go; a base that is the snapshot itself keeps
// no history (the log is trimmed as before history was kept).

// ErrNotKept: the version asked for is older than the session's history.
var ErrNotKept = errors.New("cabinet: the version is not kept in the session's history")

// readLog reads the log entries after version after, up to version to,
// checked: consecutive, each under its own version's key.
func readLog(lb *bolt.Bucket, after, to uint64) (log []Entry, size int64, err error) {
	prev := after
	c := lb.Cursor()
	for k, v := c.Seek(versionKey(after + 1)); k != nil && prev < to; k, v = c.Next() {
		if len(k) != 8 || v == nil {
			return nil, 0, fmt.Errorf("log key %x", k)
		}
		kv := binary.BigEndian.Uint64(k)
		if kv != prev+1 {
			return nil, 0, fmt.Errorf("log jumps from version %d to %d", prev, kv)
		}
		e, err := DecodeEntry(v)
		if err != nil {
			return nil, 0, fmt.Errorf("log entry %d: %v", kv, err)
		}
		if e.Version != kv {
			return nil, 0, fmt.Errorf("log entry under key %d says version %d", kv, e.Version)
		}
		log = append(log, e)
		size += int64(len(v))
		prev = kv
	}
	return log, size, nil
}

// historyFrom is the version a session's history starts at: its base's,
// else 0 when the log holds every version from 1, else the snapshot's (a
// flush trimmed the log, or a file written before history was kept).
func historyFrom(tx *bolt.Tx, key []byte, lb *bolt.Bucket, snapVer uint64) (uint64, error) {
	h, ok, err := head(tx.Bucket(bucketBases), key)
	switch {
	case err != nil:
		return 0, fmt.Errorf("history base head: %v", err)
	case ok:
		if h.version > snapVer {
			return 0, fmt.Errorf("the history's base is version %d, after the snapshot (version %d)", h.version, snapVer)
		}
		return h.version, nil
	}
	if k, _ := lb.Cursor().First(); len(k) == 8 && binary.BigEndian.Uint64(k) == 1 {
		return 0, nil
	}
	return snapVer, nil
}

// History reads the state version v is rebuilt from: the latest stored
// state at or before v (the snapshot, the history's base, or an empty
// graph at version 0) in Graph, and the log entries after it up to
// version to (v ≤ to ≤ the session's version) in Log; HistoryFrom says
// where the history starts. ErrNotKept (wrapped, naming the versions
// kept) if v is before it.
func (b *Bolt) History(name string, v, to uint64) (*Image, error) {
	return withFaults(func() (img *Image, err error) {
		defer guard(&err, b.path, name)
		damaged := func(format string, args ...any) error {
			return fmt.Errorf("%w: session %q in %s: %s", ErrDamaged, name, b.path, fmt.Sprintf(format, args...))
		}
		key := []byte(name)
		err = b.handle().View(func(tx *bolt.Tx) error {
			idx, logs, snaps, bases := tx.Bucket(bucketIndex), tx.Bucket(bucketLogs), tx.Bucket(bucketSnaps), tx.Bucket(bucketBases)
			if idx == nil || logs == nil || snaps == nil || bases == nil {
				return fmt.Errorf("%w: %s lacks its index, logs, snaps or bases bucket", ErrDamaged, b.path)
			}
			raw := idx.Get(key)
			if raw == nil {
				return ErrNoSession
			}
			m, err := decodeMeta(raw)
			if err != nil {
				return damaged("index record: %v", err)
			}
			if v > to || to > m.Version {
				return fmt.Errorf("cabinet: session %q has versions up to %d; asked for %d to %d", name, m.Version, v, to)
			}
			sh, hasSnap, err := head(snaps, key)
			if err != nil {
				return damaged("snapshot head: %v", err)
			}
			lb := logs.Bucket(key)
			img = &Image{Meta: m}
			img.Meta.SnapVersion = sh.version
			if lb == nil {
				img.HistoryFrom = sh.version
			} else if img.HistoryFrom, err = historyFrom(tx, key, lb, sh.version); err != nil {
				return damaged("%v", err)
			}
			if v < img.HistoryFrom {
				return fmt.Errorf("%w: session %q keeps versions %d to %d", ErrNotKept, name, max(img.HistoryFrom, 1), m.Version)
			}
			bh, hasBase, _ := head(bases, key)
			switch {
			case hasSnap && sh.version <= v:
				img.Graph, err = readSnapshot(snaps.Bucket(key), sh, tx.Size())
			case hasBase && bh.version <= v:
				img.Graph, err = readSnapshot(bases.Bucket(key), bh, tx.Size())
			default:
				img.Graph = store.New()
			}
			if err != nil {
				return damaged("snapshot: %v", err)
			}
			from := img.Graph.Snapshot().Version()
			if from == to {
				return nil
			}
			if lb == nil {
				return damaged("no log after version %d", from)
			}
			if img.Log, img.LogBytes, err = readLog(lb, from, to); err != nil {
				return damaged("%v", err)
			}
			if got := from + uint64(len(img.Log)); got != to {
				return damaged("the log ends at version %d, before version %d", got, to)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		return img, nil
	})
}

// Log reads the log entries after version after up to version to; see
// Cabinet.
func (b *Bolt) Log(name string, after, to uint64) ([]Entry, error) {
	return withFaults(func() (log []Entry, err error) {
		defer guard(&err, b.path, name)
		if after >= to {
			return nil, nil
		}
		key := []byte(name)
		err = b.handle().View(func(tx *bolt.Tx) error {
			logs, idx := tx.Bucket(bucketLogs), tx.Bucket(bucketIndex)
			if logs == nil || idx == nil {
				return fmt.Errorf("%w: %s lacks its index or logs bucket", ErrDamaged, b.path)
			}
			if idx.Get(key) == nil {
				return ErrNoSession
			}
			lb := logs.Bucket(key)
			if lb == nil {
				return fmt.Errorf("%w: session %q keeps no log entries", ErrNotKept, name)
			}
			if k, _ := lb.Cursor().Seek(versionKey(after + 1)); len(k) != 8 || binary.BigEndian.Uint64(k) != after+1 {
				return fmt.Errorf("%w: session %q keeps no log entry %d", ErrNotKept, name, after+1)
			}
			var err error
			if log, _, err = readLog(lb, after, to); err != nil {
				return fmt.Errorf("%w: session %q in %s: %v", ErrDamaged, name, b.path, err)
			}
			if got := after + uint64(len(log)); got != to {
				return fmt.Errorf("%w: session %q in %s: the log ends at version %d, before version %d", ErrDamaged, name, b.path, got, to)
			}
			return nil
		})
		return log, err
	})
}

// putBase writes base as the session's history base and removes the log
// entries up to it; a base at the snapshot's version keeps no base
// record (the history starts at the snapshot).
func (b *Bolt) putBase(tx *bolt.Tx, key []byte, version uint64, data []byte, snapVer uint64) error {
	bases := tx.Bucket(bucketBases)
	if version >= snapVer {
		if err := bases.DeleteBucket(key); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
			return err
		}
	} else {
		if h, ok, err := head(bases, key); err != nil {
			return fmt.Errorf("history base head: %v", err)
		} else if ok && h.version >= version {
			return nil // the history starts there already
		}
		if err := b.putSnapshot(bases, key, version, data); err != nil {
			return err
		}
	}
	if lb := tx.Bucket(bucketLogs).Bucket(key); lb != nil {
		c := lb.Cursor()
		for k, _ := c.First(); k != nil && binary.BigEndian.Uint64(k) <= version; k, _ = c.First() {
			if err := c.Delete(); err != nil {
				return err
			}
		}
	}
	return nil
}

// FlushBase is what a Flush of snap given base writes of it (for
// backends): nil (the history stays), the snapshot's version (no
// history is kept), or an older base's version and record.
func FlushBase(snap, base *store.Snapshot) (*uint64, []byte) {
	if base == nil {
		return nil, nil
	}
	v := min(base.Version(), snap.Version())
	if v == snap.Version() {
		return &v, nil
	}
	return &v, EncodeSnapshot(base)
}
