package repl

import (
	"bufio"
	"errors"
	"io"
	"syscall"
)

// output is a buffered results stream that remembers the first error of
// the writer under it. Results are buffered so that a script of many
// statements costs a write per chunk, not per statement; the loop flushes
// before it waits for input and before anything goes to the error stream,
// so what a person or a pipe sees stays in order and up to date.
type output struct {
	w   *recorder
	buf *bufio.Writer
}

// recorder passes writes on and keeps the first error.
type recorder struct {
	w   io.Writer
	err error
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.w.Write(p)
	if err != nil {
		r.err = err
	}
	return n, err
}

func newOutput(w io.Writer) *output {
	rec := &recorder{w: w}
	return &output{w: rec, buf: bufio.NewWriterSize(rec, 32<<10)}
}

func (o *output) Write(p []byte) (int, error) { return o.buf.Write(p) }

// Flush writes out what is buffered.
func (o *output) Flush() error {
	if err := o.buf.Flush(); err != nil {
		return err
	}
	return o.w.err
}

// Err is the first error of the writer under o.
func (o *output) Err() error { return o.w.err }

// errStream writes to the error stream after flushing the results, so an
// error follows the results before it on a terminal or in a file that
// both streams go to.
type errStream struct {
	flush func()
	w     io.Writer
}

func (e errStream) Write(p []byte) (int, error) {
	e.flush()
	return e.w.Write(p)
}

// brokenPipe reports whether err is a write to a pipe whose reader has
// gone (gqlsh … | head -1).
func brokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE)
}
