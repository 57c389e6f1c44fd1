package engine

// What a session holds whether it is resident or not: its *Session, kept
// while it is unloaded so that a caller's handle stays valid, and, for a
// session the cabinet holds, its node in the catalogue and its name
// among the known sessions. Each is small, but a database of many
// sessions holds them all: 3,000 sessions hold about 7 MiB, which a
// 16 MiB budget did not count. Measured as the live heap after a GC,
// opening a cabinet of 3,000 sessions (1,480 bytes a session more than
// an empty one) and then using each once under a budget that unloads it
// (1,020 bytes a session more).
const (
	knownSessionBytes  = 1536
	sessionHandleBytes = 1024
)

// fixedBytes is what the database's sessions hold however many are
// resident.
func (db *DB) fixedBytes() int64 {
	db.mu.Lock()
	defer db.mu.Unlock()
	return knownSessionBytes*int64(len(db.known)) + sessionHandleBytes*int64(len(db.sessions))
}

// countFixed brings the budget's count of the sessions' fixed part up to
// date: when the database opens, when a session is hydrated (a session
// is made, or first used, by a call that hydrates it) and before each
// sweep.
func (m *memory) countFixed() { m.fixed.Store(m.db.fixedBytes()) }

// over reports whether what the budget counts is over it: the resident
// sessions, what every session holds, and the Shape cache.
func (m *memory) over() bool { return m.bytes.Load()+m.fixed.Load()+m.shapeBytes() > m.budget }
