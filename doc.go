// Package goldfish is the embedding API of Goldfish, the working memory of
// LLM agents: named sessions, each a small labelled property graph, read
// with Recall and written with Commit in a subset of ISO GQL.
//
// # Sessions
//
// Open a database, then ask it for a session by name; a session is created
// on first use:
//
//	db, err := goldfish.Open(goldfish.WithCabinet("memory.gf"))
//	…
//	defer db.Close()
//	s, err := db.Session(ctx, "mission")
//
// Without WithCabinet the database lives in memory only. A session held in
// the cabinet is hydrated (its snapshot loaded, its log replayed) the first
// time it is asked for. The catalogue, CatalogName, is a session too: one
// SESSION node per session, read with Recall, never committed to.
//
// # Recall
//
// Recall reads a session with a codebook token (a MATCH of node patterns
// with optional WHERE and LIMIT) and returns a Shape: at most M rows
// within k hops of at most L seeds, emitted as one GQL INSERT statement
// under a comment header. The same token on the same session version
// gives the same bytes:
//
//	sh, err := s.Recall(ctx, `MATCH (t:TSK {status: "open"}) LIMIT 1`, goldfish.RecallOptions{})
//	fmt.Print(sh.Text)
//
// # Commit
//
// Commit applies one Δ, a batch of GQL data-modifying statements, atomically:
// all of it applies or none of it, and the session version grows by one.
//
//	res, err := s.Commit(ctx, `INSERT (:TSK {nick: "TSK_login", status: "open"})`, nil)
//
// Ingest is Commit with the ingest id rule: nodes carrying a loc property
// get an id from (kind, loc), so ingesting the same artefact twice updates
// instead of duplicating. A Δ is bounded by R (WithCommitBudget: rows
// written or bound, bytes, and the work its MATCHes may do).
//
// # Slices
//
// ExportSlice writes the neighbourhoods of a few anchors (the seeds of a
// Recall's token, or named nicks) with their engine ids, at most M ×
// anchors rows; Absorb commits such a slice into another session, of this
// database or another, as one atomic Δ that keeps the slice's ids
// (AbsorbKeep: a clash fails it), skips what clashes (AbsorbReject) or
// gives fresh ids (AbsorbRemint). A slice is GQL the parser reads: each
// element's id is in its variable (tsk_17: the kind's prefix, '_', the
// id), never in a property, so no Shape shows it; a checksum in its
// header refuses a slice edited or damaged. An Absorb is logged and
// replayed on hydrate like a Commit, to the same ids.
//
// # Agents
//
// A Recall or Commit may name its agent (RecallOptions.Agent; CommitWith
// and IngestWith with CommitOptions.Agent). Per agent the session keeps
// the version its last Recall read and its number of Recalls
// (Session.Agents), beside the graph: reading makes no version and writes
// no element. The log keeps who committed each Δ. What the agents read is
// saved with the session before each Commit's log entry, on Flush and on
// Close, so after a crash it may miss the last few reads, never a Commit.
//
// # Parameters
//
// Commit, Ingest and Recall take $parameters as Go values: nil, bool,
// integers, floats, strings, time.Time (a DATETIME) and slices or arrays
// of those. A value no property can hold is refused before anything
// applies: lists nested more than 64 deep (22Q05) or holding themselves,
// strings that are not UTF-8, Go types with no GQL value (22G03), NaN and
// infinite floats (22003), times outside the years 0000–9999 (22008). The
// parameters of one call together take at most R's
// byte budget as GQL literals; their conversion stops where the bound is
// passed. The engine keeps no reference to a parameter map or its values.
//
// # Durability
//
// With a cabinet, a Commit returns only once its Δ is in the cabinet
// file's write-ahead log and fsynced; concurrent Commits share one fsync.
// No reader sees a version before it is durable: a Recall, Version, Dump
// and the catalogue show a Commit's version only once it is on disk, so
// a crash never takes back what a reader has seen. After a crash at any
// instant (kill -9, power loss) reopening gives exactly the acknowledged
// versions: none lost, none torn, none applied twice; a Commit that had
// not returned may or may not be there. Flush compacts a session's log
// into a snapshot (also done automatically, WithAutoFlush); Purge removes
// recycled elements for good.
//
// What a crash cannot cost, damage to the file can: bbolt keeps two meta
// pages and each group commit overwrites the older one, so a newer meta
// page damaged later opens the file at the group commit before, whole and
// passing every check, without the last group commit's Commits. Any other
// damage the cabinet's checks find (its page structure, checked before
// bbolt reads the file, and a CRC on every record) is ErrDamaged naming
// the file or session, never a panic and never an empty or older session
// where the cabinet's own records say there is more.
//
// # Concurrency
//
// A DB, its Sessions and everything they return are safe for concurrent
// use by many goroutines. Recalls never wait for Commits or for each
// other: each reads the newest durable snapshot of its session, an
// immutable version. Commits of one session run one at a time (a Commit
// waiting for the session's writer honours its context); Commits of
// different sessions run in parallel and share fsyncs. One process at a
// time may open a cabinet file: another gets ErrInUse at once.
//
// # Many hosts
//
// postgres.Cabinet (package postgres) keeps the sessions in PostgreSQL
// instead, shared by every process opened on the same database and
// schema, on any machine. A
// Commit catches up with the other hosts' Commits, then claims its
// version; when another host took it first, the Δ is planned again on
// the new state (nothing is lost, nothing applied twice), and after its
// retries fails with CodeSerializationFailure (40001). A Recall sees
// another host's Commit at the latest one PollInterval after it was
// acknowledged. See package postgres.
//
// # Memory budget
//
// WithMemoryBudget bounds the estimated memory of the sessions a database
// on a cabinet keeps hydrated. Past it, idle sessions are unloaded, least
// recently used first, and hydrated again by their next call, which may
// come through a *Session the caller kept: a call in flight keeps its
// session resident, so unloading never races it, and what a session
// answers after it was unloaded is what it answered before. On
// PostgreSQL a session hydrated again reads the latest version. In memory
// nothing is unloaded. MemoryStats counts the resident sessions and the
// unloads.
//
// # What belongs to the caller
//
// A returned *Shape or *CommitResult is the caller's own: it may be
// changed freely, and the next caller of the same Recall still receives
// the same bytes. Strings are Go strings, immutable. Nothing the engine
// holds is reachable from them.
//
// # Bounds and cancellation
//
// Every call honours its context inside its long loops (seed scans, MATCH
// bindings, predicate evaluation, the walk): a call whose deadline passes
// or whose context is cancelled stops with a GQLSTATUS 40000 error that
// wraps the context's error, so errors.Is(err, context.DeadlineExceeded)
// holds, and a stopped Δ applies nothing. Predicates run as CEL programs
// under a cost limit that prices goldfish's own operators by the sizes
// they touch; a Δ's MATCH work is budgeted whether or not its rows pass
// WHERE. No input runs unbounded.
//
// # Closing
//
// Close refuses new calls (they get ErrClosed, as do calls on Sessions
// got before), waits for the calls in flight, saves what the agents have
// read, then closes the cabinet. An acknowledged Commit is already
// durable, so Close does not flush.
//
// # Errors
//
// Every error a caller can cause is an *Error carrying a GQLSTATUS code, a
// message that says what to do and, for text, a position. The codes are
// ISO/IEC 39075's where it defines the condition, implementation-defined
// ones (subclasses beginning with Q) where it does not; the Code constants
// list them all, each with its meaning, as does the README's table. A
// Commit that succeeds reports 00001 (the standard's "omitted result": a
// Δ returns no table), a Recall 00000.
//
//	var ge *goldfish.Error
//	if errors.As(err, &ge) && ge.Code == goldfish.CodeIntegrityViolation { … }
//
// Conditions of the database rather than of a call are sentinel errors,
// matched with errors.Is: ErrClosed, ErrDamaged, ErrInUse, ErrNotDurable
// (a Commit applied in memory could not be written; the session refuses
// further Commits until the database is reopened) and ErrDropped.
package goldfish
