package goldfish

import (
	"github.com/goldfish-gql/goldfish/store"
)

// The tests of the facade reach the engine through these.

// HostConflicts returns how many claims of db another host beat.
func HostConflicts(db *DB) int64 { return db.e.HostConflicts() }

// SetBeforeClaim makes db call fn before each claim of a version.
func SetBeforeClaim(db *DB, fn func(session string, attempt int)) { db.e.SetBeforeClaim(fn) }

// SnapshotOf returns the newest durable snapshot of s.
func SnapshotOf(s *Session) *store.Snapshot { return s.e.Snapshot() }
