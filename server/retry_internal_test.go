package server

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// TestRetryAfter: every answer a client should send again later is 503
// with Retry-After: the cabinet unreachable (08Q04), shutting down
// (08Q03), the deadline (40000), and a Commit whose connection to
// PostgreSQL was lost on its way (40003: a Recall shows whether it
// applied; it was 500 without Retry-After). A session that refuses
// Commits since one could not be written (40003, ErrNotDurable) stays so
// until the database is reopened: 500, no Retry-After. Other answers
// carry none.
func TestRetryAfter(t *testing.T) {
	s := &Server{opts: Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	lost := gqlstatus.Errorf(gqlstatus.CompletionUnknown, "committing: the connection to the server was lost while the Commit was on its way").
		WithHint("Recall the session to see whether it applied before committing it again")
	for _, c := range []struct {
		name   string
		err    error
		status int
		retry  string
	}{
		{"the cabinet unreachable", fmt.Errorf("%w: dial", goldfish.ErrCabinetUnavailable), 503, "2"},
		{"shutting down", errShuttingDown(), 503, "2"},
		{"the deadline", gqlstatus.Errorf(gqlstatus.Rollback, "Recall stopped"), 503, "2"},
		{"a Commit's connection lost", lost, 503, "2"},
		{"a session that refuses Commits", fmt.Errorf("session %q refuses Commits: %w", "s", goldfish.ErrNotDurable), 500, ""},
		{"a coded one that refuses Commits", &gqlstatus.Error{Code: gqlstatus.CompletionUnknown, Msg: "m", Cause: goldfish.ErrNotDurable}, 500, ""},
		{"a lost race", gqlstatus.Errorf(gqlstatus.SerializationFailure, "beaten"), 409, ""},
		{"a fault", gqlstatus.Errorf(gqlstatus.Internal, "bug"), 500, ""},
		{"a mistake", gqlstatus.Errorf(gqlstatus.Syntax, "no"), 400, ""},
	} {
		rec := httptest.NewRecorder()
		s.writeError(rec, httptest.NewRequest("POST", "/v1/sessions/s/commit", nil), c.err)
		if rec.Code != c.status || rec.Header().Get("Retry-After") != c.retry {
			t.Errorf("%s: %d, Retry-After %q; want %d, %q", c.name, rec.Code, rec.Header().Get("Retry-After"), c.status, c.retry)
		}
	}
	if got := httpStatus(lost); got != http.StatusServiceUnavailable {
		t.Errorf("40003: %d", got)
	}
}
