package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTerminal drives a real gqlsh on a real terminal: tmux runs it in a
// detached 120×40 pane, send-keys types, capture-pane reads the screen. It
// types a multi-line INSERT, completes a label with Tab, Recalls it with
// :timing on, quits, restarts, finds the INSERT again in the history and
// the session remembered in the default cabinet file. It skips when tmux
// is missing (.ci/run installs it). The tmux server is private to the test
// (its socket is in a temp dir), and HOME, XDG_DATA_HOME, XDG_CONFIG_HOME
// and GQLSH_HISTORY point into the temp dir (GOLDFISH_CABINET is unset), so
// nothing of the user's is read or written.
func TestTerminal(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not installed (apt-get install tmux)")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	dir := t.TempDir()
	bin := gqlshBinary(t)
	home := filepath.Join(dir, "home")
	hist := filepath.Join(dir, "history")
	os.MkdirAll(home, 0o700)
	sock := filepath.Join(dir, "tmux.sock")
	tm := &tmuxPane{t: t, tmux: tmux, sock: sock}
	t.Cleanup(func() { exec.Command(tmux, "-S", sock, "kill-server").Run() })

	data := filepath.Join(dir, "data")
	cab := filepath.Join(data, "goldfish", "cabinet.gf")
	shell := "env -u NO_COLOR -u GOLDFISH_CABINET HOME=" + home + " XDG_DATA_HOME=" + data +
		" XDG_CONFIG_HOME=" + filepath.Join(dir, "config") + " GQLSH_HISTORY=" + hist + " " + bin

	// First run: type, complete, Recall, time, quit.
	tm.start(shell)
	tm.waitFor("(cabinet " + cab + "): session main.")
	tm.waitFor("main>")
	tm.typeLine(`INSERT (:TSK {nick: "TSK_login",`)
	tm.waitFor("...>")
	tm.typeLine(`  title: "Fix login"})-[:touches]->(:MOD {loc: "auth/login.go"});`)
	tm.waitFor("ok v=1 +2 nodes +1 edge 3 properties set")
	tm.typeLine(":timing on")
	tm.waitFor("timing on")
	tm.keys("-l", "MATCH (t:TS")
	tm.keys("Tab")
	tm.waitFor("MATCH (t:TSK")
	tm.typeLine(") LIMIT 1;")
	tm.waitFor(`(tsk1:TSK {nick: "TSK_login", title: "Fix login"})`)
	tm.waitFor("cue=match")
	tm.waitFor("-- time: parse ")
	tm.keys("-l", "INSERT (:Junk")
	tm.keys("C-c")
	tm.typeLine(":sessions")
	tm.waitFor("* main v=1 nodes=2 edges=1")
	tm.typeLine(":quit")
	tm.waitDead()

	b, err := os.ReadFile(hist)
	if err != nil {
		t.Fatalf("history not written: %v", err)
	}
	want := `INSERT (:TSK {nick: "TSK_login", title: "Fix login"})-[:touches]->(:MOD {loc: "auth/login.go"});`
	if !strings.Contains(string(b), want+"\n") || strings.Contains(string(b), "Junk") {
		t.Fatalf("history file:\n%s\nwant a line %q and no Junk", b, want)
	}

	if _, err := os.Stat(cab); err != nil {
		t.Fatalf("no cabinet in the data directory: %v", err)
	}

	// Second run: the INSERT comes back from history with its prefix and
	// Up; the cabinet remembers the first run, so it restates what the
	// session holds: echoes, and nothing applies (docs/design.md#commit).
	tm.start(shell)
	tm.waitFor("main>")
	tm.keys("-l", "INSERT")
	tm.keys("Up")
	tm.waitFor("main> " + want)
	tm.keys("Enter")
	tm.waitFor(`ok v=1 3 echoes (not applied)`)
	tm.typeLine(`MATCH (t:TSK {nick: "TSK_login"});`)
	tm.waitFor(`(tsk1:TSK {nick: "TSK_login", title: "Fix login"})`)
	tm.keys("C-d")
	tm.waitDead()

	// --mem forgets: the same INSERT applies again.
	tm.start(shell + " --mem")
	tm.waitFor("(memory): session main.")
	tm.typeLine(want)
	tm.waitFor("ok v=1 +2 nodes +1 edge 3 properties set")

	// A transaction typed at the prompt: each statement is checked as it
	// is typed, its error shows at once under the right column (after
	// wide runes too), and the transaction stays open.
	tm.typeLine("START TRANSACTION;")
	tm.waitFor("ok transaction started")
	tm.waitFor("main[tx]>")
	bad := `INSERT (:A {t: "日本語"}) INSERT (:B {x: });`
	tm.typeLine(bad)
	tm.waitFor("-- the transaction is still open with its 0 statements")
	tm.caretUnder(bad, strings.Index(bad, "});"))
	tm.typeLine(`INSERT (:A {nick: "a"});`)
	tm.waitFor("ok +1 node 1 property set (pending: applies at COMMIT)")
	tm.typeLine("COMMIT;")
	tm.waitFor("ok v=2 +1 node 1 property set")

	// Ctrl-C stops a long :source and the shell prompts again, its
	// session alive; before, SIGINT ended gqlsh and the session with it.
	script := filepath.Join(dir, "many.gql")
	var sb strings.Builder
	for i := 0; i < 300000; i++ {
		fmt.Fprintf(&sb, "INSERT (:N {i: %d});\n", i)
	}
	if err := os.WriteFile(script, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "results.txt")
	tm.typeLine(":output " + results)
	tm.typeLine(":source " + script)
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if fi, err := os.Stat(results); err == nil && fi.Size() > 0 {
			break // the :source runs
		}
		if time.Now().After(deadline) {
			t.Fatalf(":source never wrote a result; the screen shows:\n%s", tm.screen())
		}
	}
	tm.keys("C-c")
	tm.waitFor(": stopped (Ctrl-C) ")
	tm.typeLine(":output")
	tm.waitFor("output back to standard output")
	tm.typeLine("MATCH (a:A {nick: \"a\"});")
	tm.waitFor(`(a1:A {nick: "a"})`)
	tm.keys("C-d")
	tm.waitDead()
}

