// Package postgres keeps a goldfish database in PostgreSQL, shared by
// every process opened on the same database and schema, on any machine:
//
//	db, err := goldfish.Open(postgres.Cabinet(url, postgres.Options{}))
//
// Each host holds the sessions it uses in memory, as with a cabinet file,
// and keeps them exact: a Commit first replays what other hosts committed
// since this host's version, then claims the next version in the table
// before publishing it; a claim another host beat applies nothing, and
// the Δ is planned again on the new state (a bounded number of times,
// then 40001). Other hosts' Commits arrive by LISTEN/NOTIFY where the
// server has it, else by polling every PollInterval; a Recall whose
// knowledge is older than that catches up first. Versions are the log's,
// on every host.
//
// The option is this package's, not the root package's, so a program
// that keeps its sessions in a file or in memory links no PostgreSQL
// driver.
package postgres

import (
	"context"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/internal/config"
	"github.com/goldfish-gql/goldfish/store/cabinet"
	pgcabinet "github.com/goldfish-gql/goldfish/store/cabinet/postgres"
)

// Options configure a database kept in PostgreSQL.
type Options struct {
	// Schema is the schema that holds the cabinet's tables (default
	// "goldfish"); databases in different schemas are independent.
	Schema string
	// PollInterval bounds how old a host's knowledge of the other hosts'
	// Commits may be when it serves a Recall, and is how often it reads
	// every session's head when it polls (default 1s).
	PollInterval time.Duration
	// Poll follows the other hosts by polling even where the server has
	// LISTEN/NOTIFY.
	Poll bool
	// Retries is how often a Commit that another host beat to its
	// version is planned again and retried before it fails with 40001
	// (default 10).
	Retries int
}

// Cabinet keeps the sessions in the PostgreSQL database at url (a
// postgres:// URL or a key=value connection string), in the tables of
// one schema that Open creates or migrates, shared with every other
// process opened on the same database and schema. It excludes
// goldfish.WithCabinet and goldfish.WithReadOnly.
func Cabinet(url string, o Options) goldfish.Option {
	return func(c *config.Config) {
		c.Shared = &config.Shared{Name: "PostgreSQL", Option: "postgres.Cabinet",
			Open: func(ctx context.Context) (cabinet.Shared, error) {
				return pgcabinet.Open(ctx, url, &pgcabinet.Options{Schema: o.Schema})
			},
			PollInterval: o.PollInterval, Poll: o.Poll, Retries: o.Retries}
	}
}

// DropSchema removes a schema and every table in it (a database's whole
// cabinet): for tests and throwaway databases.
func DropSchema(ctx context.Context, url, schema string) error {
	return pgcabinet.DropSchema(ctx, url, schema)
}
