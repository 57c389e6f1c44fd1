package tokens

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shapes reads every Shape the conformance suite expects: the outputs of
// its recall directives.
func shapes(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob("../conformance/testdata/recall*.txt")
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range strings.Split(string(b), "\n----\n")[1:] {
			end := strings.Index(block, "\n\n")
			if end < 0 {
				end = len(block)
			}
			text := block[:end]
			if strings.HasPrefix(text, "// goldfish ") && strings.Contains(text, "INSERT") {
				out = append(out, text+"\n")
			}
		}
	}
	return out
}

// TestEstimateCalibrated keeps the fast estimate within ±15% of the exact
// o200k count on every Shape of the conformance suite.
func TestEstimateCalibrated(t *testing.T) {
	all := shapes(t)
	if len(all) < 20 {
		t.Fatalf("only %d Shapes found in the conformance suite", len(all))
	}
	worst := 0.0
	for _, s := range all {
		exact, err := Exact(s)
		if err != nil {
			t.Fatal(err)
		}
		est := Estimate(s)
		dev := float64(est-exact) / float64(exact)
		if dev < 0 {
			dev = -dev
		}
		worst = max(worst, dev)
		if dev > 0.15 {
			t.Errorf("estimate %d vs exact %d (%.0f%% off) for:\n%s", est, exact, 100*dev, s)
		}
	}
	t.Logf("%d Shapes, worst deviation %.1f%%", len(all), 100*worst)
}

func TestExactKnown(t *testing.T) {
	n, err := Exact("INSERT (tsk1:TSK {nick: \"TSK_login\"})")
	if err != nil || n < 8 || n > 16 {
		t.Fatalf("Exact = %d, %v", n, err)
	}
}

func BenchmarkEstimate(b *testing.B) {
	text := strings.Repeat("  (tsk1:TSK {nick: \"TSK_login\", status: \"open\", title: \"Fix login redirect\"}),\n", 40)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Estimate(text)
	}
}
