package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/goldfish-gql/goldfish"
)

// Exit statuses of Loop besides 0 (success) and 1 (an error).
const (
	// ExitInterrupted: Ctrl-C (SIGINT) stopped a non-interactive run, as
	// a shell reports a command that SIGINT ended (128+2).
	ExitInterrupted = 130
	// ExitBrokenPipe: the reader of the results went away (gqlsh … |
	// head -1); the run stopped quietly, as a command SIGPIPE ends
	// (128+13).
	ExitBrokenPipe = 141
)

// Shell is the loop around a Runner: it reads through an IO, recognises
// meta-commands (":use work", see meta.go), keeps the statement a person
// is typing and the state the meta-commands change (session, agent,
// budgets, parameters, format, timing, output).
//
// Input is cut by a Scanner as it arrives: a statement runs as soon as its
// ';' has been read, so a script of any length runs in time linear in its
// size and a pipe kept open is answered statement by statement. Errors
// point at the line and column of the input as written (and name the file
// for a file). Input typed by a person comes line by line: a line that
// starts with ':' when no statement is pending is a meta-command; other
// lines are collected until a ';' outside strings and comments ends a
// statement, and the statements then run (the prompt changes to a
// continuation prompt meanwhile).
type Shell struct {
	r        *Runner
	in       IO
	host     Host // nil: the shell has its one session only
	ceilings goldfish.Ceilings
	opts     Options
	quit     bool
	depth    int // :source nesting
	vocab    vocabCache

	stdout  *output     // the IO's standard output
	outFile *outputFile // :output FILE, nil for standard output

	single *singleTx // the transaction of Options.SingleTransaction while its input is read

	// last is the last statement drain ran: its line, and whether Ctrl-C
	// cut it short (then it applied nothing).
	last struct {
		source   string
		line     int
		cut, ran bool
	}

	typing    *Scanner // what a person types
	pending   string   // typed text not yet in the history
	pendingAt int      // its offset in the typing scanner's input

	mu          sync.Mutex
	cancelItem  context.CancelFunc // stops what runs now (Ctrl-C at a terminal)
	cancelRun   context.CancelFunc // stops the whole run (Ctrl-C in a script)
	interrupted bool
}

// NewShell returns a shell on session s reading from in.
func NewShell(s Session, in IO, opts Options) *Shell {
	sh := &Shell{in: in, host: opts.Host, opts: opts}
	if sh.host == nil && opts.DB != nil {
		sh.host = Embedded(opts.DB)
	}
	sh.stdout = newOutput(in.Stdout())
	r := NewRunner(s, sh.stdout, errStream{flush: sh.flush, w: in.Stderr()}, opts.Format)
	r.Color = opts.Color
	r.CheckEach = in.Interactive()
	r.Agent = opts.Agent
	sh.r = r
	sh.ceilings = opts.Ceilings
	if sh.ceilings == (goldfish.Ceilings{}) {
		sh.ceilings = goldfish.DefaultCeilings
	}
	sh.typing = NewScanner("", true)
	return sh
}

// Runner returns the shell's runner (its session, format and budgets).
func (sh *Shell) Runner() *Runner { return sh.r }

// Agent returns the agent every Recall and Commit of the shell names (set
// with Options.Agent and :agent).
func (sh *Shell) Agent() string { return sh.r.Agent }

// Prompt is what the person is shown: "main> ", "planner@main> " after
// :agent planner, "main[tx]> " inside START TRANSACTION, and a
// continuation prompt of the same width ("   ...> ") while a statement is
// incomplete.
func (sh *Shell) Prompt() string {
	p := sh.r.Session.Name()
	if sh.r.Agent != "" {
		p = sh.r.Agent + "@" + p
	}
	if sh.r.InTransaction() {
		p += "[tx]"
	}
	if sh.typing.Pending() {
		if len(p) > 3 {
			return strings.Repeat(" ", len(p)-3) + "...> "
		}
		return "...> "
	}
	return p + "> "
}

// Interrupt is Ctrl-C (SIGINT): at a terminal it stops the statement or
// :source that runs now and the loop prompts again; in a script it stops
// the run, which then ends with ExitInterrupted. It may be called from
// any goroutine (a signal handler's).
func (sh *Shell) Interrupt() {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	switch {
	case !sh.in.Interactive() && sh.cancelRun != nil:
		sh.interrupted = true
		sh.cancelRun()
	case sh.cancelItem != nil:
		sh.interrupted = true
		sh.cancelItem()
	}
}

func (sh *Shell) setCancel(item context.CancelFunc) {
	sh.mu.Lock()
	sh.cancelItem = item
	sh.mu.Unlock()
}

// wasInterrupted reports (and clears) whether Interrupt stopped something.
func (sh *Shell) wasInterrupted() bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	i := sh.interrupted
	sh.interrupted = false
	return i
}

