// Package repl is the statement loop behind gqlsh: it reads GQL text
// through a small IO interface, cuts it into statements without parsing
// (Scanner, split.go), runs each against a session and prints one result
// per statement, as a one-line summary (format gql) or one JSON object per
// line (format json). Meta-commands live in meta*.go and params.go,
// completion in complete.go.
//
// # Input
//
// The loop (Shell) reads input through IO, so the same code runs on a
// script, on standard input, in tests (a list of typed lines), and on a
// terminal with line editing (TermIO: peterh/liner, history file, Tab
// completion by Shell.Complete). A script is passed on as it is read and
// the Scanner cuts it as it arrives: a statement runs as soon as its ';'
// has been read, each byte is looked at once, and only a bounded window
// before the current statement is kept, so any input runs in time linear
// in its size and in memory bounded by its longest statement. Bytes that
// are not UTF-8, a statement longer than MaxStatementBytes and a block
// comment never closed are refused by the Scanner where they are. A UTF-8
// byte-order mark at the start of an input is skipped. Several inputs
// (repeated -c, -f) are each cut on their own, in order.
//
// A person's lines are collected until ';' ends a statement, with a
// continuation prompt meanwhile; a lone ';' ends nothing and prompts
// afresh. Ctrl-C at the prompt drops the pending input; Ctrl-C (Interrupt)
// while a statement or :source runs stops it through its context and the
// loop prompts again; in a script it stops the run (ExitInterrupted).
// Ctrl-D on an empty line ends the loop. Results are buffered and flushed
// before the loop waits for input and before anything goes to the error
// stream; when their reader has gone (a closed pipe) the run stops quietly
// (ExitBrokenPipe).
//
// # Statements and transactions
//
// Outside a transaction every statement is its own Commit, so its own Δ
// and its own version. START TRANSACTION opens a transaction; the
// statements after it wait, and COMMIT sends START TRANSACTION, them and
// COMMIT to Session.Commit as one text, one atomic Δ, so the grammar reads
// the transaction's own statements. ROLLBACK drops them; nothing was sent.
// At a terminal each statement of a transaction is checked when it is
// typed, by committing the transaction so far with it and a ROLLBACK (so
// nothing applies): its error shows at once, and the transaction stays
// open for the statement typed again, or a ROLLBACK.
//
// # Single transaction
//
// With Options.SingleTransaction (gqlsh -1, --single-transaction, as
// psql's) the whole non-interactive input, every -c and -f in order, is
// one transaction: the shell reads it to its end, then sends its
// statements to Session.Commit as one text, one atomic Δ, one version
// and, on a cabinet, one fsync. All of it applies or none of it: the
// first error anywhere (text that is not GQL, a refused meta-command or
// statement, the engine's parse, plan or run of any statement, a budget)
// stops the run with exit status 1 and nothing applied, and is placed in
// the input (file, line, column) as every error is. Ctrl-C drops it.
//
// What the one Δ cannot hold is refused before anything is sent. START
// TRANSACTION (25G01), COMMIT and ROLLBACK (25000): the input is one
// transaction already (psql warns and commits early; a script that
// says COMMIT expects what came before to apply alone, which -1 would
// break). A Recall (25000): it would read the session as it was before
// the transaction, whose statements apply only at its end (psql's SELECT
// sees the transaction's writes; here nothing is written before the
// end), so run it after the load. Meta-commands that set the shell run
// as they are read: :help, :format, :output, :timing, :set of a Recall
// budget, :params to list them, :agent to show it, :source (its
// statements join the transaction) and :quit (the input ends there, and
// what came before commits). :param, :params clear and :agent NAME
// come before the first statement, since the one Commit carries one set
// of $parameters and one agent for all its statements. Meta-commands
// that would write the session at once, outside the transaction (:drop,
// :purge, :flush, :backup, :absorb, :set of a session setting, :agents
// forget), read it as it was before it (:sessions, :kinds, :views,
// :actions, :history, :diff, :export, :agents, :set alone) or switch
// sessions (:use) are refused (25000).
//
// The statements are parsed as one text, so they may hold at most
// MaxStatementBytes (1 MiB) together: an input past that is refused as
// soon as it is read. The Δ is held to the Commit budget like any
// other. gqlsh opens a database it owns (a cabinet, --mem, --postgres)
// only when the input has been read (Options.FitSingle), with a budget
// of R per statement (500 rows, 256 KiB and the work they imply, each),
// so a script loads as one transaction whenever each statement would
// load on its own; a script refused before the end never opens it. Over
// a server (gqlsh --url) the server's budget holds, and a script over it
// is refused whole (22Q02), saying to split it or load it locally.
//
// One Δ costs one parse of the whole text and one write. Measured with
// gqlsh on a 2-core machine: 10,000 one-node INSERTs (290 KB) load into
// a cabinet file in about 0.35 s (0.2 s of it the parse; 110 MB resident
// at the peak, against 70 MB), against 12 to 32 s one Commit (one fsync)
// each, and 1 s one Commit each in memory (--mem); 34,000 (1 MB, about
// the most one transaction holds) in 2.4 s (1 s the parse; 250 MB).
//
// # Errors
//
// Every error is a GQLSTATUS error (the shell's own conditions are named
// in codes.go), printed on the error stream as
//
//	GQLSTATUS 42001: statement 2: … (line 7, column 12)
//	  <the source line, or a window of a long one>
//	  <a caret under the column, after wide runes too>
//
// with the line and column of the input the user wrote, not of the
// statement text the engine saw, and with statements numbered in that
// input. An error the engine gives without a position (a missing
// parameter, a budget) is placed on the statement it is about; a
// meta-command's error in a script on its line. An error in a named file
// (-f, :source) is printed "FILE:LINE:COL: GQLSTATUS …". In
// non-interactive use the first error stops the run.
//
// # Meta-commands
//
// A line starting with ':' where a statement could start is a
// meta-command: :help, :use, :sessions, :drop, :purge, :flush, :backup,
// :agent, :agents, :set (M, k, L, F, T, view, peaks), :param and :params (GQL
// literals passed as $parameters to every Commit and Recall), :source,
// :output, :format, :timing, :quit. They work in scripts too. :sessions
// reads the catalogue (DB.SessionInfos), so listing hydrates no session;
// :use catalog Recalls it; :drop NAME deletes another session for good;
// :purge, :flush and :backup PATH call Session.Purge, DB.Flush and
// DB.Backup. :agent NAME (or Options.Agent) makes every following Recall
// and Commit name the agent (RecallOptions.Agent, CommitOptions.Agent);
// :agents lists what the session keeps per agent (Session.Agents).
//
// # Timing
//
// :timing prints parse and plan time (Session.Prepare parses and plans for
// real, bypassing the plan cache), execute and emit time as the engine
// reports them (RecallTimed, CommitOptions.Timing; "cached" when the Shape cache
// answered) and the time to print the result.
package repl
