package repl

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestSharedHelp: :help TOPIC prints the text the server serves for the
// topics the attention envelope names (goldfish.Help), byte for byte,
// and :help lists them.
func TestSharedHelp(t *testing.T) {
	for _, topic := range []string{"vocabulary", "broken_views"} {
		want, ok := goldfish.Help(topic)
		if !ok {
			t.Fatalf("goldfish.Help has no %s", topic)
		}
		db, s := newDB(t)
		var out, errOut bytes.Buffer
		code := runShell(t, context.Background(), s, &ReaderIO{R: strings.NewReader(":help " + topic), Out: &out, Err: &errOut}, Options{DB: db})
		if code != 0 || out.String() != want+"\n" {
			t.Errorf(":help %s: exit %d %s\n%s\nwant\n%s", topic, code, errOut.String(), out.String(), want)
		}
		out.Reset()
		runShell(t, context.Background(), s, &ReaderIO{R: strings.NewReader(":help"), Out: &out, Err: &errOut}, Options{DB: db})
		if !strings.Contains(out.String(), ":help "+topic) {
			t.Errorf(":help does not list %s:\n%s", topic, out.String())
		}
	}
}
