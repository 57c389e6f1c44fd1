package repl

import (
	"errors"
	"io"
)

// IO is what the loop reads from and writes to. A script, standard input
// and a test implement it with ReaderIO; a terminal implements it with
// TermIO (line editing, history, completion); tests of the interactive
// loop implement it with a list of lines. The loop never touches a
// terminal itself, so the same code runs everywhere (as in xo/usql).
type IO interface {
	// Next returns the next chunk of input: the whole script for a
	// reader, one line (without its newline) for a person. prompt is what
	// a person is shown; readers ignore it. Next returns io.EOF when the
	// input is over and ErrInterrupted when the person pressed Ctrl-C.
	Next(prompt string) (string, error)
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

// ReaderIO is the non-interactive IO: all of R is one input.
type ReaderIO struct {
	R        io.Reader
	Out, Err io.Writer
	done     bool
}

// Next returns the whole of R once, then io.EOF.
func (r *ReaderIO) Next(string) (string, error) {
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
