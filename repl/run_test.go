package repl

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

func newSession(t *testing.T) *goldfish.Session {
	t.Helper()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	s, err := db.Session(context.Background(), "main")
	if err != nil {
		t.Fatal(err)
	}
	dbOf.Store(s, db)
	return s
}

func runText(t *testing.T, s *goldfish.Session, text string, opts Options) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = runShell(t, context.Background(), s, &ReaderIO{R: strings.NewReader(text), Out: &out, Err: &errOut}, opts)
	return out.String(), errOut.String(), code
}

func TestRunGQL(t *testing.T) {
	cases := []struct {
		name, in, out, err string
		code               int
		version            uint64
	}{
		{
			name:    "each statement its own commit",
			in:      "INSERT (:A {nick: 'a'});\nINSERT (:B {x: 1}), (:B {x: 2});",
			out:     "ok v=1 +1 node 1 property set\nok v=2 +2 nodes 2 properties set\n",
			version: 2,
		},
		{
			name:    "transaction commits one delta",
			in:      "START TRANSACTION;\nINSERT (:A {nick: 'a'});\nMATCH (a:A {nick: 'a'}) INSERT (a)-[:r]->(:B);\nCOMMIT;",
			out:     "ok transaction started\nok v=1 +2 nodes +1 edge 1 property set 1 binding\n",
			version: 1,
		},
		{
			name:    "rollback drops the buffer",
			in:      "START TRANSACTION; INSERT (:A); INSERT (:B); ROLLBACK; INSERT (:C)",
			out:     "ok transaction started\nok rolled back: 2 statements dropped\nok v=1 +1 node\n",
			version: 1,
		},
		{
			name:    "empty transaction",
			in:      "start transaction; commit",
			out:     "ok transaction started\nok v=0 empty transaction\n",
			version: 0,
		},
		{
			name: "error stops the run with the input's line and column",
			in:   "INSERT (:A {nick: 'a'});\n\n  INSERT (:A {nick: 'a', n: 1});\nINSERT (:Never)",
			out:  "ok v=1 +1 node 1 property set\n",
			err: "GQLSTATUS 40002: statement 2: nick \"a\" is already used by another live node; choose another nick, or MATCH the existing node and SET what changed (line 3, column 10)\n" +
				"    INSERT (:A {nick: 'a', n: 1});\n" +
				"           ^\n",
			code:    1,
			version: 1,
		},
		{
			name: "syntax error in the middle of a line",
			in:   "INSERT (:A); INSERT (:B {x: });",
			out:  "ok v=1 +1 node\n",
			err: "GQLSTATUS 42001: statement 2: unexpected \"}\"; expected an expression: a literal, a $parameter, a variable, n.key, f(args) or (expression) (line 1, column 29)\n" +
				"  INSERT (:A); INSERT (:B {x: });\n" +
				"                              ^\n",
			code:    1,
			version: 1,
		},
		{
			name: "error inside a transaction points into the input and applies nothing",
			in:   "INSERT (:A {nick: 'a'});\nSTART TRANSACTION;\nINSERT (:B);\n  INSERT (:A {nick: 'a', n: 1});\nCOMMIT;",
			out:  "ok v=1 +1 node 1 property set\nok transaction started\n",
			err: "GQLSTATUS 40002: statement 4: nick \"a\" is already used by another live node; choose another nick, or MATCH the existing node and SET what changed (line 4, column 10)\n" +
				"    INSERT (:A {nick: 'a', n: 1});\n" +
				"           ^\n",
			code:    1,
			version: 1,
		},
		{
			name: "unclosed transaction at the end of input",
			in:   "START TRANSACTION; INSERT (:A)",
			out:  "ok transaction started\n",
			err: "GQLSTATUS 25000: statement 1: START TRANSACTION without COMMIT or ROLLBACK at the end of the input; nothing applied; " +
				"end the transaction with COMMIT to apply it, or ROLLBACK to drop it (line 1, column 1)\n" +
				"  START TRANSACTION;\n" +
				"  ^\n",
			code: 1,
		},
		{
			name: "nested START TRANSACTION",
			in:   "START TRANSACTION;\nSTART TRANSACTION;",
			out:  "ok transaction started\n",
			err: "GQLSTATUS 25G01: statement 2: START TRANSACTION inside a transaction; transactions do not nest: COMMIT or ROLLBACK first (line 2, column 1)\n" +
				"  START TRANSACTION;\n" +
				"  ^\n",
			code: 1,
		},
		{
			name: "COMMIT outside a transaction",
			in:   "COMMIT",
			err: "GQLSTATUS 25000: statement 1: COMMIT without START TRANSACTION; a text sent alone is already one atomic Δ (line 1, column 1)\n" +
				"  COMMIT\n" +
				"  ^\n",
			code: 1,
		},
		{
			name:    "notices",
			in:      "INSERT (:A {x: 1});\nINSERT (:A {x: 1});\nMATCH (a:A {x: 2}) SET a.y = 1",
			out:     "ok v=1 +1 node 1 property set\nok v=1 1 echo (not applied)\n-- 01000: echo: 1 node of this statement is already in the session: bound to it, not created again (a Δ should carry only what is new or changed) (line 2, column 8)\nok v=1 (not applied)\n-- 02000: MATCH bound nothing; the rest of the statement did not run (line 3, column 1)\n",
			version: 1,
		},
		{
			name:    "comments and blank statements",
			in:      "-- setup\n/* a; b */ INSERT (:A {s: 'x;y'}) // trailing; comment\n;;\n",
			out:     "ok v=1 +1 node 1 property set\n",
			version: 1,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSession(t)
			out, errOut, code := runText(t, s, c.in, Options{Format: FormatGQL})
			if out != c.out {
				t.Errorf("stdout:\n%s\nwant:\n%s", out, c.out)
			}
			if errOut != c.err {
				t.Errorf("stderr:\n%s\nwant:\n%s", errOut, c.err)
			}
			if code != c.code {
				t.Errorf("exit %d, want %d", code, c.code)
			}
			if v := s.Version(); v != c.version {
				t.Errorf("version %d, want %d", v, c.version)
			}
		})
	}
}

