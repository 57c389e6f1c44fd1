package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/goldfish-gql/goldfish"
)

// Shell is the loop around a Runner: it reads through an IO, recognises
// meta-commands (":use work", see meta.go), keeps the multi-line buffer of
// an interactive session and the state the meta-commands change (session,
// agent, budgets, parameters, format, timing).
//
// Non-interactive input (a script, -c, a pipe) is read whole and cut by
// Segment, so errors point at the line and column of the script. Input
// typed by a person comes line by line: a line that starts with ':' when no
// statement is pending is a meta-command; other lines are collected until
// a ';' outside strings and comments ends a statement, and the statements
// then run (the prompt changes to a continuation prompt meanwhile).
type Shell struct {
	r        *Runner
	in       IO
	db       *goldfish.DB
	ceilings goldfish.Ceilings
	opts     Options
	agent    string
	pending  string // interactive input typed but not yet run
	quit     bool
	depth    int // :source nesting
	vocab    vocabCache
}

// NewShell returns a shell on session s reading from in.
func NewShell(s *goldfish.Session, in IO, opts Options) *Shell {
	r := NewRunner(s, in.Stdout(), in.Stderr(), opts.Format)
	r.Color = opts.Color
	c := opts.Ceilings
	if c == (goldfish.Ceilings{}) {
		c = goldfish.DefaultCeilings
	}
	return &Shell{r: r, in: in, db: opts.DB, ceilings: c, opts: opts}
}

// Runner returns the shell's runner (its session, format and budgets).
func (sh *Shell) Runner() *Runner { return sh.r }

// Agent returns the agent name set with :agent.
func (sh *Shell) Agent() string { return sh.agent }

// Prompt is what the person is shown: "main> ", "planner@main> " after
// :agent planner, "main[tx]> " inside START TRANSACTION, and a
// continuation prompt of the same width ("   ...> ") while a statement is
// incomplete.
func (sh *Shell) Prompt() string {
	p := sh.r.Session.Name()
	if sh.agent != "" {
		p = sh.agent + "@" + p
	}
	if sh.r.InTransaction() {
		p += "[tx]"
	}
	if sh.pending != "" {
		if len(p) > 3 {
			return strings.Repeat(" ", len(p)-3) + "...> "
		}
		return "...> "
	}
	return p + "> "
}

// Loop reads and runs input until it ends (or :quit) and returns the exit
// status: 0 when everything succeeded, else 1.
func (sh *Shell) Loop(ctx context.Context) int {
	in := sh.in
	if c, ok := in.(CompleterSetter); ok {
		c.SetCompleter(sh.Complete)
	}
	if in.Interactive() && sh.opts.Banner != "" {
		fmt.Fprintln(in.Stdout(), sh.opts.Banner)
	}
	stop := !in.Interactive() && !sh.opts.FailAtEnd
	failed := false
	for !sh.quit {
		chunk, err := in.Next(sh.Prompt())
		if errors.Is(err, ErrInterrupted) {
			sh.pending = "" // Ctrl-C drops what was being typed
			continue
		}
		if err == io.EOF {
			if in.Interactive() {
				fmt.Fprintln(in.Stdout()) // leave the terminal on a fresh line
				if !Blank(sh.pending) {
					fmt.Fprintln(in.Stderr(), "unfinished statement dropped (end it with ';' to run it)")
				}
			}
			break
		}
		if err != nil {
			fmt.Fprintf(in.Stderr(), "error: reading input: %v\n", err)
			return 1
		}
		var n int
		if in.Interactive() {
			n = sh.Line(ctx, chunk)
		} else {
			n = sh.Script(ctx, chunk, stop)
		}
		if n > 0 && !in.Interactive() { // a person saw the error and goes on
			failed = true
			if stop {
				return 1
			}
		}
	}
	if err := sh.r.Close(); err != nil && !in.Interactive() {
		failed = true
	}
	if failed {
		return 1
	}
	return 0
}

// Script runs a whole text (a file, -c, a pipe, :source): statements and
// meta-commands in order. It returns the number of failures; with
// stopAtError it stops at the first.
func (sh *Shell) Script(ctx context.Context, text string, stopAtError bool) int {
	failed := 0
	for _, it := range Segment(text) {
		if sh.quit {
			break
		}
		var err error
		if it.Meta != nil {
			err = sh.Meta(ctx, it.Meta.Text)
		} else {
			err = sh.r.Exec(ctx, text, *it.Stmt)
		}
		if err != nil {
			failed++
			if stopAtError {
				break
			}
		}
	}
	return failed
}

// Line takes one line typed by a person. It returns the number of
// statements or meta-commands that failed.
func (sh *Shell) Line(ctx context.Context, line string) int {
	if Blank(sh.pending) && strings.HasPrefix(strings.TrimSpace(line), ":") {
		sh.pending = ""
		sh.history(strings.TrimSpace(line))
		if err := sh.Meta(ctx, strings.TrimSpace(line)); err != nil {
			return 1
		}
		return 0
	}
	sh.pending += line + "\n"
	stmts := Split(sh.pending)
	last := -1
	for i, st := range stmts {
		if st.Terminated {
			last = i
		}
	}
	if last < 0 {
		if len(stmts) == 0 && Blank(sh.pending) {
			sh.pending = "" // blank lines and comments: nothing to wait for
		}
		return 0
	}
	end := stmts[last].Offset + len(stmts[last].Text) + 1 // past the ';'
	src := sh.pending
	sh.history(HistoryLine(src[:end]))
	sh.pending = src[end:]
	if Blank(sh.pending) {
		sh.pending = ""
	}
	failed := 0
	for _, st := range stmts[:last+1] {
		if err := sh.r.Exec(ctx, src, st); err != nil {
			failed++
		}
	}
	return failed
}

func (sh *Shell) history(entry string) {
	if h, ok := sh.in.(Historian); ok && entry != "" {
		h.AddHistory(entry)
	}
}
