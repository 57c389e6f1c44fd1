package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/wire"
)

// Options configure a Runner and the loop around it.
type Options struct {
	Format Format
	// FailAtEnd keeps running after an error and reports failure at the
	// end instead of stopping at the first error.
	FailAtEnd bool
	// DB is the database the session belongs to; without it (and
	// without Host) :use and :sessions are unavailable.
	DB *goldfish.DB
	// Host is where the sessions live when they are not in DB: a server
	// (gqlsh --url). It takes precedence over DB.
	Host Host
	// Ceilings are the highest budgets :set accepts (default
	// goldfish.DefaultCeilings).
	Ceilings goldfish.Ceilings
	// Color turns on ANSI colour on the streams that are terminals; the
	// caller decides (a terminal, and NO_COLOR not set).
	Color bool
	// Banner is printed once before the first prompt of an interactive
	// loop.
	Banner string
	// Agent is the agent the shell starts as (gqlsh --agent); "" for
	// none. The caller checks it (goldfish.ValidAgentName).
	Agent string
	// SingleTransaction runs the whole non-interactive input as one
	// transaction, one Δ (gqlsh -1): it is read to its end first and
	// applies whole or not at all; the first error ends the run with
	// nothing applied. See single.go for the meta-commands it allows.
	SingleTransaction bool
	// FitSingle, when set, is called once in a single transaction, when
	// the whole input has been read and checked and before any of it is
	// sent, with the number of its statements: gqlsh opens the database
	// it owns there, with a Commit budget for that many. Until it
	// returns, the shell calls only Name on its Session. An error ends
	// the run with exit status 1.
	FitSingle func(ctx context.Context, statements int) error
}

// Runner runs statements against one session, keeping the open
// transaction between calls.
type Runner struct {
	Session Session
	Out     io.Writer
	Err     io.Writer
	Format  Format
	// Recall holds the budgets every Recall of this runner uses.
	Recall goldfish.RecallOptions
	// Params are the $parameter values passed to every Commit and Recall.
	Params map[string]any
	// Agent names who reads and commits ("" for nobody): every Recall and
	// Commit of this runner carries it, transactions included.
	Agent string
	// Timing prints, after each statement, the time it took to parse and
	// plan, execute and emit.
	Timing bool
	// Color colours results and errors with ANSI escapes.
	Color bool
	// CheckEach runs each statement of a transaction when it arrives, as
	// a Δ that ends in ROLLBACK, so its error shows at once (a person
	// typing); without it the statements are only collected until COMMIT.
	CheckEach bool

	inTx bool
	tx   []Stmt // START TRANSACTION, then the statements waiting for COMMIT
	// explain, when set, rewords the engine's refusal of a Commit
	// before it is placed in the input (a single transaction's).
	explain func(error) error
}

// NewRunner returns a runner printing to out and errOut.
func NewRunner(s Session, out, errOut io.Writer, format Format) *Runner {
	if format == "" {
		format = FormatGQL
	}
	return &Runner{Session: s, Out: out, Err: errOut, Format: format}
}

// InTransaction reports whether a START TRANSACTION is waiting for its
// COMMIT or ROLLBACK.
func (r *Runner) InTransaction() bool { return r.inTx }

// Run reads in, runs it and returns the exit status: 0 when every
// statement succeeded, 1 otherwise (see Shell.Loop). Non-interactive input
// stops at the first error unless opts.FailAtEnd is set. Meta-commands
// (":use work") are understood on lines of their own; see Shell.
func Run(ctx context.Context, s Session, in IO, opts Options) int {
	return NewShell(s, in, opts).Loop(ctx)
}

// RunText splits text into statements and runs them in order. It returns
// the number of statements that failed; with stopAtError it stops at the
// first.
func (r *Runner) RunText(ctx context.Context, text string, stopAtError bool) int {
	failed := 0
	for _, st := range Split(text) {
		if err := r.Exec(ctx, st); err != nil {
			failed++
			if stopAtError {
				break
			}
		}
	}
	return failed
}

