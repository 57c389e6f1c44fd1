package repl

import (
	"context"
	"io"
	"os"

	"github.com/goldfish-gql/goldfish"
)

// Session is what the shell calls on its session: the calls of
// *goldfish.Session it uses, so that the same shell runs on an embedded
// database and, through package client, on a server (gqlsh --url).
type Session interface {
	Name() string
	Version() uint64
	Prepare(text string) (isRecall bool, t goldfish.Timing, err error)
	IsRecall(text string) bool
	RecallTimed(ctx context.Context, q string, o goldfish.RecallOptions) (*goldfish.Shape, goldfish.Timing, error)
	CommitWith(ctx context.Context, text string, params map[string]any, o goldfish.CommitOptions) (*goldfish.CommitResult, error)
	AbsorbWith(ctx context.Context, slice string, policy goldfish.AbsorbPolicy, o goldfish.CommitOptions) (*goldfish.AbsorbResult, error)
	ExportSlice(ctx context.Context, q string, o goldfish.SliceOptions) (*goldfish.Slice, error)
	Diff(ctx context.Context, from, to uint64, o goldfish.DiffOptions) (*goldfish.Diff, error)
	History(ctx context.Context, nick string, limit int) (*goldfish.History, error)
	Kinds(ctx context.Context, kind string) ([]goldfish.KindSchema, error)
	Names(ctx context.Context) (goldfish.Names, error)
	Vocabulary(ctx context.Context) (*goldfish.Vocabulary, error)
	Agents(ctx context.Context) ([]goldfish.AgentInfo, error)
	ForgetAgent(ctx context.Context, name string) error
	AttentionSettings(ctx context.Context) (goldfish.AttentionSettings, error)
	SetAttentionSettings(ctx context.Context, set goldfish.AttentionSettings) error
	PinnedKinds(ctx context.Context) ([]string, error)
	SetPinnedKinds(ctx context.Context, kinds []string) error
	Purge(ctx context.Context) (int, error)
}

var _ Session = (*goldfish.Session)(nil)

// Host is where the shell's sessions live: an embedded database (Embedded)
// or a server.
type Host interface {
	// Session opens session name (made on first use).
	Session(ctx context.Context, name string) (Session, error)
	// SessionInfos lists the sessions with their versions and counts.
	SessionInfos(ctx context.Context) ([]goldfish.SessionInfo, error)
	// Sessions lists the sessions' names, those not committed to yet
	// included.
	Sessions(ctx context.Context) ([]string, error)
	// Drop deletes session name for good.
	Drop(ctx context.Context, name string) error
	// Flush writes a compact snapshot of the sessions in use and says
	// where to ("" when they are in memory, and nothing was done).
	Flush(ctx context.Context) (where string, err error)
	// Backup writes a consistent copy of the cabinet file to the new file
	// dst and says which cabinet it copied ("" when there is none to
	// copy, and nothing was done).
	Backup(ctx context.Context, dst string) (src string, err error)
	// Remote is the server's URL, "" for an embedded database.
	Remote() string
}

// Embedded is the host of an embedded database.
func Embedded(db *goldfish.DB) Host { return embedded{db} }

type embedded struct{ db *goldfish.DB }

func (e embedded) Session(ctx context.Context, name string) (Session, error) {
	s, err := e.db.Session(ctx, name)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (e embedded) SessionInfos(context.Context) ([]goldfish.SessionInfo, error) {
	return e.db.SessionInfos(), nil
}

func (e embedded) Sessions(context.Context) ([]string, error) { return e.db.Sessions(), nil }

func (e embedded) Drop(ctx context.Context, name string) error { return e.db.Drop(ctx, name) }

func (e embedded) Flush(ctx context.Context) (string, error) {
	path := e.db.CabinetPath()
	switch {
	case path == "":
		return "", nil
	case e.db.ReadOnly():
		return "", metaErrorf(codeReadOnlyCabinet, "run gqlsh without --read-only to write it",
			"nothing to flush: the cabinet %s is open read-only, and nothing in it changed", path)
	}
	return path, e.db.Flush(ctx)
}

func (e embedded) Backup(_ context.Context, dst string) (string, error) {
	path := e.db.CabinetPath()
	if path == "" {
		return "", nil
	}
	return path, e.db.Backup(dst)
}

func (e embedded) Remote() string { return "" }

// Server is a client of a server's sessions (package client's Client,
// whose Session is S).
type Server[S Session] interface {
	URL() string
	Session(ctx context.Context, name string) (S, error)
	SessionInfos(ctx context.Context) ([]goldfish.SessionInfo, error)
	Sessions(ctx context.Context) ([]string, error)
	Drop(ctx context.Context, name string) error
	Flush(ctx context.Context) (where string, err error)
	Backup(ctx context.Context, w io.Writer) (int64, error)
}

// Remote is the host of a server's sessions (gqlsh --url).
func Remote[S Session](c Server[S]) Host { return remote[S]{c} }

type remote[S Session] struct{ c Server[S] }

func (r remote[S]) Session(ctx context.Context, name string) (Session, error) {
	s, err := r.c.Session(ctx, name)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (r remote[S]) SessionInfos(ctx context.Context) ([]goldfish.SessionInfo, error) {
	return r.c.SessionInfos(ctx)
}

func (r remote[S]) Sessions(ctx context.Context) ([]string, error) { return r.c.Sessions(ctx) }

func (r remote[S]) Drop(ctx context.Context, name string) error { return r.c.Drop(ctx, name) }

func (r remote[S]) Flush(ctx context.Context) (string, error) { return r.c.Flush(ctx) }

// Backup copies the server's cabinet into the new file dst; a copy cut
// short is removed, so a file at dst is always whole.
func (r remote[S]) Backup(ctx context.Context, dst string) (string, error) {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	_, err = r.c.Backup(ctx, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
		return "", err
	}
	return "the cabinet of " + r.c.URL(), nil
}

func (r remote[S]) Remote() string { return r.c.URL() }
