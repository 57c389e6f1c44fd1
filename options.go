package goldfish

import (
	"github.com/goldfish-gql/goldfish/internal/config"
	"github.com/goldfish-gql/goldfish/values"
)

// Option configures a database. The options are this package's With…
// functions and the cabinets of other packages of the module (the
// PostgreSQL one: postgres.Cabinet); the configuration they set is the
// module's own (internal), so an embedder uses them, never builds one.
type Option func(*config.Config)

func defaultConfig() config.Config {
	return config.Config{Budget: DefaultBudget, Ceilings: DefaultCeilings,
		PlanBytes: DefaultPlanCacheBytes, ShapeBytes: 64 << 20, FlushEntries: 4096, FlushBytes: 4 << 20}
}

// Budget is the R cap of one Δ: the most elements (Rows) and bytes
// (Bytes) one Δ may write or bind, and the work (Work) its MATCHes may
// spend finding them (values.Budget says how each is counted).
type Budget = values.Budget

// DefaultBudget is R's default: 500 rows, 256 KiB.
var DefaultBudget = values.DefaultBudget

// WithCommitBudget sets the R cap of every Commit (DefaultBudget: 500
// elements, 256 KiB, and the work budget they imply); zero fields keep
// their defaults.
func WithCommitBudget(b Budget) Option {
	return func(c *config.Config) {
		if b.Rows > 0 {
			c.Budget.Rows = b.Rows
		}
		if b.Bytes > 0 {
			c.Budget.Bytes = b.Bytes
		}
		c.Budget.Work = b.Work
	}
}

// Ceilings bound what a Recall may ask for.
type Ceilings = values.Ceilings

// DefaultCeilings are the highest budgets a Recall may ask for unless the
// database is opened WithCeilings.
var DefaultCeilings = values.DefaultCeilings

// WithCeilings sets the highest M, k, L and F a Recall may ask for.
func WithCeilings(c Ceilings) Option { return func(cfg *config.Config) { cfg.Ceilings = c } }

// DefaultPlanCacheBytes is the plan cache's default size: room for
// thousands of typical plans, and a bound on memory whatever the texts a
// caller sends.
const DefaultPlanCacheBytes = values.DefaultPlanCacheBytes

// WithPlanCacheBytes sizes the plan cache, which keeps parsed and planned
// texts by their exact text, in bytes: each plan costs its text's length
// plus an estimate of what its plan holds (default DefaultPlanCacheBytes).
// A plan larger than the whole cache is not kept.
func WithPlanCacheBytes(n int64) Option { return func(c *config.Config) { c.PlanBytes = n } }

// WithShapeCacheBytes sizes the Shape cache (default 64 MiB); 0 turns it
// off, so every Recall computes its Shape.
func WithShapeCacheBytes(n int64) Option { return func(c *config.Config) { c.ShapeBytes = n } }

// WithCabinet persists the database in the bbolt cabinet file at path
// (created if missing). Without it, Open gives an in-memory database.
func WithCabinet(path string) Option { return func(c *config.Config) { c.CabinetPath = path } }

// WithReadOnly opens the WithCabinet file read-only, under a shared lock:
// any number of read-only databases, in any processes, open one file at
// once, and Open fails with ErrInUse while a read-write one has it open
// (as a read-write Open does while a read-only one has). It writes
// nothing to the file or its directory, not even at Open or Close, so it
// opens a file it may not write; a file that would need writing first
// (none there, one of an older format to migrate) is refused, saying to
// open it once read-write. Every write is refused with 25006
// (CodeReadOnlyCabinet, ErrReadOnly) and applies nothing: Commit, Absorb,
// Purge, Drop, SetAttentionSettings, SetPinnedKinds, ForgetAgent. Flush
// has nothing to write and does nothing; Backup works. A session the
// file does not hold is empty and stays so (Session gives it, as a new
// one, and Recall finds nothing). A Recall with an agent keeps what the
// agent read in memory, for its "since your last read", and saves none
// of it. It excludes a shared cabinet (postgres.Cabinet) and an in-memory
// database (Open fails).
func WithReadOnly() Option { return func(c *config.Config) { c.ReadOnly = true } }

// WithAutoFlush sets when a session is flushed automatically: once its log
// after the last snapshot holds entries Δs or bytes bytes (defaults 4096
// and 4 MiB). Zero or negative values turn that trigger off.
func WithAutoFlush(entries int, bytes int64) Option {
	return func(c *config.Config) { c.FlushEntries, c.FlushBytes = entries, bytes }
}

// WithMemoryBudget bounds the estimated memory of the sessions a database
// on a cabinet (WithCabinet, postgres.Cabinet) keeps resident, in bytes; 0,
// the default, sets no bound. Past the budget, when a call ends, idle
// sessions are unloaded, least recently used first, until the rest fit
// with a sixteenth of the budget to spare: their graphs and caches are
// released, and the next call on one (through a *Session the caller
// kept, or DB.Session) hydrates it again, from its snapshot and log,
// transparently. A session is idle when no call on it is in flight; its
// acknowledged Commits are durable already, and a session whose log has
// grown long since its snapshot is flushed before it is unloaded, so
// hydrating it again replays little. The session a call used is not
// unloaded by that call, so a single session larger than the whole
// budget stays resident while it is used. The catalogue and DB.Sessions
// list unloaded sessions as before.
//
// The estimate (MemoryStats) counts each resident session's nodes and
// edges at what the store spends on an element with a nick and a few
// short properties, plus a constant per session: it is cheap to keep
// current, not a measurement, and long property values are under-counted.
// The Shape cache counts against the budget too: under a budget it holds
// at most a quarter of it, at least 1 MiB (or WithShapeCacheBytes, if
// less), and the
// resident sessions have what it leaves. The plan cache has a bound of
// its own (WithPlanCacheBytes). An in-memory database never
// unloads a session, whatever the budget: it would have nothing to load
// it again from.
func WithMemoryBudget(bytes int64) Option { return func(c *config.Config) { c.MemoryBudget = bytes } }
