package goldfish

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/ristretto/v2"

	"github.com/goldfish-gql/goldfish/exec"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/parser"
	"github.com/goldfish-gql/goldfish/planner"
	"github.com/goldfish-gql/goldfish/store"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/vocab"
)

// Error is an error a caller can cause: a GQLSTATUS code, a message, a hint
// and, for text, a position. Use errors.As to read it.
type Error = gqlstatus.Error

// Code is a GQLSTATUS code.
type Code = gqlstatus.Code

// Notice is a warning or no-data condition on a successful result.
type Notice = gqlstatus.Notice

// The GQLSTATUS codes goldfish raises: gqlstatus documents each, and the
// README's table "GQLSTATUS codes" lists them with their meanings.
const (
	CodeSuccess                 = gqlstatus.Success
	CodeOmitted                 = gqlstatus.Omitted
	CodeWarning                 = gqlstatus.Warning
	CodeNoData                  = gqlstatus.NoData
	CodeDamaged                 = gqlstatus.Damaged
	CodeCabinetUnavailable      = gqlstatus.CabinetUnavailable
	CodeDataException           = gqlstatus.DataException
	CodeNumericOutOfRange       = gqlstatus.NumericOutOfRange
	CodeInvalidDateTimeFormat   = gqlstatus.InvalidDateTimeFormat
	CodeDateTimeOverflow        = gqlstatus.DateTimeOverflow
	CodeDivisionByZero          = gqlstatus.DivisionByZero
	CodeNegativeLimit           = gqlstatus.NegativeLimit
	CodeInvalidValueType        = gqlstatus.InvalidValueType
	CodeNotComparable           = gqlstatus.NotComparable
	CodeDuplicateAssignment     = gqlstatus.DuplicateAssignment
	CodeReferentDeleted         = gqlstatus.ReferentDeleted
	CodeRecallBudget            = gqlstatus.RecallBudget
	CodeCommitBudget            = gqlstatus.CommitBudget
	CodeWorkBudget              = gqlstatus.WorkBudget
	CodeCostBudget              = gqlstatus.CostBudget
	CodeValueBudget             = gqlstatus.ValueBudget
	CodeInvalidOption           = gqlstatus.InvalidOption
	CodeInvalidTransactionState = gqlstatus.InvalidTransactionState
	CodeActiveTransaction       = gqlstatus.ActiveTransaction
	CodeRollback                = gqlstatus.Rollback
	CodeSerializationFailure    = gqlstatus.SerializationFailure
	CodeIntegrityViolation      = gqlstatus.IntegrityViolation
	CodeCompletionUnknown       = gqlstatus.CompletionUnknown
	CodeInternal                = gqlstatus.Internal
	CodeSyntax                  = gqlstatus.Syntax
	CodeInvalidReference        = gqlstatus.InvalidReference
	CodeTextLimit               = gqlstatus.TextLimit
	CodeReadOnlySession         = gqlstatus.ReadOnlySession
	CodeInvalidName             = gqlstatus.InvalidName
	CodeWrongVerb               = gqlstatus.WrongVerb
	CodeFileAccess              = gqlstatus.FileAccess
	CodeDeleteConnected         = gqlstatus.DeleteConnected
	CodeEndpointDeleted         = gqlstatus.EndpointDeleted
)

// Option configures a database.
type Option func(*config)

type config struct {
	budget     Budget
	ceilings   Ceilings
	planBytes  int64
	shapeBytes int64
	// persistence (cabinet.go)
	cabinetPath  string
	cabinet      cabinet.Cabinet
	flushEntries int
	flushBytes   int64
	// many hosts (postgres.go)
	postgresURL string
	postgres    PostgresOptions
	// memory budget (memory.go)
	memoryBudget int64
}

