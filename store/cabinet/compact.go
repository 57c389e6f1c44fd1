package cabinet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// compactSuffix names the file a compaction writes beside the cabinet
// before renaming it over the cabinet.
const compactSuffix = ".compact"

// bbolt reuses free pages but never shrinks its file; a compaction
// rewrites the live data into a new file. It is due when at least half
// the file's pages, and at least compactMin bytes, are free: a session
// flushed over and over keeps about half its pages free (the new snapshot
// is written before the old one's pages are released), so it does not
// compact at every Close.
const compactMin = 1 << 20

func wasteful(free, pages uint64, pageSize int64) bool {
	return free*uint64(pageSize) >= compactMin && 2*free >= pages
}

// wasteful reports whether the open file is due for compaction.
func (b *Bolt) wasteful() bool {
	var pages uint64
	if err := b.db.View(func(tx *bolt.Tx) error {
		pages = uint64(tx.Size()) / uint64(b.db.Info().PageSize)
		return nil
	}); err != nil {
		return false
	}
	st := b.db.Stats()
	return wasteful(uint64(st.FreePageN+st.PendingPageN), pages, int64(b.db.Info().PageSize))
}

// rewrite copies the cabinet into a new file in format 2 (from format 1
// if migrate) and puts it in the cabinet's place; b then uses it. The
// cabinet file stays whole at every instant: the new file is written
// beside it, fsynced, renamed over it, and the directory fsynced. The
// lock never lapses: bbolt locks the new file when it opens it, before
// the rename, and the old one is closed (its lock released) only after.
// On an error before the rename the new file is removed and b keeps the
// old one.
func (b *Bolt) rewrite(migrate bool) (err error) {
	tmp := b.file + compactSuffix
	mode := os.FileMode(0o600)
	if st, err := os.Stat(b.file); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.Remove(tmp); err != nil && !os.IsNotExist(err) {
		return err
	}
	dst, err := bolt.Open(tmp, mode, &bolt.Options{
		Timeout:        time.Second, // the file was just created by us; nobody else waits for it
		NoFreelistSync: true,
		FreelistType:   bolt.FreelistMapType,
		NoSync:         true, // one fsync at the end is enough: the file is not in use until renamed
	})
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			dst.Close()
			os.Remove(tmp)
		}
	}()
	if migrate {
		c := &copier{db: dst}
		err = b.db.View(func(tx *bolt.Tx) error {
			return migrateFormat1(tx, c.put, chunkBytes(dst.Info().PageSize), b.path)
		})
		if err == nil {
			err = c.put(keyFormat, formatVersion, bucketRoot)
		}
		if err == nil {
			err = c.commit()
		}
		c.rollback()
	} else {
		err = bolt.Compact(dst, b.db, 32<<20)
	}
	if err != nil {
		return err
	}
	if err := dst.Sync(); err != nil {
		return err
	}
	dst.NoSync = false
	if beforeRename != nil {
		beforeRename()
	}
	if err := os.Rename(tmp, b.file); err != nil {
		return err
	}
	renamed = true
	// Whichever name the directory holds after a crash, it is a whole
	// cabinet; the fsync makes it the new one.
	syncErr := syncDir(filepath.Dir(b.file))
	b.mu.Lock()
	old := b.db
	b.db = dst
	b.mu.Unlock()
	b.chunk = chunkBytes(dst.Info().PageSize)
	return errors.Join(old.Close(), syncErr)
}

// beforeRename, if set (by tests), runs just before a compaction renames
// the new file over the cabinet.
var beforeRename func()

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// putFunc stores key → value in the bucket at path (created if needed).
type putFunc func(key, value []byte, path ...[]byte) error

