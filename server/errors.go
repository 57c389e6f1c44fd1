package server

import (
	"errors"
	"net/http"

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

// retryAfter is the Retry-After of every 503: the request may be sent
// again in that many seconds (goldfish reconnects to the cabinet by
// itself on the next call; a server shutting down is replaced by then,
// or not, and a client tries another).
const retryAfter = "2"

// httpStatus says whose an error is (wire.HTTPStatus), but for a Commit
// to a session that refuses Commits since one could not be written
// (40003 with ErrNotDurable): that stays so until the database is
// reopened, the server's fault, so 500 and no Retry-After; a 40003 whose
// connection was lost is 503.
func httpStatus(ge *gqlstatus.Error) int {
	if ge.Code == gqlstatus.CompletionUnknown && errors.Is(ge, goldfish.ErrNotDurable) {
		return http.StatusInternalServerError
	}
	return wire.HTTPStatus(ge)
}

// errUnauthenticated and the others are the server's own refusals.
func errUnauthenticated(why string) *gqlstatus.Error {
	return gqlstatus.Errorf(gqlstatus.Unauthenticated, "%s", why).
		WithHint(`send "Authorization: Bearer TOKEN" with a token the server's tokens file holds (gqlsh token makes one)`)
}

// withMCPTokenHint is a refused token's error as /mcp answers it: where
// an MCP client's configuration takes the token, and that no OAuth flow
// will give one.
func withMCPTokenHint(err error) error {
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) || ge.Code != gqlstatus.Unauthenticated {
		return err
	}
	c := *ge
	c.Hint = `this server takes a bearer token, not OAuth: make one with gqlsh token and send "Authorization: Bearer TOKEN" (in an MCP client's configuration, the headers of the server's entry)`
	return &c
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
