package conformance

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/repl"
)

//go:embed testdata/*.txt
var suite embed.FS

// Suite returns the conformance files shipped with this package.
func Suite() fs.FS {
	sub, err := fs.Sub(suite, "testdata")
	if err != nil {
		panic(err) // the embed pattern guarantees the directory
	}
	return sub
}

// DefaultSession is the session a directive without session= uses.
const DefaultSession = "main"

// Directive is one case: a command, its arguments, its input and (when read
// from a file) the expected output and where the case starts.
type Directive struct {
	Cmd      string
	Args     map[string]string
	Input    string
	Expected string
	// Pos is "file:line" of the directive line.
	Pos string
}

// Engine is the state the cases of one file run against.
type Engine struct {
	db *goldfish.DB
	// dir holds the cabinet file of a "reset cabinet" engine ("" in
	// memory).
	dir string
	// slices are the texts export kept, by name; they outlive reset, so
	// a slice can move from one database to another.
	slices map[string]string
	// storage, when set, makes every database the engine opens (opts
	// opens the current one again, remove removes it).
	storage Storage
	opts    []goldfish.Option
	remove  func()
}

// Storage makes the databases an engine runs on, to run the suite on a
// cabinet other than memory and files (a PostgreSQL server): each call
// returns the options that open a new, empty database, and a function
// that removes it once the engine is done with it.
type Storage func() (opts []goldfish.Option, remove func(), err error)

// NewEngine returns an engine over a fresh in-memory database.
func NewEngine() *Engine {
	e := &Engine{}
	if err := e.reset(false); err != nil {
		panic(err) // an in-memory database cannot fail to open
	}
	return e
}

// NewEngineOn returns an engine whose every database, "reset" and
// "reset cabinet" alike, storage makes; "reopen" opens it again.
func NewEngineOn(storage Storage) (*Engine, error) {
	e := &Engine{storage: storage}
	if err := e.reset(false); err != nil {
		return nil, err
	}
	return e, nil
}

// Close closes the engine's database and removes its cabinet file.
func (e *Engine) Close() {
	if e.db != nil {
		e.db.Close()
	}
	if e.dir != "" {
		os.RemoveAll(e.dir)
	}
	if e.remove != nil {
		e.remove()
	}
}

// reset starts over on a fresh database: in memory, or on a new cabinet
// file that "reopen" closes and opens again.
func (e *Engine) reset(cabinet bool) error {
	e.Close()
	e.db, e.dir, e.opts, e.remove = nil, "", nil, nil
	if e.storage != nil {
		opts, remove, err := e.storage()
		if err != nil {
			return err
		}
		e.opts, e.remove = opts, remove
		e.db, err = goldfish.Open(opts...)
		return err
	}
	var opts []goldfish.Option
	if cabinet {
		dir, err := os.MkdirTemp("", "goldfish-conformance-")
		if err != nil {
			return err
		}
		e.dir = dir
		opts = append(opts, goldfish.WithCabinet(path.Join(dir, "cabinet.gf")))
	}
	db, err := goldfish.Open(opts...)
	if err != nil {
		return err
	}
	e.db = db
	return nil
}

// reopen closes the database and opens its cabinet file again, after a
// flush of every session when flush is set, so what follows reads the
// sessions as a new process would: hydrated from snapshots and logs.
func (e *Engine) reopen(ctx context.Context, flush bool) error {
	if e.storage != nil {
		if flush {
			if err := e.db.Flush(ctx); err != nil {
				return err
			}
		}
		if err := e.db.Close(); err != nil {
			return err
		}
		db, err := goldfish.Open(e.opts...)
		if err != nil {
			return err
		}
		e.db = db
		return nil
	}
	if e.dir == "" {
		return fmt.Errorf("reopen: the engine is in memory; start the file with \"reset cabinet\"")
	}
	if flush {
		if err := e.db.Flush(ctx); err != nil {
			return err
		}
	}
	if err := e.db.Close(); err != nil {
		return err
	}
	db, err := goldfish.Open(goldfish.WithCabinet(path.Join(e.dir, "cabinet.gf")))
	if err != nil {
		return err
	}
	e.db = db
	return nil
}

