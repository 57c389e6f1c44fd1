package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/goldfish-gql/goldfish/gqlstatus"
	"github.com/goldfish-gql/goldfish/repl"
	"github.com/goldfish-gql/goldfish/server"
)

const (
	importMemoryUsage = "Usage: gqlsh import-memory FILE.jsonl [--session NAME] [--cabinet PATH | --postgres URL | --mem] [--postgres-schema NAME]"
	exportMemoryUsage = "Usage: gqlsh export-memory [--session NAME] [--cabinet PATH | --postgres URL | --mem] [--postgres-schema NAME] [FILE]"
)

// memoryFlags parses the flags of import-memory and export-memory, which
// may come before and after the one FILE; ok false means exit with code.
func memoryFlags(cmd, usage, help string, args []string, e env) (file, session string, storage storageFlags, code int, ok bool) {
	fs := flag.NewFlagSet("gqlsh "+cmd, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	storage = storageFlags{postgresSharedWith: "other hosts"}
	storage.register(fs)
	s := fs.String("session", server.DefaultMemorySession, "session `NAME` of the memory-server tools (as gqlsh mcp --session)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\n\n%s\n", usage, help)
		fs.PrintDefaults()
	}
	for len(args) > 0 {
		if code, done := parseFlags(fs, args, e.stdout, e.stderr); done {
			return "", "", storage, code, false
		}
		if fs.NArg() == 0 {
			break
		}
		if file != "" {
			fmt.Fprintf(e.stderr, "gqlsh %s: give one FILE, got %q too\n", cmd, fs.Arg(0))
			return "", "", storage, 2, false
		}
		file, args = fs.Arg(0), fs.Args()[1:]
	}
	if !storage.check("gqlsh "+cmd, e) {
		return "", "", storage, 2, false
	}
	return file, *s, storage, 0, true
}

// runImportMemory is gqlsh import-memory: the memory server's file into a
// session, with the drop-in tools' mapping. The whole file is checked
// first, against the session too, and a bad line anywhere applies
// nothing; then Δs as large as R allows are committed in order. A run
// that dies midway leaves the Δs it committed: running it again
// completes the import, because it applies only what the session lacks.
func runImportMemory(args []string, e env) int {
	path, session, storage, code, ok := memoryFlags("import-memory", importMemoryUsage,
		"Loads a memory.jsonl of the knowledge-graph memory server into --session: each entity\n"+
			"a node (nick = name, kind = entityType, observations), each relation an edge.\n"+
			"Checks every line first and applies nothing if one is bad; importing the same\n"+
			"file again applies nothing.", args, e)
	if !ok {
		return code
	}
	if path == "" {
		fmt.Fprintln(e.stderr, importMemoryUsage)
		return 2
	}
	in, err := os.Open(path)
	if err != nil {
		repl.WriteError(e.stderr, fileAccess(path, err))
		return 1
	}
	// A file with bad lines is still checked against the session, so
	// every bad line is reported at once.
	f, readErr := server.ReadMemoryFile(in, path)
	in.Close()
	if f == nil {
		writeFileErrors(e.stderr, path, readErr)
		return 1
	}
	db, backend, err := openDB(storage.options(e))
	if err != nil {
		if readErr != nil {
			writeFileErrors(e.stderr, path, readErr)
		}
		fmt.Fprintf(e.stderr, "gqlsh: %v\n", err)
		return 1
	}
	defer db.Close()
	s, err := db.Session(context.Background(), session)
	if err != nil {
		repl.WriteError(e.stderr, err)
		return 2
	}
	var o server.ImportOptions
	if e.stderrTerminal {
		o.Progress = func(done, total int) {
			fmt.Fprintf(e.stderr, "\rgqlsh import-memory: %d of %d written", done, total)
			if done == total {
				fmt.Fprintln(e.stderr)
			}
		}
	}
	rep, err := server.ImportMemory(context.Background(), s, f, o)
	if err != nil {
		writeFileErrors(e.stderr, path, err)
		if rep.Commits > 0 {
			fmt.Fprintf(e.stderr, "gqlsh import-memory: %d of its Δs were committed before the error; once it is mended, importing the file again completes it\n", rep.Commits)
		}
		return 1
	}
	if err := db.Close(); err != nil {
		fmt.Fprintf(e.stderr, "gqlsh import-memory: closing %s: %v\n", backend, err)
		return 1
	}
	fmt.Fprintf(e.stdout, "%s: %s: %d %s, %d %s: %d changes (%d created, %d merged, %d %s made) in %d %s; session %s at version %d\n",
		backend, path, rep.Entities, plural(rep.Entities, "entity", "entities"), rep.Relations, plural(rep.Relations, "relation", "relations"),
		rep.Changes(), rep.Created, rep.Merged, rep.Linked, plural(rep.Linked, "relation", "relations"),
		rep.Commits, plural(rep.Commits, "Commit", "Commits"), session, rep.Version)
	return 0
}

