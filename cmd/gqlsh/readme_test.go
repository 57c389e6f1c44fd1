package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
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

// TestReadmeTours runs the transcripts of the README and of docs/*.md and
// checks each page shows what gqlsh prints, byte for byte, standard output
// and error as a terminal interleaves them. A transcript is a ```text
// block of "$ " lines, each followed by what it prints; every gqlsh
// command in one that needs nothing outside the page (--mem, and the
// files it reads shown by a "$ cat FILE" before it or in the ```gql block
// after "where `FILE` is") is run. A command that needs a server,
// PostgreSQL, a terminal or the shell's pipes is an example, not run.
func TestReadmeTours(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	files = append([]string{filepath.Join("..", "..", "README.md")}, files...)
	total := 0
	for _, f := range files {
		total += readmeTours(t, f)
	}
	if total < 6 {
		t.Errorf("the README and docs/*.md hold %d commands that run, want at least 6", total)
	}
}

// transcriptCommand is one "$ " line of a transcript and where what it
// prints stands on the page.
type transcriptCommand struct {
	line             int // on the page, from 1
	text             string
	outStart, outEnd int
}

// transcriptCommands splits the transcript body (starting at offset
// start of the page) into its commands.
func transcriptCommands(page string, start, end int) []transcriptCommand {
	var cmds []transcriptCommand
	off := start
	for _, l := range strings.SplitAfter(page[start:end], "\n") {
		if strings.HasPrefix(l, "$ ") {
			line := strings.Count(page[:off], "\n") + 1
			cmds = append(cmds, transcriptCommand{line: line, text: strings.TrimSuffix(l[2:], "\n"), outStart: off + len(l), outEnd: off + len(l)})
		} else if len(cmds) > 0 {
			cmds[len(cmds)-1].outEnd = off + len(l)
		}
		off += len(l)
	}
	return cmds
}

// shellWords splits a command line as sh does for plain words, '…' and
// "…"; ok is false for a line that needs more of the shell (a pipe, a
// redirection, a background job, a variable or a comment).
func shellWords(line string) (words []string, ok bool) {
	var w strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote == '\'' || quote == '"' && c != '\\' && c != '$':
			w.WriteByte(c)
		case quote == '"':
			return nil, false
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words, in = append(words, w.String()), false
				w.Reset()
			}
		case strings.IndexByte("|&;<>$#`\\*?", c) >= 0:
			return nil, false
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if in {
		words = append(words, w.String())
	}
	return words, len(words) > 0
}

// readmeTours runs the transcripts of one page, and returns how many
// commands it ran.
func readmeTours(t *testing.T, path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	name := filepath.Base(path)
	var rewrites [][3]int // with -update-readme: [start, end, index in outs]
	var outs []string
	n := 0
	for _, block := range regexp.MustCompile("(?s)```text\n(\\$ .*?)```").FindAllStringSubmatchIndex(page, -1) {
		files := map[string]string{} // what a "$ cat FILE" showed
		for _, c := range transcriptCommands(page, block[2], block[3]) {
			want := page[c.outStart:c.outEnd]
			words, ok := shellWords(c.text)
			if !ok {
				continue
			}
			if words[0] == "cat" && len(words) == 2 {
				files[words[1]] = want
				continue
			}
			if (words[0] != "gqlsh" && words[0] != "./gqlsh") || !slices.Contains(words, "--mem") {
				continue
			}
			args := words[1:]
			need := map[string]string{}
			for i, a := range args {
				if a != "-f" || i+1 == len(args) || args[i+1] == "-" {
					continue
				}
				file := args[i+1]
				src, ok := files[file]
				if !ok {
					m := regexp.MustCompile("(?s)where `" + regexp.QuoteMeta(file) + "` is\n\n```gql\n(.*?)```").FindStringSubmatch(page[block[1]:])
					if m == nil {
						t.Errorf("%s:%d: %s reads %s, which the page does not show (a \"$ cat %s\" before it, or a ```gql block after \"where `%s` is\")", name, c.line, c.text, file, file, file)
						continue
					}
					src = m[1]
				}
				need[file] = src
			}
			n++
			t.Run(fmt.Sprintf("%s:%d", name, c.line), func(t *testing.T) {
				dir := t.TempDir()
				for file, src := range need {
					if err := os.WriteFile(filepath.Join(dir, file), []byte(src), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				t.Chdir(dir)
				var out bytes.Buffer
				runEnv(args, env{stdin: strings.NewReader(""), stdout: &out, stderr: &out, lookupEnv: tempEnv(t, nil)})
				if got := out.String(); got != want {
					if *updateReadme {
						rewrites = append(rewrites, [3]int{c.outStart, c.outEnd, len(outs)})
						outs = append(outs, got)
						return
					}
					t.Errorf("%s:%d: gqlsh %s prints\n%s\nthe page shows\n%s", name, c.line, strings.Join(args, " "), got, want)
				}
			})
		}
	}
	if len(rewrites) > 0 {
		// Write what gqlsh prints into the page, last command first so
		// the offsets of the others hold; review the diff.
		for i := len(rewrites) - 1; i >= 0; i-- {
			r := rewrites[i]
			page = page[:r[0]] + outs[r[2]] + page[r[1]:]
		}
		if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// updateReadme rewrites the tour outputs of the README and docs/*.md with
// what gqlsh prints (go test ./cmd/gqlsh -run TestReadmeTours -update-readme).
var updateReadme = flag.Bool("update-readme", false, "rewrite the tour outputs of the README and docs/*.md with what gqlsh prints")
