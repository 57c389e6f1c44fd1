package repl

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish"
)

// slowDB is a session whose cartesian MATCH runs for minutes: 300 nodes
// and a work budget that does not stop it, so only Ctrl-C does.
func slowDB(t *testing.T) (*goldfish.DB, *goldfish.Session, string) {
	t.Helper()
	db, err := goldfish.Open(goldfish.WithCommitBudget(goldfish.Budget{Work: 1 << 50}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := db.Session(context.Background(), "main")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("INSERT ")
	for i := 0; i < 300; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(:A {x: %d})", i)
	}
	if _, err := s.Commit(context.Background(), b.String(), nil); err != nil {
		t.Fatal(err)
	}
	return db, s, "MATCH (a:A), (b:A), (c:A) WHERE a.x + b.x + c.x = -1 SET a.y = 1;"
}

// interrupter presses Ctrl-C every few milliseconds until stopped: the
// statement in between is stopped however long it takes to start.
type interrupter struct {
	stop, done chan struct{}
}

func pressCtrlC(sh *Shell) *interrupter {
	it := &interrupter{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(it.done)
		for {
			select {
			case <-it.stop:
				return
			case <-time.After(5 * time.Millisecond):
				sh.Interrupt()
			}
		}
	}()
	return it
}

func (it *interrupter) release() {
	select {
	case <-it.stop:
	default:
		close(it.stop)
	}
	<-it.done
}

// TestInterruptStatement: Ctrl-C at a terminal stops the running statement
// through its context; the loop prompts again and the session lives on.
func TestInterruptStatement(t *testing.T) {
	db, s, slow := slowDB(t)
	in := &linesIO{lines: []string{slow, "INSERT (:B);"}}
	sh := newShell(t, s, in, Options{DB: db})
	var ctrlC *interrupter
	in.onNext = func(i int) {
		switch i {
		case 0:
			ctrlC = pressCtrlC(sh) // while the slow statement runs
		case 1:
			ctrlC.release()
		}
	}
	if code := sh.Loop(context.Background()); code != 0 {
		t.Fatalf("exit %d", code)
	}
	e := in.err.String()
	if !strings.Contains(e, "GQLSTATUS 40000: statement 1: Δ stopped: the call was cancelled before it finished") || !strings.Contains(e, "(line 1, column 1)") {
		t.Errorf("stderr: %s", e)
	}
	if !strings.Contains(in.out.String(), "ok v=2 +1 node\n") || s.Version() != 2 {
		t.Errorf("after Ctrl-C: version %d, stdout %q", s.Version(), in.out.String())
	}
}

// TestInterruptSource: Ctrl-C stops a :source between two statements (or
// inside one) and returns to the prompt; what ran stays applied, and the
// line named is the last statement's, said applied or not as it was.
func TestInterruptSource(t *testing.T) {
	db, s := newDB(t)
	file := filepath.Join(t.TempDir(), "many.gql")
	var b strings.Builder
	for i := 0; i < 200000; i++ {
		fmt.Fprintf(&b, "INSERT (:N {i: %d});\n", i)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	in := &linesIO{lines: []string{":output " + os.DevNull, ":source " + file, ":output", ":sessions"}}
	sh := newShell(t, s, in, Options{DB: db})
	var ctrlC *interrupter
	in.onNext = func(i int) {
		switch i {
		case 1:
			ctrlC = pressCtrlC(sh) // while the :source runs
		case 2:
			ctrlC.release()
		}
	}
	if code := sh.Loop(context.Background()); code != 0 {
		t.Fatalf("exit %d", code)
	}
	// The line it names is the last statement's: applied (v is its line,
	// one INSERT a line) or cut short (the line after v's).
	v := s.Version()
	after := fmt.Sprintf("%s:%d: stopped (Ctrl-C) after the statement at this line; it and the statements before it stay applied (v=%d)", file, v, v)
	inside := fmt.Sprintf("%s:%d: stopped (Ctrl-C) in the statement at this line, which applied nothing; the statements before it stay applied (v=%d)", file, v+1, v)
	if e := in.err.String(); !strings.Contains(e, after) && !strings.Contains(e, inside) {
		t.Errorf("stderr: %s\nwant %q or %q", e, after, inside)
	}
	if v >= 200000 || !strings.Contains(in.out.String(), fmt.Sprintf("* main v=%d nodes=%d", v, v)) {
		t.Errorf("version %d; stdout %s", v, in.out.String())
	}
}

// TestInterruptScript: in a script Ctrl-C stops the run, even one that
// waits for input on a pipe kept open, with ExitInterrupted.
func TestInterruptScript(t *testing.T) {
	_, s := newDB(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	out := newSyncBuffer()
	var errOut bytes.Buffer
	sh := newShell(t, s, &ReaderIO{R: pr, Out: out, Err: &errOut}, Options{})
	done := make(chan int, 1)
	go func() { done <- sh.Loop(context.Background()) }()
	io.WriteString(pw, "INSERT (:A);\n")
	out.waitFor(t, "ok v=1 +1 node\n")
	sh.Interrupt() // the loop waits in a read of the pipe
	if code := <-done; code != ExitInterrupted || !strings.Contains(errOut.String(), "interrupted (Ctrl-C)") {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
}

// TestInterruptScriptStatement: Ctrl-C during a script's statement stops
// the statement and the run.
func TestInterruptScriptStatement(t *testing.T) {
	_, s, slow := slowDB(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	var out bytes.Buffer
	errOut := newSyncBuffer()
	sh := newShell(t, s, &ReaderIO{R: pr, Out: &out, Err: errOut}, Options{})
	done := make(chan int, 1)
	go func() { done <- sh.Loop(context.Background()) }()
	io.WriteString(pw, slow+"\nINSERT (:B);\n")
	ctrlC := pressCtrlC(sh)
	code := <-done
	ctrlC.release()
	// The first Ctrl-C comes while the slow statement runs (it ends only
	// so), and the statement after it never runs.
	if code != ExitInterrupted || s.Version() != 1 || !strings.Contains(errOut.String(), "interrupted (Ctrl-C)") {
		t.Fatalf("exit %d, version %d, stderr %q", code, s.Version(), errOut.String())
	}
	// It names the statement cut short, and says it applied nothing.
	if want := "interrupted (Ctrl-C) in the statement at standard input:1, which applied nothing; the statements that ran before stay applied (v=1)"; !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
}
