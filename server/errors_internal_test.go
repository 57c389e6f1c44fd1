package server

import (
	"net/http"
	"testing"

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