// Do runs one directive and returns its output. An error means the
// directive itself is malformed (unknown command or argument), not that
// the engine refused the statement: refusals are output.
func (e *Engine) Do(ctx context.Context, d Directive) (string, error) {
	for k := range d.Args {
		switch {
		case k == "session":
		case k == "agent" && (d.Cmd == "commit" || d.Cmd == "ingest" || d.Cmd == "recall"):
		case k == "format" && d.Cmd == "script":
		case k == "summary" && d.Cmd == "dump":
		case k == "cabinet" && d.Cmd == "reset":
		case k == "flush" && d.Cmd == "reopen":
		case k == "slice" && (d.Cmd == "export" || d.Cmd == "absorb"):
		case k == "policy" && d.Cmd == "absorb", k == "agent" && d.Cmd == "absorb":
		case d.Cmd == "export" && (k == "nicks" || recallArgs[k] || strings.HasPrefix(k, "$")):
		case d.Cmd == "settings":
		case d.Cmd == "recall" && (recallArgs[k] || strings.HasPrefix(k, "$")):
		default:
			return "", fmt.Errorf("%s: unknown argument %q", d.Cmd, k)
		}
	}
	name := d.Args["session"]
	if name == "" {
		name = DefaultSession
	}
	switch d.Cmd {
	case "reset":
		_, cabinet := d.Args["cabinet"]
		return "", e.reset(cabinet)
	case "reopen":
		_, flush := d.Args["flush"]
		return "", e.reopen(ctx, flush)
	}
	s, err := e.db.Session(ctx, name)
	if err != nil {
		return "", err
	}
	switch d.Cmd {
	case "commit":
		res, err := s.CommitWith(ctx, d.Input, nil, goldfish.CommitOptions{Agent: d.Args["agent"]})
		return formatCommit(res, err), nil
	case "ingest":
		res, err := s.IngestWith(ctx, d.Input, nil, goldfish.CommitOptions{Agent: d.Args["agent"]})
		return formatCommit(res, err), nil
	case "dump":
		out := s.Dump()
		if _, ok := d.Args["summary"]; ok {
			// Only the version and the counts: for sessions too big to list.
			lines := strings.SplitAfterN(out, "\n", 3)
			out = lines[0] + lines[1]
		}
		return out, nil
	case "recall":
		opts, err := recallOptions(d.Args)
		if err != nil {
			return "", err
		}
		opts.Agent = d.Args["agent"]
		sh, err := s.Recall(ctx, d.Input, opts)
		if err != nil {
			return formatCommit(nil, err), nil
		}
		if _, ok := d.Args["json"]; ok {
			j, err := json.Marshal(sh.Attention)
			if err != nil {
				return "", err
			}
			return sh.Text + "attention: " + string(j) + "\n", nil
		}
		return sh.Text, nil
	case "settings":
		return settings(ctx, s, d.Args), nil
	case "export":
		return e.export(ctx, s, d)
	case "absorb":
		return e.absorb(ctx, s, d)
	case "vocabulary":
		v, err := s.Vocabulary(ctx)
		if err != nil {
			return formatCommit(nil, err), nil
		}
		return formatVocabulary(v), nil
	case "script":
		format, err := repl.ParseFormat(orDefault(d.Args["format"], "gql"))
		if err != nil {
			return "", err
		}
		var out, errOut bytes.Buffer
		code := repl.Run(ctx, s, &repl.ReaderIO{R: strings.NewReader(d.Input), Out: &out, Err: &errOut},
			repl.Options{Format: format})
		res := out.String() + errOut.String()
		if code != 0 {
			res += fmt.Sprintf("exit %d\n", code)
		}
		return res, nil
	}
	return "", fmt.Errorf("unknown directive %q (want commit, ingest, recall, dump, vocabulary, settings, script, export, absorb, reset or reopen)", d.Cmd)
}

// settings sets the attention settings its arguments name (as gqlsh's
// :set does) and shows them all:
//
//	settings [session=NAME] [stale_reads=N] [decay=F] [salience_threshold=F] [gap_ratio=F] [gap_min=N]
func settings(ctx context.Context, s *goldfish.Session, args map[string]string) string {
	cur, err := s.AttentionSettings(ctx)
	if err != nil {
		return formatCommit(nil, err)
	}
	names := make([]string, 0, len(args))
	for k := range args {
		if k != "session" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		if cur, err = goldfish.SetAttentionSetting(cur, k, args[k]); err != nil {
			return formatCommit(nil, err)
		}
	}
	if len(names) > 0 {
		if err := s.SetAttentionSettings(ctx, cur); err != nil {
			return formatCommit(nil, err)
		}
	}
	return cur.String() + "\n"
}

