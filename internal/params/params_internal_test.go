package params

import (
	"errors"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// TestParamConverter: converting Recall parameters one at a time spends
// one bound across them and fails as recallParams does.
func TestParamConverter(t *testing.T) {
	pc := NewConverter(100)
	if v, err := pc.Recall("a", strings.Repeat("x", 40)); err != nil || v.Size() != 42 {
		t.Fatalf("%v %v", v, err)
	}
	_, err := pc.Recall("b", strings.Repeat("x", 60))
	var ge *gqlstatus.Error
	if !errors.As(err, &ge) || ge.Code != gqlstatus.CommitBudget || !strings.Contains(ge.Msg, "R budget of 100 bytes") || !strings.Contains(ge.Msg, "$b") {
		t.Fatalf("got %v", err)
	}
	pc = NewConverter(0)
	if _, err := pc.Recall("c", "\xff"); !errors.As(err, &ge) || ge.Code != gqlstatus.InvalidValueType || !strings.Contains(ge.Msg, "$c: ") {
		t.Fatalf("got %v, want GQLSTATUS %s naming $c", err, gqlstatus.InvalidValueType)
	}
}
