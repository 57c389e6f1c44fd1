package wire

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/values"
)

// A failed call has two JSON forms, both published, so neither can take
// the other's shape. Error is the server's answer to a failed request,
// documented in the README for HTTP clients: one object per answer, its
// position always present (0: none) and the caret lines rendered by the
// server, which holds the text. ShellError is the line `gqlsh --format
// json` prints for a failed statement, one line among the result lines
// of a script, each keyed by "status" like a success line, and with the
// file a statement was read from; conformance files pin its bytes. Both
// are built from the *gqlstatus.Error here, so a field the error gains
// reaches both.

// Error is the answer to a request that failed.
type Error struct {
	GQLStatus string `json:"gqlstatus"`
	Message   string `json:"message"`
	Hint      string `json:"hint,omitempty"`
	// Statement is the 1-based statement of the text the error is in,
	// when the text holds several.
	Statement int `json:"statement,omitempty"`
	// Line and Column point into the request's text (0: no position).
	Line   int `json:"line"`
	Column int `json:"column"`
	// Caret is the source line and a caret under the column, as the
	// shell prints them.
	Caret string `json:"caret,omitempty"`
}

// ErrorOf is the server's answer for ge.
func ErrorOf(ge *gqlstatus.Error) Error {
	return Error{GQLStatus: string(ge.Code), Message: ge.Msg, Hint: ge.Hint, Statement: ge.Stmt,
		Line: ge.Pos.Line, Column: ge.Pos.Col, Caret: ge.Caret()}
}

// ShellError is the line `gqlsh --format json` prints for a failed
// statement.
type ShellError struct {
	Status    string `json:"status"`
	Error     string `json:"error"`
	Hint      string `json:"hint,omitempty"`
	Statement int    `json:"statement,omitempty"`
	// File is the file the statement was read from (-f, :source), ""
	// for standard input and -c.
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// ShellErrorOf is the shell's line for ge, read from file ("" for none).
func ShellErrorOf(ge *gqlstatus.Error, file string) ShellError {
	return ShellError{Status: string(ge.Code), Error: ge.Msg, Hint: ge.Hint, Statement: ge.Stmt, File: file,
		Line: ge.Pos.Line, Column: ge.Pos.Col}
}

// HTTPStatus says whose an error is. Everything the caller can correct
// by changing the request is 400; 401 is no valid token and 403 a token
// without the session or the verb; 413 a frame over MaxFrame; a state of
// the session the request ran into (a nick taken, a name registered, a
// precondition false, the session dropped under it, a Commit that lost
// the race for its version to other hosts more often than its retries
// allow) is 409; the server's own faults are 500; a request the server
// could not finish in time or at all now (shutting down, over the
// deadline, the cabinet unreachable, a Commit whose connection to the
// cabinet was lost on its way: 40003, which a Recall shows applied or
// not before it is sent again) is 503, which the server answers with
// Retry-After.
func HTTPStatus(ge *gqlstatus.Error) int {
	switch ge.Code {
	case gqlstatus.Unauthenticated:
		return http.StatusUnauthorized
	case gqlstatus.AccessDenied:
		return http.StatusForbidden
	case gqlstatus.FrameBudget:
		return http.StatusRequestEntityTooLarge
	case gqlstatus.ShuttingDown, gqlstatus.Rollback, gqlstatus.CabinetUnavailable, gqlstatus.CompletionUnknown:
		return http.StatusServiceUnavailable
	case gqlstatus.IntegrityViolation, gqlstatus.NameExists, gqlstatus.PreconditionFalse, gqlstatus.SerializationFailure:
		return http.StatusConflict
	case gqlstatus.InvalidReference:
		if errors.Is(ge, values.ErrDropped) {
			return http.StatusConflict
		}
	case gqlstatus.Damaged, gqlstatus.Internal:
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

// ReadError reads the body of an answer that is not 200 OK: ok is false
// when it is not the server's error object (something else answered at
// that address).
func ReadError(body []byte) (e Error, ok bool) {
	if err := json.Unmarshal(body, &e); err != nil || e.GQLStatus == "" {
		return Error{}, false
	}
	return e, true
}

// GQLError is the error e describes, as the server answered it with HTTP
// status: its code, message, hint, statement and position (the source
// line is the caller's to set: it holds the text it sent). A session
// dropped under the request (409, 42002) has values.ErrDropped as its
// cause, so errors.Is finds it on the client's side as on the server's.
func (e Error) GQLError(status int) *gqlstatus.Error {
	ge := &gqlstatus.Error{Code: gqlstatus.Code(e.GQLStatus), Msg: e.Message, Hint: e.Hint, Stmt: e.Statement,
		Pos: gqlstatus.Pos{Line: e.Line, Col: e.Column}}
	if status == http.StatusConflict && ge.Code == gqlstatus.InvalidReference {
		ge.Cause = values.ErrDropped
	}
	return ge
}
