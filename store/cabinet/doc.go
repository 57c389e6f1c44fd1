// Package cabinet is where Goldfish sessions persist: one Cabinet holds many
// named sessions, each as a snapshot plus a write-ahead log of the Δs
// committed after it.
//
// # Model
//
// A session's durable state is
//
//	snapshot (version s, every node and edge incl. recycled, engine ids, next id)
//	log      entries s+1, s+2, … v, one per applied Δ (or purge)
//	meta     version v, counts per kind, last commit time
//
// Log entries are logical: the Δ text, its id mint rule and its parameters
// in a canonical binary encoding. Replaying them through the same planner
// and executor is deterministic (default ids come from the store's counter,
// which the snapshot restores), so hydrate = restore the snapshot, then
// replay the log. This package stores and checks entries; replaying them is
// the root package's job (it owns the planner and the executor).
//
// # Write-ahead and group commit
//
// Append queues an entry and returns a Ticket; Ticket.Wait returns once the
// entry is durable (fsynced). The bbolt backend drains its queue in one
// goroutine: every entry, flush and drop that is pending goes into ONE bbolt
// read-write transaction, which bbolt fsyncs before it returns, then every
// waiter is woken. Concurrent commits therefore share one fsync. Entries of
// one session must be appended in version order; the queue is FIFO, so
// durability is prefix-closed per session: when version v is durable, so is
// every version before it, and replay never meets a gap. If a write fails,
// the session is poisoned: its queued and later entries fail too (the
// caller's memory is then ahead of the file, and the caller must refuse
// further commits).
//
// # Checks
//
// Every log entry and snapshot carries a CRC-32C; log entries must have
// consecutive versions after the snapshot. Open compares the file's size
// with the size bbolt's meta page claims (a truncated file is reported,
// not mapped and faulted on) and runs bbolt's consistency check. A damaged
// session gives an error naming it (ErrDamaged), never an empty session.
// A second process opening the same file gets ErrInUse (bbolt's flock,
// with a short timeout) instead of hanging.
//
// # Layout in the bbolt file
//
//	bucket "goldfish"          key "format" → "1"
//	bucket "sessions"
//	  bucket <session name>
//	    key "meta"             → meta record (CRC)
//	    key "snap"             → snapshot (CRC), absent before the first flush
//	    bucket "log"           → 8-byte big-endian version → entry (CRC)
package cabinet
