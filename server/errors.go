package server

import (
	"context"
	"errors"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/wire"
)

// statusOf gives err its GQLSTATUS, as the shell does: the database's
// sentinel conditions get their codes, and an error without one is a
// failure nothing classified (40Q01), its message kept.
func statusOf(err error) *gqlstatus.Error {
	const unreachableHint = "check that the cabinet's PostgreSQL server is running and reachable, then try again (goldfish reconnects by itself)"
	var ge *gqlstatus.Error
	if errors.As(err, &ge) {
		if ge.Code == gqlstatus.Internal && cabinetUnreachable(err) {
			c := *ge
			c.Code = gqlstatus.CabinetUnavailable
			if c.Hint == "" {
				c.Hint = unreachableHint
			}
			return &c
		}
		return ge
	}
	code := gqlstatus.Internal
	hint := ""
	switch {
	case cabinetUnreachable(err):
		code, hint = gqlstatus.CabinetUnavailable, unreachableHint
	case errors.Is(err, goldfish.ErrClosed):
		code, hint = gqlstatus.ShuttingDown, "the server is shutting down; send the request again once it is back"
	case errors.Is(err, goldfish.ErrDamaged):
		code = gqlstatus.Damaged
	case errors.Is(err, goldfish.ErrNotDurable):
		code = gqlstatus.CompletionUnknown
	case errors.Is(err, goldfish.ErrDropped):
		code = gqlstatus.InvalidReference
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		code = gqlstatus.Rollback
	}
	return &gqlstatus.Error{Code: code, Msg: err.Error(), Hint: hint, Cause: err}
}

// cabinetUnreachable reports whether err is the cabinet being
// unreachable.
func cabinetUnreachable(err error) bool {
	var ge *gqlstatus.Error
	if errors.As(err, &ge) && ge.Code == gqlstatus.CabinetUnavailable {
		return true
	}
	return errors.Is(err, goldfish.ErrCabinetUnavailable)
}

// retryAfter is the Retry-After of an answer that the cabinet was
// unreachable: goldfish reconnects by itself on the next call.
const retryAfter = "2"

// httpStatus says whose an error is (wire.HTTPStatus).
func httpStatus(ge *gqlstatus.Error) int { return wire.HTTPStatus(ge) }

// errUnauthenticated and the others are the server's own refusals.
func errUnauthenticated(why string) *gqlstatus.Error {
	return gqlstatus.Errorf(gqlstatus.Unauthenticated, "%s", why).
		WithHint(`send "Authorization: Bearer TOKEN" with a token the server's tokens file holds (gqlsh token makes one)`)
}

func errAccess(verb, session string) *gqlstatus.Error {
	return gqlstatus.Errorf(gqlstatus.AccessDenied, "this token may not %s session %q", verb, session).
		WithHint("use a token whose scope names the session (gqlsh token --" + verb + " GLOB)")
}

func errFrame(what string) *gqlstatus.Error {
	return gqlstatus.Errorf(gqlstatus.FrameBudget, "the %s is over the 4 MiB frame budget", what).
		WithHint("send less per request: narrow the token or lower M for a Recall, split the Δ for a Commit")
}

func errShuttingDown() *gqlstatus.Error {
	return gqlstatus.Errorf(gqlstatus.ShuttingDown, "the server is shutting down and takes no new requests").
		WithHint("send the request again once the server is back")
}
