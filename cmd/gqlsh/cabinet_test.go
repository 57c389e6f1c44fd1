package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/store/cabinet"
)

// remembers runs gqlsh twice in env lookup with args: a Commit in the
// first run, a Recall in the second that must see it.
func remembers(t *testing.T, lookup func(string) (string, bool), args ...string) {
	t.Helper()
	out, errOut, code := gqlshEnv(t, lookup, "", append(args, "-c", "INSERT (:TSK {nick: \"TSK_login\", title: \"Fix login\"});\n:flush")...)
	if code != 0 || errOut != "" || !strings.Contains(out, "ok v=1 +1 node 2 properties set\n") || !strings.Contains(out, "flushed to ") {
		t.Fatalf("first run: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	out, errOut, code = gqlshEnv(t, lookup, "MATCH (t:TSK);\nINSERT (:NOTE);\n:sessions\n", args...)
	if code != 0 || errOut != "" || !strings.Contains(out, `(tsk1:TSK {nick: "TSK_login", title: "Fix login"})`) ||
		!strings.Contains(out, "ok v=2 +1 node\n") || !strings.Contains(out, "* main v=2 nodes=2 edges=0\n") {
		t.Fatalf("second run does not remember the first: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

func exists(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return fi
}

func TestCabinetFlag(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.gf")
	lookup := tempEnv(t, map[string]string{"GOLDFISH_CABINET": filepath.Join(dir, "env.gf")})
	remembers(t, lookup, "--cabinet", path)
	exists(t, path)
	// --cabinet wins over $GOLDFISH_CABINET and the data directory
	for _, p := range []string{filepath.Join(dir, "env.gf"), filepath.Join(dir, "data")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was created although --cabinet was given", p)
		}
	}
	// other sessions are remembered too, and :use catalog lists them
	out, errOut, code := gqlshEnv(t, lookup, "", "--cabinet", path, "--session", "work", "-c", "INSERT (:A)")
	if code != 0 {
		t.Fatalf("work: %d %s", code, errOut)
	}
	out, errOut, code = gqlshEnv(t, lookup, ":use catalog\nMATCH (s:SESSION {name: \"work\"});\n", "--cabinet", path)
	if code != 0 || !strings.Contains(out, `name: "work"`) || !strings.Contains(out, "version: 1") {
		t.Fatalf("catalog: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

func TestCabinetFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "env.gf")
	lookup := tempEnv(t, map[string]string{"GOLDFISH_CABINET": path, "XDG_DATA_HOME": filepath.Join(dir, "data")})
	remembers(t, lookup)
	exists(t, path)
	if _, err := os.Stat(filepath.Join(dir, "data")); err == nil {
		t.Error("the data directory was created although $GOLDFISH_CABINET was set")
	}
}

func TestCabinetDefaultPath(t *testing.T) {
	t.Run("XDG_DATA_HOME", func(t *testing.T) {
		data := filepath.Join(t.TempDir(), "xdg")
		remembers(t, tempEnv(t, map[string]string{"XDG_DATA_HOME": data}))
		exists(t, filepath.Join(data, "goldfish", "cabinet.gf"))
		if fi := exists(t, filepath.Join(data, "goldfish")); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
			t.Errorf("goldfish directory mode %v, want 0700", fi.Mode().Perm())
		}
	})
	t.Run("HOME", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("the data directory is %AppData% on Windows")
		}
		home := filepath.Join(t.TempDir(), "home")
		lookup := tempEnv(t, map[string]string{"HOME": home, "XDG_DATA_HOME": ""})
		remembers(t, lookup)
		want := filepath.Join(home, ".local", "share", "goldfish", "cabinet.gf")
		if runtime.GOOS == "darwin" {
			want = filepath.Join(home, "Library", "Application Support", "goldfish", "cabinet.gf")
		}
		exists(t, want)
		// the banner names it
		ft := &fakeTerm{lines: []string{":quit"}}
		e := env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, terminal: true,
			newTerm: func(string) (termIO, error) { return ft, nil }, lookupEnv: lookup}
		t.Setenv("GQLSH_HISTORY", filepath.Join(t.TempDir(), "h"))
		if code := runEnv(nil, e); code != 0 || !strings.Contains(ft.out.String(), "(cabinet "+want+"): session main.") {
			t.Fatalf("exit %d, banner %q", code, ft.out.String())
		}
	})
	t.Run("no HOME", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("the data directory is %AppData% on Windows")
		}
		_, errOut, code := gqlshEnv(t, tempEnv(t, map[string]string{"HOME": "", "XDG_DATA_HOME": ""}), "", "-c", "INSERT (:A)")
		if code != 1 || !strings.Contains(errOut, "cannot find the data directory") || !strings.Contains(errOut, "--mem") {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
	})
}

