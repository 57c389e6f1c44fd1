package exec

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/goldfish-gql/goldfish/store"
)

// TestVarPrefixOfRendering: emit names variables from a node's rendered
// kind (store.KindPrefix), not from its record; the prefix must be the
// kind's own, whatever characters the rendering quotes.
func TestVarPrefixOfRendering(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		kind := rapid.StringOfN(rapid.SampledFrom([]rune("Aa9_`: éZ-")), 0, 20, -1).Draw(t, "kind")
		rendered := store.KindPrefix(string(store.AppendLabels(nil, []string{kind, "Extra"})) + " {x: 1}")
		if got, want := varPrefix(rendered), varPrefix(kind); got != want {
			t.Fatalf("kind %q rendered %q: prefix %q, want %q", kind, rendered, got, want)
		}
	})
}

func TestVarPrefix(t *testing.T) {
	for kind, want := range map[string]string{
		"TSK": "tsk", "A1": "a1_", "": "n", "9a": "a", "two words": "twowords",
		"a`b": "ab", "ABCDEFGHIJKLMNOP": "abcdefghijkl", "é": "n",
	} {
		if got := varPrefix(kind); got != want {
			t.Errorf("varPrefix(%q) = %q, want %q", kind, got, want)
		}
	}
}
