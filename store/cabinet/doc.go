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
// in a canonical binary encoding; a purge; or an absorbed slice's text and
// its policy (EntryAbsorb). Replaying them through the same planner
// and executor is deterministic (default ids come from the store's counter,
// which the snapshot restores), so hydrate = restore the snapshot, then
// replay the log. This package stores and checks entries; replaying them is
// the root package's job (it owns the planner and the executor).
//
// # Write-ahead and group commit
//
// Append queues an entry and returns a Ticket; Ticket.Wait returns once the
// entry is durable (fsynced). Both backends queue their writes in a Group,
// drained by one goroutine; the bbolt backend puts every entry, flush and
// drop that is pending into ONE bbolt read-write transaction, which bbolt
// fsyncs before it returns, then every waiter is woken. Concurrent commits therefore share one fsync. Entries of
// one session must be appended in version order; the queue is FIFO, so
// durability is prefix-closed per session: when version v is durable, so is
// every version before it, and replay never meets a gap. If a write fails,
// the session is poisoned: its queued and later entries fail too (the
// caller's memory is then ahead of the file, and the caller must refuse
// further commits).
//
// # Checks
//
// Before bbolt maps the file, Open reads it with plain reads and checks its
// bbolt structure: the meta page bbolt will pick, and every page reachable
// from it (page ids within the file, page types, element and key bounds,
// key order, each page used once, inline buckets, the stored free list if
// any). bbolt trusts its file: walking a damaged one at Open (it rebuilds
// the free list that way) panics or faults in a goroutine of its own,
// which no recover can catch, so the check runs first and a damaged file
// gives ErrDamaged naming it. Every log entry, index record, snapshot,
// snapshot head and snapshot chunk carries a CRC-32C; log entries must
// have consecutive versions after the snapshot and end at the version the
// index record states. A session whose index record says it has versions
// while its data is missing (or data without an index record) is
// ErrDamaged, never an empty session. A second process opening the same
// file gets ErrInUse (an flock, with a short timeout) instead of hanging;
// the lock is taken before the file is read.
//
// What no check can catch: bbolt keeps two meta pages and each write
// transaction ends by overwriting the older one. If the newer meta page
// is later damaged, bbolt opens the file at the state before that write,
// which is whole and passes every check: the last group commit is gone,
// acknowledged Commits included. A meta page torn by a crash during its
// write costs nothing, since that group commit was never acknowledged.
//
// # Space
//
// A Commit rewrites only its log's last leaf, its index record's leaf and
// the branch pages above them, whatever the size of the session's
// snapshot, which lives in its own bucket in page-sized chunks. Pages that
// flush, purge and drop free are reused by later writes (single-page
// chunks fit any free page). bbolt never shrinks its file, so Open and
// Close compact it when at least half of its pages (and at least 1 MiB)
// are free: the live data is copied into a new file beside it, which is
// fsynced, renamed over the cabinet, and the directory fsynced, so a crash
// at any instant leaves the old file or the new one, each whole (a
// leftover copy is removed at the next Open). The lock never lapses: the
// new file is locked before the rename, the old one released after, and a
// process that was waiting on the old file sees that the name now points
// elsewhere and opens it again.
//
// # Layout in the bbolt file (format 2)
//
//	bucket "goldfish"          key "format" → "2"
//	bucket "index"             session name → meta record (CRC): version, counts, last commit
//	bucket "logs"
//	  bucket <session name>    8-byte big-endian version → entry (CRC)
//	bucket "snaps"             absent for a session before its first flush
//	  bucket <session name>    8-byte big-endian chunk number → chunk (CRC over version, number, bytes)
//	                           key "head" → snapshot head (CRC): version, chunks, bytes
//
// The chunks, in order, are the snapshot record (CRC). Format 1 kept
// every session in one bucket under "sessions" with its meta record and
// its whole snapshot side by side, so that every Commit rewrote the
// snapshot's leaf; Open migrates such a file to format 2 (a compaction
// that changes the layout), which a reader of format 1 refuses.
package cabinet
