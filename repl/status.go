package repl

import (
	"context"
	"errors"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// statusOf returns err as a GQLSTATUS error, so everything the shell
// reports carries a code. The engine's conditions of the database rather
// than of a statement are sentinel errors (goldfish.ErrDamaged, …): each
// gets its code here, the message kept; anything else without a code is
// a failure the engine did not classify, reported as such (40Q01) with its
// message, never as a rolled-back transaction it may not have been.
func statusOf(err error) *gqlstatus.Error {
	var ge *gqlstatus.Error
	if errors.As(err, &ge) {
		return ge
	}
	code := gqlstatus.Internal
	switch {
	case errors.Is(err, goldfish.ErrDamaged):
		code = gqlstatus.Damaged
	case errors.Is(err, goldfish.ErrNotDurable):
		code = gqlstatus.CompletionUnknown
	case errors.Is(err, goldfish.ErrDropped):
		code = gqlstatus.InvalidReference
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		code = gqlstatus.Rollback
	}
	return &gqlstatus.Error{Code: code, Msg: err.Error(), Cause: err}
}