// WithCommitBudget sets the R cap of every Commit (DefaultBudget: 500
// elements, 256 KiB, and the work budget they imply); zero fields keep
// their defaults.
func WithCommitBudget(b Budget) Option {
	return func(c *config) {
		if b.Rows > 0 {
			c.budget.Rows = b.Rows
		}
		if b.Bytes > 0 {
			c.budget.Bytes = b.Bytes
		}
		c.budget.Work = b.Work
	}
}

// DefaultPlanCacheBytes is the plan cache's default size: room for
// thousands of typical plans, and a bound on memory whatever the texts a
// caller sends.
const DefaultPlanCacheBytes = 16 << 20

// WithPlanCacheBytes sizes the plan cache, which keeps parsed and planned
// texts by their exact text, in bytes: each plan costs its text's length
// plus an estimate of what its plan holds (default DefaultPlanCacheBytes).
// A plan larger than the whole cache is not kept.
func WithPlanCacheBytes(n int64) Option { return func(c *config) { c.planBytes = n } }

// WithShapeCacheBytes sizes the Shape cache (default 64 MiB); 0 turns it
// off, so every Recall computes its Shape.
func WithShapeCacheBytes(n int64) Option { return func(c *config) { c.shapeBytes = n } }

// DB is a database: a set of named sessions.
type DB struct {
	cfg      config
	mu       sync.Mutex
	sessions map[string]*Session
	// known are the sessions the cabinet holds (hydrated or not).
	known map[string]bool
	// cab is the cabinet; nil in memory.
	cab cabinet.Cabinet
	// hosts shares the sessions with other hosts (postgres.go); nil
	// unless the cabinet is PostgreSQL.
	hosts *hosts
	// catalog is the catalogue session (catalog.go); catq its queued changes.
	catalog *Session
	catq    catalogQueue
	// plans caches parsed and planned texts by their exact text.
	plans *ristretto.Cache[string, *planner.Plan]
	// shapes caches Recall results by (session, version, token, options).
	shapes *shapeCache
	// mem is the memory budget and the sessions it keeps resident
	// (memory.go); nil without a budget or without a cabinet.
	mem *memory

	// closed is set by Close; calls counts the calls in flight, which
	// Close waits for before it closes the cabinet and the caches.
	closed    atomic.Bool
	calls     atomic.Int64
	closeOnce sync.Once
	closeErr  error
}

// ErrClosed is returned by every call on a database, or on a session of
// it, after Close.
var ErrClosed = errors.New("goldfish: the database is closed")

// enter admits a call, or refuses it once Close has begun; every admitted
// call must exit. A call admitted before Close finishes before Close
// closes anything, so it never meets a closed cabinet or cache.
func (db *DB) enter() error {
	db.calls.Add(1)
	if db.closed.Load() {
		db.calls.Add(-1)
		return ErrClosed
	}
	return nil
}

func (db *DB) exit() { db.calls.Add(-1) }

// Open opens a database: on the cabinet file given WithCabinet, in memory
// otherwise. Sessions in the cabinet are hydrated on first use.
func Open(opts ...Option) (*DB, error) {
	cfg := config{budget: DefaultBudget, ceilings: DefaultCeilings, planBytes: DefaultPlanCacheBytes, shapeBytes: 64 << 20,
		flushEntries: 4096, flushBytes: 4 << 20}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.planBytes <= 0 {
		cfg.planBytes = DefaultPlanCacheBytes
	}
	// ristretto wants about ten counters per entry it can hold; even the
	// shortest text's plan (one node pattern) takes hundreds of bytes.
	plans, err := ristretto.NewCache(&ristretto.Config[string, *planner.Plan]{
		NumCounters: max(cfg.planBytes/50, 1024), MaxCost: cfg.planBytes, BufferItems: cacheGetBuffer})
	if err != nil {
		return nil, err
	}
	var shapes *shapeCache
	if cfg.shapeBytes > 0 {
		shapes, err = newShapeCache(cfg.shapeBytes)
		if err != nil {
			return nil, err
		}
	}
	db := &DB{cfg: cfg, sessions: map[string]*Session{}, known: map[string]bool{}, plans: plans, shapes: shapes}
	db.catalog = newCatalog(db)
	if err := db.openCabinet(); err != nil {
		db.closeCaches()
		return nil, err
	}
	if cfg.memoryBudget > 0 && db.cab != nil {
		db.mem = newMemory(cfg.memoryBudget)
	}
	return db, nil
}

