package goldfish_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/postgres"
	"github.com/goldfish-gql/goldfish/store/cabinet/postgres/pgtest"
)

// The root's test helpers: a database on a cabinet file, a session and a
// Commit that fail the test on an error.

// openCab opens a database on the cabinet file at path.
func openCab(t testing.TB, path string, opts ...goldfish.Option) *goldfish.DB {
	t.Helper()
	db, err := goldfish.Open(append([]goldfish.Option{goldfish.WithCabinet(path)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// mustCommit commits text to s.
func mustCommit(t testing.TB, s *goldfish.Session, text string, params map[string]any) *goldfish.CommitResult {
	t.Helper()
	res, err := s.Commit(context.Background(), text, params)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return res
}

// mustSession opens db's session name.
func mustSession(t testing.TB, db *goldfish.DB, name string) *goldfish.Session {
	t.Helper()
	s, err := db.Session(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// pgSchema gives a test a PostgreSQL server and a schema of its own.
func pgSchema(t testing.TB) (string, string) {
	t.Helper()
	url := pgtest.URL(t)
	return url, pgtest.Schema(t, url)
}

// openPG opens a host on the schema; the test closes it at its end.
func openPG(t testing.TB, url, schema string, o postgres.Options, opts ...goldfish.Option) *goldfish.DB {
	t.Helper()
	o.Schema = schema
	db, err := goldfish.Open(append([]goldfish.Option{postgres.Cabinet(url, o)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// until waits up to 20 s for cond to hold.
func until(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the condition still does not hold after 20 s")
		}
	}
}

// wantCode fails unless err is a goldfish error with code whose message
// says each of contains.
func wantCode(t *testing.T, err error, code goldfish.Code, contains ...string) *goldfish.Error {
	t.Helper()
	var ge *goldfish.Error
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

// isCode reports whether err is a goldfish error with code.
func isCode(err error, code goldfish.Code) bool {
	var ge *goldfish.Error
	return errors.As(err, &ge) && ge.Code == code
}
