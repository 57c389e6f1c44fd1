package conformance

import (
	"bufio"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/client"
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
	t Transport
	// slices are the texts export kept, by name; they outlive reset, so
	// a slice can move from one database to another.
	slices map[string]string
	// shapes are the texts recall kept, by name (shape=, default
	// "shape"), for a commit shape=NAME to commit back.
	shapes map[string]string
	// scratch counts the fresh sessions diffcheck made, to name the next.
	scratch int
	// behind holds the sessions a skipped directive may have changed
	// (a script writes; a Recall moves the attention state) without its
	// effects made (Skip.Applied), by name,
	// with the directive: what follows on them cannot be judged, so it is
	// skipped too, until a reset.
	behind map[string]string
}

// Storage makes the databases an engine runs on, to run the suite on a
// cabinet other than memory and files (a PostgreSQL server): each call
// returns the options that open a new, empty database, and a function
// that removes it once the engine is done with it.
type Storage func() (opts []goldfish.Option, remove func(), err error)

// NewEngine returns an engine over a fresh in-memory database.
func NewEngine() *Engine {
	e := &Engine{t: &embedded{}}
	if err := e.t.Reset(context.Background(), false); err != nil {
		panic(err) // an in-memory database cannot fail to open
	}
	return e
}

// NewEngineOn returns an engine whose every database, "reset" and
// "reset cabinet" alike, storage makes; "reopen" opens it again.
func NewEngineOn(storage Storage) (*Engine, error) {
	e := &Engine{t: &embedded{storage: storage}}
	if err := e.t.Reset(context.Background(), false); err != nil {
		return nil, err
	}
	return e, nil
}

// NewEngineOver returns an engine that runs its directives over t, which
// must be reset already (a fresh start, as the first directive of a file
// expects).
func NewEngineOver(t Transport) *Engine { return &Engine{t: t} }

// Close closes the engine's transport (for an embedded engine: the
// database, and its cabinet file is removed).
func (e *Engine) Close() { e.t.Close() }

// Do runs one directive and returns its output. An error means the
// directive itself is malformed (unknown command or argument), not that
// the engine refused the statement: refusals are output. A *Skip error
// says the transport cannot run the directive.
func (e *Engine) Do(ctx context.Context, d Directive) (string, error) {
	name := orDefault(d.Args["session"], DefaultSession)
	if why, ok := e.behind[name]; ok && d.Cmd != "reset" && d.Cmd != "reopen" {
		return "", &Skip{Reason: "session " + name + " is not as the file expects it: " + why + " was skipped"}
	}
	out, err := e.do(ctx, d)
	var f *failure
	if errors.As(err, &f) {
		return "", f.err
	}
	var sk *Skip
	switch {
	case d.Cmd == "reset":
		e.behind = nil
	case errors.As(err, &sk) && d.Cmd != "reopen" && !sk.Applied:
		if e.behind == nil {
			e.behind = map[string]string{}
		}
		e.behind[name] = "the " + d.Cmd + " at " + d.Pos
	}
	return out, err
}

