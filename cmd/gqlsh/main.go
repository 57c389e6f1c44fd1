// Command gqlsh is the Goldfish GQL shell: it runs GQL statements against a
// session and prints one result per statement.
//
// Usage:
//
//	gqlsh [--cabinet PATH | --postgres URL | --mem] [--postgres-schema NAME] [--session NAME] [--agent NAME] [--format gql|json] [--fail-at-end | -1] [-c TEXT]... [-f FILE]...
//	gqlsh --url URL [--token T] [--session NAME] [--agent NAME] [--format gql|json] [--fail-at-end | -1] [-c TEXT]... [-f FILE]...
//	gqlsh conformance [-v] [--postgres URL | --url URL [--token T]] [DIR]
//	gqlsh ingest-go DIR [--session NAME] [--mem | --cabinet PATH | --postgres URL]
//	gqlsh serve [--listen ADDR] [--cabinet PATH | --postgres URL | --mem] [--postgres-schema NAME] [--poll D] [--tokens FILE] [--private-metrics] [--deadline D]
//	gqlsh mcp [--cabinet PATH | --postgres URL | --mem] [--session NAME]
//	gqlsh token --read GLOB[,GLOB…] | --write GLOB[,GLOB…] [--agent NAME[,NAME…]]
//	gqlsh snap-go DIR --prefix NAME [--mem | --cabinet PATH] [--part-nodes N]
//	gqlsh import-memory FILE.jsonl [--session NAME] [--cabinet PATH | --postgres URL | --mem]
//	gqlsh export-memory [--session NAME] [--cabinet PATH | --postgres URL | --mem] [FILE]
//	gqlsh --version | --help
//
// On a terminal, without -c or -f, gqlsh is interactive: line editing and
// history (peterh/liner; the history file is $GQLSH_HISTORY or
// gqlsh/history under the user's config directory), Tab completion of
// keywords, meta-commands, labels, property keys, nicks and session names,
// statements that span lines until ';', and meta-commands such as :use,
// :set, :param and :timing (:help lists them).
//
// Otherwise the statements come from each -c and -f in the order given
// (-f - is standard input), or from standard input (a pipe: no prompts,
// no history), and run as they are read; each statement outside START
// TRANSACTION … COMMIT is its own Commit. The first error is printed on
// standard error with its GQLSTATUS, line, column (and file) and a caret,
// and ends the run with exit status 1 (--fail-at-end runs everything
// first). Ctrl-C (SIGINT) stops the statement that runs, and at a
// terminal returns to the prompt; in a script it ends the run with exit
// status 130. When the reader of the results goes away (gqlsh … | head),
// gqlsh stops, closes the cabinet and ends by SIGPIPE, quietly, as other
// commands do. Colour is used only on a terminal, and never when NO_COLOR
// is set.
//
// -1 (--single-transaction) runs the whole input of every -c and -f as
// one transaction, as psql -1 does: it is read to its end, then sent as
// one Δ, so all of it applies (one version, one fsync) or none of it (see
// package repl, "Single transaction"). On a database gqlsh opens itself
// (a cabinet, --mem, --postgres) the database is opened then, with a
// Commit budget of R per statement (singleBudget); over --url the
// server's budget holds, and a script over it is refused whole.
//
// # Where sessions live
//
// By default gqlsh keeps its sessions in a cabinet: one bbolt file that
// holds every session, so plain "gqlsh" remembers across runs. The file is,
// in order: --cabinet PATH; $GOLDFISH_CABINET; goldfish/cabinet.gf in the
// user's data directory, which is $XDG_DATA_HOME if set, else
// ~/.local/share on Linux and other Unix systems, ~/Library/Application
// Support on macOS and %AppData% on Windows (the goldfish directory is
// created with mode 0700). --mem keeps everything in memory instead: the
// sessions live as long as the process. The banner names the backend.
// One process at a time may use a cabinet: a second gqlsh on the same file
// stops at once with "file is in use by another process" and the path;
// a damaged file is reported with its path too (exit status 1 for both).
// :sessions, :drop, :purge, :flush and :backup manage the cabinet, and
// ":use catalog" Recalls the catalogue of sessions. openDB is the one place
// that opens the database.
//
// With --postgres URL (or $GOLDFISH_POSTGRES, which an explicit --cabinet
// or --mem overrides) the sessions live in PostgreSQL instead, in the
// schema --postgres-schema NAME (default goldfish), and any number of
// gqlsh processes on any number of machines share them: each Commit
// catches up with the others' first and never overwrites one of theirs.
//
// With --url URL the shell runs on the sessions of a gqlsh serve instead,
// through its HTTP API (package client): the same statements and
// meta-commands, the same output; --token T, else $GOLDFISH_TOKEN, is
// its bearer token. A server that cannot be reached is GQLSTATUS 08000;
// a Commit whose answer was lost (the server stopped, Ctrl-C after it
// was sent) is 40003, since it may have applied.
//
// "gqlsh conformance" runs the conformance suite (the copy built into the
// binary, or the *.txt files of DIR) against the embedded engine, in
// memory (or, with --postgres URL, with every database in a schema of
// its own on that server, dropped afterwards), or with --url URL against
// a running gqlsh serve over its HTTP API, each file on sessions of fresh
// names; it prints one line per failing case, and one per case not
// judged over a server (skipped over --url, with the reason: a reopen,
// and a script's output).
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/conformance"
	"github.com/goldfish-gql/goldfish/postgres"
	"github.com/goldfish-gql/goldfish/repl"
)

