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
)

// Options configure a Runner and the loop around it.
type Options struct {
	Format Format
	// FailAtEnd keeps running after an error and reports failure at the
	// end instead of stopping at the first error.
	FailAtEnd bool
	// DB is the database the session belongs to; without it :use and
	// :sessions are unavailable.
	DB *goldfish.DB
	// Ceilings are the highest budgets :set accepts (default
	// goldfish.DefaultCeilings).
	Ceilings goldfish.Ceilings
	// Color turns on ANSI colour on the streams that are terminals; the
	// caller decides (a terminal, and NO_COLOR not set).
	Color bool
	// Banner is printed once before the first prompt of an interactive
	// loop.
	Banner string
}

// Runner runs statements against one session, keeping the open
// transaction between calls.
type Runner struct {
	Session *goldfish.Session
	Out     io.Writer
	Err     io.Writer
	Format  Format
	// Recall holds the budgets every Recall of this runner uses.
	Recall goldfish.RecallOptions
	// Params are the $parameter values passed to every Commit and Recall.
	Params map[string]any
	// Timing prints, after each statement, the time it took to parse and
	// plan, execute and emit.
	Timing bool
	// Color colours results and errors with ANSI escapes.
	Color bool

	inTx  bool
	txAt  Stmt   // the START TRANSACTION that opened the buffer
	txBuf []Stmt // statements waiting for COMMIT
}

// NewRunner returns a runner printing to out and errOut.
func NewRunner(s *goldfish.Session, out, errOut io.Writer, format Format) *Runner {
	if format == "" {
		format = FormatGQL
	}
	return &Runner{Session: s, Out: out, Err: errOut, Format: format}
}

// InTransaction reports whether a START TRANSACTION is waiting for its
// COMMIT or ROLLBACK.
func (r *Runner) InTransaction() bool { return r.inTx }

// Run reads all of in, runs it and returns the exit status: 0 when every
// statement succeeded, 1 otherwise. Non-interactive input stops at the
// first error unless opts.FailAtEnd is set. Meta-commands (":use work")
// are understood on lines of their own; see Shell.
func Run(ctx context.Context, s *goldfish.Session, in IO, opts Options) int {
	return NewShell(s, in, opts).Loop(ctx)
}

// RunText splits text into statements and runs them in order. It returns
// the number of statements that failed; with stopAtError it stops at the
// first.
func (r *Runner) RunText(ctx context.Context, text string, stopAtError bool) int {
	failed := 0
	for _, st := range Split(text) {
		if err := r.Exec(ctx, text, st); err != nil {
			failed++
			if stopAtError {
				break
			}
		}
	}
	return failed
}

// Close ends the input: a transaction still open is an error and is
// dropped, since nothing after it can commit it.
func (r *Runner) Close() error {
	if !r.inTx {
		return nil
	}
	r.inTx, r.txBuf = false, nil
	err := &gqlstatus.Error{Code: gqlstatus.InvalidTransactionState, Stmt: r.txAt.Index,
		Msg:  "START TRANSACTION without COMMIT or ROLLBACK at the end of the input; nothing applied",
		Hint: "end the transaction with COMMIT to apply it, or ROLLBACK to drop it"}
	r.fail(err)
	return err
}

// Exec runs one statement; src is the whole input it was cut from, for
// error positions. The error has already been printed when Exec returns it.
func (r *Runner) Exec(ctx context.Context, src string, st Stmt) error {
	words := st.Words(2)
	verb := ""
	if len(words) > 0 {
		verb = words[0]
	}
	switch {
	case verb == "START" && len(words) == 2 && words[1] == "TRANSACTION":
		if r.inTx {
			err := gqlstatus.At(gqlstatus.ActiveTransaction, gqlstatus.Pos{Line: st.Line, Col: st.Col, Offset: st.Offset}, src,
				"START TRANSACTION inside a transaction").WithHint("transactions do not nest: COMMIT or ROLLBACK first")
			err.Stmt = st.Index
			r.fail(err)
			return err
		}
		r.inTx, r.txAt, r.txBuf = true, st, nil
		r.note("transaction started", "started")
		return nil
	case r.inTx && verb == "ROLLBACK":
		n := len(r.txBuf)
		r.inTx, r.txBuf = false, nil
		r.note(fmt.Sprintf("rolled back: %d %s dropped", n, plural(n, "statement", "statements")), "rolled back")
		return nil
	case r.inTx && verb == "COMMIT":
		stmts := r.txBuf
		r.inTx, r.txBuf = false, nil
		if len(stmts) == 0 {
			r.note(fmt.Sprintf("ok v=%d empty transaction", r.Session.Version()), "committed")
			return nil
		}
		return r.commit(ctx, src, stmts, timing{})
	case r.inTx:
		r.txBuf = append(r.txBuf, st)
		return nil
	}
	var tm timing
	var isRecall bool
	if r.Timing {
		// Parse and plan for real (the cache would hide them); the call
		// that follows then finds the plan cached.
		var t goldfish.Timing
		isRecall, t, _ = r.Session.Prepare(st.Text)
		tm.parse, tm.plan = t.Parse, t.Plan
	} else {
		isRecall = r.Session.IsRecall(st.Text)
	}
	if isRecall {
		return r.recall(ctx, src, st, tm)
	}
	return r.commit(ctx, src, []Stmt{st}, tm)
}