// Close refuses new calls (they get ErrClosed), waits for the calls in
// flight to finish (a Commit among them either returns durable or fails
// as it would have anyway), saves what the agents of each session have
// read since the last save, waits for queued cabinet writes, closes the
// cabinet file and releases the caches. Every acknowledged Commit is
// already durable, so Close does not flush (call Flush first for a
// compact file). Closing again returns what the first Close returned.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		db.closed.Store(true)
		for wait := 50 * time.Microsecond; db.calls.Load() != 0; wait = min(2*wait, 10*time.Millisecond) {
			time.Sleep(wait)
		}
		if db.cab != nil {
			db.closeErr = errors.Join(db.saveAttention(), db.cab.Close())
		}
		db.closeCaches()
	})
	return db.closeErr
}

func (db *DB) closeCaches() {
	db.plans.Close()
	if db.shapes != nil {
		db.shapes.close()
	}
}

// MaxSessionName is the longest session name accepted.
const MaxSessionName = 64

// ValidSessionName checks a session name: 1 to 64 letters, digits, '_',
// '-' or '.', not starting with '.' or '-'.
func ValidSessionName(name string) error {
	if name == "" || len(name) > MaxSessionName {
		return gqlstatus.Errorf(gqlstatus.InvalidName, "session name must be 1 to %d characters, got %d", MaxSessionName, len(name))
	}
	for i, r := range name {
		ok := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') ||
			(i > 0 && (r == '-' || r == '.'))
		if !ok {
			return gqlstatus.Errorf(gqlstatus.InvalidName, "session name %q may hold only letters, digits, '_', and (not first) '-' or '.'", name)
		}
	}
	return nil
}

