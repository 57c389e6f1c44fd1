package goldfish

// HostConflicts returns how many claims of db another host beat.
func HostConflicts(db *DB) int64 { return db.hosts.conflicts.Load() }

// SetBeforeClaim makes db call fn before each claim of a version.
func SetBeforeClaim(db *DB, fn func(session string, attempt int)) { db.hosts.beforeClaim = fn }
