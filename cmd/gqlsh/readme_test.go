package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// readmeBlocks returns the lines of the ```sh blocks of the README
// section headed title.
func readmeBlocks(t *testing.T, readme, title string) []string {
	t.Helper()
	start := strings.Index(readme, "\n## "+title+"\n")
	if start < 0 {
		t.Fatalf("README has no section %q", title)
	}
	section := readme[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	var lines []string
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(section, -1) {
		for _, l := range strings.Split(strings.TrimSpace(block[1]), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// TestReadmeCommands runs the README's first commands as a person with a
// fresh clone would: each gqlsh command of Install and Run starts from the
// clone (go run ./cmd/gqlsh, or ./gqlsh after go build -o gqlsh
// ./cmd/gqlsh), never from a gqlsh on PATH or a published module, and
// exits 0. They run in a temp directory with a temp HOME and
// XDG_DATA_HOME, so the user's cabinet is never touched; go run and go
// build are the binary this test builds from the same package. The Test
// section's command runs the tests.
func TestReadmeCommands(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the commands are sh")
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if _, err := os.Stat(filepath.Join("..", "..", "cmd", "gqlsh", "main.go")); err != nil {
		t.Fatal(err)
	}
	if got := readmeBlocks(t, readme, "Test"); len(got) == 0 || got[0] != "go test ./..." {
		t.Errorf("the Test section's first command is %q, want go test ./...", got)
	}
	bin := gqlshBinary(t)
	dir := t.TempDir()
	env := []string{"HOME=" + filepath.Join(dir, "home"), "XDG_DATA_HOME=" + filepath.Join(dir, "data"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "PATH=" + os.Getenv("PATH")}
	work := filepath.Join(dir, "clone")
	os.MkdirAll(work, 0o755)
	ran := 0
	var outputs strings.Builder
	for _, title := range []string{"Install", "Run"} {
		for _, line := range readmeBlocks(t, readme, title) {
			if strings.Contains(line, "@latest") || strings.HasPrefix(line, "gqlsh") {
				t.Errorf("%s: %q needs a published module or a gqlsh on PATH", title, line)
				continue
			}
			if strings.HasPrefix(line, "go install") {
				if !strings.HasPrefix(line, "go install ./cmd/gqlsh") {
					t.Errorf("%s: %q does not install from the clone", title, line)
				}
				continue
			}
			// What go run and go build make of ./cmd/gqlsh is the binary
			// built above.
			cmdline := strings.ReplaceAll(line, "go build -o gqlsh ./cmd/gqlsh", "cp "+bin+" ./gqlsh")
			cmdline = strings.ReplaceAll(cmdline, "go run ./cmd/gqlsh", bin)
			if cmdline == line && !strings.HasPrefix(line, "./gqlsh") {
				t.Errorf("%s: %q is not a gqlsh command a fresh clone can run", title, line)
				continue
			}
			cmd := exec.Command("sh", "-c", cmdline)
			cmd.Dir, cmd.Env = work, env
			cmd.Stdin = nil // not a terminal: the interactive command reads nothing and ends
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("%s: %s: %v\n%s", title, line, err, out)
			}
			outputs.Write(out)
			ran++
		}
	}
	if ran < 5 {
		t.Errorf("only %d commands ran", ran)
	}
	// The default cabinet remembered across the runs, in the temp data
	// directory.
	if !strings.Contains(outputs.String(), `(note1:NOTE {text: "kept"})`) {
		t.Errorf("the later run did not find the NOTE:\n%s", outputs.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "goldfish", "cabinet.gf")); err != nil {
		t.Errorf("no default cabinet in the temp data directory: %v", err)
	}
}

// TestReadmeTours runs each tour of the README and of docs/*.md (a
// ```text block that starts with "$ gqlsh … -f FILE" and the ```gql block
// after "where `FILE` is") and checks the page shows what gqlsh prints,
// byte for byte, standard output and error as a terminal interleaves them.
func TestReadmeTours(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	files = append([]string{filepath.Join("..", "..", "README.md")}, files...)
	total := 0
	for _, f := range files {
		total += readmeTours(t, f)
	}
	if total < 4 {
		t.Errorf("the README and docs/*.md hold %d tours, want at least 4", total)
	}
}

// readmeTours runs the tours of one page, and returns how many it holds.
func readmeTours(t *testing.T, path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	tours := regexp.MustCompile("(?s)```text\n\\$ gqlsh ([^\n]*)\n(.*?)```").FindAllStringSubmatchIndex(readme, -1)
	var rewrites [][3]int // with -update-readme: [start, end, index in outs]
	var outs []string
	n := 0
	for _, m := range tours {
		args := strings.Fields(readme[m[2]:m[3]])
		want := readme[m[4]:m[5]]
		file := ""
		for i, a := range args {
			if a == "-f" && i+1 < len(args) {
				file = args[i+1]
			}
		}
		if file == "" {
			continue // a one-line example, not a tour
		}
		n++
		src := regexp.MustCompile("(?s)where `" + regexp.QuoteMeta(file) + "` is\n\n```gql\n(.*?)```").FindStringSubmatch(readme[m[1]:])
		if src == nil {
			t.Errorf("%s, tour %s: no ```gql block after \"where `%s` is\"", filepath.Base(path), file, file)
			continue
		}
		t.Run(filepath.Base(path)+"/"+file, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, file), []byte(src[1]), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Chdir(dir)
			var out bytes.Buffer
			runEnv(args, env{stdin: strings.NewReader(""), stdout: &out, stderr: &out, lookupEnv: tempEnv(t, nil)})
			if got := out.String(); got != want {
				if *updateReadme {
					rewrites = append(rewrites, [3]int{m[4], m[5], len(outs)})
					outs = append(outs, got)
					return
				}
				t.Errorf("gqlsh %s prints\n%s\n%s shows\n%s", strings.Join(args, " "), got, filepath.Base(path), want)
			}
		})
	}
	if len(rewrites) > 0 {
		// Write what gqlsh prints into the page, last tour first so the
		// offsets of the others hold; review the diff.
		for i := len(rewrites) - 1; i >= 0; i-- {
			r := rewrites[i]
			readme = readme[:r[0]] + outs[r[2]] + readme[r[1]:]
		}
		if err := os.WriteFile(path, []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// updateReadme rewrites the tour outputs of the README and docs/*.md with
// what gqlsh prints (go test ./cmd/gqlsh -run TestReadmeTours -update-readme).
var updateReadme = flag.Bool("update-readme", false, "rewrite the tour outputs of the README and docs/*.md with what gqlsh prints")