// writeFileErrors prints every bad line as FILE:LINE: the error, then the
// summary; any other error as the shell prints one.
func writeFileErrors(w io.Writer, path string, err error) {
	var fe *server.FileErrors
	if !errors.As(err, &fe) {
		repl.WriteError(w, err)
		return
	}
	for _, l := range fe.Lines {
		line := *l
		line.Pos = gqlstatus.Pos{}
		fmt.Fprintf(w, "%s:%d: %v\n", path, l.Pos.Line, &line)
	}
	fmt.Fprintln(w, fe.Error())
}

// runExportMemory is gqlsh export-memory: a session as the memory
// server's file, on standard output or in FILE (written whole, then
// renamed over FILE, as the original saves its file).
func runExportMemory(args []string, e env) int {
	path, session, storage, code, ok := memoryFlags("export-memory", exportMemoryUsage,
		"Writes --session as a memory.jsonl of the knowledge-graph memory server (to FILE, or\n"+
			"standard output): each node with a nick as an entity, sorted by name, then each edge\n"+
			"between two of them as a relation, sorted by from, type and to.", args, e)
	if !ok {
		return code
	}
	db, backend, err := openDB(storage.options(e))
	if err != nil {
		fmt.Fprintf(e.stderr, "gqlsh: %v\n", err)
		return 1
	}
	defer db.Close()
	if !slices.Contains(db.Sessions(), session) {
		repl.WriteError(e.stderr, gqlstatus.Errorf(gqlstatus.InvalidReference, "%s holds no session %s", backend, session).
			WithHint("name one with --session (gqlsh -c ':sessions' lists them)"))
		return 1
	}
	s, err := db.Session(context.Background(), session)
	if err != nil {
		repl.WriteError(e.stderr, err)
		return 2
	}
	out, commit := e.stdout, func() error { return nil }
	if path != "" {
		tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
		if err != nil {
			repl.WriteError(e.stderr, fileAccess(path, err))
			return 1
		}
		defer os.Remove(tmp.Name())
		defer tmp.Close()
		out = tmp
		commit = func() error {
			if err := tmp.Close(); err != nil {
				return err
			}
			return os.Rename(tmp.Name(), path)
		}
	}
	rep, err := server.ExportMemory(context.Background(), s, out)
	if err == nil {
		err = commit()
	}
	if err != nil {
		repl.WriteError(e.stderr, err)
		return 1
	}
	summary := e.stderr
	if path != "" {
		summary = e.stdout
	}
	fmt.Fprintf(summary, "%s: session %s at version %d: %d %s, %d %s", backend, session, rep.Version,
		rep.Entities, plural(rep.Entities, "entity", "entities"), rep.Relations, plural(rep.Relations, "relation", "relations"))
	if rep.SkippedNodes+rep.SkippedEdges > 0 {
		fmt.Fprintf(summary, "; left out %d nodes without a nick or a kind and %d edges not between two entities", rep.SkippedNodes, rep.SkippedEdges)
	}
	fmt.Fprintln(summary)
	return 0
}

// fileAccess words a file that cannot be opened or created (42Q05).
func fileAccess(path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return gqlstatus.Errorf(gqlstatus.FileAccess, "cannot use %s: %v", path, err).
		WithHint("check the path and its permissions")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
