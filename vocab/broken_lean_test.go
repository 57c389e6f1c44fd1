package vocab

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish/tokens"
	"github.com/goldfish-gql/goldfish/values"
)

func TestErrorLine(t *testing.T) {
	long := strings.Repeat("é", 70)
	for _, c := range []struct{ in, want string }{
		{"no such key: due", "no such key: due"},
		{"first line\nsecond line", "first line…"},
		{"first\r\nsecond", "first…"},
		{long, strings.Repeat("é", ErrorLineRunes) + "…"},
		{strings.Repeat("x", ErrorLineRunes), strings.Repeat("x", ErrorLineRunes)},
	} {
		if got := ErrorLine(c.in); got != c.want {
			t.Errorf("ErrorLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestLeanBrokenWithErrors: at lean the broken views come first, each with
// its error as one short line, within the lean budget however many there
// are and however long their errors; the rest are counted.
func TestLeanBrokenWithErrors(t *testing.T) {
	var s *State
	vals := &Values{Results: map[string]Result{}}
	for i := range 40 {
		name := fmt.Sprintf("v%02d", i)
		var err error
		if s, err = s.DefineView(name, "", `count("TSK")`, false, "", 1); err != nil {
			t.Fatal(err)
		}
		vals.Results[name] = Result{Err: errors.New(strings.Repeat("a long error ", 20) + "\nand a second line")}
	}
	p := Prepare(s, vals)
	env := Compose(&Read{Prepared: p, Version: 1, Tick: 5, Settings: values.DefaultAttentionSettings, Agent: "ana", Seen: Seen{Reads: 1, Version: 1}})
	text := string(env.Text)
	if !strings.HasPrefix(text, "// attention broken_views: v00 (a long error") {
		t.Fatalf("broken views do not lead:\n%s", text)
	}
	if n := tokens.Milli(env.Text); n > LeanTokens*1000 {
		t.Errorf("lean envelope is %d milli-tokens, over %d tokens:\n%s", n, LeanTokens, text)
	}
	if !strings.Contains(text, " more (depth=full lists them)") || strings.Contains(text, "second line") {
		t.Errorf("lean broken views:\n%s", text)
	}
	if b := env.Attention.BrokenViews; len(b) == 0 || b[0].Error != ErrorLine(vals.Results["v00"].Err.Error()) {
		t.Errorf("JSON broken views at lean: %+v", b)
	}
}
