package conformance

import (
	"context"
	"io/fs"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/server"
	"github.com/goldfish-gql/goldfish/tokens"
)

// startServer serves a database in memory over HTTP.
func startServer(t *testing.T) string {
	t.Helper()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	srv, err := server.New(db, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestConformanceRemote runs the whole suite over HTTP against a server
// on a database in memory: every case passes but the reopens (only the
// server's process can reopen its database), the dumps of the catalogue
// (a server's lists every session on it) and the scripts (whose
// output is the shell's own; their statements reach the server, so
// nothing after them is skipped), each skip says why, and two runs on
// one server keep apart.
func TestConformanceRemote(t *testing.T) {
	url := startServer(t)
	embedded, err := Run(context.Background(), Suite())
	if err != nil {
		t.Fatal(err)
	}
	want := skippedOverServer(t, Suite())
	for run := 0; run < 2; run++ {
		rep, err := RunRemote(context.Background(), Suite(), RemoteOptions{URL: url})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Failures {
			t.Error(f)
		}
		var got []string
		for _, s := range rep.Skipped {
			got = append(got, s.Pos+" "+s.Cmd)
			catalogue := s.Cmd == "dump" && strings.Contains(s.Reason, "catalog")
			if s.Cmd == "script" && s.Reason != ScriptReason || s.Cmd != "script" && s.Cmd != "reopen" && !catalogue {
				t.Errorf("%s: %s skipped: %s", s.Pos, s.Cmd, s.Reason)
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("run %d skipped\n%s\nwant the reopens and scripts of the suite\n%s", run, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if rep.Passed+len(rep.Skipped) != embedded.Passed {
			t.Errorf("run %d: %d passed and %d skipped over HTTP; %d passed embedded", run, rep.Passed, len(rep.Skipped), embedded.Passed)
		}
		t.Logf("run %d: %d passed, %d skipped over HTTP", run, rep.Passed, len(rep.Skipped))
	}
}

// skippedOverServer lists, "file:line cmd", the cases of fsys a run
// over a server skips: its reopens and scripts.
func skippedOverServer(t *testing.T, fsys fs.FS) []string {
	t.Helper()
	names, err := Files(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		cases, err := Parse(name, strings.NewReader(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range cases {
			if SkippedOverServer(d) {
				out = append(out, d.Pos+" "+d.Cmd)
			}
		}
	}
	return out
}

// replaySuite is a script of each kind the replay follows: meta-commands
// that set the loop's state (a parameter, an agent, a budget, an
// attention setting), a transaction committed and one rolled back, a
// Recall, and a stop at the first error, then the cases that show its
// effects (the planner's Recall says what changed since its read in the
// script); a stop at a START TRANSACTION the grammar refuses; and a
// script with :purge, which is not replayed, so the case after it on
// its session is skipped too.
var replaySuite = fstest.MapFS{
	"replay.txt": {Data: []byte(`commit
INSERT (:T {nick: "a", n: 1}), (:T {nick: "b", n: 2})
----
ok v=1 +2 nodes 4 properties set

script
:param who 'b'
:agent planner
:set M 1
:set stale_reads 5
START TRANSACTION;
MATCH (t:T {nick: $who}) SET t.n = 3;
INSERT (:T {nick: "c"});
COMMIT;
START TRANSACTION;
INSERT (:T {nick: "dropped"});
ROLLBACK;
MATCH (t:T {nick: "a"});
:agent -
:params clear
INSERT (:T {nick: "a", n: 2});
INSERT (:T {nick: "never"});
----
$who = "b"
agent planner: Recalls and Commits name it
M = 1
session main: stale_reads=5 decay=0.9 salience_threshold=0.1 gap_ratio=4 gap_min=5 gap_window=200 history=all
ok transaction started
ok v=2 +1 node 2 properties set 1 binding
ok transaction started
ok rolled back: 1 statement dropped
// goldfish session=main version=2 cue=match seeds=1 k=1 rows=1/1 tokens=67
// attention first_read: true: the first Recall of agent planner in this session
INSERT
  (t1:T {n: 1, nick: "a"})
agent cleared: Recalls and Commits name no agent
1 parameter removed
GQLSTATUS 40002: statement 9: nick "a" is already used by another live node; choose another nick, or MATCH the existing node and SET what changed (line 15, column 8)
  INSERT (:T {nick: "a", n: 2});
         ^
exit 1

commit
INSERT (:T {nick: "d"})
----
ok v=3 +1 node 1 property set

dump
----
version 3
nodes 4, edges 0, recycled 0
(:T {n: 1, nick: "a"})
(:T {n: 3, nick: "b"})
(:T {nick: "c"})
(:T {nick: "d"})

settings
----
stale_reads=5 decay=0.9 salience_threshold=0.1 gap_ratio=4 gap_min=5 gap_window=200 history=all

recall agent=planner
MATCH (t:T {nick: "a"})
----
// goldfish session=main version=3 cue=match seeds=1 k=1 rows=1/50 tokens=145
// attention since_your_last_read: versions=1 elements_changed=1
// attention since_your_last_read diff: the change as a Δ (what a Commit on your last version would apply)
//   // goldfish diff from=2 to=3 nodes=+1-0~0 edges=+0-0 rows=1/40
//   INSERT
//     (t_4:T {nick: "d"})
INSERT
  (t1:T {n: 1, nick: "a"})

script session=two format=json
INSERT (:T {nick: "x"});
START TRANSACTION READ WRITE GARBAGE;
INSERT (:T {nick: "never"});
----
{"status":"00001","version":1,"applied":true,"nodes_created":1,"edges_created":0,"properties_set":1,"labels_added":0,"labels_removed":0,"nodes_recycled":0,"edges_recycled":0,"nodes_updated":0,"bindings":0,"notices":[]}
{"status":"42001","error":"unexpected \"GARBAGE\"","hint":"expected ';' or the end of the text; separate statements with ';'","statement":2,"line":2,"column":30}
GQLSTATUS 42001: statement 2: unexpected "GARBAGE"; expected ';' or the end of the text; separate statements with ';' (line 2, column 30)
  START TRANSACTION READ WRITE GARBAGE;
                               ^
exit 1

dump session=two
----
version 1
nodes 1, edges 0, recycled 0
(:T {nick: "x"})
`)},
	"unreplayed.txt": {Data: []byte(`script
INSERT (:T {nick: "a"});
:purge
----
ok v=1 +1 node 1 property set
nothing to purge: main has no recycled elements (v=1)

dump
----
version 1
nodes 1, edges 0, recycled 0
(:T {nick: "a"})

reset
----

dump
----
version 0
nodes 0, edges 0, recycled 0
`)},
}

// TestRemoteScriptReplay: over a server, a script's statements and the
// state its meta-commands set reach the session as gqlsh sends them, so
// the cases after it pass as embedded; a script that is not replayed
// skips what follows it on its session, until a reset.
func TestRemoteScriptReplay(t *testing.T) {
	embedded, err := Run(context.Background(), replaySuite)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range embedded.Failures {
		t.Error("embedded:", f)
	}
	rep, err := RunRemote(context.Background(), replaySuite, RemoteOptions{URL: startServer(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Failures {
		t.Error(f)
	}
	var got []string
	for _, s := range rep.Skipped {
		got = append(got, s.Pos+" "+s.Cmd+": "+s.Reason)
	}
	want := []string{
		"replay.txt:6 script: " + ScriptReason,
		"replay.txt:73 script: " + ScriptReason,
		"unreplayed.txt:1 script: the script's :purge works on files or on the database, which a run over a server does not replay",
		"unreplayed.txt:8 dump: session main is not as the file expects it: the script at unreplayed.txt:1 was skipped",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("skipped:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rep.Passed+len(rep.Skipped) != embedded.Passed {
		t.Errorf("%d passed and %d skipped over HTTP; %d passed embedded", rep.Passed, len(rep.Skipped), embedded.Passed)
	}
}

// TestFreshNamesKeepTheHeaderCounts: a fresh name for each session name
// of the suite keeps the Shape header's token estimate and its exact
// o200k count, over a whole header line, and is never given twice.
func TestFreshNamesKeepTheHeaderCounts(t *testing.T) {
	locals := map[string]bool{DefaultSession: true}
	names, _ := Files(Suite())
	for _, name := range names {
		b, _ := fs.ReadFile(Suite(), name)
		cases, err := Parse(name, strings.NewReader(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range cases {
			if s := d.Args["session"]; s != "" && s != goldfish.CatalogName {
				locals[s] = true
			}
		}
	}
	sorted := make([]string, 0, len(locals))
	for l := range locals {
		sorted = append(sorted, l)
	}
	sort.Strings(sorted)
	rs := &remoteServer{used: map[string]bool{}}
	header := func(name string) string {
		return "// goldfish session=" + name + " version=15 cue=match seeds=1 k=2 rows=5/50 tokens=98\n"
	}
	for _, local := range sorted {
		want, err := tokens.Exact(header(local))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			name, exact, err := rs.fresh(local)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := tokens.Exact(header(name))
			if !exact || got != want || tokens.MilliString(header(name)) != tokens.MilliString(header(local)) {
				t.Errorf("%s -> %s (exact %v): %d exact tokens, want %d; estimate %d, want %d", local, name, exact,
					got, want, tokens.MilliString(header(name)), tokens.MilliString(header(local)))
			}
		}
	}
	if len(rs.used) != 5*len(sorted) {
		t.Errorf("%d names given, %d distinct", 5*len(sorted), len(rs.used))
	}
}

// TestRemoteNeedsAWriteEverywhereToken: the suite writes fresh sessions
// of its own, so a token that may write only some sessions is refused
// once, up front, with what to give instead, rather than failing every
// case.
func TestRemoteNeedsAWriteEverywhereToken(t *testing.T) {
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// One long name: the probe's fresh name is random letters as long as
	// "probe", so a glob like x* matched it one run in 53.
	narrow, line, err := server.NewToken(nil, []string{"only_this_one_session"})
	if err != nil {
		t.Fatal(err)
	}
	toks, err := server.ParseTokens(strings.NewReader(line + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(db, server.Options{Tokens: toks})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	_, err = RunRemote(context.Background(), Suite(), RemoteOptions{URL: ts.URL, Token: narrow})
	if err == nil || !strings.Contains(err.Error(), "may not write every session") || !strings.Contains(err.Error(), "--write '*'") {
		t.Fatalf("a token that writes one session only: %v", err)
	}
}

// TestRemoteRefusalOrFailure: over a server, the server's refusal of a
// directive is the case's output, the error and the caret lines the
// server rendered, as embedded; a server that stops answering, or a
// token it does not take, fails the directive instead of printing
// anything.
func TestRemoteRefusalOrFailure(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv, err := server.New(db, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	transports, err := NewRemote(ctx, RemoteOptions{URL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := transports()
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngineOver(tr)
	out, err := e.Do(ctx, Directive{Cmd: "commit", Input: "INSERT (:A);\nINSERT (:B {x: })"})
	want := "error: GQLSTATUS 42001: unexpected \"}\"; expected an expression: a literal, a $parameter, a variable, n.key, f(args) or (expression) (line 2, column 16)\n" +
		"  INSERT (:B {x: })\n                 ^\n"
	if err != nil || out != want {
		t.Errorf("a refusal: %q (%v), want %q", out, err, want)
	}
	if out, err := e.Do(ctx, Directive{Cmd: "commit", Input: "INSERT (:A {nick: 'a'})"}); err != nil || !strings.HasPrefix(out, "ok v=1") {
		t.Errorf("a commit: %q %v", out, err)
	}
	ts.Close()
	if out, err := e.Do(ctx, Directive{Cmd: "recall", Input: "MATCH ()"}); err == nil || out != "" {
		t.Errorf("a server gone: %q %v, want the directive to fail", out, err)
	}

	// A token bound to agent ana: a directive as another agent is the
	// run's fault (403), not the case's output.
	tok, line, err := server.NewBoundToken(nil, []string{"*"}, []string{"ana"})
	if err != nil {
		t.Fatal(err)
	}
	toks, err := server.ParseTokens(strings.NewReader(line + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err = server.New(db, server.Options{Tokens: toks})
	if err != nil {
		t.Fatal(err)
	}
	ts = httptest.NewServer(srv)
	defer ts.Close()
	if transports, err = NewRemote(ctx, RemoteOptions{URL: ts.URL, Token: tok}); err != nil {
		t.Fatal(err)
	}
	if tr, err = transports(); err != nil {
		t.Fatal(err)
	}
	e = NewEngineOver(tr)
	if out, err := e.Do(ctx, Directive{Cmd: "commit", Input: "INSERT (:A)", Args: map[string]string{"agent": "ana"}}); err != nil || !strings.HasPrefix(out, "ok v=1") {
		t.Errorf("as ana: %q %v", out, err)
	}
	if out, err := e.Do(ctx, Directive{Cmd: "commit", Input: "INSERT (:A)", Args: map[string]string{"agent": "bob"}}); err == nil || out != "" || !strings.Contains(err.Error(), "403") {
		t.Errorf("as bob: %q %v, want the directive to fail with the 403", out, err)
	}
}
