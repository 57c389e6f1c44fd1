// Package repl is the statement loop behind gqlsh: it reads GQL text
// through a small IO interface, cuts it into statements without parsing
// (Split), runs each against a session and prints one result per
// statement, as a one-line summary (format gql) or one JSON object per line
// (format json).
//
// # Statements and transactions
//
// Outside a transaction every statement is its own Commit, so its own Δ
// and its own version. START TRANSACTION opens a buffer; the statements
// after it are only collected, and COMMIT sends them to Session.Commit as
// one text, one atomic Δ. ROLLBACK drops the buffer; nothing was sent.
//
// # Errors
//
// An error is printed on the error stream as
//
//	GQLSTATUS 42001: statement 2: … (line 7, column 12)
//	  <the source line>
//	  <a caret under the column>
//
// with the line and column of the input the user wrote, not of the
// statement text the engine saw, and with statements numbered in that
// input. In non-interactive use the first error stops the run.
//
// # IO
//
// The loop reads input through IO, so the same code runs on a script, on
// standard input, in tests, and (later) on a terminal with line editing.
package repl
