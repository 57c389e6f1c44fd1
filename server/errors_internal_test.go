package server

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// TestConflictStatus: a Commit that other hosts beat to its version
// more often than its retries allow (40001) is a conflict with the
// session's state, as a nick taken is: 409, so a client sends it again.
func TestConflictStatus(t *testing.T) {
	for code, want := range map[gqlstatus.Code]int{
		gqlstatus.SerializationFailure: http.StatusConflict,
		gqlstatus.IntegrityViolation:   http.StatusConflict,
		gqlstatus.Syntax:               http.StatusBadRequest,
	} {
		if got := httpStatus(&gqlstatus.Error{Code: code}); got != want {
			t.Errorf("%s: %d, want %d", code, got, want)
		}
	}
}

// TestCabinetUnreachableStatus: the cabinet being unreachable is 503,
// whether the database gave it its code (08Q04) or returned the
// cabinet's error without one (a first hydration, a save of the agents'
// record): then the server gives it 08Q04. Other failures keep theirs.
func TestCabinetUnreachableStatus(t *testing.T) {
	sentinel := goldfish.ErrCabinetUnavailable
	cases := []struct {
		err  error
		code gqlstatus.Code
	}{
		{gqlstatus.Errorf(gqlstatus.CabinetUnavailable, "reading what other hosts committed").WithHint("h"), gqlstatus.CabinetUnavailable},
		{fmt.Errorf("%w: postgres://h/db: dial error", sentinel), gqlstatus.CabinetUnavailable},
		{fmt.Errorf("saving what the agents of session %q have read: %w", "a", fmt.Errorf("%w: x", sentinel)), gqlstatus.CabinetUnavailable},
		{&gqlstatus.Error{Code: gqlstatus.Internal, Msg: "m", Cause: fmt.Errorf("%w: x", sentinel)}, gqlstatus.CabinetUnavailable},
		{errors.Join(errors.New("other"), sentinel), gqlstatus.CabinetUnavailable},
		{errors.New("a message that mentions " + sentinel.Error()), gqlstatus.Internal},
		{&gqlstatus.Error{Code: gqlstatus.CompletionUnknown, Msg: "m", Cause: sentinel}, gqlstatus.CompletionUnknown},
	}
	for _, c := range cases {
		ge := statusOf(c.err)
		if ge.Code != c.code {
			t.Errorf("%v: %s, want %s", c.err, ge.Code, c.code)
		}
		if c.code == gqlstatus.CabinetUnavailable && (httpStatus(ge) != http.StatusServiceUnavailable || ge.Hint == "") {
			t.Errorf("%v: status %d, hint %q", c.err, httpStatus(ge), ge.Hint)
		}
	}
}