// formatVocabulary lists a session's vocabulary with every counter.
func formatVocabulary(v *goldfish.Vocabulary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "version %d\n", v.Version)
	for _, x := range v.Views {
		fmt.Fprintf(&b, "view %s", x.Name)
		if x.Broken() {
			fmt.Fprintf(&b, ": broken: %s", x.Error)
		} else {
			fmt.Fprintf(&b, " = %s", x.Text)
		}
		fmt.Fprintf(&b, "\n  expr %q intent %q agent %q registered v%d revised v%d revisions %d\n",
			x.Expr, x.Intent, x.Agent, x.Registered, x.Revised, x.Revisions)
	}
	for _, a := range v.Actions {
		fmt.Fprintf(&b, "action %s", a.Signature)
		if a.If != "" {
			fmt.Fprintf(&b, " IF %q", a.If)
		}
		fmt.Fprintf(&b, "\n  intent %q agent %q registered v%d revised v%d revisions %d invocations %d last invoked v%d\n",
			a.Intent, a.Agent, a.Registered, a.Revised, a.Revisions, a.Invocations, a.LastInvoked)
	}
	return b.String()
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// formatCommit renders a Commit outcome: the summary, then (for a Δ of
// several statements) one line per statement, each followed by its
// notices; or the error and its caret lines.
func formatCommit(res *goldfish.CommitResult, err error) string {
	var b strings.Builder
	if err != nil {
		b.WriteString("error: ")
		repl.WriteError(&b, err)
		return b.String()
	}
	b.WriteString(repl.Summary(res))
	b.WriteByte('\n')
	for _, st := range res.Stmts {
		if len(res.Stmts) > 1 {
			sum := repl.StmtSummary(st)
			if sum == "" {
				sum = "nothing"
			}
			fmt.Fprintf(&b, "stmt %d %s: %s\n", st.Index, st.Status, sum)
		}
		for _, n := range st.Notices {
			b.WriteString(repl.NoticeLine(n))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Parse reads the cases of one file. name is used in positions.
func Parse(name string, r io.Reader) ([]Directive, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	var out []Directive
	i := 0
	for i < len(lines) {
		line := strings.TrimSpace(lines[i])
		i++
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		d := Directive{Pos: fmt.Sprintf("%s:%d", name, i), Args: map[string]string{}}
		for strings.HasSuffix(line, `\`) && i < len(lines) {
			line = strings.TrimSuffix(line, `\`) + " " + strings.TrimSpace(lines[i])
			i++
		}
		fields := strings.Fields(line)
		d.Cmd = fields[0]
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(f, "=")
			d.Args[k] = v
		}
		var input []string
		sep := false
		for i < len(lines) {
			l := lines[i]
			i++
			if l == "----" {
				sep = true
				break
			}
			input = append(input, l)
		}
		if !sep {
			return nil, fmt.Errorf("%s: directive %s has no ---- line", d.Pos, d.Cmd)
		}
		d.Input = strings.TrimSpace(strings.Join(input, "\n"))
		var exp strings.Builder
		if i < len(lines) && lines[i] == "----" {
			// Fenced output: ends at two successive "----" lines.
			i++
			closed := false
			for i < len(lines) {
				if lines[i] == "----" && i+1 < len(lines) && lines[i+1] == "----" {
					i += 2
					closed = true
					break
				}
				exp.WriteString(lines[i])
				exp.WriteByte('\n')
				i++
			}
			if !closed {
				return nil, fmt.Errorf("%s: fenced output is not closed with ----/----", d.Pos)
			}
		} else {
			for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
				exp.WriteString(lines[i])
				exp.WriteByte('\n')
				i++
			}
		}
		d.Expected = exp.String()
		out = append(out, d)
	}
	return out, nil
}

// Failure is one case whose output differs from the expected one.
type Failure struct {
	Pos  string
	Cmd  string
	Want string
	Got  string
	// Err is set when the directive itself is malformed.
	Err error
}

func (f Failure) String() string {
	if f.Err != nil {
		return fmt.Sprintf("%s: %s: %v", f.Pos, f.Cmd, f.Err)
	}
	return fmt.Sprintf("%s: %s: output differs\n--- want\n%s--- got\n%s", f.Pos, f.Cmd, f.Want, f.Got)
}

// Report is the outcome of a run.
type Report struct {
	Passed   int
	Failures []Failure
}

// Failed returns the number of failing cases.
func (r Report) Failed() int { return len(r.Failures) }

// Files lists the *.txt files of fsys's root, sorted.
func Files(fsys fs.FS) ([]string, error) {
	names, err := fs.Glob(fsys, "*.txt")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// Run runs every *.txt file of fsys's root, each on a fresh engine.
func Run(ctx context.Context, fsys fs.FS) (Report, error) { return RunOn(ctx, fsys, nil) }

// RunOn is Run with every database made by storage (nil: in memory and
// in files, as Run).
func RunOn(ctx context.Context, fsys fs.FS, storage Storage) (Report, error) {
	var rep Report
	names, err := Files(fsys)
	if err != nil {
		return rep, err
	}
	if len(names) == 0 {
		return rep, fmt.Errorf("no *.txt conformance files found")
	}
	for _, name := range names {
		f, err := fsys.Open(name)
		if err != nil {
			return rep, err
		}
		cases, err := Parse(path.Base(name), f)
		f.Close()
		if err != nil {
			return rep, err
		}
		var e *Engine
		if storage == nil {
			e = NewEngine()
		} else if e, err = NewEngineOn(storage); err != nil {
			return rep, err
		}
		for _, d := range cases {
			got, err := e.Do(ctx, d)
			if err == nil && got != "" && !strings.HasSuffix(got, "\n") {
				got += "\n"
			}
			if err != nil || got != d.Expected {
				rep.Failures = append(rep.Failures, Failure{Pos: d.Pos, Cmd: d.Cmd, Want: d.Expected, Got: got, Err: err})
				continue
			}
			rep.Passed++
		}
		e.Close()
	}
	return rep, nil
}

// RunDir runs the files of a directory.
func RunDir(ctx context.Context, dir string) (Report, error) {
	return Run(ctx, os.DirFS(dir))
}

// export runs the export directive (see the package doc).
func (e *Engine) export(ctx context.Context, s *goldfish.Session, d Directive) (string, error) {
	ro, err := recallOptions(d.Args)
	if err != nil {
		return "", err
	}
	o := goldfish.SliceOptions{M: ro.M, K: ro.K, L: ro.L, F: ro.F, Params: ro.Params}
	if n := d.Args["nicks"]; n != "" {
		o.Nicks = strings.Split(n, ",")
	}
	sl, err := s.ExportSlice(ctx, d.Input, o)
	if err != nil {
		return formatCommit(nil, err), nil
	}
	if e.slices == nil {
		e.slices = map[string]string{}
	}
	e.slices[orDefault(d.Args["slice"], "slice")] = sl.Text
	return sl.Text, nil
}

// absorb runs the absorb directive (see the package doc).
func (e *Engine) absorb(ctx context.Context, s *goldfish.Session, d Directive) (string, error) {
	text := d.Input
	if text != "" {
		text += "\n" // the input lost the slice's final newline
	} else {
		name := orDefault(d.Args["slice"], "slice")
		t, ok := e.slices[name]
		if !ok {
			return "", fmt.Errorf("absorb: no slice %q was exported in this file", name)
		}
		text = t
	}
	policy, err := goldfish.ParseAbsorbPolicy(d.Args["policy"])
	if err != nil {
		return formatCommit(nil, err), nil
	}
	res, err := s.AbsorbWith(ctx, text, policy, goldfish.CommitOptions{Agent: d.Args["agent"]})
	if err != nil {
		return formatCommit(nil, err), nil
	}
	var b strings.Builder
	b.WriteString(formatCommit(&res.CommitResult, nil))
	if res.Unchanged > 0 {
		fmt.Fprintf(&b, "unchanged %d\n", res.Unchanged)
	}
	from := make([]string, 0, len(res.Reminted))
	for f := range res.Reminted {
		from = append(from, f)
	}
	sort.Strings(from)
	for _, f := range from {
		fmt.Fprintf(&b, "reminted %s -> %s\n", f, res.Reminted[f])
	}
	return b.String(), nil
}
