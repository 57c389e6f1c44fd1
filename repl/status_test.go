package repl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// TestErrorCodes: every error the shell prints carries a GQLSTATUS, in
// text and in JSON: the engine's own errors keep theirs, its sentinel
// conditions (a damaged cabinet, a session not durable or dropped, a call
// cancelled) get theirs, and an error nothing classified is reported as
// such (40Q01), never as a rolled-back transaction (40000).
func TestErrorCodes(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		code gqlstatus.Code
	}{
		{"engine error", gqlstatus.Errorf(gqlstatus.NotComparable, "cannot compare"), gqlstatus.NotComparable},
		{"damaged", fmt.Errorf("%w: session %q in %s: bad", goldfish.ErrDamaged, "s", "/x.gf"), gqlstatus.Damaged},
		{"not durable", fmt.Errorf("session %q refuses Commits: %w", "s", goldfish.ErrNotDurable), gqlstatus.CompletionUnknown},
		{"dropped", fmt.Errorf("%w: %q", goldfish.ErrDropped, "s"), gqlstatus.InvalidReference},
		{"cancelled", fmt.Errorf("reading: %w", context.Canceled), gqlstatus.Rollback},
		{"unclassified", errors.New("disk on fire"), gqlstatus.Internal},
	} {
		t.Run(c.name, func(t *testing.T) {
			var text bytes.Buffer
			WriteError(&text, c.err)
			want := "GQLSTATUS " + string(c.code) + ": "
			if !strings.HasPrefix(text.String(), want) || !strings.Contains(text.String(), c.err.Error()) {
				t.Errorf("text: %q, want %q and the message", text.String(), want)
			}
			var out bytes.Buffer
			writeJSON(&out, errorJSON(c.err))
			var got struct{ Status, Error string }
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if got.Status != string(c.code) {
				t.Errorf("json status %s, want %s: %s", got.Status, c.code, out.String())
			}
		})
	}
}
