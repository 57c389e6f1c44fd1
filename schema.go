package goldfish

import (
	"context"

	"github.com/goldfish-gql/goldfish/values"
)

// KindSchema is what the nodes of one kind hold, read from them (a
// session has no schema); NameCount is a name and how many times it was
// seen.
type (
	KindSchema = values.KindSchema
	NameCount  = values.NameCount
)

// Kinds reads the kinds of the session's newest version, sorted by kind,
// or only kind when it is not "" (with no nodes when none has it). It
// scans the nodes of each kind and their edges.
func (s *Session) Kinds(ctx context.Context, kind string) ([]KindSchema, error) {
	return s.e.Kinds(ctx, kind)
}
