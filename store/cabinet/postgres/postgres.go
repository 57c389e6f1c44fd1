package postgres

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/goldfish-gql/goldfish/store/cabinet"
)

// Options configure a PostgreSQL cabinet.
type Options struct {
	// Schema is the schema that holds the cabinet's tables (default
	// "goldfish"): lower-case letters, digits and '_', at most 54
	// characters, not starting with a digit. Cabinets in different
	// schemas of one database are independent.
	Schema string
	// ChunkBytes is the most snapshot bytes one row of the chunks table
	// holds (default 256 KiB).
	ChunkBytes int
	// MaxConns bounds the connection pool (default 8).
	MaxConns int32
}

// DefaultSchema is the schema a cabinet uses unless told otherwise.
const DefaultSchema = "goldfish"

// The errors of the many-host protocol are cabinet's (see cabinet.Shared),
// named here too for the callers of this package; match with errors.Is.
var (
	ErrVersionTaken = cabinet.ErrVersionTaken
	ErrGone         = cabinet.ErrGone
	ErrUnavailable  = cabinet.ErrUnavailable
	ErrUnknown      = cabinet.ErrUnknown
)

// schemaVersion is the layout this package writes; migrations[i] moves a
// schema from version i to i+1.
const schemaVersion = 3

var migrations = []string{
	`CREATE TABLE IF NOT EXISTS %[1]s.sessions (
		name         TEXT PRIMARY KEY,
		gen          BIGINT NOT NULL,
		version      BIGINT NOT NULL,
		meta         BYTEA NOT NULL,
		meta_version BIGINT NOT NULL
	);
	CREATE TABLE IF NOT EXISTS %[1]s.log (
		session TEXT NOT NULL,
		version BIGINT NOT NULL,
		entry   BYTEA NOT NULL,
		PRIMARY KEY (session, version)
	);
	CREATE TABLE IF NOT EXISTS %[1]s.snapshots (
		session TEXT PRIMARY KEY,
		version BIGINT NOT NULL,
		chunks  BIGINT NOT NULL,
		size    BIGINT NOT NULL
	);
	CREATE TABLE IF NOT EXISTS %[1]s.chunks (
		session TEXT NOT NULL,
		n       BIGINT NOT NULL,
		data    BYTEA NOT NULL,
		PRIMARY KEY (session, n)
	);
	CREATE TABLE IF NOT EXISTS %[1]s.attention (
		session TEXT PRIMARY KEY,
		data    BYTEA NOT NULL
	)`,
	// 1 → 2: the dropped counter (one row, id 1), so that the
	// catalogue's version never goes back across a reopen (docs/design.md#persistence-and-history).
	`CREATE TABLE IF NOT EXISTS %[1]s.dropped (
		id    INT PRIMARY KEY,
		total BIGINT NOT NULL
	)`,
	// 2 → 3: the base of a session's history, when it starts after
	// version 0 (cabinet.Cabinet.Flush), kept as a snapshot is; the log
	// keeps the entries a flush covers.
	`CREATE TABLE IF NOT EXISTS %[1]s.bases (
		session TEXT PRIMARY KEY,
		version BIGINT NOT NULL,
		chunks  BIGINT NOT NULL,
		size    BIGINT NOT NULL
	);
	CREATE TABLE IF NOT EXISTS %[1]s.base_chunks (
		session TEXT NOT NULL,
		n       BIGINT NOT NULL,
		data    BYTEA NOT NULL,
		PRIMARY KEY (session, n)
	)`,
}

// Cabinet is a cabinet in a PostgreSQL schema. It is safe for concurrent
// use; several Cabinets, in one process or many, may use one schema.
type Cabinet struct {
	pool   *pgxpool.Pool
	conn   *pgx.ConnConfig // for the listening connection
	path   string          // for messages: the server and schema, no password
	schema string
	q      queries
	chunk  int

	group *cabinet.Group[*op]

	mu sync.Mutex
	// gens is the gen of each session as this host last read or wrote
	// it (absent: not known, so the next one seen is taken).
	gens map[string]int64
	// notify: the server has NOTIFY, so Commits wake other hosts.
	notify bool
	// lazyMeta: the server takes synchronous_commit, so a transaction
	// of metadata and attention records alone need not wait for its
	// WAL flush (they follow a claim, which did).
	lazyMeta bool

	watch *watcher // nil until Watch
}

