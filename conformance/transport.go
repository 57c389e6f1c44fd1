package conformance

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path"
	"strings"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/repl"
)

// Transport is how an engine reaches its sessions: the calls a directive
// makes on the session it names, and the starts over "reset" and
// "reopen" make. The engine formats every answer itself, so a run over
// any transport is judged on the same text. A refusal of the database
// (a GQLSTATUS error) is returned as the error of the call, as the Go API
// returns it; a Transport returns a *Skip for what it cannot do.
type Transport interface {
	Commit(ctx context.Context, session, text string, mint string, agent string) (*goldfish.CommitResult, error)
	Recall(ctx context.Context, session, q string, o goldfish.RecallOptions) (*goldfish.Shape, error)
	Dump(ctx context.Context, session string) (string, error)
	Vocabulary(ctx context.Context, session string) (*goldfish.Vocabulary, error)
	// Help is the text of a help topic, as goldfish.Help gives it.
	Help(ctx context.Context, topic string) (string, error)
	AttentionSettings(ctx context.Context, session string) (goldfish.AttentionSettings, error)
	SetAttentionSettings(ctx context.Context, session string, set goldfish.AttentionSettings) error
	PinnedKinds(ctx context.Context, session string) ([]string, error)
	SetPinnedKinds(ctx context.Context, session string, kinds []string) error
	ExportSlice(ctx context.Context, session, q string, o goldfish.SliceOptions) (*goldfish.Slice, error)
	Absorb(ctx context.Context, session, slice string, policy goldfish.AbsorbPolicy, agent string) (*goldfish.AbsorbResult, error)
	Diff(ctx context.Context, session string, from, to uint64, o goldfish.DiffOptions) (*goldfish.Diff, error)
	History(ctx context.Context, session, nick string, limit int) (*goldfish.History, error)
	// DumpAt is Dump at a version the session keeps readable.
	DumpAt(ctx context.Context, session string, v uint64) (string, error)
	// Script runs text through gqlsh's statement loop on the session and
	// returns what it printed (standard output, then standard error) and
	// its exit status.
	Script(ctx context.Context, session, text string, format repl.Format) (out string, code int, err error)
	// Reset starts over on fresh, empty sessions (cabinet: sessions a
	// Reopen can read back).
	Reset(ctx context.Context, cabinet bool) error
	// Reopen makes what follows read the sessions as a new process would
	// (after a flush of every session when flush is set).
	Reopen(ctx context.Context, flush bool) error
	Close() error
}

// Skip is the error of a directive a transport cannot judge, and why.
type Skip struct {
	Reason string
	// Applied says the directive's effects were made all the same (a
	// script's statements sent as the shell sends them), so the
	// sessions are as the file expects and what follows is judged.
	Applied bool
}

func (s *Skip) Error() string { return "skipped: " + s.Reason }

// failure is a transport's own failure (not a refusal of the database):
// the directive fails with it instead of printing it.
type failure struct{ err error }

func (f *failure) Error() string { return f.err.Error() }
func (f *failure) Unwrap() error { return f.err }

// embedded is the Transport over a goldfish.DB in this process.
type embedded struct {
	db *goldfish.DB
	// dir holds the cabinet file of a "reset cabinet" engine ("" in
	// memory).
	dir string
	// storage, when set, makes every database the engine opens (opts
	// opens the current one again, remove removes it).
	storage Storage
	opts    []goldfish.Option
	remove  func()
}

func (t *embedded) session(ctx context.Context, name string) (*goldfish.Session, error) {
	s, err := t.db.Session(ctx, name)
	if err != nil {
		return nil, &failure{err}
	}
	return s, nil
}

func (t *embedded) Commit(ctx context.Context, session, text, mint, agent string) (*goldfish.CommitResult, error) {
	s, err := t.session(ctx, session)
	if err != nil {
		return nil, err
	}
	if mint == "ingest" {
		return s.IngestWith(ctx, text, nil, goldfish.CommitOptions{Agent: agent})
	}
	return s.CommitWith(ctx, text, nil, goldfish.CommitOptions{Agent: agent})
}

func (t *embedded) Recall(ctx context.Context, session, q string, o goldfish.RecallOptions) (*goldfish.Shape, error) {
	s, err := t.session(ctx, session)
	if err != nil {
		return nil, err
	}
	return s.Recall(ctx, q, o)
}

func (t *embedded) Dump(ctx context.Context, session string) (string, error) {
	s, err := t.session(ctx, session)
	if err != nil {
		return "", err
	}
	return s.Dump(), nil
}

func (t *embedded) Diff(ctx context.Context, session string, from, to uint64, o goldfish.DiffOptions) (*goldfish.Diff, error) {
	s, err := t.session(ctx, session)
	if err != nil {
		return nil, err
	}
	return s.Diff(ctx, from, to, o)
}

