package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeEmbedding builds the README's embedding program as a module of
// its own, with the README's go.mod pointed at this clone by its replace,
// runs it twice in one directory and checks it prints what the README
// says: the first run makes the task, the second finds it in the cabinet
// file and echoes it.
func TestReadmeEmbedding(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Embedding\n")
	if !ok {
		t.Fatal("the README has no section Embedding")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	gomod := regexp.MustCompile("(?s)```text\n(module .*?)```").FindStringSubmatch(section)
	prog := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(section)
	prints := regexp.MustCompile("(?s)It prints\n\n```text\n(.*?)```").FindStringSubmatch(section)
	if gomod == nil || prog == nil || prints == nil {
		t.Fatalf("the Embedding section lacks its go.mod, its program or what it prints:\n%s", section)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	mod := regexp.MustCompile(`(?m)^replace (\S+) => .*$`).ReplaceAllString(gomod[1], "replace $1 => "+root)
	if mod == gomod[1] {
		t.Fatal("the README's go.mod has no replace")
	}
	// The clone's go.sum holds the checksums of every module the program
	// needs, so tidy has nothing to look up.
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": mod, "main.go": prog[1], "go.sum": string(sum)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(goEnv, "GOFLAGS=-mod=mod", "GOWORK=off") // the real caches, not the temp HOME of TestMain
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("mod", "tidy")
	if got := run("run", "."); got != prints[1] {
		t.Errorf("the program prints\n%s\nthe README says\n%s", got, prints[1])
	}
	again := run("run", ".")
	if first, _, _ := strings.Cut(again, "\n"); first != "ok v=1 1 echo (not applied)" {
		t.Errorf("run again, the program first prints %q, the README says ok v=1 1 echo (not applied)", first)
	}
}