// Close ends the input: a transaction still open is an error and is
// dropped, since nothing after it can commit it. The error points at the
// START TRANSACTION.
func (r *Runner) Close() error {
	if !r.inTx {
		return nil
	}
	start := r.tx[0]
	r.inTx, r.tx = false, nil
	err := start.at(&gqlstatus.Error{Code: codeTxState,
		Msg:  "START TRANSACTION without COMMIT or ROLLBACK at the end of the input; nothing applied",
		Hint: "end the transaction with COMMIT to apply it, or ROLLBACK to drop it"})
	r.fail(err)
	return err
}

// Exec runs one statement. The error has already been printed when Exec
// returns it.
//
// START TRANSACTION opens a transaction; the statements after it wait for
// COMMIT, which sends START TRANSACTION, them and COMMIT to the engine as
// one text, one Δ, so the grammar reads the transaction's own statements
// (START TRANSACTION READ ONLY, COMMIT WORK). Each of the three is
// checked by the engine when it arrives, and with CheckEach so is every
// statement in between: an error shows at once, points at the statement,
// and leaves the transaction open.
func (r *Runner) Exec(ctx context.Context, st Stmt) error {
	verb, words := st.Verb()
	switch {
	case verb == "START" && len(words) == 2 && words[1] == "TRANSACTION":
		if r.inTx {
			err := st.at(&gqlstatus.Error{Code: codeNestedTx, Msg: "START TRANSACTION inside a transaction",
				Hint: "transactions do not nest: COMMIT or ROLLBACK first"})
			r.fail(err)
			return err
		}
		if err := r.check([]Stmt{st, syntheticStmt("ROLLBACK")}); err != nil {
			return err
		}
		r.inTx, r.tx = true, []Stmt{st}
		r.note("transaction started", "started")
		return nil
	case r.inTx && verb == "ROLLBACK":
		if err := r.check([]Stmt{r.tx[0], st}); err != nil {
			return r.stillOpen(err)
		}
		n := len(r.tx) - 1
		r.inTx, r.tx = false, nil
		r.note(fmt.Sprintf("rolled back: %d %s dropped", n, plural(n, "statement", "statements")), "rolled back")
		return nil
	case r.inTx && verb == "COMMIT":
		all := append(r.tx[:len(r.tx):len(r.tx)], st)
		if len(all) == 2 {
			if err := r.check(all); err != nil {
				return r.stillOpen(err)
			}
			r.inTx, r.tx = false, nil
			r.note(fmt.Sprintf("ok v=%d empty transaction", r.Session.Version()), "committed")
			return nil
		}
		err := r.commit(ctx, all, len(all)-2, timing{})
		if err != nil && r.CheckEach {
			// A person can still decide: try COMMIT again, or ROLLBACK.
			n := len(r.tx) - 1
			fmt.Fprintln(r.Err, r.paint(yellow, fmt.Sprintf("-- the transaction is still open with its %d %s: COMMIT to try again, or ROLLBACK to drop it",
				n, plural(n, "statement", "statements"))))
			return err
		}
		r.inTx, r.tx = false, nil
		return err
	case r.inTx:
		if r.CheckEach {
			if err := r.dryRun(ctx, st); err != nil {
				return err
			}
		}
		r.tx = append(r.tx, st)
		return nil
	}
	var tm timing
	var isRecall bool
	switch {
	case r.Timing:
		// Parse and plan for real (the cache would hide them); the call
		// that follows then finds the plan cached.
		var t goldfish.Timing
		isRecall, t, _ = r.Session.Prepare(st.Text)
		tm.parse, tm.plan = t.Parse, t.Plan
	case verb == "MATCH":
		isRecall = r.Session.IsRecall(st.Text)
	}
	// A Recall is a MATCH; anything else goes to Commit unparsed here, so
	// the common Δ is parsed once, not twice.
	if isRecall {
		return r.recall(ctx, st, tm)
	}
	return r.commit(ctx, []Stmt{st}, 1, tm)
}

