package goldfish_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestLargeSeedsStayUnderTheAlarm: four seeds of 18,000 bytes each were a
// 17,838-token Shape with only an alarm; by default (T = 4,000) their long
// values are elided, the Shape stays under the alarm, and the Shape body
// pasted back is refused rather than storing the markers.
func TestLargeSeedsStayUnderTheAlarm(t *testing.T) {
	ctx := context.Background()
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := mustSession(t, db, "large")
	for i := range 4 {
		body := strings.Repeat(fmt.Sprintf("paragraph %d of a long design note, ", i), 500)
		mustCommit(t, s, `INSERT (:DOC {nick: $n, body: $b, summary: "short"})`, map[string]any{"n": fmt.Sprintf("doc%d", i), "b": body})
	}
	sh, err := s.Recall(ctx, `MATCH (d:DOC)`, goldfish.RecallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sh.Elided != 4 || sh.Tokens > goldfish.DefaultRecall.T || !strings.Contains(sh.Text, " elided=4 ") || !strings.Contains(sh.Text, "body: $elided1") {
		t.Fatalf("elided %d, %d tokens:\n%.600s", sh.Elided, sh.Tokens, sh.Text)
	}
	for _, n := range sh.Notices {
		if strings.Contains(n.Msg, "alarm") {
			t.Errorf("an alarm: %s", n.Msg)
		}
	}
	if !strings.Contains(sh.Text, `summary: "short"`) {
		t.Errorf("a short value was elided:\n%.600s", sh.Text)
	}
	// The Shape's body, committed back, is refused: $elided1 is not given.
	_, err = s.Commit(ctx, sh.Text, nil)
	var ge *goldfish.Error
	if !errors.As(err, &ge) || ge.Code != goldfish.CodeInvalidReference || !strings.Contains(ge.Msg, "stands for a value a Shape left out") {
		t.Fatalf("pasted back: %v", err)
	}
	// Read one whole: the node alone with a T above its tokens.
	whole, err := s.Recall(ctx, `MATCH (d {nick: "doc0"})`, goldfish.RecallOptions{K: goldfish.NoWalk, T: 10000})
	if err != nil || whole.Elided != 0 || !strings.Contains(whole.Text, "paragraph 0 of a long design note") {
		t.Fatalf("the node alone: %v\n%.300s", err, whole.Text)
	}
}