// timing is what :timing on prints: parse and plan (Session.Prepare),
// execute and emit as the engine reports them (RecallTimed, CommitTimed;
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
	return o
}

// recall runs a read statement and prints its Shape, header included.
// Shapes are never paged: they are bounded by M.
func (r *Runner) recall(ctx context.Context, src string, st Stmt, tm timing) error {
	sh, t, err := r.Session.RecallTimed(ctx, st.Text, r.recallOptions())
	tm.exec, tm.emit, tm.cached = t.Execute, t.Emit, t.Cached
	if err != nil {
		err = newSourceMap(src, []Stmt{st}).locate(err)
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

// commit sends stmts as one Δ and prints the outcome.
func (r *Runner) commit(ctx context.Context, src string, stmts []Stmt, tm timing) error {
	m := newSourceMap(src, stmts)
	if r.Timing && len(stmts) > 1 {
		_, t, _ := r.Session.Prepare(m.text) // the joined text, as for one statement
		tm.parse, tm.plan = t.Parse, t.Plan
	}
	res, t, err := r.Session.CommitTimed(ctx, m.text, r.Params)
	tm.exec = t.Execute
	if err != nil {
		err = m.locate(err)
		r.fail(err)
		return err
	}
	t1 := time.Now()
	for i := range res.Stmts {
		for j := range res.Stmts[i].Notices {
			n := &res.Stmts[i].Notices[j]
			n.Pos = m.pos(n.Pos)
		}
	}
	if r.Format == FormatJSON {
		writeJSON(r.Out, resultJSON(res, len(stmts)))
	} else {
		fmt.Fprintln(r.Out, r.paint(green, Summary(res)))
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
		writeJSON(r.Out, jsonResult{Status: string(gqlstatus.Omitted), Version: r.Session.Version(),
			Notices: []jsonNotice{}, Transaction: tx})
		return
	}
	if !strings.HasPrefix(text, "ok ") {
		text = "ok " + text
	}
	fmt.Fprintln(r.Out, r.paint(green, text))
}

func (r *Runner) fail(err error) {
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

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sourceMap relates the text sent to the engine (statements joined with
// ";\n") to the input they were cut from.
type sourceMap struct {
	src  string
	text string
	at   []int // byte offset of each statement in text
	st   []Stmt
}

func newSourceMap(src string, stmts []Stmt) *sourceMap {
	m := &sourceMap{src: src, st: stmts}
	var b strings.Builder
	for i, s := range stmts {
		if i > 0 {
			b.WriteString(";\n")
		}
		m.at = append(m.at, b.Len())
		b.WriteString(s.Text)
	}
	m.text = b.String()
	return m
}

// segment returns the index of the statement holding byte offset off of
// the joined text.
func (m *sourceMap) segment(off int) int {
	i := 0
	for i+1 < len(m.at) && m.at[i+1] <= off {
		i++
	}
	return i
}

// pos maps a position in the joined text to the input.
func (m *sourceMap) pos(p gqlstatus.Pos) gqlstatus.Pos {
	if !p.Valid() {
		return p
	}
	off := offsetOf(m.text, p.Line, p.Col)
	seg := m.segment(off)
	st := m.st[seg]
	local := off - m.at[seg]
	if local > len(st.Text) {
		local = len(st.Text)
	}
	line, col := lineCol(st.Text, local)
	if line == 1 {
		col += st.Col - 1
	}
	return gqlstatus.Pos{Line: st.Line + line - 1, Col: col, Offset: st.Offset + local}
}

// locate rewrites an engine error so its position, source line and
// statement number refer to the input.
func (m *sourceMap) locate(err error) error {
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) {
		return err
	}
	out := *ge
	switch {
	case ge.Pos.Valid():
		off := offsetOf(m.text, ge.Pos.Line, ge.Pos.Col)
		out.Stmt = m.st[m.segment(off)].Index
		out.Locate(m.pos(ge.Pos), m.src)
	case ge.Stmt > 0 && ge.Stmt <= len(m.st):
		out.Stmt = m.st[ge.Stmt-1].Index
	case len(m.st) == 1:
		out.Stmt = m.st[0].Index
	}
	return &out
}
