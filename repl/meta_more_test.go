package repl

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestParamLiterals: :param reads its value by the GQL literal rules,
// and the value reaches the engine typed.
func TestParamLiterals(t *testing.T) {
	cases := []struct {
		name, in string
		out      []string // substrings of stdout, in order
		err      string
		dump     string // a line the session's dump must hold
	}{
		{name: "an integer above int64 is an error, not a float", in: ":param n 99999999999999999999",
			err: "GQLSTATUS 22003: $n: integer literal 99999999999999999999 is out of range; integers are 64-bit (up to 9223372036854775807); use a float or a string for larger numbers (line 1, column 10)\n  :param n 99999999999999999999\n           ^\n"},
		{name: "a DATE is a typed value", in: ":param d DATE '2026-01-31'\nINSERT (:T {due: $d});\nMATCH (t:T {due: DATE '2026-01-31'});",
			out: []string{"$d = DATE '2026-01-31'\n", "ok v=1 +1 node 1 property set\n", "(t1:T {due: DATE '2026-01-31'})"}, dump: "(:T {due: DATE '2026-01-31'})"},
		{name: "a DATETIME is a typed value", in: ":param at DATETIME '2026-01-31T10:00:00Z'\nINSERT (:T {at: $at});",
			out: []string{"$at = DATETIME '2026-01-31T10:00:00Z'\n"}, dump: "(:T {at: DATETIME '2026-01-31T10:00:00Z'})"},
		{name: "a bad DATE is refused where it is", in: "\n  :param d DATE '2026-02-30'",
			err: "GQLSTATUS 22007: $d: invalid DATE literal \"2026-02-30\"; write dates as DATE 'YYYY-MM-DD', for example DATE '2026-01-31' (line 2, column 17)\n    :param d DATE '2026-02-30'\n                  ^\n"},
		{name: "a list of mixed literals", in: ":param xs [1, -2.5e3, 'a', \"b\", true, null, [DATE '2026-01-01']]\n:params",
			out: []string{`$xs = [1, -2500.0, "a", "b", true, null, [DATE '2026-01-01']]`}},
		{name: "an integer stays an integer", in: ":param n 9223372036854775807\nINSERT (:T {n: $n});", dump: "(:T {n: 9223372036854775807})"},
		{name: "more than one literal", in: ":param n 1}), (:X {y: 2", err: "GQLSTATUS 42001: $n: \"1}), (:X {y: 2\" is not one literal"},
		{name: "an unclosed list points at its end", in: ":param n [1, 2", err: "(line 1, column 15)"},
		{name: "a comment cannot end the literal early", in: ":param n 1 // })\n:params", out: []string{"$n = 1\n"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, s := newDB(t)
			out, errOut, code := runText(t, s, c.in, Options{DB: db})
			if c.err == "" && (code != 0 || errOut != "") {
				t.Fatalf("exit %d, stderr %q", code, errOut)
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
			if c.dump != "" && !strings.Contains(s.Dump(), c.dump) {
				t.Errorf("dump:\n%s", s.Dump())
			}
		})
	}
}

// TestOutputFile: :output FILE sends results to FILE until :output alone.
func TestOutputFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "results.txt")
	db, s := newDB(t)
	in := ":output " + file + "\nINSERT (:A);\nMATCH (a:A);\nINSERT (:B {x: });\n:output\nINSERT (:C);\n"
	out, errOut, code := runText(t, s, in, Options{DB: db, FailAtEnd: true})
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if code != 1 || !strings.HasPrefix(string(b), "ok v=1 +1 node\n// goldfish session=main version=1 cue=match") || strings.Contains(string(b), "GQLSTATUS") {
		t.Errorf("exit %d, file:\n%s", code, b)
	}
	if out != "output back to standard output (results were written to "+file+")\nok v=2 +1 node\n" || !strings.Contains(errOut, "GQLSTATUS 42001") {
		t.Errorf("stdout %q\nstderr %q", out, errOut)
	}
	_, errOut, code = runText(t, s, ":output "+dir, Options{DB: db})
	if code != 1 || !strings.Contains(errOut, "cannot write "+dir+": it is a directory, not a file") {
		t.Errorf("a directory: exit %d, %q", code, errOut)
	}
	_, errOut, _ = runText(t, s, ":output "+filepath.Join(dir, "no", "such", "x"), Options{DB: db})
	first, _, _ := strings.Cut(errOut, "\n")
	if strings.Count(first, filepath.Join(dir, "no")) != 1 || !strings.Contains(first, "no such file or directory") {
		t.Errorf("a missing directory: %q", errOut)
	}
}

// TestOutputFilePlain: with colour on (a terminal), :output FILE writes
// plain text to the file, as psql's \o does, and colour comes back after.
func TestOutputFilePlain(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain.txt")
	db, s := newDB(t)
	in := ":output " + file + "\nINSERT (:A);\nMATCH (a:A);\n:output\nINSERT (:C);\n"
	out, _, _ := runText(t, s, in, Options{DB: db, Color: true})
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "\x1b[") || !strings.Contains(string(b), "// goldfish session=main") {
		t.Errorf("the file holds escapes or no Shape:\n%q", b)
	}
	if !strings.Contains(out, "\x1b[") {
		t.Errorf("colour did not come back on standard output: %q", out)
	}
}

// TestCompleteFiles: :source and :output complete file names.
func TestCompleteFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"setup.gql", "seed.gql", ".hidden"} {
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	db, s := newDB(t)
	sh := newShell(t, s, &linesIO{}, Options{DB: db})
	for line, want := range map[string][]string{
		":source " + dir + "/s":  {dir + "/seed.gql ", dir + "/setup.gql ", dir + "/sub/"},
		":output " + dir + "/se": {dir + "/seed.gql ", dir + "/setup.gql "},
		":source " + dir + "/.h": {dir + "/.hidden "},
		":source " + dir + "/x":  nil,
	} {
		head, got, _ := sh.Complete(line, len([]rune(line)))
		if head != line[:strings.LastIndex(line, " ")+1] || !slices.Equal(got, want) {
			t.Errorf("Complete(%q) = %q %q, want %q", line, head, got, want)
		}
	}
}
