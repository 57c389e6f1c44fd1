package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// IO is what the loop reads from and writes to. A script, standard input
// and a test all implement it with ReaderIO; the interactive terminal of a
// later issue implements it with line editing, history and completion.
type IO interface {
	// Next returns the next chunk of input (a line, or a whole script),
	// or io.EOF when the input is over.
	Next() (string, error)
	// Stdout receives results; Stderr receives errors.
	Stdout() io.Writer
	Stderr() io.Writer
	// Interactive reports whether a person is typing: errors then do not
	// end the loop.
	Interactive() bool
}

// ReaderIO is the non-interactive IO: all of R is one input.
type ReaderIO struct {
	R        io.Reader
	Out, Err io.Writer
	done     bool
}

// Next returns the whole of R once, then io.EOF.
func (r *ReaderIO) Next() (string, error) {
	if r.done {
		return "", io.EOF
	}
	r.done = true
	b, err := io.ReadAll(r.R)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// Stdout implements IO.
func (r *ReaderIO) Stdout() io.Writer { return r.Out }

// Stderr implements IO.
func (r *ReaderIO) Stderr() io.Writer { return r.Err }

// Interactive implements IO: a reader is never a person typing.
func (r *ReaderIO) Interactive() bool { return false }

// Options configure a Runner.
type Options struct {
	Format Format
	// FailAtEnd keeps running after an error and reports failure at the
	// end instead of stopping at the first error.
	FailAtEnd bool
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
// first error unless opts.FailAtEnd is set.
func Run(ctx context.Context, s *goldfish.Session, in IO, opts Options) int {
	r := NewRunner(s, in.Stdout(), in.Stderr(), opts.Format)
	failed := false
	for {
		chunk, err := in.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintf(in.Stderr(), "error: reading input: %v\n", err)
			return 1
		}
		if n := r.RunText(ctx, chunk, !in.Interactive() && !opts.FailAtEnd); n > 0 {
			failed = true
			if !in.Interactive() && !opts.FailAtEnd {
				return 1
			}
		}
	}
	if err := r.Close(); err != nil {
		failed = true
	}
	if failed {
		return 1
	}
	return 0
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
	err := &gqlstatus.Error{Code: gqlstatus.Syntax, Stmt: r.txAt.Index,
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
			err := gqlstatus.At(gqlstatus.Syntax, gqlstatus.Pos{Line: st.Line, Col: st.Col, Offset: st.Offset}, src,
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
		return r.commit(ctx, src, stmts)
	case r.inTx:
		r.txBuf = append(r.txBuf, st)
		return nil
	}
	if r.Session.IsRecall(st.Text) {
		return r.recall(ctx, src, st)
	}
	return r.commit(ctx, src, []Stmt{st})
}

// recall runs a read statement and prints its Shape.
func (r *Runner) recall(ctx context.Context, src string, st Stmt) error {
	sh, err := r.Session.Recall(ctx, st.Text, r.Recall)
	if err != nil {
		err = newSourceMap(src, []Stmt{st}).locate(err)
		r.fail(err)
		return err
	}
	if r.Format == FormatJSON {
		writeJSON(r.Out, shapeJSON(sh))
		return nil
	}
	io.WriteString(r.Out, sh.Text)
	return nil
}

// commit sends stmts as one Δ and prints the outcome.
func (r *Runner) commit(ctx context.Context, src string, stmts []Stmt) error {
	m := newSourceMap(src, stmts)
	res, err := r.Session.Commit(ctx, m.text, nil)
	if err != nil {
		err = m.locate(err)
		r.fail(err)
		return err
	}
	for i := range res.Stmts {
		for j := range res.Stmts[i].Notices {
			n := &res.Stmts[i].Notices[j]
			n.Pos = m.pos(n.Pos)
		}
	}
	if r.Format == FormatJSON {
		writeJSON(r.Out, resultJSON(res, len(stmts)))
		return nil
	}
	fmt.Fprintln(r.Out, Summary(res))
	for _, n := range Notices(res) {
		fmt.Fprintln(r.Out, NoticeLine(n))
	}
	return nil
}

// note prints the outcome of a statement that did not reach the engine.
func (r *Runner) note(text, tx string) {
	if r.Format == FormatJSON {
		writeJSON(r.Out, jsonResult{Status: string(gqlstatus.Success), Version: r.Session.Version(),
			Notices: []jsonNotice{}, Transaction: tx})
		return
	}
	if strings.HasPrefix(text, "ok ") {
		fmt.Fprintln(r.Out, text)
		return
	}
	fmt.Fprintln(r.Out, "ok "+text)
}

func (r *Runner) fail(err error) {
	if r.Format == FormatJSON {
		writeJSON(r.Out, errorJSON(err))
	}
	WriteError(r.Err, err)
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