// version is the gqlsh version; release builds set it with -ldflags -X.
var version = "0.1.0-dev"

func main() {
	code := runEnv(os.Args[1:], processEnv())
	if code == repl.ExitBrokenPipe {
		// The reader of the results went away and gqlsh stopped, with the
		// cabinet closed; end as a command SIGPIPE kills does.
		raiseSIGPIPE()
	}
	os.Exit(code)
}

const usage = `gqlsh: the Goldfish GQL shell

Usage:
  gqlsh [--cabinet PATH | --postgres URL | --mem] [--postgres-schema NAME] [--session NAME] [--agent NAME] [--format gql|json] [--fail-at-end | -1] [-c TEXT]... [-f FILE]...
  gqlsh --url URL [--token T] [--session NAME] [--agent NAME] [--format gql|json] [--fail-at-end | -1] [-c TEXT]... [-f FILE]...
  gqlsh conformance [-v] [--postgres URL | --url URL [--token T]] [DIR]
  gqlsh ingest-go DIR [--session NAME] [--mem | --cabinet PATH | --postgres URL] [--tests] [--no-calls]
  gqlsh serve [--listen ADDR] [--cabinet PATH | --postgres URL | --mem] [--postgres-schema NAME] [--poll D] [--tokens FILE] [--private-metrics] [--deadline D]
  gqlsh mcp [--cabinet PATH | --postgres URL | --mem] [--session NAME]
  gqlsh token --read GLOB[,GLOB…] | --write GLOB[,GLOB…] [--agent NAME[,NAME…]]
  gqlsh snap-go DIR --prefix NAME [--mem | --cabinet PATH] [--part-nodes N] [--tests] [--no-calls]
  gqlsh import-memory FILE.jsonl [--session NAME] [--cabinet PATH | --postgres URL | --mem]
  gqlsh export-memory [--session NAME] [--cabinet PATH | --postgres URL | --mem] [FILE]
  gqlsh --version | --help

On a terminal, without -c or -f, gqlsh is interactive: statements end with
';' and may span lines; Tab completes; history is kept in $GQLSH_HISTORY or
gqlsh/history under your config directory; :help lists the meta-commands.

Otherwise statements are read from each -c TEXT and -f FILE in the order
given (-f - is standard input), or from standard input, and each runs as soon
as its ';' is read; each is its own Commit unless enclosed in START
TRANSACTION … COMMIT, which commits them as one atomic Δ. Lines starting with
':' are meta-commands. The first error stops the run with exit status 1
(--fail-at-end: run everything, then exit 1); Ctrl-C stops it with exit status
130. NO_COLOR turns colour off.

-1 (--single-transaction) runs the whole input of every -c and -f as one
transaction: all of it applies, as one Δ, one version and one fsync, or none
of it, and the first error (anywhere) stops the run with nothing applied.
10,000 one-node INSERTs load into a cabinet file in about 0.35 s with -1,
against 12 to 32 s one Commit (one fsync) each, and 1 s with --mem. On a
database gqlsh opens itself (a cabinet file, --mem, --postgres) the
transaction's Commit budget is R per statement (500 rows and 256 KiB each);
over --url the server's budget holds and a script over it is refused whole.
One transaction holds at most 1 MiB of statements. :param and :agent go
before the first statement; :set (Recall budgets), :format, :output,
:timing, :source and :help are allowed; START TRANSACTION, COMMIT, ROLLBACK,
Recalls and the meta-commands that read or write the session (:use, :drop,
:purge, :flush, :kinds …) are refused before anything is sent.

Sessions are kept in a cabinet file, so gqlsh remembers across runs. The
file is --cabinet PATH, else $GOLDFISH_CABINET, else goldfish/cabinet.gf in
your data directory ($XDG_DATA_HOME, else ~/.local/share on Linux,
~/Library/Application Support on macOS, %AppData% on Windows). --mem keeps
everything in memory for this run only. One gqlsh at a time may use a
cabinet file. :sessions, :drop, :purge, :flush and :backup manage it.

--postgres URL (else $GOLDFISH_POSTGRES, unless --cabinet or --mem is
given) keeps the sessions in PostgreSQL instead, in the schema
--postgres-schema NAME (default goldfish), shared by every gqlsh that
uses the same database and schema, on any machine.

--url URL runs the same shell on the sessions of a running gqlsh serve
(its HTTP API; --token T or $GOLDFISH_TOKEN when it has --tokens), and
prints what it prints on a cabinet of its own.

Options:
`

