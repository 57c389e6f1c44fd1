package repl

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryErrorHasAPosition: errors the engine gives without a position
// are pinned to the statement they are about, and the shell's own errors
// in a script carry their line.
func TestEveryErrorHasAPosition(t *testing.T) {
	dir := t.TempDir()
	sourced := filepath.Join(dir, "inner.gql")
	if err := os.WriteFile(sourced, []byte("INSERT (:A);\n\n  INSERT (:B {x: });\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sourcedMeta := filepath.Join(dir, "meta.gql")
	if err := os.WriteFile(sourcedMeta, []byte("-- one\n:set M many\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 300<<10)
	cases := []struct {
		name, in, err string
	}{
		{"missing parameter in a Commit", "INSERT (:A);\nINSERT (:A {x: 1, y: $y});",
			"GQLSTATUS 42002: statement 2: parameter $y is not given; :param y VALUE gives it a value for every following statement (:params lists them) (line 2, column 22)\n  INSERT (:A {x: 1, y: $y});\n                       ^\n"},
		{"missing parameter in a Recall", ":param a 1\nMATCH (n:A) WHERE n.x = $a OR n.y = $b;",
			"GQLSTATUS 42002: statement 1: parameter $b is not given; :param b VALUE gives it a value for every following statement (:params lists them) (line 2, column 37)\n"},
		{"the R byte budget", "INSERT (:A);\n  INSERT (:A {s: '" + big + "'});",
			"GQLSTATUS 22Q02: statement 2: Δ text is 307219 bytes, over the R budget of 262144 bytes; nothing applied; split the Δ into smaller commits (line 2, column 3)\n    INSERT (:A {s: 'xxxxxxxx"},
		{"an unterminated transaction", "INSERT (:A);\n START TRANSACTION;\nINSERT (:B);",
			"GQLSTATUS 25000: statement 2: START TRANSACTION without COMMIT or ROLLBACK at the end of the input; nothing applied; end the transaction with COMMIT to apply it, or ROLLBACK to drop it (line 2, column 2)\n   START TRANSACTION;\n   ^\n"},
		{"a meta-command in a script", "INSERT (:A);\n\n   :set M many",
			"GQLSTATUS 22Q06: M takes a whole number ≥ 0 (0 for the default), not \"many\" (line 3, column 4)\n     :set M many\n     ^\n"},
		{"an unknown meta-command in a script", "\n:frob", "GQLSTATUS 42001: unknown meta-command :frob; "},
		{"inside a sourced file", ":source " + sourced,
			sourced + ":3:18: GQLSTATUS 42001: statement 2: unexpected \"}\"; expected an expression: a literal, a $parameter, a variable, n.key, f(args) or (expression)\n    INSERT (:B {x: });\n                   ^\n" +
				sourced + ": 1 statement failed\n"},
		{"a meta-command inside a sourced file", ":source " + sourcedMeta, sourcedMeta + ":2:1: GQLSTATUS 22Q06: M takes a whole number"},
		{"a sourced file that is not there", "\n:source " + filepath.Join(dir, "nope.gql"),
			"GQLSTATUS 42Q05: cannot read " + filepath.Join(dir, "nope.gql") + ": no such file or directory; check the path; relative paths start in gqlsh's working directory (line 2, column 1)\n"},
		{"a sourced directory", ":source " + dir, "it is a directory, not a file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, s := newDB(t)
			var out, errOut bytes.Buffer
			code := runShell(t, context.Background(), s, &ReaderIO{R: strings.NewReader(c.in), Out: &out, Err: &errOut}, Options{DB: db})
			if code != 1 || !strings.Contains(errOut.String(), c.err) {
				t.Errorf("exit %d\nstderr:\n%s\nwant it to hold:\n%s", code, errOut.String(), c.err)
			}
			if n := strings.Count(errOut.String(), "\n"); n > 6 {
				t.Errorf("%d lines of stderr", n)
			}
		})
	}
}

// TestErrorInAFileJSON: format json names the file of an error.
func TestErrorInAFileJSON(t *testing.T) {
	_, s := newDB(t)
	var out, errOut bytes.Buffer
	code := runShell(t, context.Background(), s, &ReaderIO{R: strings.NewReader("INSERT (:A {x: });"), Name: "setup.gql", Out: &out, Err: &errOut}, Options{Format: FormatJSON})
	var e map[string]any
	if err := json.Unmarshal(out.Bytes(), &e); err != nil || code != 1 {
		t.Fatalf("exit %d, %v: %s", code, err, out.String())
	}
	if e["file"] != "setup.gql" || e["line"] != 1.0 || e["column"] != 16.0 || e["status"] != "42001" {
		t.Errorf("json error %v", e)
	}
	if !strings.HasPrefix(errOut.String(), "setup.gql:1:16: GQLSTATUS 42001: statement 1: unexpected") {
		t.Errorf("stderr %q", errOut.String())
	}
}

// TestLongLineWindow: an error on a long line prints a window of it.
func TestLongLineWindow(t *testing.T) {
	_, s := newDB(t)
	var b strings.Builder
	b.WriteString("INSERT ")
	for i := 0; i < 9000; i++ {
		b.WriteString("(:A {x: 1}), ")
	}
	b.WriteString("(:B {x: });")
	_, errOut, code := runText(t, s, b.String(), Options{})
	lines := strings.Split(errOut, "\n")
	if code != 1 || len(errOut) > 600 || len(lines) != 4 || !strings.HasPrefix(lines[1], "  …") ||
		!strings.HasSuffix(lines[1], "(:A {x: 1}), (:B {x: });") || !strings.HasSuffix(lines[2], "^") {
		t.Fatalf("exit %d, %d bytes of stderr:\n%s", code, len(errOut), errOut)
	}
	// the caret stands under the '}' after "x: "
	caret := strings.Index(lines[2], "^")
	if r := []rune(lines[1]); string(r[caret:caret+2]) != "})" {
		t.Errorf("caret under %q:\n%s\n%s", string(r[caret:]), lines[1], lines[2])
	}
}

// TestCaretAfterWideRunes: East Asian wide runes take two columns, so the
// caret moves two for each.
func TestCaretAfterWideRunes(t *testing.T) {
	_, s := newDB(t)
	_, errOut, _ := runText(t, s, `INSERT (:A {x: "日本語"}) INSERT (:B {x: });`, Options{})
	// 38 runes before the '}', 3 of them two columns wide
	want := "(line 1, column 39)\n" +
		"  INSERT (:A {x: \"日本語\"}) INSERT (:B {x: });\n" +
		"  " + strings.Repeat(" ", 38+3) + "^\n"
	if !strings.HasSuffix(errOut, want) {
		t.Fatalf("stderr:\n%s\nwant it to end:\n%s", errOut, want)
	}
}

// TestMetaErrorsAreGQLSTATUS: :set, :param and the other meta-commands
// fail with GQLSTATUS errors like statements do, in json too.
func TestMetaErrorsAreGQLSTATUS(t *testing.T) {
	cases := map[string]string{
		":set M 999":    "GQLSTATUS 22Q01: M=999 is above its ceiling 200; narrow the token, use view shell, or split the session",
		":set view x":   "GQLSTATUS 22Q06: view is interior or shell, not \"x\"",
		":set":          "",
		":set a b c":    "GQLSTATUS 42001: usage: :set KNOB VALUE",
		":param":        "GQLSTATUS 42001: usage: :param NAME VALUE",
		":param x":      "GQLSTATUS 42002: no parameter $x; :param x VALUE sets it",
		":drop nope":    "GQLSTATUS 42002: there is no session \"nope\" to drop; :sessions lists them",
		":timing maybe": "GQLSTATUS 42001: usage: :timing on|off",
	}
	for in, want := range cases {
		db, s := newDB(t)
		var out, errOut bytes.Buffer
		runShell(t, context.Background(), s, &ReaderIO{R: strings.NewReader(in), Out: &out, Err: &errOut}, Options{DB: db, Format: FormatJSON})
		if want == "" {
			if errOut.Len() > 0 && !strings.Contains(errOut.String(), "M ") {
				t.Errorf("%s: stderr %q", in, errOut.String())
			}
			continue
		}
		if !strings.HasPrefix(errOut.String(), want) {
			t.Errorf("%s: stderr %q, want %q", in, errOut.String(), want)
		}
		var e map[string]any
		if err := json.Unmarshal(out.Bytes(), &e); err != nil || e["status"] != want[10:15] || e["line"] != 1.0 {
			t.Errorf("%s: json %s (%v)", in, out.String(), err)
		}
		if strings.Contains(errOut.String(), "DB.") || strings.Contains(errOut.String(), "Session.") {
			t.Errorf("%s: an API name in %q", in, errOut.String())
		}
	}
}

// TestDroppedSessionMessage: a session dropped under the shell is said in
// the shell's words, not the Go API's.
func TestDroppedSessionMessage(t *testing.T) {
	db, s := newDB(t)
	if err := db.Drop(context.Background(), "main"); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runText(t, s, "INSERT (:A);", Options{DB: db})
	want := "GQLSTATUS 42002: statement 1: session main was dropped; :use main makes a new, empty one (line 1, column 1)"
	if code != 1 || !strings.HasPrefix(errOut, want) || strings.Contains(errOut, "DB.") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}
