package goldfish

import "testing"

// BenchmarkToValueString converts the common Recall parameter, a short
// string, as the Shape cache's key does on every Recall.
func BenchmarkToValueString(b *testing.B) {
	var v any = "TSK_1234"
	for b.Loop() {
		if _, err := ToValue(v); err != nil {
			b.Fatal(err)
		}
	}
}
