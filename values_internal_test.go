package goldfish

import (
	"errors"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// TestParamConverter: converting Recall parameters one at a time spends
// one bound across them and fails as recallParams does.
func TestParamConverter(t *testing.T) {
	pc := newParamConverter(100)
	if v, err := pc.recall("a", strings.Repeat("x", 40)); err != nil || v.Size() != 42 {
		t.Fatalf("%v %v", v, err)
	}
	_, err := pc.recall("b", strings.Repeat("x", 60))
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) || ge.Code != gqlstatus.CommitBudget || !strings.Contains(ge.Msg, "R budget of 100 bytes") || !strings.Contains(ge.Msg, "$b") {
		t.Fatalf("got %v", err)
	}
	pc = newParamConverter(0)
	if _, err := pc.recall("c", "\xff"); !errors.As(err, &ge) || !strings.Contains(ge.Msg, "$c: the string is not valid UTF-8") {
		t.Fatalf("got %v", err)
	}
}