// migrateFormat1 copies the sessions of a format-1 cabinet (read in src)
// through put in format 2, with snapshots cut into chunks of chunk bytes.
// Records are copied as they are (their checks run when a session is
// loaded); a session that is not a bucket, or whose meta record fails its
// check, fails the migration, since format 2 could not hold it.
func migrateFormat1(src *bolt.Tx, put putFunc, chunk int, path string) error {
	for _, name := range topBucketsFormat {
		if err := put(nil, nil, name); err != nil {
			return err
		}
	}
	ss := src.Bucket(bucketSessions1)
	if ss == nil {
		return nil
	}
	cur := ss.Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		damaged := func(format string, args ...any) error {
			return fmt.Errorf("%w: session %q in %s: %s (restore the file from a backup, or drop the session with the previous release first)",
				ErrDamaged, k, path, fmt.Sprintf(format, args...))
		}
		if v != nil {
			return damaged("not a bucket")
		}
		sb := ss.Bucket(k)
		meta := sb.Get(keyMeta1)
		if _, err := decodeMeta(meta); err != nil {
			return damaged("metadata: %v", err)
		}
		if err := put(k, meta, bucketIndex); err != nil {
			return err
		}
		if snap := sb.Get(keySnap1); snap != nil {
			var version uint64
			if v := sb.Get(keySnapVersion1); len(v) == 8 {
				version = binary.BigEndian.Uint64(v) // else 0: Load reports the mismatch
			}
			var n uint64
			for off := 0; off < len(snap); off += chunk {
				if err := put(versionKey(n), sealChunk(version, n, snap[off:min(off+chunk, len(snap))]), bucketSnaps, k); err != nil {
					return err
				}
				n++
			}
			h := encodeHead(snapHead{version: version, chunks: n, size: uint64(len(snap))})
			if err := put(keyHead, h, bucketSnaps, k); err != nil {
				return err
			}
		}
		if lb := sb.Bucket(bucketLog1); lb != nil {
			lc := lb.Cursor()
			for lk, lv := lc.First(); lk != nil; lk, lv = lc.Next() {
				if lv == nil {
					return damaged("log key %x is a bucket", lk)
				}
				if err := put(lk, lv, bucketLogs, k); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// migrateInPlace migrates a format-1 cabinet to format 2 inside its own
// file, in one transaction (so a crash leaves one format or the other),
// where the file cannot be replaced by a rename. The file keeps its size.
func migrateInPlace(db *bolt.DB, path string) error {
	return db.Update(func(tx *bolt.Tx) error {
		put := func(key, value []byte, path ...[]byte) error {
			b, err := tx.CreateBucketIfNotExists(path[0])
			for _, name := range path[1:] {
				if err != nil {
					break
				}
				b, err = b.CreateBucketIfNotExists(name)
			}
			if err != nil || key == nil {
				return err
			}
			return b.Put(key, value)
		}
		if err := migrateFormat1(tx, put, chunkBytes(db.Info().PageSize), path); err != nil {
			return err
		}
		if err := tx.DeleteBucket(bucketSessions1); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
			return err
		}
		return tx.Bucket(bucketRoot).Put(keyFormat, formatVersion)
	})
}

// copier writes into a bbolt database in transactions of about
// copyTxBytes each, so that copying a large file does not hold all of it
// in memory as dirty pages.
type copier struct {
	db *bolt.DB
	tx *bolt.Tx
	n  int
}

const copyTxBytes = 32 << 20

// bucket returns the bucket at path, created if needed, in the current
// transaction.
func (c *copier) bucket(path ...[]byte) (*bolt.Bucket, error) {
	if c.tx == nil {
		tx, err := c.db.Begin(true)
		if err != nil {
			return nil, err
		}
		c.tx, c.n = tx, 0
	}
	b, err := c.tx.CreateBucketIfNotExists(path[0])
	for _, name := range path[1:] {
		if err != nil {
			break
		}
		b, err = b.CreateBucketIfNotExists(name)
	}
	if err != nil {
		return nil, err
	}
	b.FillPercent = 1 // written in key order
	return b, nil
}

// put stores key → value in the bucket at path (only creates the bucket
// if key is nil).
func (c *copier) put(key, value []byte, path ...[]byte) error {
	if c.tx != nil && c.n >= copyTxBytes {
		if err := c.commit(); err != nil {
			return err
		}
	}
	b, err := c.bucket(path...)
	if err != nil {
		return err
	}
	if key == nil {
		return nil
	}
	c.n += len(key) + len(value)
	return b.Put(key, value)
}

func (c *copier) commit() error {
	if c.tx == nil {
		return nil
	}
	err := c.tx.Commit()
	c.tx = nil
	return err
}

func (c *copier) rollback() {
	if c.tx != nil {
		c.tx.Rollback()
		c.tx = nil
	}
}
