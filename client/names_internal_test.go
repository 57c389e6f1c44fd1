package client

import (
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestValidSessionNameAgrees: the client refuses, before any request,
// exactly the session names the server refuses, with the same words.
func TestValidSessionNameAgrees(t *testing.T) {
	names := []string{"", "a", "main", "catalog", "A_b-c.d", "-a", ".a", "_a", "a-", "a.", "a b", "a/b", "..", ".", "é", "a\x00",
		strings.Repeat("x", 64), strings.Repeat("x", 65), "9", "a:b", "a%2Fb"}
	for c := rune(0); c < 256; c++ {
		names = append(names, string(c), "a"+string(c))
	}
	for _, name := range names {
		want := goldfish.ValidSessionName(name)
		got := validSessionName(name)
		if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
			t.Errorf("%q: %v, the server: %v", name, got, want)
		}
	}
}