func TestDataDir(t *testing.T) {
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	cases := []struct {
		goos string
		vars map[string]string
		want string
	}{
		{"linux", map[string]string{"HOME": "/h", "XDG_DATA_HOME": "/x"}, "/x"},
		{"linux", map[string]string{"HOME": "/h"}, filepath.Join("/h", ".local", "share")},
		{"linux", map[string]string{"HOME": "/h", "XDG_DATA_HOME": "relative"}, filepath.Join("/h", ".local", "share")},
		{"freebsd", map[string]string{"HOME": "/h"}, filepath.Join("/h", ".local", "share")},
		{"darwin", map[string]string{"HOME": "/h"}, filepath.Join("/h", "Library", "Application Support")},
		{"windows", map[string]string{"AppData": `C:\Users\u\AppData\Roaming`}, `C:\Users\u\AppData\Roaming`},
		{"windows", map[string]string{"APPDATA": `C:\Users\u\AppData\Roaming`}, `C:\Users\u\AppData\Roaming`},
		{"windows", map[string]string{}, ""},
		{"linux", map[string]string{}, ""},
	}
	for _, c := range cases {
		got, err := dataDir(c.goos, env(c.vars))
		if got != c.want || (err != nil) != (c.want == "") {
			t.Errorf("dataDir(%s, %v) = %q, %v; want %q", c.goos, c.vars, got, err, c.want)
		}
	}
}

func TestMemNoFile(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	lookup := tempEnv(t, map[string]string{"XDG_DATA_HOME": data})
	for i := 0; i < 2; i++ { // forgets between runs
		out, errOut, code := gqlshEnv(t, lookup, "", "--mem", "-c", "INSERT (:A);\n:flush")
		if code != 0 || !strings.Contains(out, "ok v=1 +1 node\nnothing to flush: the sessions are in memory") {
			t.Fatalf("--mem: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
		}
	}
	if _, err := os.Stat(data); err == nil {
		t.Error("--mem created the data directory")
	}
	_, errOut, code := gqlshEnv(t, lookup, "", "--mem", "--cabinet", filepath.Join(data, "c.gf"), "-c", "INSERT (:A)")
	if code != 2 || !strings.Contains(errOut, "give --cabinet or --mem, not both") {
		t.Fatalf("--mem --cabinet: exit %d, %q", code, errOut)
	}
	// the banner says memory
	ft := &fakeTerm{lines: []string{":quit"}}
	t.Setenv("GQLSH_HISTORY", filepath.Join(t.TempDir(), "h"))
	e := env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, terminal: true,
		newTerm: func(string) (termIO, error) { return ft, nil }, lookupEnv: lookup}
	if code := runEnv([]string{"--mem"}, e); code != 0 || !strings.Contains(ft.out.String(), "(memory): session main.") {
		t.Fatalf("exit %d, banner %q", code, ft.out.String())
	}
}