var schemaName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,53}$`)

// Open connects to the server at url (a PostgreSQL URL or key=value
// string, as pgx reads it), creates or migrates the schema, and starts
// the writer. ctx bounds the connection and the migration.
func Open(ctx context.Context, url string, opts *Options) (*Cabinet, error) {
	if opts == nil {
		opts = &Options{}
	}
	schema := opts.Schema
	if schema == "" {
		schema = DefaultSchema
	}
	if !schemaName.MatchString(schema) {
		return nil, fmt.Errorf("cabinet: schema name %q: use lower-case letters, digits and '_' (at most 54, not starting with a digit)", schema)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("cabinet: the PostgreSQL URL does not parse: %v", redact(err))
	}
	cfg.MaxConns = opts.MaxConns
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = 8
	}
	c := &Cabinet{schema: schema, chunk: opts.ChunkBytes, gens: map[string]int64{}, conn: cfg.ConnConfig.Copy()}
	if c.chunk <= 0 {
		c.chunk = 256 << 10
	}
	c.path = describe(cfg.ConnConfig, schema)
	c.q = newQueries(pgx.Identifier{schema}.Sanitize())
	cfg.AfterConnect = c.afterConnect
	c.pool, err = pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, c.wrap(err)
	}
	if err := c.migrate(ctx); err != nil {
		c.pool.Close()
		return nil, err
	}
	// NOTIFY is optional (some PostgreSQL-wire engines lack it): try it
	// on a channel nobody listens to.
	if _, err := c.pool.Exec(ctx, c.q.notify, c.channel()+"_probe", ""); err == nil {
		c.notify = true
	} else if !isServerError(err) {
		c.pool.Close()
		return nil, c.wrap(err)
	}
	c.group = cabinet.NewGroup(cabinet.GroupHooks[*op]{Write: c.attempt, Alone: alone, Failed: c.failed})
	return c, nil
}

// afterConnect makes every Commit wait for the server's write-ahead log
// flush, whatever the server's default; an engine without the setting
// (it has its own durable commit) is left as it is.
func (c *Cabinet) afterConnect(ctx context.Context, conn *pgx.Conn) error {
	_, err := conn.Exec(ctx, "SET synchronous_commit TO on")
	var pe *pgconn.PgError
	switch {
	case err == nil:
		c.mu.Lock()
		c.lazyMeta = true
		c.mu.Unlock()
	case errors.As(err, &pe):
		return nil
	}
	return err
}

// describe names the server and schema for messages: user, host, port,
// database; never the password.
func describe(c *pgx.ConnConfig, schema string) string {
	host := c.Host
	if strings.HasPrefix(host, "/") {
		host = "[" + host + "]"
	}
	return fmt.Sprintf("postgres://%s@%s:%d/%s (schema %s)", c.User, host, c.Port, c.Database, schema)
}

// redact keeps a parse error from repeating a password it quotes.
func redact(err error) string {
	s := err.Error()
	if i := strings.Index(s, "://"); i >= 0 {
		if j := strings.Index(s[i:], "@"); j >= 0 {
			s = s[:i+3] + "…" + s[i+j:]
		}
	}
	return s
}

// migrate creates the schema and its tables, or brings an older layout
// up to schemaVersion. Hosts starting together race on the creation; the
// loser's transaction fails and is tried again, then finds the layout
// made.
func (c *Cabinet) migrate(ctx context.Context) error {
	var err error
	for attempt := range 6 {
		var v int64
		if v, err = c.layout(ctx); err == nil {
			switch {
			case v == schemaVersion:
				return nil
			case v > schemaVersion:
				return fmt.Errorf("%w: %s has layout version %d, this goldfish reads %d: use a newer goldfish", cabinet.ErrDamaged, c.path, v, schemaVersion)
			}
		}
		if err = c.migrateOnce(ctx); err == nil {
			return nil
		}
		if !isServerError(err) {
			break
		}
		if attempt < 5 && cabinet.Sleep(ctx, backoff(attempt)) != nil {
			break
		}
	}
	return c.wrap(fmt.Errorf("creating or migrating the schema: %w", err))
}

// layout reads the layout version (an error if there is no table yet).
func (c *Cabinet) layout(ctx context.Context) (int64, error) {
	var v int64
	err := c.pool.QueryRow(ctx, c.q.layout).Scan(&v)
	return v, err
}

func (c *Cabinet) migrateOnce(ctx context.Context) error {
	return pgx.BeginTxFunc(ctx, c.pool, pgx.TxOptions{IsoLevel: pgx.Serializable}, func(tx pgx.Tx) error {
		for _, q := range []string{c.q.createSchema, c.q.createLayout} {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		var v int64
		err := tx.QueryRow(ctx, c.q.layout).Scan(&v)
		if errors.Is(err, pgx.ErrNoRows) {
			err = nil
		}
		if err != nil {
			return err
		}
		if v > schemaVersion {
			return fmt.Errorf("%w: %s has layout version %d, this goldfish reads %d", cabinet.ErrDamaged, c.path, v, schemaVersion)
		}
		for ; v < schemaVersion; v++ {
			for _, stmt := range strings.Split(fmt.Sprintf(migrations[v], c.q.schema), ";\n") {
				if _, err := tx.Exec(ctx, stmt); err != nil {
					return err
				}
			}
		}
		_, err = tx.Exec(ctx, c.q.setLayout, v)
		return err
	})
}

// Path names the server and the schema.
func (c *Cabinet) Path() string { return c.path }

// Schema returns the schema the cabinet's tables are in.
func (c *Cabinet) Schema() string { return c.schema }

// Forget drops what the cabinet knows of a session's incarnation (the
// root package calls it once it has let go of a session another host
// dropped), so the next Load takes the session as it finds it.
func (c *Cabinet) Forget(name string) {
	c.mu.Lock()
	delete(c.gens, name)
	c.mu.Unlock()
	c.group.Clear(name)
}

// Gen returns the incarnation of the session this cabinet holds (its
// last Load, Since or Claim), 0 when it holds none: a Head of another
// gen is a session dropped and made again.
func (c *Cabinet) Gen(name string) int64 { return c.gen(name) }

func (c *Cabinet) gen(name string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gens[name]
}

func (c *Cabinet) setGen(name string, gen int64) {
	c.mu.Lock()
	c.gens[name] = gen
	c.mu.Unlock()
}

func (c *Cabinet) isClosed() bool { return c.group.Closed() }

// Close waits for queued writes, stops the writer and the watcher, and
// closes the connections.
func (c *Cabinet) Close() error {
	// Watch checks Closed under c.mu: once the group is closed, the
	// watch read here is the last one there will be.
	if !c.group.Close() {
		return nil
	}
	c.mu.Lock()
	w := c.watch
	c.mu.Unlock()
	if w != nil {
		w.stop()
	}
	c.pool.Close()
	return nil
}

var _ cabinet.Shared = (*Cabinet)(nil)

// newGen draws a session's incarnation number: random, never 0 (which
// means "not known").
func newGen() int64 {
	var b [8]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			panic(err) // crypto/rand does not fail on supported systems
		}
		if g := int64(binary.BigEndian.Uint64(b[:]) & math.MaxInt64); g != 0 {
			return g
		}
	}
}

// ---- errors -------------------------------------------------------------

// The SQLSTATE classes this package acts on (the server's codes, never
// shown to a caller as a GQLSTATUS).
const (
	classRollback   = "40" // serialization failure, deadlock: try again
	classConnection = "08" // connection exception
	classOperator   = "57" // operator intervention: shutdown, crash, cannot connect now
	classResources  = "53" // insufficient resources: too many connections
)

func serverClass(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && len(pe.Code) == 5 {
		return pe.Code[:2]
	}
	return ""
}

func isServerError(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe)
}

// retryable: the server rolled the transaction back as not serializable
// with another one; running it again may succeed.
func retryable(err error) bool { return serverClass(err) == classRollback }

// unavailable: the server could not be reached or went away; nothing the
// request did is to blame.
func unavailable(err error) bool {
	switch serverClass(err) {
	case classConnection, classOperator, classResources:
		return true
	case "":
	default:
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		pgconn.SafeToRetry(err)
}

// wrap words a failure of the server or the connection for the caller.
func (c *Cabinet) wrap(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, cabinet.ErrDamaged), errors.Is(err, cabinet.ErrClosed), errors.Is(err, cabinet.ErrNoSession),
		errors.Is(err, cabinet.ErrPoisoned), errors.Is(err, ErrGone),
		errors.Is(err, ErrVersionTaken), errors.Is(err, ErrUnavailable), errors.Is(err, ErrUnknown):
		return err
	case unavailable(err):
		return fmt.Errorf("%w: %s: %v", ErrUnavailable, c.path, err)
	}
	return fmt.Errorf("cabinet: %s: %w", c.path, err)
}

func backoff(attempt int) time.Duration {
	d := time.Millisecond << min(attempt, 6)
	var b [2]byte
	_, _ = rand.Read(b[:])
	return d/2 + time.Duration(binary.BigEndian.Uint16(b[:]))*d/65536
}

// DropSchema removes a cabinet for good: its schema and every table in
// it. No host may be using it.
func DropSchema(ctx context.Context, url, schema string) error {
	if !schemaName.MatchString(schema) {
		return fmt.Errorf("cabinet: schema name %q: use lower-case letters, digits and '_' (at most 54, not starting with a digit)", schema)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	return err
}
