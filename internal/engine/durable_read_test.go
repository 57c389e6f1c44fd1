package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/values"
)

// gatedCabinet holds every Append until the test opens its gate, as a
// slow disk holds a Commit before its fsync.
type gatedCabinet struct {
	cabinet.Cabinet
	gate chan struct{}
}

func (g *gatedCabinet) Append(name string, e cabinet.Entry, m cabinet.Meta) *cabinet.Ticket {
	<-g.gate
	return g.Cabinet.Append(name, e, m)
}

// TestReadersSeeOnlyDurableVersions: while a Commit waits for its log
// entry to reach the disk, Recall, Version, Dump and the catalogue still
// show the version before it; once the Commit returns, they show it.
func TestReadersSeeOnlyDurableVersions(t *testing.T) {
	ctx := context.Background()
	bolt, err := cabinet.Open(filepath.Join(t.TempDir(), "c.gf"), nil)
	if err != nil {
		t.Fatal(err)
	}
	gc := &gatedCabinet{Cabinet: bolt, gate: make(chan struct{})}
	db, err := openTest(withCabinetBackend(gc))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.commitText(ctx, `INSERT (:TSK {nick: "t"})`, nil)
		done <- err
	}()
	catalog, _ := db.Session(context.Background(), CatalogName)
	// The Commit is applied in memory at once and then held before its
	// write; look several times while it is held.
	for range 20 {
		time.Sleep(time.Millisecond)
		sh, err := s.recallShape(ctx, `MATCH (t:TSK {nick: "t"})`, values.RecallOptions{NoPeaks: true})
		if err != nil {
			t.Fatal(err)
		}
		if sh.Version != 0 || sh.Cue != values.CueSkip || s.Version() != 0 || !strings.HasPrefix(s.Dump(), "version 0\n") {
			t.Fatalf("a reader sees version %d (cue %s, Version() %d) before the Commit is durable", sh.Version, sh.Cue, s.Version())
		}
		cs, err := catalog.recallShape(ctx, `MATCH (s:SESSION {name: "s"})`, values.RecallOptions{NoPeaks: true})
		if err != nil {
			t.Fatal(err)
		}
		if cs.Cue != values.CueSkip {
			t.Fatalf("the catalogue lists the session before its first Commit is durable:\n%s", cs.Text)
		}
	}
	close(gc.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	sh, err := s.recallShape(ctx, `MATCH (t:TSK {nick: "t"})`, values.RecallOptions{})
	if err != nil || sh.Version != 1 || sh.Cue != values.CueMatch {
		t.Fatalf("after the Commit returned: version %d, cue %s, err %v", sh.Version, sh.Cue, err)
	}
}

// TestDefaultBudgetIsExecs: the API's R is the executor's.
func TestDefaultBudgetIsExecs(t *testing.T) {
	if values.DefaultBudget != values.DefaultBudget {
		t.Fatalf("values.DefaultBudget %+v, exec's %+v", values.DefaultBudget, values.DefaultBudget)
	}
}
