package main

import (
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
	bin := filepath.Join(dir, "gqlsh")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = goEnv // the real caches, not the temp HOME of TestMain
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
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
	// Up; the cabinet remembers the first run, so its nick is taken.
	tm.start(shell)
	tm.waitFor("main>")
	tm.keys("-l", "INSERT")
	tm.keys("Up")
	tm.waitFor("main> " + want)
	tm.keys("Enter")
	tm.waitFor(`GQLSTATUS 40002: statement 1: nick "TSK_login" is already used`)
	tm.typeLine(`MATCH (t:TSK {nick: "TSK_login"});`)
	tm.waitFor(`(tsk1:TSK {nick: "TSK_login", title: "Fix login"})`)
	tm.keys("C-d")
	tm.waitDead()

	// --mem forgets: the same INSERT applies again.
	tm.start(shell + " --mem")
	tm.waitFor("(memory): session main.")
	tm.typeLine(want)
	tm.waitFor("ok v=1 +2 nodes +1 edge 3 properties set")
	tm.keys("C-d")
	tm.waitDead()
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