// TestCabinetInUse: while the cabinet is open (here by the test itself,
// as another gqlsh would hold it), gqlsh stops with the in-use error and
// the path, exit status 1, and the holder's data is untouched.
func TestCabinetInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "busy.gf")
	db, err := goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, lookup := range []func(string) (string, bool){tempEnv(t, nil), tempEnv(t, map[string]string{"GOLDFISH_CABINET": path})} {
		args := []string{"-c", "INSERT (:A)"}
		if v, _ := lookup("GOLDFISH_CABINET"); v == "" {
			args = append([]string{"--cabinet", path}, args...)
		}
		out, errOut, code := gqlshEnv(t, lookup, "", args...)
		if code != 1 || out != "" || !strings.Contains(errOut, "file is in use by another process") || !strings.Contains(errOut, path) {
			t.Fatalf("second open: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
		}
	}
	db.Close()

	// Two gqlsh: the first, interactive, waits at its prompt holding the
	// file; the second stops with the in-use error; once the first quits,
	// a third opens the file and sees the first one's Commit.
	lookup := tempEnv(t, map[string]string{"GOLDFISH_CABINET": path})
	t.Setenv("GQLSH_HISTORY", filepath.Join(t.TempDir(), "h"))
	first := &waitTerm{fakeTerm: fakeTerm{lines: []string{"INSERT (:A {nick: 'first'});"}}, idle: make(chan struct{}), quit: make(chan struct{})}
	done := make(chan int)
	go func() {
		done <- runEnv(nil, env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, terminal: true,
			newTerm: func(string) (termIO, error) { return first, nil }, lookupEnv: lookup})
	}()
	<-first.idle // the first gqlsh has committed and waits for input
	out, errOut, code := gqlshEnv(t, lookup, "", "-c", "INSERT (:A)")
	if code != 1 || out != "" || !strings.Contains(errOut, "gqlsh: cabinet: file is in use by another process: "+path) {
		t.Errorf("second gqlsh: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	close(first.quit)
	if code := <-done; code != 0 {
		t.Fatalf("first gqlsh: exit %d\n%s%s", code, first.out.String(), first.err.String())
	}
	out, errOut, code = gqlshEnv(t, lookup, "", "-c", "MATCH (a:A {nick: 'first'})")
	if code != 0 || !strings.Contains(out, `nick: "first"`) {
		t.Fatalf("after the first quit: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

// waitTerm is a terminal whose person types lines, then stays idle (idle
// is closed) until quit is closed, then presses Ctrl-D.
type waitTerm struct {
	fakeTerm
	idle, quit chan struct{}
}

func (w *waitTerm) Next(ctx context.Context, p string) (string, error) {
	if len(w.lines) > 0 {
		return w.fakeTerm.Next(ctx, p)
	}
	close(w.idle)
	<-w.quit
	return w.fakeTerm.Next(ctx, p)
}

func TestCabinetDamaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.gf")
	if err := os.WriteFile(path, bytes.Repeat([]byte("not a cabinet "), 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := gqlsh(t, "", "--cabinet", path, "-c", "INSERT (:A)")
	if code != 1 || out != "" || !strings.Contains(errOut, "damaged") || !strings.Contains(errOut, path) {
		t.Fatalf("damaged file: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

func TestCabinetMetaCommands(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.gf")
	backup := filepath.Join(dir, "copy.gf")
	lookup := tempEnv(t, nil)
	script := "INSERT (:A {nick: 'a'})-[:r]->(:B);\nMATCH (a:A {nick: 'a'}) DETACH DELETE a;\n:purge\n:use w\nINSERT (:W);\n:use main\n" +
		":flush\n:backup " + backup + "\n:drop w\n:drop main\n:sessions\n"
	out, errOut, code := gqlshEnv(t, lookup, script, "--cabinet", path, "--fail-at-end")
	for _, w := range []string{"purged 2 recycled elements from main: v=3\n", "flushed to " + path + "\n",
		"backed up " + path + " to " + backup, "dropped session w (v=1 nodes=1 edges=0)", "* main v=3 nodes=1 edges=0\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("stdout lacks %q\n%s", w, out)
		}
	}
	if code != 1 || !strings.Contains(errOut, "main is the current session and cannot be dropped") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	out, _, _ = gqlshEnv(t, lookup, ":sessions\n", "--cabinet", path)
	if out != "* main v=3 nodes=1 edges=0\n" {
		t.Errorf("after the drop: %q", out)
	}
	out, _, _ = gqlshEnv(t, lookup, ":sessions\n", "--cabinet", backup)
	if out != "* main v=3 nodes=1 edges=0\n  w    v=1 nodes=1 edges=0\n" {
		t.Errorf("the backup: %q", out)
	}
}

// TestAgentFlag: --agent names the agent of every Recall and Commit of
// the run (interactive transactions included); the session keeps what
// each agent read across runs, and the log who committed.
func TestAgentFlag(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.gf")
	lookup := tempEnv(t, nil)
	out, errOut, code := gqlshEnv(t, lookup, "", "--cabinet", path, "--agent", "ana", "-c", "INSERT (:A {nick: 'a'}); MATCH (a:A);")
	if code != 0 || !strings.Contains(out, "ok v=1") {
		t.Fatalf("first run: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	ft := &fakeTerm{lines: []string{"START TRANSACTION;", "INSERT (:B);", "COMMIT;", "MATCH (a:A);", ":agents"}}
	t.Setenv("GQLSH_HISTORY", filepath.Join(dir, "h"))
	e := env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, terminal: true,
		newTerm: func(string) (termIO, error) { return ft, nil }, lookupEnv: lookup}
	if code := runEnv([]string{"--cabinet", path, "--agent", "bob"}, e); code != 0 || ft.err.Len() != 0 {
		t.Fatalf("interactive run: exit %d, stderr %s", code, ft.err.String())
	}
	if want := "  ana last read v=1 reads=1\n* bob last read v=2 reads=1\n"; !strings.Contains(ft.out.String(), want) {
		t.Fatalf("interactive :agents\n%s\nwant %q", ft.out.String(), want)
	}
	cab, err := cabinet.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	img, err := cab.Load("main")
	cab.Close()
	if err != nil || len(img.Log) != 2 || img.Log[0].Agent != "ana" || img.Log[1].Agent != "bob" {
		t.Fatalf("log %+v, %v", img, err)
	}
	out, _, code = gqlshEnv(t, lookup, ":agent\n:agents\n", "--cabinet", path)
	if code != 0 || out != "no agent set; :agent NAME reads and commits as NAME\n  ana last read v=1 reads=1\n  bob last read v=2 reads=1\n" {
		t.Fatalf("third run: exit %d, stdout %q", code, out)
	}
}
