package repl

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldfish-gql/goldfish"
)

// TestFlushReadOnly: :flush on a cabinet opened read-only says that
// nothing was written, instead of "flushed to".
func TestFlushReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.gf")
	db, err := goldfish.Open(goldfish.WithCabinet(path))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := db.Session(context.Background(), "main")
	if _, err := s.Commit(context.Background(), "INSERT (:A)", nil); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro, err := goldfish.Open(goldfish.WithCabinet(path), goldfish.WithReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	rs, _ := ro.Session(context.Background(), "main")
	out, errOut, code := runText(t, rs, ":flush\n", Options{DB: ro})
	if code != 1 || out != "" || !strings.HasPrefix(errOut, "GQLSTATUS 25006: nothing to flush: the cabinet "+path+" is open read-only") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
