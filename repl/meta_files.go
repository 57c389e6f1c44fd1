package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// The meta-commands that read or write files: :source, :output, :backup.

// fileErr words a failed open, read or write of path for a person: the
// path once (os errors already hold it), what went wrong, what to do.
func fileErr(what, path string, err error) *gqlstatus.Error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	hint := ""
	switch {
	case errors.Is(err, fs.ErrNotExist):
		hint = "check the path; relative paths start in gqlsh's working directory"
	case errors.Is(err, fs.ErrPermission):
		hint = "check the file's permissions"
	}
	return metaErrorf(codeFile, hint, "%s %s: %v", what, path, err)
}

// OpenScript opens path as a file of statements, as gqlsh -f FILE and
// :source FILE read it: an error carries 42Q05 and says what to do.
func OpenScript(path string) (*os.File, error) { return openText("cannot read", path) }

// openText opens path for reading as a script: not a directory.
func openText(what, path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileErr(what, path, err)
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, metaErrorf(codeFile, "give a file of statements", "%s %s: it is a directory, not a file", what, path)
	}
	return f, nil
}

// maxSourceDepth bounds :source inside :source.
const maxSourceDepth = 16

// errSourced marks a :source whose errors were already printed.
var errSourced = errors.New("sourced file failed")

func (sh *Shell) metaSource(ctx context.Context, args []string) error {
	if err := wantArgs(args, 1, 1, ":source FILE"); err != nil {
		return err
	}
	if sh.depth >= maxSourceDepth {
		return metaErrorf(codeUsage, "a file that sources itself never ends", ":source nested more than %d deep", maxSourceDepth)
	}
	path := args[0]
	f, err := openText("cannot read", path)
	if err != nil {
		return err
	}
	defer f.Close()
	sh.depth++
	check := sh.r.CheckEach
	sh.r.CheckEach = false // a file's transaction is checked at its COMMIT
	defer func() { sh.depth--; sh.r.CheckEach = check }()

	// The file is read and run as a script is, a chunk at a time, so a
	// file of any size starts at once and Ctrl-C stops it between two
	// statements or inside one.
	stop := !sh.in.Interactive() && !sh.opts.FailAtEnd
	sc := NewScanner(path, true)
	buf := make([]byte, ChunkSize)
	failed := 0
	sh.last.ran = false
	for {
		n, rerr := f.Read(buf)
		if n > 0 {
			sc.Feed(string(buf[:n]))
		}
		if rerr == io.EOF {
			sc.End()
		} else if rerr != nil {
			return fileErr("cannot read", path, rerr)
		}
		k, stopped := sh.drain(ctx, sc, stop)
		failed += k
		if ctx.Err() != nil {
			sh.sourceStopped(path, sc.line)
			return errSourced
		}
		if stopped || rerr == io.EOF {
			break
		}
	}
	if failed > 0 {
		// the statements' errors are printed already; this one says where
		fmt.Fprintf(sh.r.Err, "%s: %d %s failed\n", path, failed, plural(failed, "statement", "statements"))
		return errSourced
	}
	return nil
}

// sourceStopped says where Ctrl-C stopped a :source of path, by the last
// statement it ran: cut short (nothing of it applied), or done (it stays
// applied, and the file's statements after it were not run). at is the
// scan position, for a stop before any statement ran.
func (sh *Shell) sourceStopped(path string, at int) {
	v := sh.r.Session.Version()
	switch {
	case !sh.last.ran:
		fmt.Fprintf(sh.r.Err, "%s:%d: stopped (Ctrl-C) before its first statement ran; nothing of it applied (v=%d)\n", path, at, v)
	case sh.last.cut:
		fmt.Fprintf(sh.r.Err, "%s:%d: stopped (Ctrl-C) in the statement at this line, which applied nothing; the statements before it stay applied (v=%d)\n", path, sh.last.line, v)
	default:
		fmt.Fprintf(sh.r.Err, "%s:%d: stopped (Ctrl-C) after the statement at this line; it and the statements before it stay applied (v=%d), the rest of the file did not run\n", path, sh.last.line, v)
	}
}

// outputFile is where :output FILE sends results.
type outputFile struct {
	path string
	f    *os.File
	out  *output
	// color is the shell's colour setting before :output, given back
	// after: a file gets plain text, as psql's \o writes it, unless it
	// is a terminal.
	color bool
}

func (sh *Shell) metaOutput(_ context.Context, args []string) error {
	if err := wantArgs(args, 0, 1, ":output [FILE]"); err != nil {
		return err
	}
	if len(args) == 0 {
		if sh.outFile == nil {
			sh.printf("output is standard output\n")
			return nil
		}
		path := sh.outFile.path
		if err := sh.closeOutput(); err != nil {
			return err
		}
		sh.printf("output back to standard output (results were written to %s)\n", path)
		return nil
	}
	path := args[0]
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return metaErrorf(codeFile, "give a file name", "cannot write %s: it is a directory, not a file", path)
	}
	f, err := os.Create(path)
	if err != nil {
		return fileErr("cannot write", path, err)
	}
	if err := sh.closeOutput(); err != nil {
		f.Close()
		return err
	}
	sh.outFile = &outputFile{path: path, f: f, out: newOutput(f), color: sh.r.Color}
	sh.r.Out = sh.outFile.out
	sh.r.Color = sh.r.Color && IsTerminal(f)
	return nil
}

// closeOutput ends :output FILE: the results go to standard output again.
func (sh *Shell) closeOutput() error {
	o := sh.outFile
	if o == nil {
		return nil
	}
	sh.outFile = nil
	sh.r.Out = sh.stdout
	sh.r.Color = o.color
	err := o.out.Flush()
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fileErr("cannot write", o.path, err)
	}
	return nil
}

func (sh *Shell) metaBackup(ctx context.Context, args []string) error {
	if err := wantArgs(args, 1, 1, ":backup PATH (a new file)"); err != nil {
		return err
	}
	dst := args[0]
	if sh.host == nil {
		return metaErrorf(codeUsage, "run gqlsh on a cabinet file", "nothing to back up: this shell runs on one session")
	}
	if _, err := os.Lstat(dst); err == nil {
		return metaErrorf(codeFile, "", "%s exists; :backup writes a new file (pick another name, or remove it first)", dst)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fileErr("cannot write", dst, err)
	}
	path, err := sh.host.Backup(ctx, dst)
	switch {
	case err != nil:
		var ge *gqlstatus.Error
		if errors.As(err, &ge) {
			return err // the server's refusal, or the lost copy: its code says which
		}
		return fileErr("cannot back up to", dst, err)
	case path == "":
		return metaErrorf(codeUsage, "run gqlsh on a cabinet file", "nothing to back up: the sessions are in memory (%s --mem)", sh.command())
	}
	size := ""
	if fi, err := os.Stat(dst); err == nil {
		size = fmt.Sprintf(" (%d bytes)", fi.Size())
	}
	sh.printf("backed up %s to %s%s\n", path, dst, size)
	return nil
}
