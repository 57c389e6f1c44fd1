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
// The loop (Shell) reads input through IO, so the same code runs on a
// script, on standard input, in tests (a list of typed lines), and on a
// terminal with line editing (TermIO: peterh/liner, history file, Tab
// completion by Shell.Complete). A script is read whole and cut by Segment;
// a person's lines are collected until ';' ends a statement, with a
// continuation prompt meanwhile. Ctrl-C drops the pending input; Ctrl-D
// on an empty line ends the loop.
//
// # Meta-commands
//
// A line starting with ':' where a statement could start is a
// meta-command (meta.go): :help, :use, :sessions, :drop, :purge, :flush,
// :backup, :agent, :set (M, k, L, F, view, peaks), :param and :params
// (values passed to every Commit and Recall), :source, :format, :timing,
// :quit. They work in scripts too. :sessions reads the catalogue
// (DB.SessionInfos), so listing hydrates no session; :use catalog Recalls
// it; :drop NAME deletes another session for good; :purge, :flush and
// :backup PATH call Session.Purge, DB.Flush and DB.Backup.
//
// # Timing
//
// :timing prints parse and plan time (Session.Prepare parses and plans for
// real, bypassing the plan cache), execute and emit time as the engine
// reports them (RecallTimed, CommitTimed; "cached" when the Shape cache
// answered) and the time to print the result.
package repl