func (e *Engine) do(ctx context.Context, d Directive) (string, error) {
	for k := range d.Args {
		switch {
		case k == "session":
		case k == "agent" && (d.Cmd == "commit" || d.Cmd == "ingest" || d.Cmd == "recall"):
		case k == "shape" && (d.Cmd == "commit" || d.Cmd == "ingest" || d.Cmd == "recall"):
		case k == "format" && d.Cmd == "script":
		case k == "summary" && d.Cmd == "dump":
		case k == "cabinet" && d.Cmd == "reset":
		case k == "flush" && d.Cmd == "reopen":
		case k == "slice" && (d.Cmd == "export" || d.Cmd == "absorb"):
		case k == "policy" && d.Cmd == "absorb", k == "agent" && d.Cmd == "absorb":
		case d.Cmd == "export" && (k == "nicks" || recallArgs[k] || strings.HasPrefix(k, "$")):
		case historyArgs[d.Cmd][k]:
		case d.Cmd == "settings", d.Cmd == "help":
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
		return "", e.t.Reset(ctx, cabinet)
	case "reopen":
		_, flush := d.Args["flush"]
		return "", e.t.Reopen(ctx, flush)
	case "commit", "ingest":
		mint := ""
		if d.Cmd == "ingest" {
			mint = "ingest"
		}
		text := d.Input
		if _, ok := d.Args["shape"]; ok {
			if text != "" {
				return "", fmt.Errorf("%s: shape= commits a kept Shape; give no input", d.Cmd)
			}
			kept, ok := e.shapes[orDefault(d.Args["shape"], "shape")]
			if !ok {
				return "", fmt.Errorf("%s: no Shape %q was recalled in this file", d.Cmd, orDefault(d.Args["shape"], "shape"))
			}
			text = kept
		}
		res, err := e.t.Commit(ctx, name, text, mint, d.Args["agent"])
		return formatOutcome(res, err)
	case "dump":
		out, err := e.t.Dump(ctx, name)
		if err != nil {
			return formatOutcome(nil, err)
		}
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
		sh, err := e.t.Recall(ctx, name, d.Input, opts)
		if err != nil {
			return formatOutcome(nil, err)
		}
		if e.shapes == nil {
			e.shapes = map[string]string{}
		}
		e.shapes[orDefault(d.Args["shape"], "shape")] = sh.Text
		text := sh.Text
		if _, ok := d.Args["notices"]; ok {
			text += formatShapeNotices(sh)
		}
		if _, ok := d.Args["json"]; ok {
			j, err := json.Marshal(sh.Attention)
			if err != nil {
				return "", err
			}
			return text + "attention: " + string(j) + "\n", nil
		}
		return text, nil
	case "settings":
		return e.settings(ctx, name, d.Args)
	case "export":
		return e.export(ctx, name, d)
	case "absorb":
		return e.absorb(ctx, name, d)
	case "help":
		// help TOPIC: the text of a help topic, as every interface
		// serves it (the envelope's help lines name the topics).
		if len(d.Args) != 1 {
			return "", fmt.Errorf("help: name one topic")
		}
		var topic string
		for k := range d.Args {
			topic = k
		}
		text, err := e.t.Help(ctx, topic)
		if err != nil {
			return formatOutcome(nil, err)
		}
		return text, nil
	case "vocabulary":
		v, err := e.t.Vocabulary(ctx, name)
		if err != nil {
			return formatOutcome(nil, err)
		}
		return formatVocabulary(v), nil
	case "diff":
		return e.diff(ctx, name, d)
	case "diffcheck":
		return e.diffcheck(ctx, name, d)
	case "history":
		return e.history(ctx, name, d)
	case "script":
		format, err := repl.ParseFormat(orDefault(d.Args["format"], "gql"))
		if err != nil {
			return "", err
		}
		res, code, err := e.t.Script(ctx, name, d.Input, format)
		if err != nil {
			return "", err
		}
		if code != 0 {
			res += fmt.Sprintf("exit %d\n", code)
		}
		return res, nil
	}
	return "", fmt.Errorf("unknown directive %q (want commit, ingest, recall, dump, vocabulary, settings, script, export, absorb, diff, diffcheck, history, reset or reopen)", d.Cmd)
}

// formatOutcome is formatCommit, but a transport's own failure or a
// skip is the directive's error rather than output.
func formatOutcome(res *goldfish.CommitResult, err error) (string, error) {
	var f *failure
	var sk *Skip
	if errors.As(err, &f) || errors.As(err, &sk) {
		return "", err
	}
	return formatCommit(res, err), nil
}

// settings sets the attention settings its arguments name (as gqlsh's
// :set does) and shows them all:
//
//	settings [session=NAME] [stale_reads=N] [decay=F] [salience_threshold=F] [gap_ratio=F] [gap_min=N] [pinned=KIND,KIND]
//
// pinned= alone clears the pinned kinds; they are shown on a line of
// their own when the session pins any.
func (e *Engine) settings(ctx context.Context, session string, args map[string]string) (string, error) {
	cur, err := e.t.AttentionSettings(ctx, session)
	if err != nil {
		return formatOutcome(nil, err)
	}
	names := make([]string, 0, len(args))
	for k := range args {
		if k != "session" && k != "pinned" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		if cur, err = goldfish.SetAttentionSetting(cur, k, args[k]); err != nil {
			return formatOutcome(nil, err)
		}
	}
	if kinds, ok := args["pinned"]; ok {
		if err := e.t.SetPinnedKinds(ctx, session, goldfish.ParseKinds(kinds)); err != nil {
			return formatOutcome(nil, err)
		}
	}
	if len(names) > 0 {
		if err := e.t.SetAttentionSettings(ctx, session, cur); err != nil {
			return formatOutcome(nil, err)
		}
	}
	out := cur.String() + "\n"
	pinned, err := e.t.PinnedKinds(ctx, session)
	if err != nil {
		return formatOutcome(nil, err)
	}
	if len(pinned) > 0 { // the sessions that pin nothing show as they did
		out += "pinned=" + strings.Join(pinned, ",") + "\n"
	}
	return out, nil
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
		if a.FailedCalls > 0 {
			fmt.Fprintf(&b, "  failed calls %d last failure %q\n", a.FailedCalls, a.LastFailure)
		}
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
		var re *client.Refusal
		if errors.As(err, &re) {
			// The server's answer holds what WriteError prints: the
			// error's fields and its caret lines, rendered there.
			b.WriteString(re.Err.Error())
			b.WriteByte('\n')
			if re.Caret != "" {
				b.WriteString(re.Caret)
				b.WriteByte('\n')
			}
			return b.String()
		}
		repl.WriteError(&b, err)
		return b.String()
	}
	b.WriteString(res.Summary())
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

// Skipped is one case a run could not make over its transport, and why.
type Skipped struct {
	Pos, Cmd, Reason string
}

// Report is the outcome of a run.
type Report struct {
	Passed   int
	Failures []Failure
	Skipped  []Skipped
}

// Failed returns the number of failing cases.
func (r Report) Failed() int { return len(r.Failures) }

// Ran returns the number of cases that ran (passed or failed).
func (r Report) Ran() int { return r.Passed + len(r.Failures) }

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
	return RunOver(ctx, fsys, func() (Transport, error) {
		t := &embedded{storage: storage}
		return t, t.Reset(ctx, false)
	})
}

