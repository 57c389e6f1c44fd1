package repl

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// linesIO is a person typing: one line per Next, "^C" for Ctrl-C. It
// records the prompts shown and the history kept, and holds the completer
// the loop installs, as TermIO does on a terminal.
type linesIO struct {
	lines    []string
	prompts  []string
	history  []string
	out, err bytes.Buffer
	complete func(string, int) (string, []string, string)
	// errAt is the error stream as it stood at each prompt: what a
	// person had seen before typing the next line.
	errAt []string
	// onNext, when set, is called with the prompt's number (0-based)
	// before the line is given.
	onNext func(i int)
}

func (l *linesIO) Next(_ context.Context, prompt string) (string, error) {
	if l.onNext != nil {
		l.onNext(len(l.prompts))
	}
	l.prompts = append(l.prompts, prompt)
	l.errAt = append(l.errAt, l.err.String())
	if len(l.lines) == 0 {
		return "", io.EOF
	}
	line := l.lines[0]
	l.lines = l.lines[1:]
	if line == "^C" {
		return "", ErrInterrupted
	}
	return line, nil
}
func (l *linesIO) Stdout() io.Writer   { return &l.out }
func (l *linesIO) Stderr() io.Writer   { return &l.err }
func (l *linesIO) Interactive() bool   { return true }
func (l *linesIO) AddHistory(e string) { l.history = append(l.history, e) }
func (l *linesIO) SetCompleter(f func(string, int) (string, []string, string)) {
	l.complete = f
}

func newDB(t *testing.T) (*goldfish.DB, *goldfish.Session) {
	t.Helper()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := db.Session(context.Background(), "main")
	if err != nil {
		t.Fatal(err)
	}
	dbOf.Store(s, db)
	return db, s
}

func TestInteractive(t *testing.T) {
	cases := []struct {
		name     string
		lines    []string
		prompts  []string // prompts shown, in order (the last is the one EOF answered)
		history  []string
		out, err []string // substrings
		version  uint64
	}{
		{
			name:    "multi-line statement runs at ';'",
			lines:   []string{"INSERT (:TSK {nick: 'TSK_login', -- the handle", "   title: 'Fix login'});"},
			prompts: []string{"main> ", " ...> ", "main> "},
			history: []string{"INSERT (:TSK {nick: 'TSK_login', title: 'Fix login'});"},
			out:     []string{"ok v=1 +1 node 2 properties set\n"},
			version: 1,
		},
		{
			name:    "Ctrl-C clears the input",
			lines:   []string{"INSERT (:A", "^C", "INSERT (:B);"},
			prompts: []string{"main> ", " ...> ", "main> ", "main> "},
			history: []string{"INSERT (:B);"},
			out:     []string{"ok v=1 +1 node\n"},
			version: 1,
		},
		{
			name:    "complete statements run, the rest waits",
			lines:   []string{"INSERT (:A); INSERT (:B", ");"},
			prompts: []string{"main> ", " ...> ", "main> "},
			history: []string{"INSERT (:A);", "INSERT (:B );"},
			out:     []string{"ok v=1 +1 node\nok v=2 +1 node\n"},
			version: 2,
		},
		{
			name:    "a ':' line inside a statement is statement text",
			lines:   []string{"INSERT (", ":A);"},
			prompts: []string{"main> ", " ...> ", "main> "},
			out:     []string{"ok v=1 +1 node\n"},
			version: 1,
		},
		{
			name:    "the prompt shows the transaction and the agent",
			lines:   []string{":agent planner", "START TRANSACTION;", "INSERT (:A);", "COMMIT;"},
			prompts: []string{"main> ", "planner@main> ", "planner@main[tx]> ", "planner@main[tx]> ", "planner@main> "},
			out:     []string{"agent planner", "ok transaction started\n", "ok v=1 +1 node\n"},
			version: 1,
		},
		{
			name:    "errors do not end the loop",
			lines:   []string{"INSERT (:A {x: });", "INSERT (:A);"},
			err:     []string{"GQLSTATUS 42001", "^"},
			out:     []string{"ok v=1 +1 node\n"},
			version: 1,
		},
		{
			name:    "blank lines and comments do not wait",
			lines:   []string{"", "-- a note", "INSERT (:A);"},
			prompts: []string{"main> ", "main> ", "main> ", "main> "},
			version: 1,
		},
		{
			name:    "Ctrl-D with a statement pending drops it",
			lines:   []string{"INSERT (:A)"},
			err:     []string{"unfinished statement dropped"},
			version: 0,
		},
		{
			name:  ":quit ends the loop",
			lines: []string{":quit", "INSERT (:A);"},
		},
		{
			name:    "meta-commands go to the history",
			lines:   []string{"  :timing on  ", ":set M 3"},
			history: []string{":timing on", ":set M 3"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, s := newDB(t)
			in := &linesIO{lines: c.lines}
			code := runShell(t, context.Background(), s, in, Options{DB: db, Banner: "hello"})
			if code != 0 {
				t.Errorf("exit %d, want 0 (interactive)", code)
			}
			if !strings.HasPrefix(in.out.String(), "hello\n") {
				t.Errorf("no banner: %q", in.out.String())
			}
			if c.prompts != nil && !slices.Equal(in.prompts, c.prompts) {
				t.Errorf("prompts %q, want %q", in.prompts, c.prompts)
			}
			if c.history != nil && !slices.Equal(in.history, c.history) {
				t.Errorf("history %q, want %q", in.history, c.history)
			}
			for _, w := range c.out {
				if !strings.Contains(in.out.String(), w) {
					t.Errorf("stdout %q lacks %q", in.out.String(), w)
				}
			}
			for _, w := range c.err {
				if !strings.Contains(in.err.String(), w) {
					t.Errorf("stderr %q lacks %q", in.err.String(), w)
				}
			}
			if c.err == nil && in.err.Len() > 0 {
				t.Errorf("stderr: %s", in.err.String())
			}
			if v := s.Version(); v != c.version {
				t.Errorf("version %d, want %d", v, c.version)
			}
		})
	}
}

