package repl

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestInteractiveTransaction: at the prompt each statement of a
// transaction is checked when it is typed; its error shows before the
// next prompt, points into what was typed, and the transaction stays
// open for the statement typed again or a ROLLBACK.
func TestInteractiveTransaction(t *testing.T) {
	cases := []struct {
		name    string
		lines   []string
		errAt   map[int]string // prompt number -> what stderr must hold by then
		out     []string
		prompts []string
		version uint64
		dump    string
	}{
		{
			name: "a syntax error shows at once and keeps the transaction",
			lines: []string{"START TRANSACTION;", "INSERT (:A {nick: 'a'});", "INSERT (:B {x: });",
				"INSERT (:B {x: 1});", "COMMIT;"},
			errAt: map[int]string{3: "GQLSTATUS 42001: statement 1: unexpected \"}\"; expected an expression: a literal, a $parameter, a variable, n.key, f(args) or (expression) (line 1, column 16)\n" +
				"  INSERT (:B {x: });\n" +
				"                 ^\n" +
				"-- the transaction is still open with its 1 statement: fix the statement and type it again, or ROLLBACK to drop the transaction\n"},
			out:     []string{"ok transaction started\n", "ok +1 node 1 property set (pending: applies at COMMIT)\n", "ok +1 node 1 property set (pending: applies at COMMIT)\n", "ok v=1 +2 nodes 2 properties set\n"},
			prompts: []string{"main> ", "main[tx]> ", "main[tx]> ", "main[tx]> ", "main[tx]> ", "main> "},
			version: 1,
			dump:    "(:A {nick: \"a\"})\n(:B {x: 1})\n",
		},
		{
			name:  "an error the engine finds when it runs, on the second line of a statement",
			lines: []string{"INSERT (:A {nick: 'a'});", "START TRANSACTION;", "INSERT (:B)", "  -[:r]->(:A {nick: 'a', n: 1});", "ROLLBACK;"},
			errAt: map[int]string{4: "GQLSTATUS 40002: statement 1: nick \"a\" is already used by another live node; choose another nick, or MATCH the existing node and SET what changed (line 2, column 10)\n" +
				"    -[:r]->(:A {nick: 'a', n: 1});\n" +
				"           ^\n" +
				"-- the transaction is still open with its 0 statements"},
			out:     []string{"ok v=1 +1 node 1 property set\n", "ok transaction started\n", "ok rolled back: 0 statements dropped\n"},
			version: 1,
		},
		{
			name:    "a MATCH that binds nothing is said at once",
			lines:   []string{"START TRANSACTION;", "MATCH (a:A {nick: 'none'}) SET a.x = 1;", "COMMIT;"},
			out:     []string{"ok (pending: applies at COMMIT)\n-- 02000: MATCH bound nothing; the rest of the statement did not run (line 1, column 1)\n", "ok v=0 (not applied)\n"},
			version: 0,
		},
		{
			name:    "START TRANSACTION is read by the grammar",
			lines:   []string{"START TRANSACTION GARBAGE HERE;", "INSERT (:A);"},
			errAt:   map[int]string{1: "GQLSTATUS 42001: statement 1: unexpected \"GARBAGE\"; START TRANSACTION may be followed by READ ONLY or READ WRITE, and then ';' (line 1, column 19)\n  START TRANSACTION GARBAGE HERE;\n                    ^\n"},
			out:     []string{"ok v=1 +1 node\n"},
			prompts: []string{"main> ", "main> ", "main> "},
			version: 1,
		},
		{
			name:    "COMMIT is read by the grammar and a mistyped one keeps the transaction",
			lines:   []string{"START TRANSACTION;", "INSERT (:A);", "COMMIT banana;", "COMMIT;"},
			errAt:   map[int]string{3: "(line 1, column 8)\n  COMMIT banana;\n         ^\n-- the transaction is still open with its 1 statement: COMMIT to try again, or ROLLBACK to drop it\n"},
			out:     []string{"ok v=1 +1 node\n"},
			prompts: []string{"main> ", "main[tx]> ", "main[tx]> ", "main[tx]> ", "main> "},
			version: 1,
		},
		{
			name:    "a Recall in a transaction is refused when typed",
			lines:   []string{"START TRANSACTION;", "MATCH (a:A);", "ROLLBACK;"},
			errAt:   map[int]string{2: "is a Recall, not a Commit"},
			version: 0,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, s := newDB(t)
			in := &linesIO{lines: c.lines}
			if code := runShell(t, context.Background(), s, in, Options{DB: db}); code != 0 {
				t.Fatalf("exit %d", code)
			}
			for i, want := range c.errAt {
				if i >= len(in.errAt) || !strings.Contains(in.errAt[i], want) {
					t.Errorf("by prompt %d stderr must hold %q; it held:\n%s\n(at the end:\n%s)", i, want, in.errAt[min(i, len(in.errAt)-1)], in.err.String())
				}
			}
			rest := in.out.String()
			for _, w := range c.out {
				k := strings.Index(rest, w)
				if k < 0 {
					t.Errorf("stdout lacks %q (in order):\n%s", w, in.out.String())
					break
				}
				rest = rest[k+len(w):]
			}
			if c.prompts != nil && !slices.Equal(in.prompts, c.prompts) {
				t.Errorf("prompts %q, want %q", in.prompts, c.prompts)
			}
			if s.Version() != c.version {
				t.Errorf("version %d, want %d", s.Version(), c.version)
			}
			if c.dump != "" && !strings.HasSuffix(s.Dump(), c.dump) {
				t.Errorf("dump:\n%s", s.Dump())
			}
		})
	}
}

// TestScriptTransaction: in a script the statements wait for COMMIT,
// which sends the transaction's own statements too.
func TestScriptTransaction(t *testing.T) {
	s := newSession(t)
	out, errOut, code := runText(t, s, "START TRANSACTION;\nINSERT (:A);\nCOMMIT banana;\n", Options{})
	want := "GQLSTATUS 42001: statement 3: unexpected \"banana\"; COMMIT and ROLLBACK may be followed by WORK, and then ';' (line 3, column 8)\n  COMMIT banana;\n         ^\n"
	if code != 1 || out != "ok transaction started\n" || errOut != want || s.Version() != 0 {
		t.Fatalf("exit %d version %d\nstdout: %q\nstderr: %q", code, s.Version(), out, errOut)
	}
}
