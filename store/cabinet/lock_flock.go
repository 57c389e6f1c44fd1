//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package cabinet

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// canCompact: compaction replaces the file by renaming a new one over it,
// which needs the lock to follow the name (see openLocked).
const canCompact = true

// openLocked opens (creating if needed) the file at path and takes the
// exclusive flock bbolt takes, before anything reads the file, so that no
// other process writes it while it is checked. bbolt's own flock on the
// same descriptor then succeeds at once. A compaction renames a new file
// over path while its process holds both files' locks; a process that
// opened the old file meanwhile gets its lock once the old file is
// closed, finds that path names another file now, and opens it again
// (where it finds the lock held, or the new file free). Read-only, it
// opens the file for reading, creates none, and takes the shared flock
// bbolt takes read-only: any number of readers hold it at once, and none
// while a writer holds the exclusive one.
func openLocked(path string, timeout time.Duration, readOnly bool) (*os.File, error) {
	deadline := time.Now().Add(timeout)
	flag, lock := os.O_RDWR|os.O_CREATE, unix.LOCK_EX
	if readOnly {
		flag, lock = os.O_RDONLY, unix.LOCK_SH
	}
	for {
		f, err := os.OpenFile(path, flag, 0o600)
		if err != nil {
			return nil, err
		}
		for {
			err = unix.Flock(int(f.Fd()), lock|unix.LOCK_NB)
			if err == nil {
				break
			}
			if !errors.Is(err, unix.EWOULDBLOCK) {
				f.Close()
				return nil, err
			}
			if time.Now().After(deadline) {
				f.Close()
				return nil, errLocked
			}
			time.Sleep(10 * time.Millisecond)
		}
		held, err1 := f.Stat()
		named, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, named) {
			return f, nil
		}
		f.Close()
		if err1 != nil {
			return nil, err1
		}
		if err2 != nil && !os.IsNotExist(err2) {
			return nil, err2
		}
	}
}
