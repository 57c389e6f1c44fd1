package repl

import (
	"bytes"
	"context"
	"io"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is an output stream a test can wait on while the loop writes
// to it from another goroutine.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{}
	// onWrite, when set, is called (under the lock) before each write.
	onWrite func()
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{changed: make(chan struct{}, 1)} }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.onWrite != nil {
		s.onWrite()
	}
	n, err := s.b.Write(p)
	select {
	case s.changed <- struct{}{}:
	default:
	}
	return n, err
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until the stream holds want. The deadline only keeps a
// broken loop from hanging the test; nothing is measured.
func (s *syncBuffer) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for !strings.Contains(s.String(), want) {
		select {
		case <-s.changed:
		case <-deadline:
			t.Fatalf("output never showed %q; it holds:\n%s", want, s.String())
		}
	}
}

// TestStatementsRunAsTheyAreRead feeds a pipe that stays open: each
// statement must run once its ';' has been read, before the input ends.
func TestStatementsRunAsTheyAreRead(t *testing.T) {
	_, s := newDB(t)
	pr, pw := io.Pipe()
	out, errOut := newSyncBuffer(), newSyncBuffer()
	done := make(chan int, 1)
	go func() {
		done <- runShell(t, context.Background(), s, &ReaderIO{R: pr, Out: out, Err: errOut}, Options{})
	}()

	io.WriteString(pw, "INSERT (:A);\n")
	out.waitFor(t, "ok v=1 +1 node\n")
	io.WriteString(pw, "INSERT (:B); INSERT (:C")
	out.waitFor(t, "ok v=2 +1 node\n")
	io.WriteString(pw, ");\n")
	out.waitFor(t, "ok v=3 +1 node\n")
	io.WriteString(pw, ":params\n")
	out.waitFor(t, "no parameters")
	io.WriteString(pw, "INSERT (:D)") // the last statement needs no ';'
	pw.Close()
	if code := <-done; code != 0 || s.Version() != 4 || errOut.String() != "" {
		t.Fatalf("exit %d at version %d\nstdout:\n%s\nstderr:\n%s", code, s.Version(), out.String(), errOut.String())
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestBinaryInput: a 3 MB file that is not text is refused at its first
// bad byte, with its position, once read that far, and with a line of
// stderr, not megabytes of it.
func TestBinaryInput(t *testing.T) {
	_, s := newDB(t)
	bin := make([]byte, 3<<20)
	rand.New(rand.NewSource(1)).Read(bin)
	n := copy(bin, "INSERT (:A);\nINSERT (:B {x: 'ok'})")
	for i := n; i < 40; i++ {
		bin[i] = ' '
	}
	bin[40] = 0xff
	src := &countingReader{r: bytes.NewReader(bin)}
	var out bytes.Buffer
	errOut := newSyncBuffer()
	readAtError := -1
	errOut.onWrite = func() {
		if readAtError < 0 {
			readAtError = src.n
		}
	}
	code := runShell(t, context.Background(), s, &ReaderIO{R: src, Out: &out, Err: errOut}, Options{})
	e := errOut.String()
	if code != 1 || out.String() != "ok v=1 +1 node\n" || !strings.Contains(e, "GQLSTATUS 42001: statement 2: the input is not valid UTF-8 here (byte 0xFF)") ||
		!strings.Contains(e, "(line 2, column 28)") {
		t.Fatalf("exit %d\nstdout: %q\nstderr: %q", code, out.String(), e)
	}
	if len(e) > 1024 {
		t.Errorf("%d bytes of stderr for one error", len(e))
	}
	if readAtError > 2*ChunkSize {
		t.Errorf("%d bytes read before the error was shown; the bad byte is at 40", readAtError)
	}
}

// TestStatementSizeLimit: a statement that grows past the limit is
// refused where it starts, without being read whole; with --fail-at-end
// the run goes on after its ';'.
func TestStatementSizeLimit(t *testing.T) {
	_, s := newDB(t)
	text := "INSERT (:A);\n  INSERT (:B {s: '" + strings.Repeat("x", MaxStatementBytes+10) + "'});\nINSERT (:C);\n"
	src := &countingReader{r: strings.NewReader(text)}
	var out bytes.Buffer
	errOut := newSyncBuffer()
	readAtError := -1
	errOut.onWrite = func() {
		if readAtError < 0 {
			readAtError = src.n
		}
	}
	code := runShell(t, context.Background(), s, &ReaderIO{R: src, Out: &out, Err: errOut}, Options{FailAtEnd: true})
	e := errOut.String()
	want := "GQLSTATUS 42Q01: statement 2: the statement starting here is longer than 1 MiB (the most one statement may hold); " +
		"end statements with ';', and split a large one into several (line 2, column 3)\n    INSERT (:B {s: 'xxx"
	if code != 1 || out.String() != "ok v=1 +1 node\nok v=2 +1 node\n" || !strings.HasPrefix(e, want) || len(e) > 1024 {
		t.Fatalf("exit %d\nstdout: %q\nstderr: %q", code, out.String(), e)
	}
	if readAtError > MaxStatementBytes+2*ChunkSize {
		t.Errorf("%d bytes read before the error was shown", readAtError)
	}
}

func TestByteOrderMark(t *testing.T) {
	_, s := newDB(t)
	out, errOut, code := runText(t, s, "\ufeffINSERT (:A);\nINSERT (:B {x: });", Options{})
	if code != 1 || out != "ok v=1 +1 node\n" || !strings.Contains(errOut, "(line 2, column 16)\n  INSERT (:B {x: });\n                 ^\n") {
		t.Fatalf("exit %d\nstdout: %q\nstderr: %q", code, out, errOut)
	}
	// a meta-command on the first line after the mark
	out, errOut, code = runText(t, s, "\ufeff:params\n", Options{})
	if code != 0 || out != "no parameters; :param NAME VALUE sets one\n" {
		t.Fatalf("exit %d\nstdout: %q\nstderr: %q", code, out, errOut)
	}
}

// TestChunkBoundaries cuts a script at every byte: the items and their
// positions do not depend on how the input arrives.
func TestChunkBoundaries(t *testing.T) {
	text := "\ufeff-- c\n:set M 2\nINSERT (:A {s: 'a;\\'b', t: \"é;\"}); /* x; */ INSERT (:`b;``` {k: 1})// y;\n;\n" +
		"MATCH (a) -- z;\n SET a.x = 1 - 2;\n  :use w\nINSERT (:日本 {x: 'wide'});INSERT"
	render := func(items []Item) []string {
		var out []string
		for _, it := range items {
			switch {
			case it.Meta != nil:
				out = append(out, "meta "+it.Meta.Text+" @"+itoa(it.Meta.Line)+":"+itoa(it.Meta.Col))
			case it.Stmt != nil:
				st := it.Stmt
				out = append(out, "stmt "+st.Text+" @"+itoa(st.Line)+":"+itoa(st.Col)+" #"+itoa(st.Index)+" lead="+st.Lead)
			default:
				out = append(out, "err "+it.Err.Error())
			}
		}
		return out
	}
	want := render(Segment(text))
	if len(want) != 7 {
		t.Fatalf("whole text: %q", want)
	}
	for cut := 1; cut < len(text); cut++ {
		sc := NewScanner("", true)
		var items []Item
		for _, part := range []string{text[:cut], text[cut:]} {
			sc.Feed(part)
			for {
				it, ok := sc.Next()
				if !ok {
					break
				}
				items = append(items, it)
			}
		}
		sc.End()
		for {
			it, ok := sc.Next()
			if !ok {
				break
			}
			items = append(items, it)
		}
		if got := render(items); !slices.Equal(got, want) {
			t.Fatalf("cut at %d:\n%q\nwant\n%q", cut, got, want)
		}
	}
}

func TestLoneSemicolon(t *testing.T) {
	_, s := newDB(t)
	in := &linesIO{lines: []string{";", "  ;  ;", "INSERT (:A);"}}
	if code := runShell(t, context.Background(), s, in, Options{}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if want := []string{"main> ", "main> ", "main> ", "main> "}; !slices.Equal(in.prompts, want) {
		t.Errorf("prompts %q, want %q", in.prompts, want)
	}
	if in.err.Len() > 0 || in.out.String() != "ok v=1 +1 node\n\n" {
		t.Errorf("stdout %q stderr %q", in.out.String(), in.err.String())
	}
}

// BenchmarkScanner cuts a script of 50,000 one-line statements.
func BenchmarkScanner(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 50000; i++ {
		sb.WriteString("INSERT (:A {x: " + itoa(i) + ", s: 'a;b'}); -- note\n")
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		sc := NewScanner("", true)
		for off := 0; off < len(text); off += ChunkSize {
			sc.Feed(text[off:min(off+ChunkSize, len(text))])
			for {
				if _, ok := sc.Next(); !ok {
					break
				}
			}
		}
	}
}
