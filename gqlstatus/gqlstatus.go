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

// Code is a five-character GQLSTATUS. Codes are only ever appended.
type Code string

// The codes goldfish raises (SPEC §11).
const (
	Success             Code = "00000" // success
	Omitted             Code = "00001" // success, result omitted
	Warning             Code = "01000" // warning: echo, fan-out clamp, token alarm
	NoData              Code = "02000" // no data: a MATCH bound nothing, a Recall skipped
	NegativeLimit       Code = "22G02" // negative LIMIT
	InvalidValueType    Code = "22G03" // invalid value type, budget over its ceiling
	DuplicateAssignment Code = "22G0M" // the same property assigned twice in one Δ
	Rollback            Code = "40000" // the atomic Δ failed, nothing applied; a call stopped by its context
	IntegrityViolation  Code = "40002" // nick clash, slice id clash
	Syntax              Code = "42001" // invalid syntax, or GQL outside the subset
	InvalidReference    Code = "42002" // unbound variable, unknown action or view
	DeleteConnected     Code = "G1001" // DELETE of a node with live edges
	ReadOnlyTransaction Code = "25G03" // a change inside START TRANSACTION READ ONLY
)

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
	e.Line = SourceLine(text, pos.Line)
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

// Caret renders the source line and a caret under the column, or "" when
// the error has no position in text.
func (e *Error) Caret() string {
	if !e.Pos.Valid() || e.Line == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("  ")
	b.WriteString(strings.ReplaceAll(e.Line, "\t", " "))
	b.WriteString("\n  ")
	col := e.Pos.Col
	if col < 1 {
		col = 1
	}
	b.WriteString(strings.Repeat(" ", col-1))
	b.WriteString("^")
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
