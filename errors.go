package goldfish

import (
	"context"
	"errors"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/internal/engine"
	"github.com/goldfish-gql/goldfish/values"
)

// Error is an error a caller can cause: a GQLSTATUS code, a message, a hint
// and, for text, a position. Use errors.As to read it.
type Error = values.Error

// Code is a GQLSTATUS code.
type Code = values.Code

// Notice is a warning or no-data condition on a successful result.
type Notice = values.Notice

// The GQLSTATUS codes goldfish raises: gqlstatus documents each, and the
// README's table "GQLSTATUS codes" lists them with their meanings.
const (
	CodeSuccess                 = gqlstatus.Success
	CodeOmitted                 = gqlstatus.Omitted
	CodeWarning                 = gqlstatus.Warning
	CodeNoData                  = gqlstatus.NoData
	CodeNoMatch                 = gqlstatus.NoMatch
	CodeDamaged                 = gqlstatus.Damaged
	CodeCabinetUnavailable      = gqlstatus.CabinetUnavailable
	CodeDataException           = gqlstatus.DataException
	CodeNumericOutOfRange       = gqlstatus.NumericOutOfRange
	CodeInvalidDateTimeFormat   = gqlstatus.InvalidDateTimeFormat
	CodeDateTimeOverflow        = gqlstatus.DateTimeOverflow
	CodeDivisionByZero          = gqlstatus.DivisionByZero
	CodeNegativeLimit           = gqlstatus.NegativeLimit
	CodeInvalidValueType        = gqlstatus.InvalidValueType
	CodeNotComparable           = gqlstatus.NotComparable
	CodeDuplicateAssignment     = gqlstatus.DuplicateAssignment
	CodeReferentDeleted         = gqlstatus.ReferentDeleted
	CodeRecallBudget            = gqlstatus.RecallBudget
	CodeCommitBudget            = gqlstatus.CommitBudget
	CodeWorkBudget              = gqlstatus.WorkBudget
	CodeCostBudget              = gqlstatus.CostBudget
	CodeValueBudget             = gqlstatus.ValueBudget
	CodeInvalidOption           = gqlstatus.InvalidOption
	CodeInvalidTransactionState = gqlstatus.InvalidTransactionState
	CodeActiveTransaction       = gqlstatus.ActiveTransaction
	CodeRollback                = gqlstatus.Rollback
	CodeSerializationFailure    = gqlstatus.SerializationFailure
	CodeIntegrityViolation      = gqlstatus.IntegrityViolation
	CodeCompletionUnknown       = gqlstatus.CompletionUnknown
	CodeInternal                = gqlstatus.Internal
	CodeSyntax                  = gqlstatus.Syntax
	CodeInvalidReference        = gqlstatus.InvalidReference
	CodeTextLimit               = gqlstatus.TextLimit
	CodeReadOnlySession         = gqlstatus.ReadOnlySession
	CodeReadOnlyCabinet         = gqlstatus.ReadOnlyCabinet
	CodeInvalidName             = gqlstatus.InvalidName
	CodeWrongVerb               = gqlstatus.WrongVerb
	CodeFileAccess              = gqlstatus.FileAccess
	CodeDeleteConnected         = gqlstatus.DeleteConnected
	CodeEndpointDeleted         = gqlstatus.EndpointDeleted
)

// The errors of the database and its cabinet; match with errors.Is.
var (
	// ErrClosed is returned by every call on a database, or on a session
	// of it, after Close.
	ErrClosed = engine.ErrClosed
	// ErrInUse: another process has the cabinet file open.
	ErrInUse = engine.ErrInUse
	// ErrDamaged: the cabinet file, or a session in it, fails its checks.
	ErrDamaged = engine.ErrDamaged
	// ErrNotDurable: a Commit applied in memory but could not be written to
	// the cabinet; the session refuses further Commits.
	ErrNotDurable = engine.ErrNotDurable
	// ErrDropped: the session was dropped; ask the DB for it again.
	ErrDropped = engine.ErrDropped
	// ErrReadOnly: a write to a database opened WithReadOnly; errors that
	// carry it also carry GQLSTATUS 25006.
	ErrReadOnly = engine.ErrReadOnly
	// ErrCabinetUnavailable: the cabinet's server (PostgreSQL) could not
	// be reached; nothing was applied, and the call may be made again.
	// Errors that carry it also carry GQLSTATUS 08Q04.
	ErrCabinetUnavailable = engine.ErrCabinetUnavailable
)