// TestMeta runs every meta-command (in a script, as -c or a file would)
// and checks what it prints and does.
func TestMeta(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "setup.gql")
	if err := os.WriteFile(src, []byte("INSERT (:S {nick: 'from_file'});\n:set k 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	agentSrc := filepath.Join(dir, "agent.gql")
	if err := os.WriteFile(agentSrc, []byte("MATCH (a:A);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.gql")
	if err := os.WriteFile(bad, []byte("INSERT (:A {x: });\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		in       string
		out      []string // substrings of stdout, in order
		err      string   // substring of stderr; "" means empty
		code     int
		session  string // the session at the end (default main)
		version  uint64 // of main
		check    func(t *testing.T, sh *Shell)
		notOut   string
		jsonMode bool
	}{
		{name: "help", in: ":help", out: []string{":use SESSION", "creating", ":set", ":quit", "Topics:"}},
		{name: "help NAME", in: ":help use", out: []string{":use SESSION", "first use"}},
		{name: "help :NAME", in: ":help :set", out: []string{":set [KNOB VALUE]", "ceilings"}},
		{name: "help topic", in: ":help recall", out: []string{"MATCH (t:TSK"}},
		{name: "help unknown", in: ":help nope", err: "no help for \"nope\"", code: 1},
		{name: "use new", in: ":use work\nINSERT (:A);", out: []string{"using session work: a new, empty session (its first Commit makes it)\n", "ok v=1"},
			session: "work", version: 0},
		{name: "use existing", in: "INSERT (:A);\n:use work\n:use main", out: []string{"using session main (version 1)\n"}, version: 1},
		{name: "use bad name", in: ":use no/slash", err: "GQLSTATUS 42Q03", code: 1},
		{name: "use in a transaction", in: "START TRANSACTION;\n:use work\nROLLBACK;", err: "COMMIT or ROLLBACK before :use", code: 1},
		{name: "use without a name", in: ":use", err: "usage: :use SESSION", code: 1},
		{name: "sessions", in: "INSERT (:A);\n:use b\n:sessions", out: []string{"* b    v=0 nodes=0 edges=0\n  main v=1 nodes=1 edges=0\n"}, session: "b", version: 1},
		{name: "sessions counts recycled", in: "INSERT (:A {nick: 'a'})-[:r]->(:B);\nMATCH (a:A {nick: 'a'}) DETACH DELETE a;\n:sessions",
			out: []string{"* main v=2 nodes=1 edges=0 recycled=2\n"}, version: 2},
		{name: "use catalog", in: "INSERT (:A);\n:use catalog\nMATCH (s:SESSION);\n:sessions",
			out: []string{"using the catalog (read-only", "name: \"main\"", "* catalog (read-only", "  main v=1 nodes=1 edges=0\n"}, session: "catalog", version: 1},
		{name: "catalog refuses Commit", in: ":use catalog\nINSERT (:A);", err: "GQLSTATUS 42Q02: statement 1: the catalog session is kept by the engine and is not a Commit target", code: 1, session: "catalog"},
		{name: "drop", in: "INSERT (:A);\n:use b\nINSERT (:B)-[:r]->(:C);\n:use main\n:drop b\n:sessions",
			out: []string{"dropped session b (v=1 nodes=2 edges=1); it is gone for good\n", "* main v=1 nodes=1 edges=0\n"}, notOut: "  b ", version: 1,
			check: func(t *testing.T, sh *Shell) {
				if names, _ := sh.host.Sessions(context.Background()); slices.Contains(names, "b") {
					t.Errorf("b still listed: %v", names)
				}
			}},
		{name: "drop then use makes a new session", in: ":use b\nINSERT (:B);\n:use main\n:drop b\n:use b", out: []string{"dropped session b", "using session b: a new, empty session"}, session: "b"},
		{name: "drop the current session", in: ":drop main", err: "main is the current session and cannot be dropped; :use another session first", code: 1},
		{name: "drop the catalog", in: ":drop catalog", err: "the catalog lists the sessions and cannot be dropped", code: 1},
		{name: "drop needs a name", in: ":drop", err: "usage: :drop NAME", code: 1},
		{name: "drop one name only", in: ":drop a b", err: "usage: :drop NAME", code: 1},
		{name: "drop unknown", in: ":drop nope", err: "there is no session \"nope\" to drop", code: 1},
		{name: "drop bad name", in: ":drop a/b", err: "GQLSTATUS 42Q03", code: 1},
		{name: "purge", in: "INSERT (:A {nick: 'a'});\nMATCH (a:A {nick: 'a'}) DETACH DELETE a;\n:purge\n:purge\n:sessions",
			out: []string{"purged 1 recycled element from main: v=3\n", "nothing to purge: main has no recycled elements (v=3)\n", "* main v=3 nodes=0 edges=0\n"}, version: 3},
		{name: "purge in a transaction", in: "START TRANSACTION;\n:purge\nROLLBACK;", err: "COMMIT or ROLLBACK before :purge", code: 1},
		{name: "purge the catalog", in: ":use catalog\n:purge", err: "not a Commit target", code: 1, session: "catalog"},
		{name: "flush in memory", in: ":flush", out: []string{"nothing to flush: the sessions are in memory"}},
		{name: "backup in memory", in: ":backup " + filepath.Join(dir, "b.gf"), err: "nothing to back up: the sessions are in memory", code: 1},
		{name: "backup needs a path", in: ":backup", err: "usage: :backup PATH", code: 1},
		{name: "agent", in: ":agent\n:agent planner\n:agent\n:agent -", out: []string{"no agent set", "agent planner: Recalls and Commits name it\n", "agent planner\n", "agent cleared"},
			check: func(t *testing.T, sh *Shell) {
				if sh.Agent() != "" {
					t.Errorf("agent %q", sh.Agent())
				}
			}},
		{name: "agent bad name", in: ":agent a/b", err: "GQLSTATUS 42Q03: agent name \"a/b\": use 1 to 64 letters", code: 1},
		{name: "agent bad first character", in: ":agent .hidden", err: "GQLSTATUS 42Q03: agent name \".hidden\"", code: 1},
		{name: "agent too long", in: ":agent " + strings.Repeat("a", 65), err: "GQLSTATUS 42Q03", code: 1},
		{name: "agent usage", in: ":agent a b", err: "usage: :agent [NAME]", code: 1},
		{name: "agents none", in: ":agents", out: []string{"no agent has read session main"}},
		{name: "agents usage", in: ":agents x", err: "usage: :agents [forget NAME]", code: 1},
		{name: "agents forget", in: ":agent ana\nMATCH (a:A);\n:agents forget ana\n:agents", out: []string{"forgot agent ana of session main", "no agent has read session main"}},
		{name: "agents forget unknown", in: ":agents forget bob", err: "keeps no agent", code: 1},
		// ana reads once at v1; bob commits a transaction (v2), reads
		// twice in the script and once from a sourced file; a Recall
		// after :agent - counts for nobody.
		{name: "agent reaches Recall, Commit, transactions and source",
			in: ":agent ana\nINSERT (:A {nick: 'a'});\nMATCH (a:A);\n:agent bob\nSTART TRANSACTION;\nINSERT (:B);\nMATCH (a:A) SET a.x = 1;\nCOMMIT;\n" +
				"MATCH (a:A);\nMATCH (a:A);\n:source " + agentSrc + "\n:agent -\nMATCH (a:A);\n:agent bob\n:agents",
			out:     []string{"  ana last read v=1 reads=1\n* bob last read v=2 reads=3\n"},
			version: 2,
			check: func(t *testing.T, sh *Shell) {
				list, err := sh.Runner().Session.Agents(context.Background())
				want := []goldfish.AgentInfo{{Name: "ana", LastRead: 1, Reads: 1}, {Name: "bob", LastRead: 2, Reads: 3}}
				if err != nil || !slices.Equal(list, want) {
					t.Errorf("agents %+v, %v; want %+v", list, err, want)
				}
			}},
		{name: "set lists", in: ":set", out: []string{"M      50 (default)  (ceiling 200)\n", "k      2 (default)", "L      4 (default)", "F      8 (default)", "T      4000 (default)  (token target)\n", "view   interior (default)\n", "peaks  on\n"}},
		{name: "set knobs", in: ":set M 20\n:set k=1\n:set L 2\n:set F 3\n:set T 300\n:set view shell\n:set peaks off\n:set",
			out: []string{"M = 20\n", "M      20  (ceiling 200)", "k      1 ", "L      2 ", "F      3 ", "T      300 ", "view   shell", "peaks  off"},
			check: func(t *testing.T, sh *Shell) {
				o := sh.Runner().Recall
				if o.M != 20 || o.K != 1 || o.L != 2 || o.F != 3 || o.T != 300 || o.View != "shell" || !o.NoPeaks {
					t.Errorf("recall options %+v", o)
				}
			}},
		{name: "set above ceiling", in: ":set M 999", err: "GQLSTATUS 22Q01: M=999 is above its ceiling 200", code: 1},
		{name: "set negative", in: ":set k -1", err: "GQLSTATUS 22Q06: k takes a whole number", code: 1},
		{name: "set bad view", in: ":set view wide", err: "GQLSTATUS 22Q06: view is interior or shell", code: 1},
		{name: "set bad peaks", in: ":set peaks maybe", err: "GQLSTATUS 22Q06: peaks is on or off", code: 1},
		{name: "set unknown knob", in: ":set width 3", err: "GQLSTATUS 22Q06: unknown knob \"width\"", code: 1},
		{name: "set depth", in: ":set depth full\n:set only views,attention\n:set", out: []string{"depth  full\n", "only   views,attention\n", "session main: stale_reads=10 decay=0.9"}},
		{name: "set bad depth", in: ":set depth 3", err: "GQLSTATUS 22Q06: depth is lean or full, not \"3\"", code: 1},
		{name: "set bad only", in: ":set only views,graph", err: "only takes sections from shape, views, actions and attention, not \"graph\"", code: 1},
		{name: "set only resets", in: ":set only views\n:set only\n:set", out: []string{"only   (every section)\n"}},
		{name: "set session setting", in: ":set stale_reads 3\n:set decay=0.5\n:set", out: []string{"session main: stale_reads=3 decay=0.5 salience_threshold=0.1"}},
		{name: "set bad setting", in: ":set decay 2", err: "GQLSTATUS 22Q06: decay is 2; it is a factor from 0.001 to 1", code: 1},
		{name: "set usage", in: ":set M 1 2", err: "GQLSTATUS 42001: usage: :set KNOB VALUE", code: 1},
		{name: "set budgets reach Recall", in: "INSERT (:A {nick: 'a'})-[:r]->(:B {nick: 'b'});\n:set M 1\nMATCH (a:A);",
			out: []string{"rows=1/1"}, version: 1},
		{name: "param and params", in: ":params\n:param n 'it\\'s'\n:param $x [1, 2.5, true, null, \"s\"]\n:params",
			out: []string{"no parameters", "$n = \"it's\"\n", "$x = [1, 2.5, true, null, \"s\"]\n", "$n = \"it's\"\n$x = [1, 2.5, true, null, \"s\"]\n"}},
		{name: "params reach Commit and Recall", in: ":param n \"TSK_a\"\n:param s 3\nINSERT (:TSK {nick: $n, size: $s});\nMATCH (t:TSK {nick: $n});",
			out: []string{"ok v=1 +1 node 2 properties set", "(tsk1:TSK {nick: \"TSK_a\", size: 3})"}, version: 1},
		{name: "param removed", in: ":param n 1\n:param n\n:params", out: []string{"$n removed\n", "no parameters"}},
		{name: "params clear", in: ":param a 1\n:param b 2\n:params clear\n:params", out: []string{"2 parameters removed", "no parameters"}},
		{name: "param unknown removed", in: ":param zz", err: "GQLSTATUS 42002: no parameter $zz", code: 1},
		{name: "param bad value", in: ":param n open", err: "GQLSTATUS 42002: $n: variable open is not bound", code: 1},
		{name: "param out of range", in: ":param n 1e999", err: "GQLSTATUS 22003: $n:", code: 1},
		{name: "param map refused", in: ":param n {a: 1}", err: "GQLSTATUS 22G03: $n: a map value is allowed only as a property map", code: 1},
		{name: "param bad name", in: ":param 1x 2", err: "GQLSTATUS 42Q03: parameter name", code: 1},
		{name: "param no name", in: ":param", err: "GQLSTATUS 42001: usage: :param", code: 1},
		{name: "source", in: ":source " + src + "\nMATCH (s:S);", out: []string{"ok v=1", "k = 1", "k=1", "nick: \"from_file\""}, version: 1,
			check: func(t *testing.T, sh *Shell) {
				if sh.Runner().Recall.K != 1 {
					t.Error(":set in a sourced file did not apply")
				}
			}},
		{name: "source error", in: ":source " + bad + "\nINSERT (:Never);", err: "bad.gql: 1 statement failed", code: 1},
		{name: "source missing", in: ":source " + filepath.Join(dir, "nope"), err: "no such file", code: 1},
		{name: "format", in: ":format\n:format json\nINSERT (:A);\n:format gql\nINSERT (:B);",
			out: []string{"format gql\n", "{\"status\":\"00001\",\"version\":1", "format gql\nok v=2"}, err: "format json\n", version: 2},
		{name: "format json prints meta output on stderr", in: ":format json\n:timing", jsonMode: true, notOut: "timing"},
		{name: "format bad", in: ":format csv", err: "unknown format", code: 1},
		{name: "timing", in: ":timing\n:timing on\nINSERT (:A);\nMATCH (a:A);\n:timing off\nINSERT (:B);",
			out:     []string{"timing off\n", "timing on\n", "ok v=1 +1 node\n-- time: parse ", "ms, plan ", "ms, execute ", "ms, emit ", "ms, print ", "ms, total ", "INSERT\n", "-- time:", "timing off\nok v=2 +1 node\n"},
			version: 2},
		{name: "timing bad", in: ":timing maybe", err: "usage: :timing on|off", code: 1},
		{name: "quit", in: "INSERT (:A);\n:quit\nINSERT (:B);", out: []string{"ok v=1"}, version: 1, notOut: "v=2"},
		{name: "exit alias", in: ":exit\nINSERT (:B);", notOut: "ok"},
		{name: "unknown", in: ":frobnicate", err: "unknown meta-command :frobnicate; the meta-commands are :help :use :sessions :kinds :views :actions :drop :purge :flush :export :absorb :diff :history :backup :agent :agents :set :param :params :source :output :format :timing :quit; :help NAME explains one (line 1, column 1)\n  :frobnicate\n  ^\n", code: 1},
		{name: "meta line keeps script positions", in: ":timing off\nINSERT (:A);\n\n  INSERT (:A {x: });",
			err: "GQLSTATUS 42001: statement 2: ", code: 1, version: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, s := newDB(t)
			var out, errOut bytes.Buffer
			sh := newShell(t, s, &ReaderIO{R: strings.NewReader(c.in), Out: &out, Err: &errOut}, Options{DB: db})
			code := sh.Loop(context.Background())
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, out.String(), errOut.String())
			}
			rest := out.String()
			for _, w := range c.out {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Errorf("stdout lacks %q (in order)\n%s", w, out.String())
					break
				}
				rest = rest[i+len(w):]
			}
			if c.notOut != "" && strings.Contains(out.String(), c.notOut) {
				t.Errorf("stdout holds %q:\n%s", c.notOut, out.String())
			}
			if c.jsonMode && !strings.Contains(errOut.String(), "timing off") {
				t.Errorf("stderr %q", errOut.String())
			}
			if !c.jsonMode && c.err == "" && errOut.Len() > 0 {
				t.Errorf("stderr: %s", errOut.String())
			}
			if !strings.Contains(errOut.String(), c.err) {
				t.Errorf("stderr %q lacks %q", errOut.String(), c.err)
			}
			want := c.session
			if want == "" {
				want = "main"
			}
			if got := sh.Runner().Session.Name(); got != want {
				t.Errorf("session %s, want %s", got, want)
			}
			if s.Version() != c.version {
				t.Errorf("main at version %d, want %d", s.Version(), c.version)
			}
			if c.check != nil {
				c.check(t, sh)
			}
		})
	}
}

