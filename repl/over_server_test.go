package repl

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/client"
	"github.com/goldfish-gql/goldfish/server"
)

// The shell's test tables run twice: on the embedded database, as
// written, and on the same database through a server (gqlsh --url), by
// TestTablesOverServer, which runs this test binary again with
// overServerEnv set. Each shell a test starts (runShell, newShell) then
// gets the server's session and host in place of the database's, and the
// test's own checks (the output, the session's version) hold unchanged:
// the shell prints on a server what it prints embedded.
const overServerEnv = "GOLDFISH_SHELL_OVER_SERVER"

var overServer = os.Getenv(overServerEnv) == "1"

// servedTables are the tests TestTablesOverServer runs over a server:
// the shell's tables, but those of Ctrl-C (a signal to this process,
// whose running call the server only sees as a dropped request) and of
// a session dropped under the shell (the server opens sessions by name
// on each call, so a session dropped there is a new, empty one the next
// time, as the shell's :use makes it).
var servedTables = []string{
	"TestEveryErrorHasAPosition", "TestErrorInAFileJSON", "TestLongLineWindow", "TestCaretAfterWideRunes",
	"TestMetaErrorsAreGQLSTATUS",
	"TestStatementsRunAsTheyAreRead", "TestStatementSizeLimit", "TestByteOrderMark", "TestChunkBoundaries", "TestLoneSemicolon",
	"TestDiffHistory", "TestKindsAndHabits", "TestMissingParamNamesParam",
	"TestParamLiterals", "TestOutputFile", "TestOutputFilePlain",
	"TestExportAbsorb", "TestRunGQL", "TestRunFailAtEnd", "TestRunJSON",
	"TestSetKZero", "TestSetPinned",
	"TestInteractive", "TestMeta", "TestComplete", "TestMetaCabinet",
	"TestErrorCodes", "TestInteractiveTransaction", "TestScriptTransaction",
}

// TestTablesOverServer runs the shell's tables with every shell on a
// server, in a process of its own.
func TestTablesOverServer(t *testing.T) {
	if overServer {
		t.Skip("this process runs the tables over a server already")
	}
	if testing.Short() {
		t.Skip("runs the shell's tables again (-short)")
	}
	args := []string{"-test.run", "^(" + strings.Join(servedTables, "|") + ")$", "-test.count=1"}
	if testing.Verbose() {
		args = append(args, "-test.v")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), overServerEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the shell's tables over a server: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "PASS") {
		t.Fatalf("the tables over a server ran no test:\n%s", out)
	}
	t.Logf("%s", out)
}

// dbOf is the database of each session newSession and newDB made.
var dbOf sync.Map // *goldfish.Session → *goldfish.DB

// served are the servers of the databases, one each.
var served sync.Map // *goldfish.DB → *client.Client

// onServer is s and opts as the shell on a server gets them, over
// overServer; a session whose database is unknown stays embedded.
func onServer(t *testing.T, s *goldfish.Session, opts Options) (Session, Options) {
	t.Helper()
	if !overServer {
		return s, opts
	}
	v, ok := dbOf.Load(s)
	if !ok {
		return s, opts
	}
	db := v.(*goldfish.DB)
	c, err := clientOf(t, db)
	if err != nil {
		t.Errorf("serving the test's database: %v", err)
		return s, opts
	}
	rs, err := c.Session(context.Background(), s.Name())
	if err != nil {
		t.Errorf("opening %s on the server: %v", s.Name(), err)
		return s, opts
	}
	if opts.DB != nil {
		opts.DB, opts.Host = nil, Remote(c)
	}
	return rs, opts
}

func clientOf(t *testing.T, db *goldfish.DB) (*client.Client, error) {
	if v, ok := served.Load(db); ok {
		return v.(*client.Client), nil
	}
	srv, err := server.New(db, server.Options{})
	if err != nil {
		return nil, err
	}
	ts := httptest.NewServer(srv)
	c, err := client.New(ts.URL, client.Options{})
	if err != nil {
		ts.Close()
		return nil, err
	}
	served.Store(db, c)
	t.Cleanup(func() {
		served.Delete(db)
		c.Close()
		ts.Close()
	})
	return c, nil
}

// runShell is Run, on a server over overServer.
func runShell(t *testing.T, ctx context.Context, s *goldfish.Session, in IO, opts Options) int {
	t.Helper()
	rs, o := onServer(t, s, opts)
	return Run(ctx, rs, in, o)
}

// newShell is NewShell, on a server over overServer.
func newShell(t *testing.T, s *goldfish.Session, in IO, opts Options) *Shell {
	t.Helper()
	rs, o := onServer(t, s, opts)
	return NewShell(rs, in, o)
}