// MaxSessionName is the longest session name accepted.
const MaxSessionName = values.MaxSessionName

// CheckText makes the checks a Recall or a Commit makes of a GQL text
// before the parser reads it: its bytes (at most 1 MiB), its UTF-8, and
// the parser's bounds on a list's items, an expression's size, a label
// expression's terms and the nesting. It returns the error the Recall or
// Commit would return for them (42Q01, 42001), or nil. It allocates
// nothing for a text it takes, so a server can refuse such a text before
// it decodes the rest of a request.
func CheckText(text string) error { return engine.CheckText(text) }

// ValidSessionName checks a session name: 1 to 64 letters, digits, '_',
// '-' or '.', not starting with '.' or '-'.
func ValidSessionName(name string) error { return values.ValidSessionName(name) }

// MaxAgentName is the longest agent name accepted.
const MaxAgentName = values.MaxAgentName

// MaxAgents is the most agents one session keeps: a new agent's first
// Recall when the session keeps as many evicts the agent seen least
// recently (ForgetAgent removes one). It bounds the memory of the record
// and the bytes each Commit writes for it.
const MaxAgents = values.MaxAgents

// ValidAgentName checks an agent name: 1 to 64 letters, digits, '_', '-'
// or '.', not starting with '-' or '.' (the rules of session names).
func ValidAgentName(name string) error { return values.ValidAgentName(name) }

// CatalogName is the session that lists the others (docs/design.md#sessions-slices-and-model-snap): one node
//
//	(:SESSION {name: "mission", version: 12, nodes: 40, edges: 55, recycled: 3,
//	           kinds: ["NOTE:4", "TSK:36"], last_commit: DATETIME "…"})
//
// per session, kept current with every Commit, Purge and Drop (queued, and
// applied when the catalogue is read, so its version counts the reads
// that found changes, not the Commits). Read it with Recall like any
// other session (MATCH (s:SESSION) LIMIT 4); it refuses Commit. It is
// derived, not persisted: Open builds it from the metadata the cabinet
// writes with every log entry, so listing sessions hydrates none. Its
// version counts its own changes since Open. DB.Sessions does not list
// it.
const CatalogName = values.CatalogName

// SessionLabel is the label of the catalogue's nodes.
const SessionLabel = values.SessionLabel

// StatusOf returns err as a GQLSTATUS error, so everything a caller
// reports carries a code: an *Error as it is; the database's conditions
// (its sentinel errors) with their codes, the message kept (ErrDamaged
// 58Q01, ErrNotDurable 40003, ErrDropped 42002, a cancelled or expired
// context 40000, the cabinet unreachable 08Q04 with what to do); anything
// else a failure nothing classified (40Q01), never a rolled-back
// transaction it may not have been. The shell and the server report
// errors through it.
func StatusOf(err error) *Error {
	const unreachableHint = "check that the cabinet's PostgreSQL server is running and reachable, then try again (goldfish reconnects by itself)"
	var ge *Error
	if errors.As(err, &ge) {
		if ge.Code == gqlstatus.Internal && errors.Is(err, ErrCabinetUnavailable) {
			c := *ge
			c.Code = gqlstatus.CabinetUnavailable
			if c.Hint == "" {
				c.Hint = unreachableHint
			}
			return &c
		}
		return ge
	}
	code, hint := gqlstatus.Internal, ""
	switch {
	case errors.Is(err, ErrCabinetUnavailable):
		code, hint = gqlstatus.CabinetUnavailable, unreachableHint
	case errors.Is(err, ErrDamaged):
		code = gqlstatus.Damaged
	case errors.Is(err, ErrNotDurable):
		code = gqlstatus.CompletionUnknown
	case errors.Is(err, ErrDropped):
		code = gqlstatus.InvalidReference
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		code = gqlstatus.Rollback
	}
	return &Error{Code: code, Msg: err.Error(), Hint: hint, Cause: err}
}