// TestComplete covers each completion case through the IO's completer, as
// liner calls it: the line, the cursor at its end.
func TestComplete(t *testing.T) {
	db, s := newDB(t)
	ctx := context.Background()
	if _, err := s.Commit(ctx, `INSERT (:TSK:Urgent {nick: "TSK_login", title: "x"})-[:touches {weight: 1}]->(:MOD {loc: "auth/login.go", nick: "MOD_auth"}), (:TSK {nick: "TSK_logout"})`, nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"work", "wiki"} { // listed once a write made them
		o, err := db.Session(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := o.Commit(ctx, `INSERT (:NOTE)`, nil); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, pending, line string
		head                string
		want                []string
	}{
		{"meta names", "", ":s", "", []string{":sessions ", ":set ", ":source "}},
		{"meta after blanks", "", "  :ti", "  ", []string{":timing "}},
		{"all meta names", "", ":", "", []string{":help ", ":use ", ":sessions ", ":kinds ", ":views ", ":actions ", ":drop ", ":purge ", ":flush ", ":export ", ":absorb ", ":diff ", ":history ", ":backup ", ":agent ", ":agents ", ":set ", ":param ", ":params ", ":source ", ":output ", ":format ", ":timing ", ":quit "}},
		{"session after :use", "", ":use w", ":use ", []string{"wiki ", "work "}},
		{"every session and the catalog after :use", "", ":use ", ":use ", []string{"catalog ", "main ", "wiki ", "work "}},
		{"other sessions after :drop", "", ":drop ", ":drop ", []string{"wiki ", "work "}},
		{"meta names with f", "", ":f", "", []string{":flush ", ":format "}},
		{"meta names with b", "", ":b", "", []string{":backup "}},
		{"policies after :absorb FILE", "", ":absorb x.slice re", ":absorb x.slice ", []string{"reject ", "remint "}},
		{"help topics", "", ":help tr", ":help ", []string{"transactions "}},
		{"set knobs", "", ":set v", ":set ", []string{"view "}},
		{"set view values", "", ":set view s", ":set view ", []string{"shell "}},
		{"set peaks values", "", ":set peaks o", ":set peaks ", []string{"on ", "off "}},
		{"timing values", "", ":timing o", ":timing ", []string{"on ", "off "}},
		{"format values", "", ":format j", ":format ", []string{"json "}},
		{"params clear", "", ":params c", ":params ", []string{"clear "}},
		{"label after ':'", "", "MATCH (t:T", "MATCH (t:", []string{"TSK"}},
		{"every label after '(:'", "", "INSERT (:", "INSERT (:", []string{"MOD", "TSK", "Urgent"}},
		{"every edge type after '-[:'", "", "INSERT (a)-[:", "INSERT (a)-[:", []string{"touches"}},
		{"edge type across lines", "MATCH (a)-[\n", ":", ":", []string{"touches"}},
		{"label after a variable in WHERE", "", "MATCH (a) WHERE a:U", "MATCH (a) WHERE a:", []string{"Urgent"}},
		{"edge type", "", "MATCH (a)-[:to", "MATCH (a)-[:", []string{"touches"}},
		{"label on a continuation line", "MATCH (t\n", ":U", ":", []string{"Urgent"}},
		{"property key after '{'", "", "MATCH (t:TSK {ti", "MATCH (t:TSK {", []string{"title: "}},
		{"property key after ','", "", "MATCH (t:TSK {nick: 'x', l", "MATCH (t:TSK {nick: 'x', ", []string{"loc: "}},
		{"property key across lines", "MATCH (t:TSK {\n", "  w", "  ", []string{"weight: "}},
		{"property key after var.", "", "MATCH (t) WHERE t.ni", "MATCH (t) WHERE t.", []string{"nick"}},
		{"no key in value position", "", "MATCH (t:TSK {nick: TR", "MATCH (t:TSK {nick: ", []string{"TRANSACTION ", "TRUE "}},
		{"nick in double quotes", "", `MATCH (t {nick: "TSK_log`, `MATCH (t {nick: "`, []string{`TSK_login"`, `TSK_logout"`}},
		{"nick in single quotes", "", `MATCH (t {nick: 'MOD`, `MATCH (t {nick: '`, []string{`MOD_auth'`}},
		{"every nick", "", `MATCH (t {nick: "`, `MATCH (t {nick: "`, []string{`MOD_auth"`, `TSK_login"`, `TSK_logout"`}},
		{"closed string is not completed", "", `MATCH (t {nick: "a"}) WH`, `MATCH (t {nick: "a"}) `, []string{"WHERE "}},
		{"keywords upper", "", "MAT", "", []string{"MATCH "}},
		{"keywords lower", "", "match (t) whe", "match (t) ", []string{"where "}},
		{"keywords several", "", "DE", "", []string{"DELETE ", "DETACH "}},
		{"a ':' line inside a statement is a label", "INSERT (\n", ":T", ":", []string{"TSK"}},
		{"nothing to complete", "", "MATCH (t) ", "MATCH (t) ", nil},
		{"no keyword after a finished one", "", "MATCH", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := &linesIO{}
			sh := newShell(t, s, in, Options{DB: db})
			sh.pending = c.pending
			if runShell(t, ctx, s, in, Options{DB: db}) != 0 || in.complete == nil {
				t.Fatal("the loop did not install its completer")
			}
			// the installed completer is the shell's; use one with the pending text
			head, got, tail := sh.Complete(c.line, len([]rune(c.line)))
			if head != c.head || tail != "" || !slices.Equal(got, c.want) {
				t.Errorf("Complete(%q) = %q %q %q, want %q %q", c.line, head, got, tail, c.head, c.want)
			}
		})
	}
	t.Run("cursor inside the line", func(t *testing.T) {
		sh := newShell(t, s, &linesIO{}, Options{DB: db})
		head, got, tail := sh.Complete("MATCH (t:TS) LIMIT 1", len("MATCH (t:TS"))
		if head != "MATCH (t:" || !slices.Equal(got, []string{"TSK"}) || tail != ") LIMIT 1" {
			t.Errorf("got %q %q %q", head, got, tail)
		}
	})
	t.Run("closing quote not doubled", func(t *testing.T) {
		sh := newShell(t, s, &linesIO{}, Options{DB: db})
		line := `MATCH (t {nick: "MOD"})`
		_, got, tail := sh.Complete(line, len(`MATCH (t {nick: "MOD`))
		if !slices.Equal(got, []string{"MOD_auth"}) || tail != `"})` {
			t.Errorf("got %q tail %q", got, tail)
		}
	})
	t.Run("names follow the session", func(t *testing.T) {
		sh := newShell(t, s, &linesIO{}, Options{DB: db})
		sh.Complete("MATCH (:", 8) // fills the cache
		if _, err := s.Commit(ctx, "INSERT (:LAW)", nil); err != nil {
			t.Fatal(err)
		}
		if _, got, _ := sh.Complete("MATCH (:L", 9); !slices.Equal(got, []string{"LAW"}) {
			t.Errorf("after a Commit: %q", got)
		}
		sh.Meta(ctx, ":use empty")
		if _, got, _ := sh.Complete("MATCH (:", 8); got != nil {
			t.Errorf("empty session offers %q", got)
		}
	})
}

