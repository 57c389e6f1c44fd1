// Package gqlstatus holds the ISO GQLSTATUS codes goldfish reports and the
// positioned Error type every layer returns. It imports nothing of ours, so
// the parser, the planner, the executor and the embedding API share one
// error shape without depending on each other.
package gqlstatus

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Code is a five-character GQLSTATUS: a two-character class (00 success,
// 01 warning, 02 no data, the rest exceptions) and a three-character
// subclass. Codes are only ever appended.
//
// Where ISO/IEC 39075 (GQL) defines a condition, its code is used. Where
// it defines none, goldfish uses an implementation-defined subclass: the
// standard (ISO/IEC 39075 §23.1, as ISO/IEC 9075 before it) reserves for
// implementations the subclasses that begin with a digit 5–9 or a letter
// I–Z; goldfish's all begin with Q, under the standard class that says
// what kind of condition it is (22 data exception, 42 syntax error or
// access rule violation, …). 40002 is ISO/IEC 9075's subclass of
// transaction rollback, the standard code for the condition, which GQL's
// table does not repeat; 25006 is ISO/IEC 9075's read-only transaction,
// the database's condition (25G03 stays the transaction's own READ ONLY).
//
// Every code goldfish can return is one of the constants below, each with
// its meaning as its doc comment; the README's table "GQLSTATUS codes"
// lists exactly these, with the same meanings (a test holds both, and
// that no code is written as a string anywhere else).
type Code string

// The codes goldfish raises (docs/design.md#errors).
const (
	// successful completion: a Recall's Shape
	Success Code = "00000"
	// successful completion, omitted result: a Commit, which returns no table, and the shell's transaction statements
	Omitted Code = "00001"
	// warning: an echo in a Δ, a fan-out clamp, an M cut, the token alarm, a Recall LIMIT above its seed budget (clamped)
	Warning Code = "01000"
	// no data: a Commit MATCH bound nothing; a Recall with cue skip
	NoData Code = "02000"
	// warning, no match (implementation-defined): a Recall's token matched no node; its first notice says what did not match (with "did you mean" when a name of the session is a small edit away), and the live tasks or the peaks the Shape shows are shown instead of a match
	NoMatch Code = "01Q01"

	// connection exception: a server (gqlsh --url, package client) that could not be reached, or whose answer to a read was lost; nothing changed; start it or check the URL, then try again
	ConnectionException Code = "08000"
	// connection exception, cabinet damaged (implementation-defined): a session or the cabinet file fails its checks; restore it from a backup
	Damaged Code = "08Q01"
	// connection exception, no valid token (implementation-defined): a server request without a bearer token, or with one the server's tokens file does not hold; make one with gqlsh token
	Unauthenticated Code = "08Q02"
	// connection exception, server shutting down (implementation-defined): a server request that arrived after shutdown began; send it again once the server is back
	ShuttingDown Code = "08Q03"
	// connection exception, cabinet unavailable (implementation-defined): the PostgreSQL server that keeps the sessions could not be reached, or went away before it answered (a Commit, a Recall, a session's first use, a save of what its agents read); nothing applied; try again once it is back (the server answers 503 with Retry-After)
	CabinetUnavailable Code = "08Q04"

	// data exception with no subclass of its own: an expression that cannot be evaluated on its values for another reason
	DataException Code = "22000"
	// numeric value out of range: an integer literal or parameter outside INTEGER, a float literal outside FLOAT, INTEGER overflow, a FLOAT that is not finite
	NumericOutOfRange Code = "22003"
	// invalid date, time, or datetime format: DATE or DATETIME text that is not ISO 8601
	InvalidDateTimeFormat Code = "22007"
	// datetime field overflow: a DATE or DATETIME outside the years 0000 to 9999
	DateTimeOverflow Code = "22008"
	// division by zero: / or % by 0 or 0.0
	DivisionByZero Code = "22012"
	// negative limit value: a negative LIMIT
	NegativeLimit Code = "22G02"
	// invalid value type: a value, variable or parameter of a type the place does not take (LIMIT of a STRING, a nick that is not a STRING, + on a STRING and an INTEGER, a MAP or Go value no property holds; a JSON body to the server that is not UTF-8)
	InvalidValueType Code = "22G03"
	// values not comparable: <, <=, > or >= between values of different types
	NotComparable Code = "22G04"
	// multiple assignments to a graph element property: the same property assigned twice in one Δ
	DuplicateAssignment Code = "22G0M"
	// reference value, referent deleted: a SET, REMOVE or DELETE of an element deleted earlier in the same Δ
	ReferentDeleted Code = "22G11"
	// Recall budget out of range (implementation-defined): M, k, L or F negative or above its ceiling, or T negative
	RecallBudget Code = "22Q01"
	// R budget exceeded (implementation-defined): a Δ that writes or binds more elements or bytes than R, or parameters over R's bytes
	CommitBudget Code = "22Q02"
	// work budget exceeded (implementation-defined): a Δ's MATCH examined more candidates than R allows
	WorkBudget Code = "22Q03"
	// evaluation budget exceeded (implementation-defined): an expression over its CEL cost limit: a WHERE predicate, a view, an action's precondition
	CostBudget Code = "22Q04"
	// value budget exceeded (implementation-defined): an expression that builds a value over its size bound, a list nested deeper than a property holds
	ValueBudget Code = "22Q05"
	// invalid option (implementation-defined): an unknown Recall option, shell setting or server request field, or a value it does not take (a new agent of a session that keeps the most agents it keeps, a request body that is not one JSON object)
	InvalidOption Code = "22Q06"
	// frame budget exceeded (implementation-defined): a server request or response over 4 MiB, or a JSON-RPC batch to MCP (one message is one call)
	FrameBudget Code = "22Q07"
	// version not kept (implementation-defined): a Recall at a version the session does not keep readable, or has not made yet; the message names the versions it keeps
	VersionNotKept Code = "22Q08"

	// invalid transaction state: COMMIT or ROLLBACK without START TRANSACTION, START TRANSACTION after a statement, a statement after COMMIT, text that ends inside a transaction
	InvalidTransactionState Code = "25000"
	// active GQL-transaction: START TRANSACTION inside a transaction
	ActiveTransaction Code = "25G01"
	// read-only GQL-transaction: a change inside START TRANSACTION READ ONLY
	ReadOnlyTransaction Code = "25G03"
	// read-only transaction, the cabinet open read-only: a Commit, Absorb, Purge, Drop, a setting saved or an agent forgotten on a database opened read-only (gqlsh --read-only); nothing applied
	ReadOnlyCabinet Code = "25006"

	// transaction rollback: a call its context stopped (the deadline passed, or the caller cancelled); a Δ applies nothing
	Rollback Code = "40000"
	// transaction rollback, serialization failure: another host committed to the session first each time the Δ was planned again on the new state and retried; nothing applied
	SerializationFailure Code = "40001"
	// transaction rollback, integrity constraint violation: a nick or element id already taken; nothing applied
	IntegrityViolation Code = "40002"
	// statement completion unknown: a Commit applied in memory but not written to the cabinet, so the session refuses Commits until reopened; or, on PostgreSQL, a Commit whose connection was lost on its way, which a Recall shows applied or not
	CompletionUnknown Code = "40003"
	// transaction rollback, internal failure (implementation-defined): goldfish failed for a reason with no code of its own, a fault to report with the statement; nothing applied
	Internal Code = "40Q01"
	// transaction rollback, action precondition false (implementation-defined): a CALL whose IF does not hold; nothing applied
	PreconditionFalse Code = "40Q02"

	// invalid syntax: text the grammar cannot read, or GQL outside the goldfish subset (the feature is named, with what to write instead)
	Syntax Code = "42001"
	// invalid reference: an unbound variable, an unknown function, action, session or shell parameter, a $parameter not given
	InvalidReference Code = "42002"
	// statement over a limit (implementation-defined): text over the byte limit, a Recall's token over the R byte budget (refused before it is parsed); nesting deeper than 66 levels, a list, map or argument list of more than 10,000 items, an expression or pattern over its size budget (100,000 characters as the CEL it compiles to, estimated from above; a property's or a SET's literal value is not held to it), a label expression of more than 1,000 labels and operators (each found by a pass over the text before it is parsed, `parser.Limits`, and refused at the item or token past the bound); too many parameters or variables
	TextLimit Code = "42Q01"
	// read-only session (implementation-defined): a Commit to the catalogue, or a drop of it
	ReadOnlySession Code = "42Q02"
	// invalid name (implementation-defined): a session, agent or shell parameter name outside its rules
	InvalidName Code = "42Q03"
	// wrong verb (implementation-defined): a Commit text sent to Recall, or a read-only MATCH sent to Commit
	WrongVerb Code = "42Q04"
	// file not accessible (implementation-defined): a file the shell cannot read or write (-f, :source, :output, :backup), or a directory where a file is wanted
	FileAccess Code = "42Q05"
	// name already registered (implementation-defined): CREATE VIEW or CREATE ACTION of a name the session has (CREATE OR REPLACE revises it)
	NameExists Code = "42Q06"
	// access rule violation, outside the token's scope (implementation-defined): a server request whose token may not read, or may not write, the session it names, or names an agent it is not bound to; a browser's cross-origin or rebound request
	AccessDenied Code = "42Q07"

	// edges still exist: DELETE of a node that still has live edges
	DeleteConnected Code = "G1001"
	// endpoint node is deleted: an INSERT of an edge to a node deleted earlier in the same Δ
	EndpointDeleted Code = "G1002"
)

// GQLStatus returns the code, so *Error is a Coded error.
func (e *Error) GQLStatus() Code { return e.Code }

// Coded is an error that knows its GQLSTATUS code. A layer that finds a
// condition but does not word it for the user (the planner's conversion of
// a value, say) returns one, so the layer that words it need not guess.
type Coded interface {
	error
	GQLStatus() Code
}

// CodeOf returns the code of the first error in err's chain that knows
// its code, or fallback when none does.
func CodeOf(err error, fallback Code) Code {
	var c Coded
	if errors.As(err, &c) {
		return c.GQLStatus()
	}
	return fallback
}

// Pos is a position in statement text: 1-based line and column (in runes),
// 0-based byte offset. The zero Pos means "no position".
type Pos struct {
	Line   int
	Col    int
	Offset int
}

// Valid reports whether p names a place in the text.
func (p Pos) Valid() bool { return p.Line > 0 }

func (p Pos) String() string {
	if !p.Valid() {
		return "-"
	}
	return fmt.Sprintf("line %d, column %d", p.Line, p.Col)
}

// Error is an error a user can cause: a GQLSTATUS code, a message that says
// what went wrong, an optional hint that says what to do, and for text the
// position and the source line it points into.
type Error struct {
	Code Code
	Msg  string
	Hint string
	Pos  Pos
	// Line is the source line Pos points into, kept for the caret display.
	Line string
	// LineCol is the column of Line's first rune in its source line when
	// Line holds only the end of a long line (a shell keeps a bounded
	// part of what it read); 0 means Line starts the line.
	LineCol int
	// Stmt is the 1-based number of the statement that failed inside a Δ,
	// 0 when the error is not tied to one statement.
	Stmt int
	// Cause is the error underneath, when there is one (the context's
	// error of a call cut short): errors.Is and errors.As see it through
	// Unwrap. The message already says what it means for the caller.
	Cause error
}

// Unwrap returns the cause, so errors.Is(err, context.Canceled) holds for
// a call its context stopped.
func (e *Error) Unwrap() error { return e.Cause }

// Errorf builds an Error without a position.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// At builds an Error at a position in text.
func At(code Code, pos Pos, text string, format string, args ...any) *Error {
	e := &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
	e.Locate(pos, text)
	return e
}

// Locate sets the position and copies the source line it points into.
func (e *Error) Locate(pos Pos, text string) *Error {
	e.Pos = pos
	e.Line, e.LineCol = SourceLine(text, pos.Line), 0
	return e
}

// Interrupted is the error of a call that its context stopped before it
// finished: what names the call ("Recall", "Δ"). Its code is 40000
// (transaction rollback): the call's work is abandoned whole, and for a Δ
// nothing applies. The message says whether the deadline passed or the
// caller cancelled, and the context's error is the cause, so
// errors.Is(err, context.DeadlineExceeded) or context.Canceled holds.
func Interrupted(ctx context.Context, what string) *Error {
	err := ctx.Err()
	if err == nil {
		err = context.Canceled
	}
	e := &Error{Code: Rollback, Cause: err}
	if cause := context.Cause(ctx); cause != nil && cause != err {
		e.Cause = fmt.Errorf("%w: %w", err, cause)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		e.Msg = what + " stopped: the call's deadline passed before it finished"
		e.Hint = "allow the call more time, or narrow the MATCH so it examines fewer nodes"
	} else {
		e.Msg = what + " stopped: the call was cancelled before it finished"
	}
	if e.Cause != err {
		e.Msg += " (" + context.Cause(ctx).Error() + ")"
	}
	return e
}

// WithHint returns e with its hint set.
func (e *Error) WithHint(hint string) *Error {
	e.Hint = hint
	return e
}

// Error renders "GQLSTATUS 42001: message (line 1, column 5)". The hint and
// the caret lines are separate (see Caret) so one-line logs stay one line.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("GQLSTATUS ")
	b.WriteString(string(e.Code))
	b.WriteString(": ")
	if e.Stmt > 0 {
		fmt.Fprintf(&b, "statement %d: ", e.Stmt)
	}
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	if e.Pos.Valid() {
		fmt.Fprintf(&b, " (%s)", e.Pos)
	}
	return b.String()
}

// SourceLine returns line n (1-based) of text without its newline.
func SourceLine(text string, n int) string {
	if n < 1 {
		return ""
	}
	for i := 1; i < n; i++ {
		j := strings.IndexByte(text, '\n')
		if j < 0 {
			return ""
		}
		text = text[j+1:]
	}
	if j := strings.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	return strings.TrimRight(text, "\r")
}

// Notice is a warning or a no-data condition attached to a successful result.
type Notice struct {
	Code Code
	Msg  string
	Pos  Pos
}

func (n Notice) String() string {
	if n.Pos.Valid() {
		return fmt.Sprintf("%s: %s (%s)", n.Code, n.Msg, n.Pos)
	}
	return fmt.Sprintf("%s: %s", n.Code, n.Msg)
}