// Session returns the named session, creating it empty on first use. A
// session held in the cabinet is hydrated on its first use (snapshot plus
// log, which ctx bounds), and again after a memory budget unloaded it
// (WithMemoryBudget); a damaged one gives an error naming it. The call
// counts as a use of the session. CatalogName gives the catalogue, which
// takes Recall but refuses Commit.
func (db *DB) Session(ctx context.Context, name string) (*Session, error) {
	if err := ValidSessionName(name); err != nil {
		return nil, err
	}
	if err := db.enter(); err != nil {
		return nil, err
	}
	defer db.exit()
	if name == CatalogName {
		return db.catalog, nil
	}
	db.mu.Lock()
	s, ok := db.sessions[name]
	if !ok {
		s = newSession(db, name)
		db.sessions[name] = s
	}
	db.mu.Unlock()
	if m := db.mem; m != nil {
		m.use(s)
		defer m.done(s) // before exit: Close waits for the sweep
	}
	if !s.hydrated.Load() {
		if err := s.hydrateOnce(ctx); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Sessions lists the session names in order: those in the cabinet and
// those in use, not the catalogue.
func (db *DB) Sessions() []string {
	db.mu.Lock()
	defer db.mu.Unlock()
	all := make(map[string]bool, len(db.known)+len(db.sessions))
	for n := range db.known {
		all[n] = true
	}
	for n := range db.sessions {
		all[n] = true
	}
	return sortedKeys(all)
}

// Session is one named working memory.
type Session struct {
	db   *DB
	name string
	// incarnation tells this Session apart from every other one the
	// process has made, a dropped and re-created session of the same name
	// included, and from itself before it was last unloaded: the Shape
	// cache keys by it, not by the name. Changed only by an unload, which
	// no call on the session runs beside (memory.go).
	incarnation uint64
	// graph is the session's state, ahead of what readers see by the
	// Commits whose log entries are not yet durable; only Commits (under
	// wmu) read it. Set once hydrated.
	graph *store.Graph
	// durableMu orders publishing: readable only ever moves forward.
	durableMu sync.Mutex
	// readable is the newest durable snapshot: what every read sees
	// (SPEC §7: no reader sees a version before it is durable, so a crash
	// never takes back what an agent has read).
	readable atomic.Pointer[store.Snapshot]

	hmu      writeLock // one hydration at a time
	herr     error     // a hydration's lasting error (damage), under hmu
	hydrated atomic.Bool
	catalog  bool // the catalogue: Recall only
	flushing atomic.Bool

	// wmu orders a Commit's publish with its log entry, and guards what
	// follows.
	wmu         writeLock
	dropped     atomic.Bool // set by Drop: every later call gets ErrDropped
	poisoned    error
	lastCommit  time.Time
	snapVersion uint64
	logEntries  int64
	logBytes    int64
	// peaks keeps the Peak_L fallback's ranking for the latest version.
	peaks exec.PeakCache
	// vocab keeps the vocabulary's evaluation for the latest version.
	vocab vocabCache
	// agents is what each agent has read (agents.go), attn what the
	// envelope keeps of the session (envelope.go): beside the graph,
	// never a version of it.
	agents agentTable
	attn   sessionAttention
	// remote is what this host knows of other hosts' Commits
	// (postgres.go).
	remote remoteState

	// Under a memory budget (memory.go): uses counts the calls that hold
	// the session resident, lastUse is the memory clock at its latest
	// use, est its estimated bytes while resident. loaded is set by its
	// first hydration (under hmu): the agents' record is in memory from
	// then on, and a later hydration keeps it. unloaded is set while an
	// unload has released the session; unloadedVersion is its version
	// then.
	uses            atomic.Int32
	lastUse         atomic.Uint64
	est             atomic.Int64
	loaded          bool
	unloaded        atomic.Bool
	unloadedVersion atomic.Uint64
}

// incarnations numbers the Sessions of the process.
var incarnations atomic.Uint64

func newSession(db *DB, name string) *Session {
	return &Session{db: db, name: name, incarnation: incarnations.Add(1), wmu: newWriteLock(), hmu: newWriteLock()}
}

// Name returns the session's name.
func (s *Session) Name() string { return s.name }

// Version returns the session's current version: the number of Δs
// applied. It does not hydrate an unloaded session: it answers the
// version the session had when it was unloaded.
func (s *Session) Version() uint64 {
	if snap := s.snapshot(); snap != nil {
		return snap.Version()
	}
	return s.unloadedVersion.Load()
}

// Commit applies text as one atomic Δ with the default id rule: every new
// element gets a fresh engine id. It names no agent (CommitWith does).
func (s *Session) Commit(ctx context.Context, text string, params map[string]any) (*CommitResult, error) {
	return s.commit(ctx, text, params, exec.MintDefault, CommitOptions{})
}

// CommitWith is Commit with options: the committing agent, timing.
func (s *Session) CommitWith(ctx context.Context, text string, params map[string]any, o CommitOptions) (*CommitResult, error) {
	return s.commit(ctx, text, params, exec.MintDefault, o)
}

// Ingest applies text as one atomic Δ with the ingest id rule: nodes with a
// loc property get an id from (kind, loc) and edges between nodes an id from
// (source, type, target), so re-ingesting updates instead of duplicating.
// It names no agent (IngestWith does).
func (s *Session) Ingest(ctx context.Context, text string, params map[string]any) (*CommitResult, error) {
	return s.commit(ctx, text, params, exec.MintIngest, CommitOptions{})
}

// IngestWith is Ingest with options, as CommitWith is Commit with them.
func (s *Session) IngestWith(ctx context.Context, text string, params map[string]any, o CommitOptions) (*CommitResult, error) {
	return s.commit(ctx, text, params, exec.MintIngest, o)
}

// CommitTimed is Commit that also reports where the time went.
func (s *Session) CommitTimed(ctx context.Context, text string, params map[string]any) (*CommitResult, Timing, error) {
	var t Timing
	res, err := s.commit(ctx, text, params, exec.MintDefault, CommitOptions{Timing: &t})
	return res, t, err
}

func (s *Session) commit(ctx context.Context, text string, params map[string]any, mint exec.Mint, o CommitOptions) (*CommitResult, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	defer s.end()
	if o.Agent != "" {
		if err := ValidAgentName(o.Agent); err != nil {
			return nil, err
		}
	}
	if t := o.Timing; t != nil {
		*t = Timing{}
		t0 := time.Now()
		defer func() { t.Execute = time.Since(t0) - t.Parse - t.Plan }()
	}
	plan, err := s.db.planTimed(text, o.Timing)
	if err != nil {
		return nil, err
	}
	vals, err := storeParams(params, s.db.cfg.budget.Bytes)
	if err != nil {
		return nil, err
	}
	if s.wmu.LockContext(ctx) != nil {
		return nil, gqlstatus.Interrupted(ctx, "Δ").WithHint("nothing applied: the Δ was waiting for the session's other Commits; allow it more time")
	}
	if err := s.refuseWrite(); err != nil {
		s.wmu.Unlock()
		return nil, err
	}
	e := cabinet.Entry{Kind: cabinet.EntryDelta, Mint: uint8(mint), Text: text, Params: vals, Agent: o.Agent}
	xo := exec.CommitOptions{Mint: mint, Budget: s.db.cfg.budget.exec(), Agent: o.Agent}
	var before *vocab.State
	var res *exec.Result
	if s.db.hosts != nil {
		// Other hosts commit too: catch up, claim the version, and plan
		// again on the new state when another host took it (postgres.go).
		before, res, err = s.commitHosts(ctx, plan, vals, xo, &e)
	} else {
		before = exec.Vocabulary(s.graph.Snapshot())
		res, err = exec.Commit(ctx, s.graph, plan, vals, xo)
	}
	if err != nil || !res.Applied {
		s.wmu.Unlock()
		return commitResultOf(res), err
	}
	s.noteCommit(before, exec.Vocabulary(s.graph.Snapshot()), res.Version)
	w := s.durable(e)
	s.wmu.Unlock()
	if err := s.await(w); err != nil {
		return nil, err
	}
	return commitResultOf(res), nil
}

// Plan parses and plans text, through the plan cache.
func (db *DB) plan(text string) (*planner.Plan, error) {
	return db.planTimed(text, nil)
}

// planTimed is plan, recording parse and plan time in t when t is not nil
// (both stay zero on a plan-cache hit).
func (db *DB) planTimed(text string, t *Timing) (*planner.Plan, error) {
	if p, ok := db.plans.Get(text); ok {
		return p, nil
	}
	var t0 time.Time
	if t != nil {
		t0 = time.Now()
	}
	script, err := parser.Parse(text)
	if err != nil {
		return nil, err
	}
	if t != nil {
		t.Parse = time.Since(t0)
		t0 = time.Now()
	}
	p, err := planner.Build(script)
	if err != nil {
		return nil, err
	}
	if t != nil {
		t.Plan = time.Since(t0)
	}
	db.cachePlan(text, p)
	return p, nil
}

// cachePlan keeps p under its text, costing the bytes both hold.
func (db *DB) cachePlan(text string, p *planner.Plan) {
	db.plans.Set(text, p, int64(len(text))+int64(p.Size()))
}

// Timing says where the time of one call went. Parse and Plan are zero
// when the plan cache answered; Execute and Emit are zero when the Shape
// cache did (Cached).
type Timing struct {
	Parse, Plan, Execute, Emit time.Duration
	Cached                     bool
}
