package repl

import (
	"regexp"
	"strings"
	"testing"
)

// TestDiffHistory: :diff prints the Δ between two versions, :history the
// versions that changed a node with agent and time; wrong arguments are
// refused with their codes.
func TestDiffHistory(t *testing.T) {
	setup := ":agent ana\nINSERT (:TSK {nick: \"TSK_a\", status: \"open\"});\n:agent bob\nMATCH (t:TSK {nick: \"TSK_a\"}) SET t.status = \"done\";\n"
	cases := []struct {
		name, in string
		out      string // a pattern stdout matches
		err      string
	}{
		{name: "diff", in: setup + ":diff 1 2\n", out: `(?s)// goldfish diff session=main from=1 to=2 .*SET tsk_1 = \{nick: "TSK_a", status: "done"\}`},
		{name: "diff narrowed", in: setup + ":diff 0 2 kind=TSK nick=TSK_a\n", out: `nicks=TSK_a kinds=TSK\nINSERT`},
		{name: "history", in: setup + ":history TSK_a\n", out: `(?s)-- version 2, commit by bob at 20\d\d-.*-- version 1, commit by ana at `},
		{name: "history limited", in: setup + ":history TSK_a limit=1\n", out: `(?s)-- version 2.*-- more versions changed TSK_a before these`},
		{name: "history json", in: setup + ":format json\n:history TSK_a\n", out: `\{"nick":"TSK_a","entries":\[\{"version":2,"how":"commit","agent":"bob","time":"20`},
		{name: "a bad version", in: ":diff 1 -2\n", err: `GQLSTATUS 22Q06: TO "-2" is not a version`},
		{name: "huge", in: ":diff 0 99999999999999999999\n", err: `GQLSTATUS 22Q06: TO "99999999999999999999" is not a version`},
		{name: "out of order", in: setup + ":diff 2 1\n", err: "GQLSTATUS 22Q06: a diff goes from an older version to a newer one"},
		{name: "too few", in: ":diff 1\n", err: "GQLSTATUS 42001: usage: :diff FROM TO"},
		{name: "not an option", in: ":diff 0 1 depth=2\n", err: "GQLSTATUS 42001: usage: :diff FROM TO"},
		{name: "no such nick", in: setup + ":history nobody\n", err: "GQLSTATUS 42002: no node has the nick \"nobody\""},
		{name: "bad limit", in: setup + ":history TSK_a limit=x\n", err: "GQLSTATUS 22Q06: usage: :history NICK [limit=N]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, s := newDB(t)
			out, errOut, code := runText(t, s, c.in, Options{DB: db, FailAtEnd: true})
			if c.err == "" && (code != 0 || errOut != "") && !strings.Contains(c.in, ":format json") {
				t.Fatalf("exit %d, stderr %q\nstdout %q", code, errOut, out)
			}
			if !strings.Contains(errOut, c.err) {
				t.Errorf("stderr %q lacks %q", errOut, c.err)
			}
			if c.out != "" && !regexp.MustCompile(c.out).MatchString(out) {
				t.Errorf("stdout does not match %s:\n%s", c.out, out)
			}
		})
	}
}