// flush writes out the results buffered so far.
func (sh *Shell) flush() {
	if sh.outFile != nil {
		sh.outFile.out.Flush()
	}
	sh.stdout.Flush()
}

// Loop reads and runs input until it ends (or :quit) and returns the exit
// status: 0 when everything succeeded, 1 after an error (a person at a
// terminal sees errors and goes on: 0), ExitInterrupted when Ctrl-C
// stopped a script, ExitBrokenPipe when the results' reader went away.
func (sh *Shell) Loop(ctx context.Context) int {
	in := sh.in
	if c, ok := in.(CompleterSetter); ok {
		c.SetCompleter(sh.Complete)
	}
	if in.Interactive() && sh.opts.Banner != "" {
		fmt.Fprintln(in.Stdout(), sh.opts.Banner)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sh.mu.Lock()
	sh.cancelRun = cancel
	sh.mu.Unlock()
	defer sh.closeOutput()

	var code int
	var stopped bool
	switch {
	case in.Interactive():
		code = sh.interactive(ctx)
	case sh.opts.SingleTransaction:
		code, stopped = sh.runSingle(ctx), true
	default:
		code, stopped = sh.script(ctx)
	}
	if code == ExitBrokenPipe || code == ExitInterrupted {
		return code
	}
	// A script stopped by its first error has said why; one that ran to
	// its end must not leave a transaction open unsaid.
	if !stopped {
		if err := sh.r.Close(); err != nil && !in.Interactive() {
			code = 1
		}
	}
	if c := sh.outputBroken(); c != 0 {
		return c
	}
	return code
}

// outputBroken checks the results stream after a write: a reader gone
// away ends the run quietly; another write error is said once.
func (sh *Shell) outputBroken() int {
	sh.flush()
	err := sh.stdout.Err()
	switch {
	case err == nil:
		return 0
	case brokenPipe(err):
		return ExitBrokenPipe
	}
	fmt.Fprintf(sh.in.Stderr(), "gqlsh: cannot write the results: %v\n", err)
	return 1
}

// script runs non-interactive input: each input cut by its own scanner,
// items run as they are complete. stopped says an error stopped it.
func (sh *Shell) script(ctx context.Context) (code int, stopped bool) {
	stop := !sh.opts.FailAtEnd
	failed := false
	sc := sh.newScanner()
	for !sh.quit {
		sh.flush()
		chunk, err := sh.in.Next(ctx, "")
		switch {
		case err == nil:
			sc.Feed(chunk)
		case err == io.EOF || errors.Is(err, ErrEndOfSource):
			sc.End()
		case ctx.Err() != nil:
			return sh.stopped(), true
		default:
			fmt.Fprintf(sh.r.Err, "gqlsh: reading %s: %v\n", orStdin(sc.Source), err)
			return 1, true
		}
		n, halt := sh.drain(ctx, sc, stop)
		if n > 0 {
			failed = true
		}
		if c := sh.outputBroken(); c != 0 {
			return c, true
		}
		if ctx.Err() != nil {
			return sh.stopped(), true
		}
		if halt && !sh.quit {
			return 1, true
		}
		if err == io.EOF {
			break
		}
		if err != nil { // the next input, on its own
			sc = sh.newScanner()
		}
	}
	if failed {
		return 1, false
	}
	return 0, false
}

func (sh *Shell) newScanner() *Scanner {
	name := ""
	if s, ok := sh.in.(Sourcer); ok {
		name = s.Source()
	}
	return NewScanner(name, true)
}

// stopped ends a script that Ctrl-C stopped.
func (sh *Shell) stopped() int {
	sh.flush()
	if sh.single != nil {
		fmt.Fprintln(sh.r.Err, "gqlsh: interrupted (Ctrl-C); the single transaction (-1) is dropped: nothing applied")
		return ExitInterrupted
	}
	v := sh.r.Session.Version()
	switch {
	case !sh.last.ran:
		fmt.Fprintf(sh.r.Err, "gqlsh: interrupted (Ctrl-C) before any statement ran (v=%d)\n", v)
	case sh.last.cut:
		fmt.Fprintf(sh.r.Err, "gqlsh: interrupted (Ctrl-C) in the statement at %s:%d, which applied nothing; the statements that ran before stay applied (v=%d)\n", sh.last.source, sh.last.line, v)
	default:
		fmt.Fprintf(sh.r.Err, "gqlsh: interrupted (Ctrl-C) after the statement at %s:%d; it and the statements that ran before stay applied (v=%d)\n", sh.last.source, sh.last.line, v)
	}
	return ExitInterrupted
}

func orStdin(name string) string {
	if name == "" {
		return "standard input"
	}
	return name
}

// drain runs the complete items sc holds. It returns the number of
// failures and whether to stop (stopAtError and one failed, :quit, or
// ctx ended).
func (sh *Shell) drain(ctx context.Context, sc *Scanner, stopAtError bool) (failed int, stop bool) {
	for !sh.quit {
		if ctx.Err() != nil {
			return failed, true
		}
		it, ok := sc.Next()
		if !ok {
			return failed, false
		}
		err := sh.item(ctx, it)
		if it.Stmt != nil {
			sh.last.source, sh.last.line, sh.last.ran, sh.last.cut = orStdin(it.Source), it.Stmt.Line, true, err != nil && interrupted(err)
		}
		if err != nil {
			failed++
			if stopAtError || interrupted(err) && ctx.Err() != nil {
				return failed, true
			}
		}
		if sh.stdout.Err() != nil {
			return failed, true
		}
	}
	return failed, true
}

// item runs one item of input. Its error has been printed.
func (sh *Shell) item(ctx context.Context, it Item) error {
	switch {
	case it.Err != nil:
		err := inFile(it.Source, it.Err)
		sh.r.fail(err)
		return err
	case sh.single != nil:
		return sh.singleItem(ctx, it)
	case it.Meta != nil:
		return sh.meta(ctx, *it.Meta)
	}
	return sh.r.Exec(ctx, *it.Stmt)
}

// interactive runs what a person types, line by line.
func (sh *Shell) interactive(ctx context.Context) int {
	for !sh.quit {
		sh.flush()
		line, err := sh.in.Next(ctx, sh.Prompt())
		switch {
		case errors.Is(err, ErrInterrupted):
			sh.typing.Reset() // Ctrl-C drops what was being typed
			sh.pending = ""
			continue
		case err == io.EOF:
			fmt.Fprintln(sh.in.Stdout()) // leave the terminal on a fresh line
			if sh.typing.Pending() {
				fmt.Fprintln(sh.r.Err, "unfinished statement dropped (end it with ';' to run it)")
			}
			return 0
		case err != nil:
			fmt.Fprintf(sh.r.Err, "gqlsh: reading input: %v\n", err)
			return 1
		}
		sh.Line(ctx, line)
		if c := sh.outputBroken(); c != 0 {
			return c
		}
	}
	return 0
}

// Line takes one line typed by a person. It returns the number of
// statements or meta-commands that failed.
func (sh *Shell) Line(ctx context.Context, line string) int {
	sc := sh.typing
	if m := habit(line); m != "" && !sc.Pending() {
		// exit, \q, .tables, \d …: what psql and sqlite3 take, answered
		// with the meta-command that does the job here.
		sh.history(line)
		if m != ":quit" {
			fmt.Fprintf(sh.r.Err, "(%s is %s in gqlsh)\n", strings.TrimSpace(line), m)
		}
		if sh.meta(ctx, Meta{Text: m, Line: 1, Col: 1}) != nil {
			return 1
		}
		return 0
	}
	if !sc.Pending() {
		sc.Rebase() // errors point into what was typed at this prompt
		sh.pending, sh.pendingAt = "", sc.base+sc.i
	}
	sc.Feed(line + "\n")
	sh.pending += line + "\n"
	var items []Item
	end := -1 // offset past the last ';' read
	for {
		it, ok := sc.Next()
		if !ok {
			break
		}
		items = append(items, it)
		if it.Stmt != nil && it.Stmt.Terminated {
			end = it.Stmt.Offset + len(it.Stmt.Text) + 1
		}
	}
	// History first, so an entry is kept whatever running it does.
	for _, it := range items {
		if it.Meta != nil {
			sh.history(it.Meta.Text)
		}
	}
	if end >= 0 {
		cut := min(max(end-sh.pendingAt, 0), len(sh.pending))
		sh.history(HistoryLine(sh.pending[:cut]))
		sh.pending, sh.pendingAt = sh.pending[cut:], end
	}
	if !sc.Pending() {
		sh.pending = ""
	}
	failed := 0
	for _, it := range items {
		if sh.quit {
			break
		}
		ictx, cancel := context.WithCancel(ctx)
		sh.setCancel(cancel)
		err := sh.item(ictx, it)
		sh.setCancel(nil)
		cancel()
		sh.wasInterrupted()
		if err != nil {
			failed++
		}
	}
	return failed
}

// Script runs a whole text (as -c would): statements and meta-commands in
// order. It returns the number of failures; with stopAtError it stops at
// the first.
func (sh *Shell) Script(ctx context.Context, text string, stopAtError bool) int {
	sc := NewScanner("", true)
	sc.Feed(text)
	sc.End()
	n, _ := sh.drain(ctx, sc, stopAtError)
	return n
}

func (sh *Shell) history(entry string) {
	if h, ok := sh.in.(Historian); ok && entry != "" {
		h.AddHistory(entry)
	}
}
