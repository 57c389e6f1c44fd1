package server

import (
	"errors"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/wire"
)

// statusOf gives err its GQLSTATUS, as the shell does (goldfish.StatusOf),
// but for a database closed under a request: the server is shutting down.
func statusOf(err error) *gqlstatus.Error {
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) && errors.Is(err, goldfish.ErrClosed) {
		return &gqlstatus.Error{Code: gqlstatus.ShuttingDown, Msg: err.Error(), Cause: err,
			Hint: "the server is shutting down; send the request again once it is back"}
	}
	return goldfish.StatusOf(err)
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
