package repl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestExportAbsorb: :export writes a slice to a file, :absorb commits
// one; errors in the slice are placed in its file, files the shell
// cannot read or write are 42Q05.
func TestExportAbsorb(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "login.slice")
	setup := `INSERT (t:TSK {nick: "TSK_login"})-[:touches]->(:MOD {loc: "a.go"});` + "\n"
	big := filepath.Join(dir, "big.slice")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", goldfish.MaxSliceBytes+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.slice")
	if err := os.WriteFile(bad, []byte("// goldfish slice session=main version=1 anchors=1 k=2 rows=1/50 sum=0000000000000000\n// anchors: tsk_1\nINSERT\n  (tsk_1:TSK {x: })\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, in string
		out      []string // substrings of stdout, in order
		err      string
		version  uint64 // of the session "copy", when the case ends there
	}{
		{name: "export, then absorb twice", in: setup + ":export " + file + ` MATCH (t:TSK {nick: "TSK_login"});` + "\n:use copy\n:absorb " + file + " keep\n:absorb " + file + " KEEP\n",
			out: []string{"exported 3 rows (2 nodes, 1 edge; bound 50) of session main version 1 to " + file + "\n",
				"ok v=1 +2 nodes +1 edge 2 properties set (absorbed keep)\n", "ok v=1 (not applied) (absorbed keep: 3 unchanged)\n"}, version: 1},
		{name: "remint lists what it skipped", in: setup + ":export " + file + " MATCH (t:TSK)\n:use copy\nINSERT (:X {nick: \"TSK_login\"});\n:absorb " + file + " remint\n",
			out: []string{"ok v=2 +1 node 1 property set (absorbed remint: 2 skipped, 1 reminted)\n",
				"-- 01000: remint skipped tsk_1: another live node has the nick \"TSK_login\" here (line 4, column 3)\n"}, version: 2},
		{name: "the budgets of :set apply", in: setup + ":set M 2\n:export " + file + " MATCH (t:TSK)\n",
			out: []string{"exported 1 row (1 node, 0 edges; bound 2) of session main version 1 to " + file + "\n",
				"-- 01000: cut: M=2 cut the walk from tsk_1 short"}},
		{name: "an error in the slice is placed in its file", in: ":absorb " + bad + " keep\n",
			err: bad + ":4:18: GQLSTATUS 42001: unexpected \"}\""},
		{name: "the outline is refused", in: setup + ":export " + file + " MATCH ()\n", err: "GQLSTATUS 42Q04: MATCH () is the session's outline"},
		{name: "no such file", in: ":absorb " + filepath.Join(dir, "nope.slice") + " keep\n", err: "GQLSTATUS 42Q05: cannot read " + filepath.Join(dir, "nope.slice") + ": no such file or directory"},
		{name: "a directory to read", in: ":absorb " + dir + " keep\n", err: "GQLSTATUS 42Q05: cannot read " + dir + ": it is a directory"},
		{name: "a directory to write", in: setup + ":export " + dir + " MATCH (t:TSK)\n", err: "GQLSTATUS 42Q05: cannot write " + dir + ": it is a directory"},
		{name: "a file over the bound", in: ":absorb " + big + " keep\n", err: "GQLSTATUS 22Q02: " + big + " is over the slice bound of 1048576 bytes"},
		{name: "no policy", in: ":absorb " + file + "\n", err: "GQLSTATUS 42001: usage: :absorb FILE keep|reject|remint"},
		{name: "not a policy", in: ":absorb " + file + " merge\n", err: "GQLSTATUS 22Q06: \"merge\" is not an Absorb policy"},
		{name: "no token", in: ":export " + file + "\n", err: "GQLSTATUS 42001: usage: :export FILE Q"},
		{name: "inside a transaction", in: "START TRANSACTION;\n:absorb " + file + " keep\n", err: "GQLSTATUS 25000: an Absorb is a Δ of its own"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, s := newDB(t)
			out, errOut, code := runText(t, s, c.in, Options{DB: db, FailAtEnd: true})
			if c.err == "" && (code != 0 || errOut != "") {
				t.Fatalf("exit %d, stderr %q\nstdout %q", code, errOut, out)
			}
			if !strings.Contains(errOut, c.err) {
				t.Errorf("stderr %q lacks %q", errOut, c.err)
			}
			rest := out
			for _, w := range c.out {
				k := strings.Index(rest, w)
				if k < 0 {
					t.Errorf("stdout lacks %q (in order):\n%s", w, out)
					break
				}
				rest = rest[k+len(w):]
			}
			if c.version > 0 {
				if cp, err := db.Session(t.Context(), "copy"); err != nil || cp.Version() != c.version {
					t.Errorf("session copy: version %d, %v", cp.Version(), err)
				}
			}
		})
	}
}
