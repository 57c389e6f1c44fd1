package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/internal/config"
	pgcabinet "github.com/goldfish-gql/goldfish/store/cabinet/postgres"
	"github.com/goldfish-gql/goldfish/store/cabinet/postgres/pgtest"

	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
)

// The engine's tests' helpers: a database of the default configuration
// with options of the tests' choosing, and short forms of the calls.

type Option func(*Config)

func testConfig() Config {
	return Config{Budget: values.DefaultBudget, Ceilings: values.DefaultCeilings, PlanBytes: DefaultPlanCacheBytes,
		ShapeBytes: 64 << 20, FlushEntries: 4096, FlushBytes: 4 << 20}
}

func openTest(opts ...Option) (*DB, error) {
	cfg := testConfig()
	for _, o := range opts {
		o(&cfg)
	}
	return Open(cfg)
}

func WithCabinet(path string) Option                { return func(c *Config) { c.CabinetPath = path } }
func withCabinetBackend(cab cabinet.Cabinet) Option { return func(c *Config) { c.Cabinet = cab } }
func WithMemoryBudget(n int64) Option               { return func(c *Config) { c.MemoryBudget = n } }
func WithShapeCacheBytes(n int64) Option            { return func(c *Config) { c.ShapeBytes = n } }
func WithPlanCacheBytes(n int64) Option             { return func(c *Config) { c.PlanBytes = n } }
func WithCeilings(ce values.Ceilings) Option        { return func(c *Config) { c.Ceilings = ce } }
func WithAutoFlush(entries int, bytes int64) Option {
	return func(c *Config) { c.FlushEntries, c.FlushBytes = entries, bytes }
}
func WithCommitBudget(b values.Budget) Option {
	return func(c *Config) {
		if b.Rows > 0 {
			c.Budget.Rows = b.Rows
		}
		if b.Bytes > 0 {
			c.Budget.Bytes = b.Bytes
		}
		c.Budget.Work = b.Work
	}
}

func (s *Session) commitText(ctx context.Context, text string, p map[string]any) (*values.CommitResult, error) {
	return s.Commit(ctx, text, p, MintDefault, values.CommitOptions{})
}

func (s *Session) commitWith(ctx context.Context, text string, p map[string]any, o values.CommitOptions) (*values.CommitResult, error) {
	return s.Commit(ctx, text, p, MintDefault, o)
}

func (s *Session) ingestText(ctx context.Context, text string, p map[string]any) (*values.CommitResult, error) {
	return s.Commit(ctx, text, p, MintIngest, values.CommitOptions{})
}

// recallShape is Recall giving the caller's Shape, as the facade does.
func (s *Session) recallShape(ctx context.Context, q string, o values.RecallOptions) (*values.Shape, error) {
	return s.Recall(ctx, q, o, nil)
}

func (s *Session) recallTimed(ctx context.Context, q string, o values.RecallOptions) (*values.Shape, values.Timing, error) {
	var t values.Timing
	sh, err := s.Recall(ctx, q, o, &t)
	return sh, t, err
}

// mustSession opens db's session name, failing the test on an error.
func mustSession(t testing.TB, db *DB, name string) *Session {
	t.Helper()
	s, err := db.Session(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// mustCommit commits text to s, failing the test on an error.
func mustCommit(t testing.TB, s *Session, text string, params map[string]any) *values.CommitResult {
	t.Helper()
	res, err := s.commitText(context.Background(), text, params)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return res
}

// openCab opens a database on the cabinet file at path, failing the test
// on an error.
func openCab(t testing.TB, path string, opts ...Option) *DB {
	t.Helper()
	db, err := openTest(append([]Option{WithCabinet(path)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// reopen closes db, opens the cabinet at path again (closed at the
// test's end) and returns it with the named session.
func reopen(t testing.TB, db *DB, path, name string) (*DB, *Session) {
	t.Helper()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openCab(t, path)
	t.Cleanup(func() { db.Close() })
	return db, mustSession(t, db, name)
}

// pgOptions are a PostgreSQL host's options in a test (as package
// postgres's Options give them to a caller).
type pgOptions struct {
	PollInterval time.Duration
	Poll         bool
	Retries      int
}

// pgSchema is a throwaway PostgreSQL server's URL and a fresh schema on
// it (the test skips without a server, unless the environment requires one).
func pgSchema(t testing.TB) (string, string) {
	t.Helper()
	url := pgtest.URL(t)
	return url, pgtest.Schema(t, url)
}

// openPG opens a host on the schema; the test closes it at its end.
func openPG(t testing.TB, url, schema string, o pgOptions, opts ...Option) *DB {
	t.Helper()
	shared := func(c *Config) {
		c.Shared = &config.Shared{Name: "PostgreSQL", Option: "postgres.Cabinet",
			Open: func(ctx context.Context) (cabinet.Shared, error) {
				return pgcabinet.Open(ctx, url, &pgcabinet.Options{Schema: schema})
			},
			PollInterval: o.PollInterval, Poll: o.Poll, Retries: o.Retries}
	}
	db, err := openTest(append([]Option{shared}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// wantCode fails unless err is a goldfish error with code whose message
// says each of contains.
func wantCode(t *testing.T, err error, code values.Code, contains ...string) *gqlstatus.Error {
	t.Helper()
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) || ge.Code != code {
		t.Fatalf("got %v, want GQLSTATUS %s", err, code)
	}
	for _, c := range contains {
		if !strings.Contains(ge.Error(), c) {
			t.Errorf("error %q does not say %q", ge.Error(), c)
		}
	}
	return ge
}

// isCode reports whether err carries the GQLSTATUS code.
func isCode(err error, code values.Code) bool {
	var ge *gqlstatus.Error
	return errors.As(err, &ge) && ge.Code == code
}

func (s *Session) ingestWith(ctx context.Context, text string, p map[string]any, o values.CommitOptions) (*values.CommitResult, error) {
	return s.Commit(ctx, text, p, MintIngest, o)
}

// absorb is Absorb with no agent, as the facade's Absorb does.
func (s *Session) absorb(ctx context.Context, slice string, policy values.AbsorbPolicy) (*values.AbsorbResult, error) {
	return s.Absorb(ctx, slice, policy, values.CommitOptions{})
}
