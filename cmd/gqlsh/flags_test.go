package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// TestFlagsAndHelp: every subcommand's --help goes to standard output
// and lists flags; a bad flag is one line that says where the help is;
// gqlsh help [TOPIC] and gqlsh version answer.
func TestFlagsAndHelp(t *testing.T) {
	run := func(args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		code := runEnv(args, env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, lookupEnv: tempEnv(t, nil)})
		return out.String(), errOut.String(), code
	}
	flagLine := regexp.MustCompile(`(?m)^  -[a-z]`)
	for _, sub := range append([]string{""}, subcommands...) {
		args := []string{"--help"}
		name := "gqlsh"
		if sub != "" {
			args, name = []string{sub, "--help"}, "gqlsh "+sub
		}
		out, errOut, code := run(args...)
		if code != 0 || errOut != "" || !strings.Contains(out, "Usage") || len(flagLine.FindAllString(out, -1)) == 0 {
			t.Errorf("%s --help: exit %d, stderr %q, stdout:\n%s", name, code, errOut, out)
		}
		bad := append(args[:len(args)-1:len(args)-1], "--no-such-flag")
		out, errOut, code = run(bad...)
		if want := name + ": flag provided but not defined: -no-such-flag; see " + name + " --help\n"; code != 2 || out != "" || errOut != want {
			t.Errorf("%s --no-such-flag: exit %d, stdout %q, stderr %q, want %q", name, code, out, errOut, want)
		}
	}
	if out, _, code := run("version"); code != 0 || !strings.HasPrefix(out, "gqlsh ") {
		t.Errorf("gqlsh version: exit %d, %q", code, out)
	}
	if out, _, code := run("help", "recall"); code != 0 || !strings.Contains(out, "A Recall is") {
		t.Errorf("gqlsh help recall: exit %d, %q", code, out)
	}
	if out, _, code := run("help", "serve"); code != 0 || !strings.HasPrefix(out, "Usage: gqlsh serve") {
		t.Errorf("gqlsh help serve: exit %d, %q", code, out)
	}
}