// check has the engine parse and plan stmts as one text, without running
// it; the error, printed, points into the statements.
func (r *Runner) check(stmts []Stmt) error {
	m := r.sourceMap(stmts)
	if _, _, err := r.Session.Prepare(m.text); err != nil {
		err = m.locate(userError(err, r.Session.Name()))
		r.fail(err)
		return err
	}
	return nil
}

// stillOpen says, after err, that the transaction is still open.
func (r *Runner) stillOpen(err error) error {
	n := len(r.tx) - 1
	fmt.Fprintln(r.Err, r.paint(yellow, fmt.Sprintf("-- the transaction is still open with its %d %s: fix the statement and type it again, or ROLLBACK to drop the transaction",
		n, plural(n, "statement", "statements"))))
	return err
}

// dryRun runs the open transaction with st added and a ROLLBACK at the
// end: nothing applies, and st's error or outcome shows now.
func (r *Runner) dryRun(ctx context.Context, st Stmt) error {
	stmts := append(append(r.tx[:len(r.tx):len(r.tx)], st), syntheticStmt("ROLLBACK"))
	m := r.sourceMap(stmts)
	res, err := r.Session.CommitWith(ctx, m.text, r.Params, goldfish.CommitOptions{Agent: r.Agent})
	if err != nil {
		err = m.locate(userError(err, r.Session.Name()))
		r.fail(err)
		return r.stillOpen(err)
	}
	var last goldfish.StmtResult
	if n := len(res.Stmts); n > 0 {
		last = res.Stmts[n-1]
	}
	if r.Format == FormatJSON {
		out := wire.ShellCommit{Commit: wire.Commit{Status: string(last.Status), Version: r.Session.Version(), Counts: last.Counts,
			Notices: []wire.Notice{}}, Transaction: "pending"}
		for _, n := range last.Notices {
			n.Pos, _ = m.pos(n.Pos)
			out.Notices = append(out.Notices, wire.NoticesOf([]gqlstatus.Notice{n})...)
		}
		writeJSON(r.Out, out)
		return nil
	}
	line := "ok"
	if c := last.Counts.Summary(); c != "" {
		line += " " + c
	}
	fmt.Fprintln(r.Out, r.paint(green, line+" (pending: applies at COMMIT)"))
	for _, n := range last.Notices {
		n.Pos, _ = m.pos(n.Pos)
		fmt.Fprintln(r.Out, r.paint(yellow, NoticeLine(n)))
	}
	return nil
}

func (r *Runner) sourceMap(stmts []Stmt) *sourceMap {
	m := newSourceMap(stmts)
	m.given = func(name string) bool { _, ok := r.Params[name]; return ok }
	return m
}

// timing is what :timing on prints: parse and plan (Session.Prepare),
// execute and emit as the engine reports them (RecallTimed, CommitOptions.Timing;
// a Shape served from the cache shows as cached), and print, the time to
// write the result out.
type timing struct {
	parse, plan, exec, emit, print time.Duration
	cached                         bool
}