// RunRemote runs every *.txt file of fsys's root against the server o
// names, each file on sessions of its own (see RemoteOptions).
func RunRemote(ctx context.Context, fsys fs.FS, o RemoteOptions) (Report, error) {
	transports, err := NewRemote(ctx, o)
	if err != nil {
		return Report{}, err
	}
	return RunOver(ctx, fsys, transports)
}

// RunOver runs every *.txt file of fsys's root, each over a transport
// newTransport makes (ready, as after a reset).
func RunOver(ctx context.Context, fsys fs.FS, newTransport func() (Transport, error)) (Report, error) {
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
		t, err := newTransport()
		if err != nil {
			return rep, err
		}
		e := NewEngineOver(t)
		for _, d := range cases {
			got, err := e.Do(ctx, d)
			var sk *Skip
			if errors.As(err, &sk) {
				rep.Skipped = append(rep.Skipped, Skipped{Pos: d.Pos, Cmd: d.Cmd, Reason: sk.Reason})
				continue
			}
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
func (e *Engine) export(ctx context.Context, session string, d Directive) (string, error) {
	ro, err := recallOptions(d.Args)
	if err != nil {
		return "", err
	}
	o := goldfish.SliceOptions{M: ro.M, K: ro.K, L: ro.L, F: ro.F, Params: ro.Params}
	if n := d.Args["nicks"]; n != "" {
		o.Nicks = strings.Split(n, ",")
	}
	sl, err := e.t.ExportSlice(ctx, session, d.Input, o)
	if err != nil {
		return formatOutcome(nil, err)
	}
	if e.slices == nil {
		e.slices = map[string]string{}
	}
	e.slices[orDefault(d.Args["slice"], "slice")] = sl.Text
	return sl.Text, nil
}

// absorb runs the absorb directive (see the package doc).
func (e *Engine) absorb(ctx context.Context, session string, d Directive) (string, error) {
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
		return formatOutcome(nil, err)
	}
	res, err := e.t.Absorb(ctx, session, text, policy, d.Args["agent"])
	if err != nil {
		return formatOutcome(nil, err)
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
