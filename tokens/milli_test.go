package tokens

import (
	"testing"

	"pgregory.net/rapid"
)

// TestMilliAddsUp: cutting a text only where Milli's contract allows (a
// class change, or between two punctuation or two non-ASCII bytes) keeps
// the sum of the parts' Milli equal to the whole's. The Shape emitter
// relies on it to count kept renderings once.
func TestMilliAddsUp(t *testing.T) {
	alphabet := []byte("aZq_09 \n\t{}:,\"'\xc3\xa9-")
	rapid.Check(t, func(t *rapid.T) {
		text := rapid.SliceOfN(rapid.SampledFrom(alphabet), 0, 80).Draw(t, "text")
		var sum int64
		start := 0
		for i := 1; i < len(text); i++ {
			a, b := class[text[i-1]], class[text[i]]
			cuttable := a != b || a == clsOther || a == clsHigh
			if cuttable && rapid.Bool().Draw(t, "cut") {
				sum += Milli(text[start:i])
				start = i
			}
		}
		sum += Milli(text[start:])
		if whole := Milli(text); sum != whole {
			t.Fatalf("parts of %q add to %d, the whole is %d", text, sum, whole)
		}
	})
}
