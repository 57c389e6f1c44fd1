// Package pgtest gives tests a PostgreSQL server: the one
// $GOLDFISH_TEST_POSTGRES names (a URL), or else a throwaway one it
// starts from the distribution's binaries (initdb and pg_ctl in
// /usr/lib/postgresql/<major>/bin, or on $PATH) in a temporary directory,
// listening on a socket there only. initdb refuses to run as root, so as
// root the server runs as the postgres user. A watchdog stops the server
// and removes its directory once the test process is gone, however it
// ends. Tests skip only when neither is available.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/store/cabinet/postgres"
)

// Env names the server tests use when it is set.
const Env = "GOLDFISH_TEST_POSTGRES"

var (
	shared     *Server
	sharedErr  error
	sharedOnce sync.Once
)

// URL returns the URL of a server for tests: $GOLDFISH_TEST_POSTGRES, or
// one server this process starts once (and a watchdog stops when the
// process is gone). It skips t when there is neither.
func URL(t testing.TB) string {
	t.Helper()
	if u := os.Getenv(Env); u != "" {
		return u
	}
	sharedOnce.Do(func() { shared, sharedErr = start() })
	if sharedErr != nil {
		skipOrFail(t, sharedErr)
	}
	return shared.URL
}

// errNoBinaries: no PostgreSQL server binaries on this machine.
var errNoBinaries = fmt.Errorf("no PostgreSQL: set %s to a server's URL, or install the server (apt-get install postgresql)", Env)

func skipOrFail(t testing.TB, err error) {
	t.Helper()
	if err == errNoBinaries {
		t.Skip(err)
	}
	t.Fatal(err)
}

// Schema returns a new schema name, unique to the test, and drops the
// schema at the test's end.
func Schema(t testing.TB, url string) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "t_" + hex.EncodeToString(b[:])
	t.Cleanup(func() { _ = DropSchema(url, name) })
	return name
}

// DropSchema drops a schema and everything in it.
func DropSchema(url, schema string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return postgres.DropSchema(ctx, url, schema)
}

// Server is a throwaway PostgreSQL server.
type Server struct {
	URL string
	dir string // owned by the server's user: data/, the socket, the log
	bin string
	uid *syscall.Credential // nil: run as this process's user
}

// Start starts a server of the test's own (one it may stop and start
// again), and stops it at the test's end. It skips t when there are no
// binaries.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := start()
	if err != nil {
		skipOrFail(t, err)
	}
	t.Cleanup(func() { s.remove() })
	return s
}

// bindir finds the directory of initdb and pg_ctl: the newest major
// version under /usr/lib/postgresql, else $PATH.
func bindir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		a, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		b, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return a > b
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errNoBinaries
}

func start() (*Server, error) {
	bin, err := bindir()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin}
	dir, err := os.MkdirTemp("", "goldfish-pg-")
	if err != nil {
		return nil, err
	}
	s.dir = dir
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root, and there is no postgres user to run the server as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.uid = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	if out, err := s.run("initdb", "-D", s.data(), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	s.URL = "postgres://postgres@localhost/postgres?host=" + dir + "&sslmode=disable"
	s.watchdog()
	if err := s.Restart(); err != nil {
		s.remove()
		return nil, err
	}
	return s, nil
}

func (s *Server) data() string { return filepath.Join(s.dir, "data") }

func (s *Server) run(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if s.uid != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.uid}
	}
	return cmd.CombinedOutput()
}

// Restart starts the server (again), and waits until it takes
// connections. Its write-ahead log is not fsynced (fsync=off): the data
// survives a stop, not a crash of the machine, which is all a test asks.
func (s *Server) Restart() error {
	opts := fmt.Sprintf("-c listen_addresses='' -k %s -c fsync=off -c full_page_writes=off -c max_connections=200", s.dir)
	if out, err := s.run("pg_ctl", "-D", s.data(), "-l", filepath.Join(s.dir, "log"), "-o", opts, "-w", "-t", "60", "start"); err != nil {
		return fmt.Errorf("pg_ctl start: %v\n%s", err, out)
	}
	return nil
}

// Stop stops the server at once (immediate mode: as a crash, for the
// server's clients).
func (s *Server) Stop() error {
	if out, err := s.run("pg_ctl", "-D", s.data(), "-m", "immediate", "-w", "stop"); err != nil {
		return fmt.Errorf("pg_ctl stop: %v\n%s", err, out)
	}
	return nil
}

func (s *Server) remove() {
	_ = s.Stop()
	os.RemoveAll(s.dir)
}

// watchdog starts a process that outlives this one: once this process is
// gone it stops the server and removes its directory.
func (s *Server) watchdog() {
	script := fmt.Sprintf(`while [ -d /proc/%d ]; do sleep 0.5; done; %s -D %s -m immediate stop >/dev/null 2>&1; rm -rf %s`,
		os.Getpid(), shellQuote(filepath.Join(s.bin, "pg_ctl")), shellQuote(s.data()), shellQuote(s.dir))
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = "/"
	attr := &syscall.SysProcAttr{Setsid: true}
	if s.uid != nil {
		attr.Credential = s.uid
	}
	cmd.SysProcAttr = attr
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