// env is what run needs from the process besides its arguments, so tests
// can say whether standard input is a terminal.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// terminal reports whether standard input and output are a terminal
	// a person types at; then gqlsh is interactive.
	terminal bool
	// color reports whether standard output and error may be coloured.
	color bool
	// stderrTerminal reports whether standard error is a terminal, where
	// a long import shows its progress.
	stderrTerminal bool
	// newTerm opens the line-editing IO (repl.NewTermIO in the process).
	newTerm func(history string) (termIO, error)
	// lookupEnv reads an environment variable ($GOLDFISH_CABINET,
	// $XDG_DATA_HOME, $HOME, %AppData%); nil means os.LookupEnv. Tests
	// give their own, so they never touch the user's files.
	lookupEnv func(string) (string, bool)
	// goos is the operating system the data directory follows; "" means
	// runtime.GOOS.
	goos string
	// signals makes Ctrl-C (SIGINT) stop what runs instead of the
	// process, and a closed results pipe (SIGPIPE) end the run quietly;
	// only the process sets it.
	signals bool
}

// termIO is the terminal IO run closes at the end.
type termIO interface {
	repl.IO
	Close() error
}

func processEnv() env {
	terminal := repl.StdinIsTerminal() && repl.IsTerminal(os.Stdout)
	_, noColor := os.LookupEnv("NO_COLOR")
	color := !noColor && os.Getenv("TERM") != "dumb" && repl.IsTerminal(os.Stdout) && repl.IsTerminal(os.Stderr)
	return env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, terminal: terminal, color: color, stderrTerminal: repl.IsTerminal(os.Stderr),
		newTerm: func(h string) (termIO, error) { return repl.NewTermIO(h) }, lookupEnv: os.LookupEnv, signals: true}
}

