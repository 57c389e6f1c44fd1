//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package cabinet

import (
	"os"
	"time"
)

// canCompact is false where the file lock cannot follow a rename (and
// an open file cannot be renamed over): the file is never compacted.
const canCompact = false

// openLocked opens the file; bbolt takes the lock afterwards, so the
// checks before it can race with another process (which then gets
// ErrInUse or a spurious ErrDamaged). Read-only, it opens the file for
// reading and creates none; bbolt's lock is then a shared one.
func openLocked(path string, _ time.Duration, readOnly bool) (*os.File, error) {
	if readOnly {
		return os.OpenFile(path, os.O_RDONLY, 0)
	}
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}