func (t *embedded) History(ctx context.Context, session, nick string, limit int) (*goldfish.History, error) {
	s, err := t.session(ctx, session)
	if err != nil {
		return nil, err
	}
	return s.History(ctx, nick, limit)
}

func (t *embedded) DumpAt(ctx context.Context, session string, v uint64) (string, error) {
	s, err := t.session(ctx, session)
	if err != nil {
		return "", err
	}
	return s.DumpAt(ctx, v)
}

func (t *embedded) Help(_ context.Context, topic string) (string, error) {
	if text, ok := goldfish.Help(topic); ok {
		return text, nil
	}
	return "", goldfish.ErrNoHelp(topic)
}

func (t *embedded) Vocabulary(ctx context.Context, session string) (*goldfish.Vocabulary, error) {
	s, err := t.session(ctx, session)
	if err != nil {
		return nil, err
	}
	return s.Vocabulary(ctx)
}

func (t *embedded) AttentionSettings(ctx context.Context, session string) (goldfish.AttentionSettings, error) {
	s, err := t.session(ctx, session)
	if err != nil {
		return goldfish.AttentionSettings{}, err
	}
	return s.AttentionSettings(ctx)
}

func (t *embedded) SetAttentionSettings(ctx context.Context, session string, set goldfish.AttentionSettings) error {
	s, err := t.session(ctx, session)
	if err != nil {
		return err
	}
	return s.SetAttentionSettings(ctx, set)
}

func (t *embedded) PinnedKinds(ctx context.Context, session string) ([]string, error) {
	s, err := t.session(ctx, session)
	if err != nil {
		return nil, err
	}
	return s.PinnedKinds(ctx)
}

func (t *embedded) SetPinnedKinds(ctx context.Context, session string, kinds []string) error {
	s, err := t.session(ctx, session)
	if err != nil {
		return err
	}
	return s.SetPinnedKinds(ctx, kinds)
}

func (t *embedded) ExportSlice(ctx context.Context, session, q string, o goldfish.SliceOptions) (*goldfish.Slice, error) {
	s, err := t.session(ctx, session)
	if err != nil {
		return nil, err
	}
	return s.ExportSlice(ctx, q, o)
}

func (t *embedded) Absorb(ctx context.Context, session, slice string, policy goldfish.AbsorbPolicy, agent string) (*goldfish.AbsorbResult, error) {
	s, err := t.session(ctx, session)
	if err != nil {
		return nil, err
	}
	return s.AbsorbWith(ctx, slice, policy, goldfish.CommitOptions{Agent: agent})
}

func (t *embedded) Script(ctx context.Context, session, text string, format repl.Format) (string, int, error) {
	s, err := t.session(ctx, session)
	if err != nil {
		return "", 0, err
	}
	var out, errOut bytes.Buffer
	code := repl.Run(ctx, s, &repl.ReaderIO{R: strings.NewReader(text), Out: &out, Err: &errOut}, repl.Options{Format: format})
	return out.String() + errOut.String(), code, nil
}

// Close closes the database and removes its cabinet file.
func (t *embedded) Close() error {
	var err error
	if t.db != nil {
		err = t.db.Close()
	}
	if t.dir != "" {
		os.RemoveAll(t.dir)
	}
	if t.remove != nil {
		t.remove()
	}
	t.db, t.dir, t.opts, t.remove = nil, "", nil, nil
	return err
}

// Reset starts over on a fresh database: in memory, or on a new cabinet
// file that "reopen" closes and opens again.
func (t *embedded) Reset(_ context.Context, cabinet bool) error {
	t.Close()
	if t.storage != nil {
		opts, remove, err := t.storage()
		if err != nil {
			return err
		}
		t.opts, t.remove = opts, remove
		t.db, err = goldfish.Open(opts...)
		return err
	}
	if cabinet {
		dir, err := os.MkdirTemp("", "goldfish-conformance-")
		if err != nil {
			return err
		}
		t.dir = dir
		t.opts = []goldfish.Option{goldfish.WithCabinet(path.Join(dir, "cabinet.gf"))}
	}
	db, err := goldfish.Open(t.opts...)
	if err != nil {
		return err
	}
	t.db = db
	return nil
}

// Reopen closes the database and opens it again, after a flush of every
// session when flush is set, so what follows reads the sessions as a new
// process would: hydrated from snapshots and logs.
func (t *embedded) Reopen(ctx context.Context, flush bool) error {
	if t.storage == nil && t.dir == "" {
		return errors.New(`reopen: the engine is in memory; start the file with "reset cabinet"`)
	}
	if flush {
		if err := t.db.Flush(ctx); err != nil {
			return err
		}
	}
	if err := t.db.Close(); err != nil {
		return err
	}
	db, err := goldfish.Open(t.opts...)
	if err != nil {
		return err
	}
	t.db = db
	return nil
}