// run is gqlsh without the process around it, so tests call it directly.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runEnv(args, env{stdin: stdin, stdout: stdout, stderr: stderr})
}

// dbOptions say which database to open.
type dbOptions struct {
	mem     bool   // --mem: no file
	cabinet string // --cabinet PATH; "" for the default
	// readOnly is --read-only: the cabinet file opened read-only.
	readOnly bool
	// postgres is --postgres URL ("": $GOLDFISH_POSTGRES, unless mem or
	// cabinet is set), schema its --postgres-schema.
	postgres, schema string
	// poll is the PostgreSQL poll interval (0: the default).
	poll time.Duration
	// memoryBudget is --memory-budget (0: none).
	memoryBudget int64
	// commitBudget is the R of every Commit (zero fields: the default);
	// -1 sets it for its one transaction (singleBudget).
	commitBudget goldfish.Budget
	// lookupEnv and goos as in env.
	lookupEnv func(string) (string, bool)
	goos      string
}

// openDB is the one place gqlsh opens its database. It returns the
// database and the backend for the banner: "memory", "cabinet PATH" or
// "postgres URL (schema NAME)". The sessions are in PostgreSQL with
// --postgres URL, or with $GOLDFISH_POSTGRES unless --mem or --cabinet is
// given; else the cabinet file is --cabinet PATH, else $GOLDFISH_CABINET,
// else goldfish/cabinet.gf in the user's data directory (created 0700).
func openDB(o dbOptions) (*goldfish.DB, string, error) {
	if o.mem {
		db, err := goldfish.Open(goldfish.WithCommitBudget(o.commitBudget))
		return db, "memory", err
	}
	if url := o.postgresURL(); url != "" {
		if o.readOnly {
			return nil, "", errors.New("--read-only opens a cabinet file, and $GOLDFISH_POSTGRES names PostgreSQL: give --cabinet PATH")
		}
		db, err := goldfish.Open(postgres.Cabinet(url, postgres.Options{Schema: o.schema, PollInterval: o.poll}),
			goldfish.WithMemoryBudget(o.memoryBudget), goldfish.WithCommitBudget(o.commitBudget))
		if err != nil {
			return nil, "", err
		}
		return db, "postgres " + db.CabinetPath(), nil
	}
	path, err := cabinetPath(o)
	if err != nil {
		return nil, "", err
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, "", fmt.Errorf("the cabinet %s is a directory, not a file: give the cabinet file's path (a new name creates it), e.g. %s",
			path, filepath.Join(path, "cabinet.gf"))
	}
	opts := []goldfish.Option{goldfish.WithCabinet(path), goldfish.WithMemoryBudget(o.memoryBudget), goldfish.WithCommitBudget(o.commitBudget)}
	backend := "cabinet " + path
	if o.readOnly {
		opts, backend = append(opts, goldfish.WithReadOnly()), backend+", read-only"
	}
	db, err := goldfish.Open(opts...)
	if err != nil {
		return nil, "", cabinetError(path, err)
	}
	return db, backend, nil
}

// cabinetError words a cabinet that would not open: the path once, what
// failed, what to do. ErrInUse and ErrDamaged name the path already.
func cabinetError(path string, err error) error {
	var pe *fs.PathError
	if errors.Is(err, goldfish.ErrInUse) {
		if by := inUseBy(path); by != "" {
			return &inUseError{msg: by, err: err}
		}
		return err
	}
	if errors.Is(err, goldfish.ErrDamaged) || !errors.As(err, &pe) {
		return err
	}
	what := pe.Err.Error()
	switch {
	case errors.Is(pe.Err, fs.ErrNotExist):
		what += "; its directory " + filepath.Dir(path) + " does not exist: create it, or give another --cabinet"
	case errors.Is(pe.Err, fs.ErrPermission):
		what += "; check the file's permissions, or give another --cabinet (or --mem)"
	}
	return fmt.Errorf("cannot open the cabinet %s: %s", path, what)
}

