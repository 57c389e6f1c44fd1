// Package postgres is the cabinet for many hosts: Goldfish sessions kept in
// PostgreSQL (through pgx v5), so that several processes on several
// machines serve the same sessions. It implements cabinet.Shared: a
// cabinet.Cabinet with the bbolt backend's semantics, and what hosts need
// to share a session: Claim (commit one version if no other host took
// it), Since (what other hosts committed) and Watch (learn of their
// commits).
//
// # Tables
//
// Every table lives in one schema (Options.Schema, default "goldfish"),
// which Open creates and migrates; its table schema_version holds the
// version of the layout, and a newer layout than this package knows is
// refused rather than written.
//
//	sessions  (name)            gen, version, meta, meta_version
//	log       (session, version) entry
//	snapshots (session)         version, chunks, size
//	chunks    (session, n)      data
//	attention (session)         data
//
// sessions.version is the session's latest version: the one truth a
// Commit compares with. gen is a random number drawn when the session is
// created, so a session dropped and created again by another host is
// never mistaken for the one a host has in memory. meta is the metadata
// record of version meta_version (counts per kind, for the catalogue),
// written just after the Commit that made it: it may lag version by the
// Commits whose metadata write has not landed. Log entries, metadata,
// snapshot chunks and attention records are the same checked records
// (magic and CRC-32C) the bbolt backend writes; Load checks all of them
// and reports ErrDamaged, naming the session, for any row that fails.
//
// # Commits and hosts
//
// A Commit inserts the next version: in one serializable transaction it
// moves sessions.version from v to v+1 (a compare-and-set on the row
// with the gen the host knows) and inserts log row v+1, and only then is
// the Commit acknowledged. The server flushes its write-ahead log before
// it confirms (the connection sets synchronous_commit on). A host that
// lost the race (the row moved on, or the server reports a serialization
// failure) gets ErrVersionTaken and nothing is written; the root package
// then reads the missing entries with Since, replays them and plans its
// Δ again. A host that keeps losing to hosts committing back to back
// takes a Turn: it locks the session's row (SELECT … FOR UPDATE, at READ
// COMMITTED, since a serializable transaction that waited for the row
// would be refused once it got it), reads what it lacks, plans its Δ and
// claims within the lock; the server queues lock waiters in order, so
// no host starves. The metadata write after a Commit, and attention
// records, do not wait for the WAL flush (they are not the log, and the
// next write repairs a lost one). Flush writes a snapshot in chunks of
// Options.ChunkBytes and trims the log up to it, in one transaction.
//
// # Freshness
//
// Where the server has LISTEN/NOTIFY, a Commit notifies the channel
// goldfish_<schema> with the session's name, and Watch listens on a
// connection of its own: LISTEN first, then read every session's head
// (the backlog), then wait. A notification is only a wake-up: the tables
// are the truth. Where the server lacks it, or Watch is told to poll, it
// reads the heads at every interval instead. Either way KnownAt tells up
// to when every Commit is known.
//
// # Portable SQL
//
// The SQL is the subset PostgreSQL (13 and later) shares with the
// PostgreSQL-wire distributed engines: explicit primary keys, INSERT …
// ON CONFLICT on columns, data-modifying WITH, serializable transactions
// with a retry loop on serialization failures, SELECT … FOR UPDATE; no
// triggers, no advisory locks, no sequences; NOTIFY and
// synchronous_commit optional and detected.
package postgres