func TestRunFailAtEnd(t *testing.T) {
	s := newSession(t)
	out, errOut, code := runText(t, s, "INSERT (:A {nick: 'a'}); INSERT (:A {nick: 'a', n: 1}); INSERT (:B)", Options{FailAtEnd: true})
	if code != 1 || s.Version() != 2 || !strings.Contains(errOut, "40002") || strings.Count(out, "ok v=") != 2 {
		t.Fatalf("code %d version %d\nstdout:\n%s\nstderr:\n%s", code, s.Version(), out, errOut)
	}
}

func TestRunJSON(t *testing.T) {
	s := newSession(t)
	out, errOut, code := runText(t, s,
		"INSERT (:A {x: 1})-[:r]->(:B);\nINSERT (:A {x: 1});\nSTART TRANSACTION; INSERT (:C); INSERT (:D); COMMIT;\nINSERT (:A {x: })",
		Options{Format: FormatJSON})
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	if !strings.HasPrefix(errOut, "GQLSTATUS 42001: statement 7:") {
		t.Errorf("stderr: %s", errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 {
		t.Fatalf("want 5 JSON lines, got %d:\n%s", len(lines), out)
	}
	var objs []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		objs = append(objs, m)
	}
	want := []map[string]any{
		{"status": "00001", "version": 1.0, "nodes_created": 2.0, "edges_created": 1.0, "properties_set": 1.0, "bindings": 0.0, "labels_added": 0.0, "labels_removed": 0.0, "nodes_recycled": 0.0, "edges_recycled": 0.0},
		{"status": "01000", "version": 1.0, "nodes_created": 0.0, "nodes_echoed": 1.0, "applied": false},
		{"status": "00001", "transaction": "started"},
		{"status": "00001", "version": 2.0, "nodes_created": 2.0, "statements": 2.0},
		{"status": "42001", "statement": 7.0, "line": 4.0, "column": 16.0},
	}
	for i, w := range want {
		for k, v := range w {
			if objs[i][k] != v {
				t.Errorf("line %d: %s = %v, want %v\n%s", i+1, k, objs[i][k], v, lines[i])
			}
		}
	}
	notices, _ := objs[1]["notices"].([]any)
	if len(notices) != 1 || notices[0].(map[string]any)["code"] != "01000" || notices[0].(map[string]any)["line"] != 2.0 {
		t.Errorf("notices of line 2: %v", objs[1]["notices"])
	}
	if n, ok := objs[0]["notices"].([]any); !ok || len(n) != 0 {
		t.Errorf("notices must be an empty list, not %v", objs[0]["notices"])
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"gql": FormatGQL, "JSON": FormatJSON} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseFormat("csv"); err == nil {
		t.Error("csv accepted")
	}
}
