package postgres_test

import (
	"context"
	"testing"

	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/store/cabinet/cabinettest"
	"github.com/goldfish-gql/goldfish/store/cabinet/postgres"
	"github.com/goldfish-gql/goldfish/store/cabinet/postgres/pgtest"
)

// open opens a cabinet in a schema of the test's own.
func open(t *testing.T) (string, string, func() (*postgres.Cabinet, error)) {
	url := pgtest.URL(t)
	schema := pgtest.Schema(t, url)
	return url, schema, func() (*postgres.Cabinet, error) {
		return postgres.Open(context.Background(), url, &postgres.Options{Schema: schema, ChunkBytes: 64 << 10})
	}
}

// TestBackend runs the suite every backend runs on PostgreSQL.
func TestBackend(t *testing.T) {
	cabinettest.Run(t, func(t *testing.T) cabinettest.Opener {
		_, _, o := open(t)
		return func() (cabinet.Cabinet, error) { return o() }
	})
}
