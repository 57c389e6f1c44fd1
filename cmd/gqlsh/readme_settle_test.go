package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeTeachesSettled: the README and docs/*.md settle a task the
// way liveness reads it, with the label Settled: no statement they show
// sets a status that says finished without it, and they show SET
// t:Settled and the notice a status alone draws.
func TestReadmeTeachesSettled(t *testing.T) {
	finishedSet := regexp.MustCompile(`(?i)\bSET\b[^;\n]*\bstatus\s*[=:]\s*['"](done|closed|finished|complete|completed|resolved|cancelled|canceled)['"]`)
	files, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	files = append([]string{filepath.Join("..", "..", "README.md")}, files...)
	var all strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range finishedSet.FindAllString(line, -1) {
				if !strings.Contains(line, "Settled") {
					t.Errorf("%s:%d teaches %q without the label Settled: %s", filepath.Base(f), i+1, m, line)
				}
			}
		}
		all.Write(b)
	}
	for _, want := range []string{`SET t:Settled`, `does not settle a task; add the label: SET t:Settled`, "settle_as_taught.txt"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("neither the README nor docs/*.md shows %q", want)
		}
	}
}
