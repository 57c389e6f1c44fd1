package repl

import (
	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// statusOf returns err as a GQLSTATUS error (goldfish.StatusOf), so
// everything the shell reports carries a code.
func statusOf(err error) *gqlstatus.Error { return goldfish.StatusOf(err) }