// cabinetPath chooses the cabinet file; for the default one it creates the
// goldfish directory (0700).
func cabinetPath(o dbOptions) (string, error) {
	lookup := o.lookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	if o.cabinet != "" {
		return o.cabinet, nil
	}
	if p, ok := lookup("GOLDFISH_CABINET"); ok && p != "" {
		return p, nil
	}
	data, err := dataDir(o.goos, lookup)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(data, "goldfish")
	if o.readOnly {
		return filepath.Join(dir, "cabinet.gf"), nil // read-only makes no directory
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating the cabinet directory: %w (use --cabinet PATH or --mem)", err)
	}
	return filepath.Join(dir, "cabinet.gf"), nil
}

// dataDir is the user's data directory: $XDG_DATA_HOME when set (and
// absolute), else ~/.local/share (Linux and other Unix systems),
// ~/Library/Application Support (macOS) or %AppData% (Windows).
func dataDir(goos string, lookup func(string) (string, bool)) (string, error) {
	if goos == "" {
		goos = runtime.GOOS
	}
	if d, ok := lookup("XDG_DATA_HOME"); ok && d != "" && isAbs(goos, d) {
		return d, nil
	}
	if goos == "windows" {
		if d, ok := lookup("AppData"); ok && d != "" {
			return d, nil
		}
		if d, ok := lookup("APPDATA"); ok && d != "" {
			return d, nil
		}
		return "", errors.New("cannot find the data directory: %AppData% is not set; use --cabinet PATH or --mem")
	}
	home, ok := lookup("HOME")
	if !ok || home == "" {
		return "", errors.New("cannot find the data directory: neither $XDG_DATA_HOME nor $HOME is set; use --cabinet PATH or --mem")
	}
	if goos == "darwin" || goos == "ios" {
		return filepath.Join(home, "Library", "Application Support"), nil
	}
	return filepath.Join(home, ".local", "share"), nil
}

func isAbs(goos, p string) bool {
	if goos == runtime.GOOS {
		return filepath.IsAbs(p)
	}
	if goos == "windows" {
		return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || strings.HasPrefix(p, `\\`)
	}
	return strings.HasPrefix(p, "/")
}

