package conformance

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/server"
)

// TestConformanceRemote runs the whole suite over HTTP against a server
// on a database in memory: every case but the few a server cannot run
// (reopen, script, an exact token count) passes, each skip says why,
// and two runs on one server keep apart.
func TestConformanceRemote(t *testing.T) {
	db, err := goldfish.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv, err := server.New(db, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	embedded, err := Run(context.Background(), Suite())
	if err != nil {
		t.Fatal(err)
	}
	for run := 0; run < 2; run++ {
		rep, err := RunRemote(context.Background(), Suite(), RemoteOptions{URL: ts.URL})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Failures {
			t.Error(f)
		}
		for _, s := range rep.Skipped {
			if s.Reason == "" {
				t.Errorf("%s: %s skipped without a reason", s.Pos, s.Cmd)
			}
		}
		if rep.Passed+len(rep.Skipped) != embedded.Passed || rep.Passed < embedded.Passed*95/100 {
			t.Errorf("run %d: %d passed and %d skipped over HTTP; %d passed embedded", run, rep.Passed, len(rep.Skipped), embedded.Passed)
		}
		t.Logf("run %d: %d passed, %d skipped over HTTP", run, rep.Passed, len(rep.Skipped))
	}
}