// caretUnder checks that the screen shows line with a caret under its
// byte offset at: the display columns of what comes before, wide runes
// counted twice, as a terminal draws them.
func (p *tmuxPane) caretUnder(line string, at int) {
	p.t.Helper()
	rows := strings.Split(p.screen(), "\n")
	for i := 0; i+1 < len(rows); i++ {
		j := strings.Index(rows[i], line)
		if j < 0 || !strings.HasSuffix(strings.TrimRight(rows[i+1], " "), "^") || strings.Contains(rows[i], ">") {
			continue
		}
		want := displayWidth(rows[i][:j]) + displayWidth(line[:at])
		if got := len(strings.TrimRight(rows[i+1], " ")) - 1; got != want {
			p.t.Fatalf("caret at column %d, want %d:\n%s\n%s", got, want, rows[i], rows[i+1])
		}
		return
	}
	p.t.Fatalf("no caret line under %q; the screen shows:\n%s", line, p.screen())
}

// displayWidth counts terminal columns: CJK ideographs take two.
func displayWidth(s string) int {
	w := 0
	for _, r := range s {
		if r >= 0x2E80 && r <= 0x9FFF || r >= 0xF900 && r <= 0xFAFF || r >= 0xFF00 && r <= 0xFF60 {
			w += 2
		} else {
			w++
		}
	}
	return w
}

// tmuxPane is one gqlsh running in a private tmux server.
type tmuxPane struct {
	t          *testing.T
	tmux, sock string
	n          int
}

func (p *tmuxPane) target() string { return "gqlsh" + string(rune('0'+p.n)) }

func (p *tmuxPane) run(args ...string) string {
	p.t.Helper()
	out, err := exec.Command(p.tmux, append([]string{"-S", p.sock}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (p *tmuxPane) start(shell string) {
	p.t.Helper()
	p.n++
	p.run("-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "40", "-s", p.target(), shell)
	// keep the pane after gqlsh exits, so the test can see that it did
	p.run("set-option", "-t", p.target(), "remain-on-exit", "on")
}

func (p *tmuxPane) keys(keys ...string) {
	p.t.Helper()
	for i, k := range keys {
		// tmux reads an argument ending in ';' as a command separator
		if strings.HasSuffix(k, ";") {
			keys[i] = k[:len(k)-1] + `\;`
		}
	}
	p.run(append([]string{"send-keys", "-t", p.target()}, keys...)...)
}

func (p *tmuxPane) typeLine(s string) {
	p.t.Helper()
	p.keys("-l", s)
	p.keys("Enter")
}

func (p *tmuxPane) screen() string {
	return p.run("capture-pane", "-p", "-t", p.target())
}

// waitFor polls the screen until it shows want, for up to 15 seconds.
func (p *tmuxPane) waitFor(want string) {
	p.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := p.screen()
		if strings.Contains(s, want) {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("screen never showed %q; it shows:\n%s", want, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitDead waits for gqlsh to exit.
func (p *tmuxPane) waitDead() {
	p.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if strings.TrimSpace(p.run("display-message", "-p", "-t", p.target(), "#{pane_dead}")) == "1" {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("gqlsh did not exit; the screen shows:\n%s", p.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
