package repl

import (
	"context"
	"errors"
	"io"
)

// IO is what the loop reads from and writes to. A script, standard input
// and a test implement it with ReaderIO; a terminal implements it with
// TermIO (line editing, history, completion); tests of the interactive
// loop implement it with a list of lines. The loop never touches a
// terminal itself, so the same code runs everywhere (as in xo/usql).
type IO interface {
	// Next returns the next piece of input: whatever a reader has read
	// (statements run as soon as their ';' has arrived, whatever comes
	// after it), one line (without its newline) for a person. prompt is
	// what a person is shown; readers ignore it. Next returns io.EOF when
	// the input is over, ErrEndOfSource between two inputs of several
	// (repeated -c), ErrInterrupted when the person pressed Ctrl-C at the
	// prompt, and ctx's error when ctx ends while it waits.
	Next(ctx context.Context, prompt string) (string, error)
	// Stdout receives results; Stderr receives errors.
	Stdout() io.Writer
	Stderr() io.Writer
	// Interactive reports whether a person is typing: input then comes
	// line by line, statements run when a ';' ends them, and errors do
	// not end the loop.
	Interactive() bool
}

// ErrInterrupted is what Next returns when the person pressed Ctrl-C: the
// loop drops the statement being typed and prompts again.
var ErrInterrupted = errors.New("interrupted")

// ErrEndOfSource is what Next returns at the end of one input when another
// follows: the loop ends the input's last statement there, and the next
// input is cut on its own, with its own line numbers.
var ErrEndOfSource = errors.New("end of one input")

// Sourcer is implemented by an IO that can name the input Next reads (a
// file name, for errors printed as psql prints them: "FILE:LINE:COL: …").
type Sourcer interface {
	Source() string
}

// Historian is implemented by an IO that keeps a history: the loop adds
// each entry it runs (a statement batch folded onto one line by
// HistoryLine, or a meta-command).
type Historian interface {
	AddHistory(entry string)
}

// CompleterSetter is implemented by an IO that completes on Tab; the loop
// hands it Shell.Complete.
type CompleterSetter interface {
	SetCompleter(func(line string, pos int) (head string, completions []string, tail string))
}

// Input is one non-interactive input: its name in error messages (a file
// name, or "" for standard input and -c) and its text.
type Input struct {
	Name string
	R    io.Reader
}

// ChunkSize is how much a ReaderIO reads at once.
const ChunkSize = 64 << 10

// ReaderIO is the non-interactive IO: R (named Name), or the Inputs one
// after another, each passed on as it is read.
type ReaderIO struct {
	R        io.Reader
	Name     string
	Inputs   []Input
	Out, Err io.Writer

	at     int // the input being read
	buf    []byte
	failed bool // a read was abandoned when its context ended
}

func (r *ReaderIO) inputs() []Input {
	if r.Inputs == nil && r.R != nil {
		r.Inputs = []Input{{Name: r.Name, R: r.R}}
	}
	return r.Inputs
}

// Source implements Sourcer.
func (r *ReaderIO) Source() string {
	if in := r.inputs(); r.at < len(in) {
		return in[r.at].Name
	}
	return ""
}

type readResult struct {
	n   int
	err error
}

// Next returns what the next read of the input gives. A read that blocks
// (a pipe kept open) is abandoned when ctx ends, so Ctrl-C stops a run
// that waits for input; the reader is not used again.
func (r *ReaderIO) Next(ctx context.Context, _ string) (string, error) {
	in := r.inputs()
	for {
		if r.at >= len(in) {
			return "", io.EOF
		}
		if r.failed {
			return "", errors.New("input abandoned")
		}
		if r.buf == nil {
			r.buf = make([]byte, ChunkSize)
		}
		n, err := r.read(ctx, in[r.at].R)
		if n > 0 {
			// The error, if any, comes back from the next read.
			return string(r.buf[:n]), nil
		}
		if err == io.EOF {
			r.at++
			if r.at < len(in) {
				return "", ErrEndOfSource
			}
			return "", io.EOF
		}
		if err != nil {
			return "", err
		}
	}
}

func (r *ReaderIO) read(ctx context.Context, src io.Reader) (int, error) {
	if ctx.Done() == nil {
		return src.Read(r.buf)
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	done := make(chan readResult, 1)
	buf := r.buf
	go func() {
		n, err := src.Read(buf)
		done <- readResult{n, err}
	}()
	select {
	case res := <-done:
		return res.n, res.err
	case <-ctx.Done():
		r.failed = true // the read still owns the buffer
		return 0, ctx.Err()
	}
}

// Stdout implements IO.
func (r *ReaderIO) Stdout() io.Writer { return r.Out }

// Stderr implements IO.
func (r *ReaderIO) Stderr() io.Writer { return r.Err }

// Interactive implements IO: a reader is never a person typing.
func (r *ReaderIO) Interactive() bool { return false }