func TestParseValue(t *testing.T) {
	cases := map[string]any{
		"1": int64(1), "-7": int64(-7), "2.5": 2.5, "1e3": 1000.0, "true": true, "false": false, "null": nil,
		`"a b"`: "a b", `'it\'s'`: "it's", `'a"b'`: `a"b`, `'x\n'`: "x\n",
		`[1, "a", [true]]`: []any{int64(1), "a", []any{true}},
	}
	for in, want := range cases {
		got, err := ParseValue(in)
		if err != nil || FormatValue(got) != FormatValue(want) {
			t.Errorf("ParseValue(%s) = %#v, %v; want %#v", in, got, err, want)
		}
	}
	for _, bad := range []string{"open", "1 2", "{}", "'a'b'", "[1,", "'x\\"} {
		if v, err := ParseValue(bad); err == nil {
			t.Errorf("ParseValue(%s) = %#v, want an error", bad, v)
		}
	}
}

func TestSegmentAndHistoryLine(t *testing.T) {
	text := ":use a\nINSERT (\n:A); :not meta\n  :set M 2\n/* c */ :timing on\n'\n:in string';\n"
	var got []string
	for _, it := range Segment(text) {
		if it.Meta != nil {
			got = append(got, "meta "+it.Meta.Text)
		} else {
			got = append(got, "stmt "+it.Stmt.Text)
		}
	}
	want := []string{"meta :use a", "stmt INSERT (\n:A)", "stmt :not meta\n  :set M 2\n/* c */ :timing on\n'\n:in string'"}
	if !slices.Equal(got, want) {
		t.Errorf("Segment = %q\nwant      %q", got, want)
	}
	for in, want := range map[string]string{
		"INSERT (:A {s: 'a\n  b'}) -- c;\n;":    `INSERT (:A {s: 'a\n  b'}) ;`,
		"MATCH (t)\n  /* x\n y */ SET t.a = 1;": "MATCH (t) /* x y */ SET t.a = 1;",
		"INSERT (:A {s: '  two  spaces'});":     "INSERT (:A {s: '  two  spaces'});",
	} {
		if got := HistoryLine(in); got != want {
			t.Errorf("HistoryLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMetaCabinet runs the cabinet meta-commands on a cabinet file in a
// temp dir: :flush, :backup (a hot copy), :drop and :sessions, and checks
// the file and the backup after reopening.
func TestMetaCabinet(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cabinet.gf")
	backup := filepath.Join(dir, "backup.gf")
	open := func(p string) *goldfish.DB {
		t.Helper()
		db, err := goldfish.Open(goldfish.WithCabinet(p))
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	script := func(db *goldfish.DB, in string) (string, string, int) {
		t.Helper()
		s, err := db.Session(context.Background(), "main")
		if err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		code := runShell(t, context.Background(), s, &ReaderIO{R: strings.NewReader(in), Out: &out, Err: &errOut}, Options{DB: db, FailAtEnd: true})
		return out.String(), errOut.String(), code
	}

	db := open(path)
	out, errOut, code := script(db, "INSERT (:A {nick: 'a'});\n:use w\nINSERT (:B)-[:r]->(:C);\n:use main\n:flush\n:backup "+backup+
		"\n:backup "+backup+"\n:drop w\n:sessions\n")
	for _, w := range []string{"flushed to " + path + "\n", "backed up " + path + " to " + backup + " (", "dropped session w (v=1 nodes=2 edges=1)", "* main v=1 nodes=1 edges=0\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("stdout lacks %q:\n%s", w, out)
		}
	}
	if code != 1 || !strings.Contains(errOut, backup+" exists; :backup writes a new file") {
		t.Errorf("second :backup to the same file: exit %d, stderr %q", code, errOut)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// The file remembers main and not w; :sessions lists without loading.
	db = open(path)
	out, errOut, code = script(db, ":sessions\nMATCH (a:A);\n")
	if code != 0 || errOut != "" || !strings.HasPrefix(out, "* main v=1 nodes=1 edges=0\n") || strings.Contains(out, " w ") || !strings.Contains(out, `nick: "a"`) {
		t.Errorf("reopened: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	db.Close()

	// The backup was taken before the drop: it has both.
	db = open(backup)
	out, _, code = script(db, ":use w\n:sessions\n")
	if code != 0 || !strings.Contains(out, "  main v=1 nodes=1 edges=0\n* w    v=1 nodes=2 edges=1\n") {
		t.Errorf("backup: exit %d\n%s", code, out)
	}
	db.Close()
}
