package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/postgres"
	"github.com/goldfish-gql/goldfish/store/cabinet/postgres/pgtest"
)

// TestConformancePostgres runs the whole suite with every database in
// PostgreSQL (a schema per database): "reset" and "reset cabinet" alike
// open one, "reopen" hydrates from it.
func TestConformancePostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("the suite on PostgreSQL takes several seconds")
	}
	url := pgtest.URL(t)
	storage := func() ([]goldfish.Option, func(), error) {
		schema := pgtest.Schema(t, url)
		return []goldfish.Option{postgres.Cabinet(url, postgres.Options{Schema: schema, PollInterval: time.Minute})},
			func() { _ = pgtest.DropSchema(url, schema) }, nil
	}
	rep, err := RunOn(context.Background(), Suite(), storage)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Failures {
		t.Error(f)
	}
	if rep.Passed < 65 {
		t.Errorf("only %d cases passed", rep.Passed)
	}
	t.Logf("%d cases passed on PostgreSQL", rep.Passed)
}
