package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsLinked: the README links every page of docs/; every relative
// link of the README and of docs/*.md names a file that exists and, with
// a #fragment, a heading of that file; and so does every docs/PAGE.md#…
// a comment of the Go code or of a conformance file cites.
func TestDocsLinked(t *testing.T) {
	root := filepath.Join("..", "..")
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if len(pages) < 10 {
		t.Fatalf("docs/ holds %d pages", len(pages))
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if !strings.Contains(string(readme), "](docs/"+filepath.Base(p)+")") {
			t.Errorf("the README does not link docs/%s", filepath.Base(p))
		}
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, from := range append([]string{filepath.Join(root, "README.md")}, pages...) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			path := from
			if file != "" {
				path = filepath.Join(filepath.Dir(from), file)
			}
			text, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%s links %s: %v", filepath.Base(from), target, err)
				continue
			}
			if frag != "" && !hasAnchor(string(text), frag) {
				t.Errorf("%s links %s: no heading of %s has the anchor #%s", filepath.Base(from), target, filepath.Base(path), frag)
			}
		}
	}
	cite := regexp.MustCompile(`docs/([a-z-]+\.md)(?:#([a-z0-9-]+))?`)
	checkCites := func(path string, cite *regexp.Regexp) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Error(err)
			return
		}
		for _, m := range cite.FindAllStringSubmatch(string(b), -1) {
			text, err := os.ReadFile(filepath.Join(root, "docs", m[1]))
			if err != nil {
				t.Errorf("%s cites docs/%s: %v", path, m[1], err)
			} else if m[2] != "" && !hasAnchor(string(text), m[2]) {
				t.Errorf("%s cites docs/%s#%s: no such heading", path, m[1], m[2])
			}
		}
	}
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			checkCites(path, cite)
		}
		return nil
	})
	// The conformance files' comments cite the design (their data holds
	// other docs/ paths, which are values).
	design := regexp.MustCompile(`docs/(design\.md)(?:#([a-z0-9-]+))?`)
	files, _ := filepath.Glob(filepath.Join(root, "conformance", "testdata", "*.txt"))
	for _, f := range files {
		checkCites(f, design)
	}
}

// hasAnchor reports whether a heading of markdown text has the anchor a
// renderer gives it: lower case, spaces as hyphens, punctuation dropped.
func hasAnchor(text, frag string) bool {
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127:
				b.WriteRune(r)
			}
		}
		if b.String() == frag {
			return true
		}
	}
	return false
}