func runEnv(args []string, e env) (code int) {
	stdin, stdout, stderr := e.stdin, e.stdout, e.stderr
	if len(args) > 0 && args[0] == "version" && len(args) == 1 {
		fmt.Fprintf(stdout, "gqlsh %s\n", version)
		return 0
	}
	if len(args) > 0 && args[0] == "help" && len(args) <= 2 {
		return runHelp(args[1:], e)
	}
	if len(args) > 0 && args[0] == "ingest-go" {
		return runIngestGo(args[1:], e)
	}
	if len(args) > 0 && args[0] == "snap-go" {
		return runSnapGo(args[1:], e)
	}
	if len(args) > 0 && args[0] == "import-memory" {
		return runImportMemory(args[1:], e)
	}
	if len(args) > 0 && args[0] == "export-memory" {
		return runExportMemory(args[1:], e)
	}
	if len(args) > 0 && args[0] == "conformance" {
		return runConformance(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "serve" {
		return runServe(args[1:], e)
	}
	if len(args) > 0 && args[0] == "mcp" {
		return runMCP(args[1:], e)
	}
	if len(args) > 0 && args[0] == "token" {
		return runToken(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("gqlsh", flag.ContinueOnError)
	var (
		mem       = fs.Bool("mem", false, "keep sessions in memory for this run only (no cabinet file)")
		cabinet   = fs.String("cabinet", "", "keep sessions in the cabinet file `PATH` (default $GOLDFISH_CABINET, else goldfish/cabinet.gf in the data directory)")
		pgURL     = fs.String("postgres", "", "keep sessions in PostgreSQL at `URL`, shared with other hosts (default $GOLDFISH_POSTGRES unless --cabinet or --mem)")
		pgSchema  = fs.String("postgres-schema", "", "the PostgreSQL schema `NAME` that holds the sessions (default goldfish)")
		session   = fs.String("session", "main", "session `NAME` to start in")
		format    = fs.String("format", "gql", "output `format`: gql (summaries and Shapes) or json (one object per line)")
		failAtEnd = fs.Bool("fail-at-end", false, "run every statement even after an error; exit status 1 at the end")
		agent     = fs.String("agent", "", "read and commit as agent `NAME` (as :agent NAME)")
		showVer   = fs.Bool("version", false, "print the version and exit")
		readOnly  = fs.Bool("read-only", false, "open the cabinet read-only: any number of readers at once, no commits; fails while a writer holds it")
	)
	srvURL := fs.String("url", "", "run the shell on the gqlsh serve at `URL` (http://HOST:PORT) instead of a database of its own")
	token := fs.String("token", "", "with --url, send `TOKEN` as the bearer token (default $GOLDFISH_TOKEN; a token given here shows in ps)")
	var sources []source
	fs.Var(sourceFlag{&sources, false}, "c", "run the statements in `TEXT` (repeatable; -c and -f run in the order given)")
	fs.Var(sourceFlag{&sources, true}, "f", "run the statements in `FILE` (- for standard input; repeatable)")
	single := singleFlags(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if *showVer {
		fmt.Fprintf(stdout, "gqlsh %s\n", version)
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gqlsh: unexpected argument %q; pass statements with -c, -f or standard input\n", fs.Arg(0))
		return 2
	}
	fmtv, err := repl.ParseFormat(*format)
	if err != nil {
		fmt.Fprintf(stderr, "gqlsh: %v\n", err)
		return 2
	}
	if *agent != "" {
		if err := goldfish.ValidAgentName(*agent); err != nil {
			fmt.Fprintf(stderr, "gqlsh: --agent: %v\n", err)
			return 2
		}
	}
	if *mem && *cabinet != "" {
		fmt.Fprintln(stderr, "gqlsh: give --cabinet or --mem, not both")
		return 2
	}
	if *pgURL != "" && (*mem || *cabinet != "") {
		fmt.Fprintln(stderr, "gqlsh: give --postgres, --cabinet or --mem, only one")
		return 2
	}
	if *srvURL != "" && (*mem || *cabinet != "" || *pgURL != "" || *pgSchema != "" || *readOnly) {
		fmt.Fprintln(stderr, "gqlsh: --url runs the shell on the server's sessions: give it without --cabinet, --postgres, --mem or --read-only")
		return 2
	}
	if *token != "" && *srvURL == "" {
		fmt.Fprintln(stderr, "gqlsh: --token goes with --url")
		return 2
	}
	if *token == "" && e.lookupEnv != nil {
		*token, _ = e.lookupEnv("GOLDFISH_TOKEN")
	}
	if *readOnly && (*mem || *pgURL != "") {
		fmt.Fprintln(stderr, "gqlsh: --read-only opens a cabinet file: not with --mem or --postgres")
		return 2
	}
	if !checkSingle(*single, sources, *failAtEnd, *readOnly, stderr) {
		return 2
	}
	interactive := e.terminal && len(sources) == 0
	inputs, closeInputs, err := openInputs(sources, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "gqlsh: %v\n", err)
		return 1
	}
	defer closeInputs()
	opts := repl.Options{Format: fmtv, FailAtEnd: *failAtEnd, Color: e.color, Agent: *agent, SingleTransaction: *single}
	var s repl.Session
	var backend string
	if *srvURL != "" {
		c, rs, err := openRemote(*srvURL, *token, *session)
		if err != nil {
			repl.WriteError(stderr, err)
			return 1
		}
		defer c.Close()
		s, backend, opts.Host = rs, "server "+c.URL(), repl.Remote(c)
		return runShell(s, backend, opts, inputs, interactive, e)
	}
	dbo := dbOptions{mem: *mem, cabinet: *cabinet, readOnly: *readOnly, postgres: *pgURL, schema: *pgSchema, lookupEnv: e.lookupEnv, goos: e.goos}
	if *single {
		return runOwnedSingle(dbo, *session, opts, inputs, e)
	}
	db, backend, err := openDB(dbo)
	if err != nil {
		fmt.Fprintf(stderr, "gqlsh: %v\n", err)
		return 1
	}
	defer func() {
		if err := db.Close(); err != nil {
			fmt.Fprintf(stderr, "gqlsh: closing %s: %v\n", backend, err)
			if code == 0 {
				code = 1
			}
		}
	}()
	es, err := db.Session(context.Background(), *session)
	if err != nil {
		repl.WriteError(stderr, err)
		return 2
	}
	opts.DB = db
	return runShell(es, backend, opts, inputs, interactive, e)
}

// runShell runs the shell on session s of backend (for the banner).
func runShell(s repl.Session, backend string, opts repl.Options, inputs []repl.Input, interactive bool, e env) int {
	stdout, stderr := e.stdout, e.stderr
	var in repl.IO = &repl.ReaderIO{Inputs: inputs, Out: stdout, Err: stderr}
	if interactive {
		t, err := e.newTerm(repl.HistoryFile())
		if err != nil {
			fmt.Fprintf(stderr, "gqlsh: %v\n", err)
			return 1
		}
		defer t.Close()
		opts.Banner = fmt.Sprintf("gqlsh %s (%s): session %s. End statements with ';'. :help for help, :quit or Ctrl-D to leave.",
			version, backend, s.Name())
		in = t
	}
	sh := repl.NewShell(s, in, opts)
	if e.signals {
		defer handleSignals(sh)()
	}
	return sh.Loop(context.Background())
}

// source is one -c TEXT or -f FILE, in the order given.
type source struct {
	file bool
	arg  string
}

// sourceFlag collects -c and -f into one list, so they run in order.
type sourceFlag struct {
	list *[]source
	file bool
}

func (f sourceFlag) String() string { return "" }

func (f sourceFlag) Set(v string) error {
	*f.list = append(*f.list, source{file: f.file, arg: v})
	return nil
}

// openInputs opens the -c and -f inputs in order (standard input when
// there are none, or for -f -). Every file is opened before anything
// runs, so a misspelt name stops the run before its first statement.
func openInputs(sources []source, stdin io.Reader) ([]repl.Input, func(), error) {
	if len(sources) == 0 {
		return []repl.Input{{R: stdin}}, func() {}, nil
	}
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	var inputs []repl.Input
	for _, src := range sources {
		switch {
		case !src.file:
			inputs = append(inputs, repl.Input{R: strings.NewReader(src.arg)})
		case src.arg == "-":
			inputs = append(inputs, repl.Input{R: stdin})
		default:
			f, err := repl.OpenScript(src.arg)
			if err != nil {
				closeAll()
				return nil, nil, err
			}
			files = append(files, f)
			inputs = append(inputs, repl.Input{Name: src.arg, R: f})
		}
	}
	return inputs, closeAll, nil
}

// handleSignals makes Ctrl-C (SIGINT) interrupt the shell rather than end
// the process (and the sessions of a --mem run with it), and lets a write
// to a closed pipe fail (EPIPE) instead of killing gqlsh, so the shell
// stops quietly and closes the cabinet first. It returns the function
// that undoes it.
func handleSignals(sh *repl.Shell) func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	pipe := notifySIGPIPE()
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				sh.Interrupt()
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		if pipe != nil {
			signal.Stop(pipe)
		}
		close(done)
	}
}

// postgresStorage makes each conformance database in a new schema of
// the server at url, and drops it when the database is done with.
func postgresStorage(url string) conformance.Storage {
	return func() ([]goldfish.Option, func(), error) {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, nil, err
		}
		schema := "conformance_" + hex.EncodeToString(b[:])
		drop := func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_ = postgres.DropSchema(ctx, url, schema)
		}
		return []goldfish.Option{postgres.Cabinet(url, postgres.Options{Schema: schema})}, drop, nil
	}
}