func (r *Runner) printTiming(t timing) {
	if !r.Timing {
		return
	}
	exec := ms(t.exec)
	if t.cached {
		exec = "cached"
	}
	line := fmt.Sprintf("-- time: parse %s, plan %s, execute %s, emit %s, print %s, total %s",
		ms(t.parse), ms(t.plan), exec, ms(t.emit), ms(t.print), ms(t.parse+t.plan+t.exec+t.emit+t.print))
	if r.Format == FormatJSON {
		fmt.Fprintln(r.Err, line) // stdout stays one JSON object per line
		return
	}
	fmt.Fprintln(r.Out, r.paint(dim, line))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3fms", float64(d.Nanoseconds())/1e6) }

// recallOptions are the runner's budgets with its parameters.
func (r *Runner) recallOptions() goldfish.RecallOptions {
	o := r.Recall
	if len(r.Params) > 0 {
		o.Params = r.Params
	}
	o.Agent = r.Agent
	return o
}

// recall runs a read statement and prints its Shape, header included.
// Shapes are never paged: they are bounded by M.
func (r *Runner) recall(ctx context.Context, st Stmt, tm timing) error {
	sh, t, err := r.Session.RecallTimed(ctx, st.Text, r.recallOptions())
	tm.exec, tm.emit, tm.cached = t.Execute, t.Emit, t.Cached
	if err != nil {
		err = r.sourceMap([]Stmt{st}).locate(userError(err, r.Session.Name()))
		r.fail(err)
		return err
	}
	t1 := time.Now()
	if r.Format == FormatJSON {
		writeJSON(r.Out, shapeJSON(sh))
	} else {
		io.WriteString(r.Out, r.paintShape(sh.Text))
	}
	tm.print = time.Since(t1)
	r.printTiming(tm)
	return nil
}

// commit sends stmts as one Δ and prints the outcome; body is the number
// of statements that are not START TRANSACTION or COMMIT.
func (r *Runner) commit(ctx context.Context, stmts []Stmt, body int, tm timing) error {
	m := r.sourceMap(stmts)
	if r.Timing && len(stmts) > 1 {
		_, t, _ := r.Session.Prepare(m.text) // the joined text, as for one statement
		tm.parse, tm.plan = t.Parse, t.Plan
	}
	var t goldfish.Timing
	res, err := r.Session.CommitWith(ctx, m.text, r.Params, goldfish.CommitOptions{Agent: r.Agent, Timing: &t})
	tm.exec = t.Execute
	if err != nil {
		err = userError(err, r.Session.Name())
		if r.explain != nil {
			err = r.explain(err)
		}
		err = m.locate(err)
		r.fail(err)
		return err
	}
	t1 := time.Now()
	var ix *posIndex // made for the first notice: most Commits have none
	for i := range res.Stmts {
		for j := range res.Stmts[i].Notices {
			if ix == nil {
				ix = newPosIndex(m)
			}
			n := &res.Stmts[i].Notices[j]
			n.Pos = ix.pos(n.Pos)
		}
	}
	if r.Format == FormatJSON {
		writeJSON(r.Out, resultJSON(res, body))
	} else {
		fmt.Fprintln(r.Out, r.paint(green, res.Summary()))
		for _, n := range Notices(res) {
			fmt.Fprintln(r.Out, r.paint(yellow, NoticeLine(n)))
		}
	}
	tm.print = time.Since(t1)
	r.printTiming(tm)
	return nil
}

// note prints the outcome of a statement that did not reach the engine.
func (r *Runner) note(text, tx string) {
	if r.Format == FormatJSON {
		writeJSON(r.Out, wire.ShellCommit{Commit: wire.Commit{Status: string(gqlstatus.Omitted), Version: r.Session.Version(),
			Notices: []wire.Notice{}}, Transaction: tx})
		return
	}
	if !strings.HasPrefix(text, "ok ") {
		text = "ok " + text
	}
	fmt.Fprintln(r.Out, r.paint(green, text))
}

func (r *Runner) fail(err error) {
	err = userError(err, r.Session.Name())
	if r.Format == FormatJSON {
		writeJSON(r.Out, errorJSON(err))
	}
	if !r.Color {
		WriteError(r.Err, err)
		return
	}
	var b strings.Builder
	WriteError(&b, err)
	first, rest, _ := strings.Cut(b.String(), "\n")
	fmt.Fprintln(r.Err, r.paint(red, first))
	io.WriteString(r.Err, rest)
}

// interrupted reports whether err is a call stopped by its context.
func interrupted(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
