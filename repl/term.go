package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/peterh/liner"
)

// TermIO is the IO of a person at a terminal: line editing, history and
// Tab completion by peterh/liner. Use it only when standard input and
// output are terminals (StdinIsTerminal, IsTerminal): on piped input liner
// falls back to its own reader and prints prompts into the output, so
// gqlsh uses ReaderIO there instead.
type TermIO struct {
	st      *liner.State
	history string // file; "" keeps history in memory only
	out     io.Writer
	err     io.Writer
}

// MaxHistory is how many entries the history file keeps.
const MaxHistory = 1000

// NewTermIO puts the terminal in line-editing mode and loads the history
// from historyFile (created on first save; "" for no file). Close restores
// the terminal and saves the history.
func NewTermIO(historyFile string) (*TermIO, error) {
	st := liner.NewLiner()
	st.SetCtrlCAborts(true)
	st.SetMultiLineMode(true)
	st.SetTabCompletionStyle(liner.TabPrints)
	t := &TermIO{st: st, history: historyFile, out: os.Stdout, err: os.Stderr}
	if historyFile != "" {
		if f, err := os.Open(historyFile); err == nil {
			st.ReadHistory(f)
			f.Close()
		} else if !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(os.Stderr, "gqlsh: history not loaded: %v\n", err)
		}
	}
	return t, nil
}

// Next shows prompt and reads one line with editing. Ctrl-C at the
// prompt is a key (ErrInterrupted), not a signal; ctx is not consulted,
// since a person is there to end the line.
func (t *TermIO) Next(_ context.Context, prompt string) (string, error) {
	line, err := t.st.Prompt(prompt)
	switch {
	case errors.Is(err, liner.ErrPromptAborted):
		return "", ErrInterrupted
	case err != nil:
		return "", err // io.EOF on Ctrl-D at an empty line
	}
	return line, nil
}

// AddHistory appends entry to the history and saves the file, so a crash
// loses nothing typed before it.
func (t *TermIO) AddHistory(entry string) {
	t.st.AppendHistory(entry)
	t.save()
}

func (t *TermIO) save() {
	if t.history == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(t.history), 0o700); err != nil {
		return
	}
	tmp := t.history + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return
	}
	_, werr := t.st.WriteHistory(f)
	if cerr := f.Close(); werr == nil && cerr == nil {
		os.Rename(tmp, t.history)
	} else {
		os.Remove(tmp)
	}
}

// SetCompleter implements CompleterSetter.
func (t *TermIO) SetCompleter(f func(line string, pos int) (string, []string, string)) {
	t.st.SetWordCompleter(f)
}

// Stdout implements IO.
func (t *TermIO) Stdout() io.Writer { return t.out }

// Stderr implements IO.
func (t *TermIO) Stderr() io.Writer { return t.err }

// Interactive implements IO.
func (t *TermIO) Interactive() bool { return true }

// Close saves the history and gives the terminal back.
func (t *TermIO) Close() error {
	t.save()
	return t.st.Close()
}

// HistoryFile is where gqlsh keeps its history: $GQLSH_HISTORY when set
// (empty: no history file), else gqlsh/history under the user's config
// directory ($XDG_CONFIG_HOME or ~/.config on Linux).
func HistoryFile() string {
	if p, ok := os.LookupEnv("GQLSH_HISTORY"); ok {
		return p
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "gqlsh", "history")
}

// StdinIsTerminal reports whether standard input is a terminal.
func StdinIsTerminal() bool {
	_, err := liner.TerminalMode()
	return err == nil
}