// runConformance runs the suite and prints one line per failing case
// (followed by the wanted and actual output, indented), one per case
// skipped over --url, then the totals.
func runConformance(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gqlsh conformance", flag.ContinueOnError)
	verbose := fs.Bool("v", false, "print the wanted and actual output of each failing case")
	pgURL := fs.String("postgres", "", "run every database in a new schema of the PostgreSQL server at `URL` (dropped afterwards)")
	srvURL := fs.String("url", "", "run against the gqlsh serve at `URL` (http://HOST:PORT) over its HTTP API")
	token := fs.String("token", "", "with --url, send `TOKEN` as the bearer token (it needs write access to every session name)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: gqlsh conformance [-v] [--postgres URL | --url URL [--token T]] [DIR]\n\nRuns DIR/*.txt (default: the suite built into gqlsh) against the embedded engine,\nor with --url against a running server, each file on sessions of fresh names.")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 1 {
		fmt.Fprintln(stderr, "gqlsh conformance: at most one DIR")
		return 2
	}
	if *srvURL != "" && *pgURL != "" {
		fmt.Fprintln(stderr, "gqlsh conformance: give --postgres or --url, not both (a server over --url keeps its sessions where it was started with)")
		return 2
	}
	if *token != "" && *srvURL == "" {
		fmt.Fprintln(stderr, "gqlsh conformance: --token goes with --url")
		return 2
	}
	ctx := context.Background()
	fsys := conformance.Suite()
	if fs.NArg() == 1 {
		fsys = os.DirFS(fs.Arg(0))
	}
	var (
		rep conformance.Report
		err error
	)
	switch {
	case *srvURL != "":
		rep, err = conformance.RunRemote(ctx, fsys, conformance.RemoteOptions{URL: *srvURL, Token: *token})
	case *pgURL != "":
		rep, err = conformance.RunOn(ctx, fsys, postgresStorage(*pgURL))
	default:
		rep, err = conformance.RunOn(ctx, fsys, nil)
	}
	// What a run prints of an error or an output comes from the engine or
	// the server (--url): printed visible (repl.Visible).
	if err != nil {
		fmt.Fprintln(stderr, repl.Visible(fmt.Sprintf("gqlsh conformance: %v", err)))
		return 1
	}
	for _, f := range rep.Failures {
		if f.Err != nil {
			fmt.Fprintln(stdout, repl.Visible(fmt.Sprintf("FAIL %s %s: %v", f.Pos, f.Cmd, f.Err)))
			continue
		}
		fmt.Fprintln(stdout, repl.Visible(fmt.Sprintf("FAIL %s %s: output differs", f.Pos, f.Cmd)))
		if *verbose {
			io.WriteString(stdout, repl.Visible(fmt.Sprintf("  want:\n%s  got:\n%s", indent(f.Want), indent(f.Got))))
		}
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(stdout, "SKIP %s %s: skipped over --url (%s)\n", s.Pos, s.Cmd, s.Reason)
	}
	if *srvURL != "" || len(rep.Skipped) > 0 {
		fmt.Fprintf(stdout, "%d ran: %d passed, %d failed; %d skipped over --url\n", rep.Ran(), rep.Passed, rep.Failed(), len(rep.Skipped))
	} else {
		fmt.Fprintf(stdout, "%d passed, %d failed\n", rep.Passed, rep.Failed())
	}
	if rep.Failed() > 0 {
		return 1
	}
	return 0
}

func indent(s string) string {
	if s == "" {
		return "    (nothing)\n"
	}
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString("    ")
			b.WriteString(l)
		}
	}
	if !strings.HasSuffix(s, "\n") {
		b.WriteByte('\n')
	}
	return b.String()
}
