package repl

import (
	"regexp"
	"strings"
	"testing"
)

// TestHelpTeachesSettled: the shell's help settles a task the way
// liveness reads it, with the label Settled: no help text sets a
// finished status without it, and :help commit shows SET t:Settled and
// says a status alone settles nothing.
func TestHelpTeachesSettled(t *testing.T) {
	finishedSet := regexp.MustCompile(`(?i)\bSET\b[^;\n]*\bstatus\s*[=:]\s*['"](done|closed|finished|complete|completed|resolved|cancelled|canceled)['"]`)
	texts := map[string]string{}
	for topic, text := range helpTopics {
		texts[":help "+topic] = text
	}
	for _, c := range metaCmds {
		texts[":help "+c.name] = c.args + " " + c.short + " " + c.long
	}
	for name, text := range texts {
		for _, line := range strings.Split(text, "\n") {
			for _, m := range finishedSet.FindAllString(line, -1) {
				if !strings.Contains(line, "Settled") {
					t.Errorf("%s teaches %q without the label Settled: %s", name, m, line)
				}
			}
		}
	}
	commit := helpTopics["commit"]
	for _, want := range []string{`SET t:Settled`, "A status alone settles nothing", "warning", "delete_on_settle"} {
		if !strings.Contains(commit, want) {
			t.Errorf(":help commit lacks %q:\n%s", want, commit)
		}
	}
}
